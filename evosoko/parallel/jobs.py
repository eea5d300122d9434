"""Independent jobs (one solver on one level with one seed) run on a backend, resumably.

- A :class:`Job` is a stable ``key`` and a picklable ``payload``; a job function maps the
  payload to a JSON-able ``dict``. The function is a module-level function so that it
  pickles by name.
- A backend runs the function on payloads and yields ``(position, result)`` as jobs finish
  (:class:`SerialBackend` in this process, :class:`ProcessBackend` on a local process pool,
  :class:`evosoko.parallel.dask_jobs.DaskBackend` on a Dask cluster, each job a task).
  Any object with the same ``imap_unordered``/``close`` methods plugs in;
  :func:`evosoko.parallel.backends.make_backend` builds the one a ``[parallel]`` table names.
- A :class:`Journal` appends each finished job's result as one flushed JSON line; rerunning
  with the same journal skips the jobs already in it, so an interrupted experiment resumes
  where it stopped.

Results are keyed by job, never by arrival order, so the output of an experiment does not
depend on the backend or on the number of workers.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evosoko.errors import EvosokoWarning
from evosoko.parallel.worker_lifetime import exit_with_parent

__all__ = [
    "Job",
    "JobBackend",
    "Journal",
    "ProcessBackend",
    "SerialBackend",
    "run_jobs",
]

log = logging.getLogger(__name__)

MAX_POOL_RESTARTS = 3
"""How often a broken process pool (a worker died) is replaced before giving up."""

JobFunction = Callable[[Any], dict]


@dataclass(frozen=True)
class Job:
    """One unit of work: ``key`` names it across runs (the journal uses it), ``payload`` is
    what the job function receives."""

    key: str
    payload: Any


class JobBackend(Protocol):
    """Runs ``function`` on each payload; yields ``(position, result)`` as each job finishes.

    The caller may stop iterating early; ``close`` then drops the jobs not yet started.
    A job that raises yields an ``{"error": ...}`` result instead of ending the iteration.
    """

    def imap_unordered(
        self, function: JobFunction, payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]: ...

    def close(self) -> None: ...

    # optional: ``abort()`` ends running jobs at once (used on Ctrl-C); ``close`` otherwise


def _guarded(function: JobFunction, payload: Any) -> dict:
    """Call ``function``; an exception becomes an ``error`` result carrying its traceback."""
    try:
        return function(payload)
    except Exception as error:  # noqa: BLE001 - a job's failure must not end the experiment
        return {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}


class SerialBackend:
    """Runs the jobs one after another in this process (lazily, so stopping early is free)."""

    def imap_unordered(
        self, function: JobFunction, payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        for position, payload in enumerate(payloads):
            yield position, _guarded(function, payload)

    def close(self) -> None:
        """Nothing to release."""


class ProcessBackend:
    """A local process pool; at most ``2 * workers`` jobs are queued at a time, so that
    stopping early wastes little. A pool broken by a dying worker is replaced and its
    unfinished jobs are submitted again (up to :data:`MAX_POOL_RESTARTS` times)."""

    def __init__(self, workers: int, warm_up: Callable[[], None] | None = None) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self.warm_up = warm_up
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=_start_worker, initargs=(self.warm_up,)
            )
        return self._pool

    def imap_unordered(
        self, function: JobFunction, payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        waiting = list(range(len(payloads)))[::-1]  # a stack: pop() takes the next in order
        running: dict[Future, int] = {}
        restarts = 0
        while waiting or running:
            while waiting and len(running) < 2 * self.workers:
                position = waiting.pop()
                future = self._executor().submit(_guarded, function, payloads[position])
                running[future] = position
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for future in sorted(done, key=running.__getitem__):
                position = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    waiting.append(position)
                    broken = True
                    continue
                yield position, result
            if broken:
                restarts += 1
                if restarts > MAX_POOL_RESTARTS:
                    raise RuntimeError("job workers keep dying; giving up")
                log.warning("a job worker died; restarting the pool and re-running its jobs")
                waiting.extend(running.values())
                waiting.sort(reverse=True)
                running.clear()
                self._discard_pool()

    def _discard_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Cancel jobs not started and wait for the running ones to end."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def abort(self) -> None:
        """Stop at once: end the worker processes, dropping the jobs they were running."""
        if self._pool is None:
            return
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None


def _start_worker(warm_up: Callable[[], None] | None = None) -> None:
    """Worker initializer: ignore Ctrl-C (it reaches the whole process group, but only the
    parent acts on it: it records what finished and ends the workers), end with the parent,
    then ``warm_up`` (compile the kernels the jobs use, so that no job's time includes
    compiling)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
    if warm_up is not None:
        warm_up()


class Journal:
    """Finished jobs, one JSON line ``{"key": ..., "result": {...}}`` each, appended and synced.

    A torn last line (the process died while writing it) is ignored, so its job runs again;
    the next record starts on a line of its own. A line that is not a job record anywhere
    else (damaged by hand or by the disk) is said in a warning naming its line, and its job
    runs again: the file is only ever appended to.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def finished(self) -> dict[str, dict]:
        """Results of the jobs recorded so far, by key (a later record of a key wins)."""
        results: dict[str, dict] = {}
        if not self.path.exists():
            return results
        with open(self.path, encoding="utf-8", errors="replace") as stream:
            for number, line in enumerate(stream, start=1):
                try:
                    record = json.loads(line) if line.endswith("\n") else None
                except json.JSONDecodeError:
                    record = None
                if isinstance(record, dict) and isinstance(record.get("result"), dict):
                    results[str(record.get("key"))] = record["result"]
                else:
                    cut = "damaged" if line.endswith("\n") else "cut short by a crash"
                    warnings.warn(
                        EvosokoWarning(
                            f"not a finished job's record ({cut}): that job runs again",
                            str(self.path),
                            number,
                        ),
                        stacklevel=2,
                    )
        return results

    def record(self, key: str, result: dict) -> None:
        """Append one finished job."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"key": key, "result": result}, sort_keys=True) + "\n"
        with open(self.path, "a+b") as stream:
            if stream.tell() > 0:
                stream.seek(-1, os.SEEK_END)
                if stream.read(1) != b"\n":  # a torn last line: the record starts a new one
                    line = "\n" + line
        with open(self.path, "a", encoding="utf-8", newline="\n") as stream:
            stream.write(line)
            stream.flush()
            os.fsync(stream.fileno())


def run_jobs(
    jobs: Iterable[Job],
    function: JobFunction,
    backend: JobBackend,
    *,
    journal: Journal | None = None,
    on_result: Callable[[Job, dict, bool], None] | None = None,
    stop_after: int | None = None,
    close_backend: bool = True,
) -> dict[str, dict]:
    """Run the jobs not yet in ``journal``; return every finished result by key.

    ``on_result(job, result, resumed)`` is called for each job already in the journal
    (``resumed=True``, first) and for each job as it finishes. Results carrying ``"error"``
    are reported but not journaled, so a rerun tries those jobs again. ``stop_after``: stop
    once this many new jobs have finished (the rest stay for a later resume; a test hook and
    a way to run an experiment in slices). ``close_backend=False`` leaves the backend's
    workers running for more jobs (an interruption or a crash still ends them).
    """
    jobs = list(jobs)
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("job keys must be unique")
    done = journal.finished() if journal is not None else {}
    results = {job.key: done[job.key] for job in jobs if job.key in done}
    if on_result is not None:
        for job in jobs:
            if job.key in results:
                on_result(job, results[job.key], True)
    todo = [job for job in jobs if job.key not in results]
    if stop_after is not None and stop_after <= 0:
        return results
    finished = 0
    try:
        for position, result in backend.imap_unordered(function, [job.payload for job in todo]):
            job = todo[position]
            results[job.key] = result
            if journal is not None and "error" not in result:
                journal.record(job.key, result)
            if on_result is not None:
                on_result(job, result, False)
            finished += 1
            if stop_after is not None and finished >= stop_after:
                break
    except BaseException:  # Ctrl-C or a crash: finished jobs are journaled; end the rest now
        getattr(backend, "abort", backend.close)()
        raise
    if close_backend:
        backend.close()
    return results
