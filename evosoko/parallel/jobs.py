"""Independent jobs (one solver on one level with one seed) run on a backend, resumably.

- A :class:`Job` is a stable ``key`` and a picklable ``payload``; a job function maps the
  payload to a JSON-able ``dict``. The function is a module-level function so that it
  pickles by name.
- A backend runs the function on payloads and yields ``(position, result)`` as jobs finish
  (:class:`SerialBackend` in this process, :class:`evosoko.parallel.pool.ProcessPool` on a
  local process pool, :class:`evosoko.parallel.dask_pool.DaskPool` on a Dask cluster, each job
  a task). Any object with the same ``imap_unordered``/``close``/``abort`` methods plugs in;
  :func:`evosoko.parallel.backends.make_backend` builds the one a ``[parallel]`` table names.
- A :class:`Journal` appends each finished job's result as one flushed JSON line; rerunning
  with the same journal skips the jobs already in it, so an interrupted experiment resumes
  where it stopped.

Results are keyed by job, never by arrival order, so the output of an experiment does not
depend on the backend or on the number of workers.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evosoko.errors import EvosokoWarning
from evosoko.parallel.pool import guarded

__all__ = [
    "Job",
    "JobBackend",
    "Journal",
    "SerialBackend",
    "run_jobs",
]

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

    def abort(self) -> None:
        """End the running jobs at once (Ctrl-C)."""
        ...


class SerialBackend:
    """Runs the jobs one after another in this process (lazily, so stopping early is free)."""

    def imap_unordered(
        self, function: JobFunction, payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        for position, payload in enumerate(payloads):
            yield position, guarded(function, payload)

    def close(self) -> None:
        """Nothing to release."""

    def abort(self) -> None:
        """Nothing to stop."""


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
        backend.abort()
        raise
    if close_backend:
        backend.close()
    return results
