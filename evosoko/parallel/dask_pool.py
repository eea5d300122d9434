"""The one Dask wrapper: tasks and jobs on a Dask cluster.

:class:`DaskPool` holds a connection (:class:`~evosoko.parallel.dask_cluster.DaskConnection`:
an existing scheduler or a local cluster started for it) and offers what the GA's evaluators
(:mod:`evosoko.evolve.dask_evaluation`) and the job runners use: :meth:`DaskPool.task_queue`
(results as they finish), :meth:`DaskPool.results_in_order` (all results in order, batches lost
with killed workers submitted again) and the job backend's :meth:`DaskPool.imap_unordered`.

Failures: a task that raises is run again up to ``retries`` times; a task whose worker dies is
moved by the scheduler to another worker (Dask's ``allowed-failures`` bounds how many workers
one task may take down before it fails with ``KilledWorker``). A job whose workers kept dying
or that was cancelled becomes an ``{"error": ...}`` result, so the experiment goes on and a
rerun tries that job again.

Workers of a remote cluster need evosoko installed (functions pickle by name), and files that
tasks read must be at the same paths on every machine. Local workers ignore Ctrl-C (it reaches
the whole process group; this process stops the run and closes the cluster) and end when this
process dies (:class:`~evosoko.parallel.dask_plugins.IgnoreInterrupts`). This
module imports ``distributed``; :func:`evosoko.parallel.backends.make_backend`
imports it only when ``dask`` is chosen.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from distributed import KilledWorker, WorkerPlugin, as_completed

from evosoko.parallel.dask_cluster import DaskConnection
from evosoko.parallel.dask_plugins import WarmUpPlugin
from evosoko.parallel.pool import guarded

__all__ = ["MAX_RESUBMITS", "DaskPool", "DaskTaskQueue"]

log = logging.getLogger(__name__)

MAX_RESUBMITS = 3
"""How often one :meth:`DaskPool.results_in_order` call submits tasks again after they failed
with a killed worker."""

TASK_POLL_SECONDS = 0.01
"""How often a :class:`DaskTaskQueue` looks whether a task (an island's epoch, a search) has
finished: tasks that long make the polling free."""

WARM_UP_PLUGIN = "evosoko-warm-up"
"""The name prefix of warm-up registrations."""


class DaskPool:
    """Tasks on an existing scheduler (``address``) or on a local cluster of
    ``local_workers`` processes started here and closed by :meth:`close`.

    ``warm_up`` (picklable) runs on every worker, those that join later too; a task that
    raises is run again up to ``retries`` times.
    """

    def __init__(
        self,
        address: str | None = None,
        local_workers: int | None = None,
        *,
        retries: int = 0,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        self.connection = DaskConnection(address, local_workers)
        self.client = self.connection.client
        self.retries = retries
        self.resubmits = 0
        self._warm_up_name: str | None = None
        self._jobs: dict[Any, int] = {}
        if warm_up is not None:
            try:
                self._warm_up_name = self.register_plugin(WarmUpPlugin(warm_up), WARM_UP_PLUGIN)
            except BaseException:
                self.connection.close()
                raise

    def register_plugin(self, plugin: WorkerPlugin, prefix: str) -> str:
        """Install ``plugin`` on every worker (now, and on those that join later) under a new
        name starting with ``prefix``; the name, for :meth:`unregister_plugin`."""
        name = f"{prefix}-{uuid.uuid4().hex}"
        self.client.register_plugin(plugin, name=name)
        return name

    def unregister_plugin(self, name: str) -> None:
        """Remove a plugin from the workers; a scheduler that is gone is only logged."""
        if self.client.status == "running":
            try:
                self.client.unregister_worker_plugin(name)
            except Exception as error:  # noqa: BLE001 - the scheduler may be gone; still disconnect
                log.warning("could not remove %s from the Dask workers: %s", name, error)

    def submit(self, task: Callable[..., object], *args: object) -> Any:
        """A future of ``task(*args)`` on the cluster, under a key of its own."""
        return self.client.submit(
            task, *args, key=f"evosoko-task-{uuid.uuid4().hex}", retries=self.retries, pure=False
        )

    def task_queue(self, task: Callable[..., object], prefix: tuple = ()) -> DaskTaskQueue:
        """A queue of ``task(*prefix, *args)`` tasks whose results come as they finish."""
        return DaskTaskQueue(self, task, prefix)

    def results_in_order(self, task: Callable[..., object], calls: Sequence[tuple]) -> list:
        """``task(*args)`` for each tuple of ``calls``, gathered in one round trip; the results
        in order. Tasks that failed with a killed worker are submitted again, up to
        :data:`MAX_RESUBMITS` times per call (counted in ``resubmits``)."""
        results: list[object] = [None] * len(calls)
        pending = list(range(len(calls)))
        for attempt in range(MAX_RESUBMITS + 1):
            if not pending:
                return results
            if attempt > 0:
                self.resubmits += 1
                log.warning("re-submitting %d task(s) whose workers died", len(pending))
            pending = self._gather(task, calls, pending, results)
        if pending:
            raise RuntimeError(
                f"tasks killed their Dask workers {MAX_RESUBMITS + 1} times in one call"
            )
        return results

    def _gather(
        self, task: Callable[..., object], calls: Sequence[tuple], pending: list[int], results: list
    ) -> list[int]:
        """Run the ``pending`` calls and store their results; the positions lost with killed
        workers (any other failure propagates)."""
        call = uuid.uuid4().hex
        futures = self.client.map(
            task,
            *zip(*(calls[i] for i in pending)),
            key=[f"evosoko-call-{call}-{i}" for i in pending],
            retries=self.retries,
            pure=False,
        )
        try:
            finished = self.client.gather(futures)
        except KilledWorker:
            finished = [_result_or_lost(future) for future in futures]
        lost = []
        for index, result in zip(pending, finished):
            if result is _LOST:
                lost.append(index)
            else:
                results[index] = result
        return lost

    def imap_unordered(
        self, function: Callable[[Any], dict], payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        """The job backend's method: ``(position, result)`` as each job finishes; at most twice
        the cluster's worker threads (counted again as jobs finish, so that workers joining
        later get work) are queued at a time."""
        if not payloads:
            return
        waiting = list(range(len(payloads)))[::-1]  # a stack: pop() takes the next in order
        batch = uuid.uuid4().hex
        finished = as_completed(loop=self.client.loop)

        def top_up() -> None:
            window = 2 * self.connection.worker_threads() if waiting else 0
            while waiting and len(self._jobs) < window:
                position = waiting.pop()
                future = self.client.submit(
                    guarded,
                    function,
                    payloads[position],
                    key=f"evosoko-job-{batch}-{position}",
                    retries=self.retries,
                    pure=False,
                )
                self._jobs[future] = position
                finished.add(future)

        top_up()
        for future in finished:
            position = self._jobs.pop(future)
            yield position, _job_result(future)
            top_up()

    def close(self) -> None:
        """Cancel the jobs not finished, remove the warm-up and disconnect (closing a local
        cluster)."""
        try:
            if self._jobs:
                self.client.cancel(list(self._jobs))
                self._jobs.clear()
            if self._warm_up_name is not None and self.connection.cluster is None:
                self.unregister_plugin(self._warm_up_name)  # a local cluster ends with us
                self._warm_up_name = None
        finally:
            self.connection.close()

    def abort(self) -> None:
        """Stop at once (Ctrl-C): the same as :meth:`close`, since cancelling is immediate."""
        self.close()


class DaskTaskQueue:
    """Tasks on a :class:`DaskPool`, each under a key; results come back as they finish (a
    task whose worker dies is moved by the scheduler, up to its ``allowed-failures``)."""

    def __init__(self, pool: DaskPool, task: Callable[..., object], prefix: tuple = ()) -> None:
        self._pool = pool
        self._task = task
        self._prefix = prefix
        self._running: dict[Any, Hashable] = {}

    def submit(self, key: Hashable, *args: object) -> None:
        """Start ``task(*prefix, *args)`` on the cluster."""
        self._running[self._pool.submit(self._task, *self._prefix, *args)] = key

    def next_result(self, timeout: float | None = None) -> tuple[Hashable, object] | None:
        """The key and result of a finished task: waits for one, at most ``timeout`` seconds
        (None when none finished by then, or nothing is pending)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._running:
            done = [future for future in self._running if future.done()]
            if done:
                future = min(done, key=lambda f: f.key)  # any order is fine: keys say which
                key = self._running.pop(future)
                return key, future.result()
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(TASK_POLL_SECONDS)
        return None

    def cancel(self) -> None:
        """Forget every pending task (cancelled on the cluster)."""
        if self._running:
            self._pool.client.cancel(list(self._running))
        self._running.clear()

    def end_running(self) -> None:
        """As :meth:`cancel`: a search running on a Dask worker finishes unseen."""
        self.cancel()


_LOST = object()
"""Stands for the result of a task lost with its killed workers."""


def _result_or_lost(future: Any) -> object:
    """The task's result, or :data:`_LOST` when it failed because its workers kept dying."""
    try:
        return future.result()
    except KilledWorker as error:
        log.warning("task %s failed: %s", future.key, error)
        return _LOST


def _job_result(future: Any) -> dict:
    """The job's result; a task lost to dying workers or cancelled becomes an error result."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - KilledWorker, CancelledError, ...
        log.warning("job task %s failed: %s", future.key, error)
        return {"error": f"{type(error).__name__}: {error}"}
