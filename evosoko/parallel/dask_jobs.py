"""A job backend on a Dask cluster: each job (one solver on one level with one seed) is a task.

:class:`DaskBackend` has the interface of :class:`evosoko.parallel.jobs.JobBackend`, so
``compare``, ``sweep`` and Optuna tuning use it unchanged through
:func:`evosoko.parallel.backends.make_backend`. At most ``2 ×`` the cluster's worker threads
(counted again as jobs finish, so workers that join later get work) are queued at a time, so
stopping early wastes little. A job that raises becomes an ``{"error":
...}`` result (in the worker, like every backend); a job whose workers kept dying
(``KilledWorker``) or that was cancelled becomes one too, so the experiment goes on and a
rerun tries that job again. A worker that dies once is not an error: the scheduler moves its
job to another worker.

Workers of a remote cluster need evosoko installed (the job function pickles by name), and the
level files and configurations the jobs read must be at the same paths on every machine.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from evosoko.parallel.dask_cluster import DaskConnection
from evosoko.parallel.jobs import JobFunction, _guarded

__all__ = ["DaskBackend"]

log = logging.getLogger(__name__)


class DaskBackend:
    """Runs jobs as tasks on an existing scheduler (``address``) or on a local cluster of
    ``local_workers`` processes started here and closed by :meth:`close`."""

    def __init__(
        self,
        address: str | None = None,
        local_workers: int | None = None,
        *,
        retries: int = 0,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        self._connection = DaskConnection(address, local_workers)
        self.client = self._connection.client
        self._warm_up_name: str | None = None
        if warm_up is not None:  # on every worker, those that join later too
            from evosoko.parallel.dask_plugins import register_warm_up

            try:
                self._warm_up_name = register_warm_up(self._connection, warm_up)
            except BaseException:
                self._connection.close()
                raise
        self.retries = retries
        self._running: dict[Any, int] = {}

    def imap_unordered(
        self, function: JobFunction, payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        """Yield ``(position, result)`` as each job finishes."""
        from distributed import as_completed

        if not payloads:
            return
        waiting = list(range(len(payloads)))[::-1]  # a stack: pop() takes the next in order
        batch = uuid.uuid4().hex

        def submit() -> Any:
            position = waiting.pop()
            future = self.client.submit(
                _guarded,
                function,
                payloads[position],
                key=f"evosoko-job-{batch}-{position}",
                retries=self.retries,
                pure=False,
            )
            self._running[future] = position
            return future

        finished = as_completed(loop=self.client.loop)
        self._top_up(finished, submit, waiting)
        for future in finished:
            position = self._running.pop(future)
            yield position, _job_result(future)
            self._top_up(finished, submit, waiting)

    def _top_up(self, finished: Any, submit: Callable[[], Any], waiting: list[int]) -> None:
        """Queue jobs until twice the cluster's current worker threads are queued, so that
        workers joining later get work too."""
        if not waiting:
            return
        window = 2 * self._connection.worker_threads()
        while waiting and len(self._running) < window:
            finished.add(submit())

    def close(self) -> None:
        """Cancel the jobs not finished, remove the warm-up and disconnect (closing a local
        cluster)."""
        try:
            if self._running:
                self.client.cancel(list(self._running))
                self._running.clear()
            if self._warm_up_name is not None:
                from evosoko.parallel.dask_plugins import unregister_warm_up

                unregister_warm_up(self._connection, self._warm_up_name)
                self._warm_up_name = None
        finally:
            self._connection.close()

    def abort(self) -> None:
        """Stop at once (Ctrl-C): the same as :meth:`close`, since cancelling is immediate."""
        self.close()


def _job_result(future: Any) -> dict:
    """The job's result; a task lost to dying workers or cancelled becomes an error result."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - KilledWorker, CancelledError, ...
        log.warning("job task %s failed: %s", future.key, error)
        return {"error": f"{type(error).__name__}: {error}"}
