"""The job backend a ``[parallel]`` table names: :func:`make_backend`.

Compare and sweep (and the Optuna tuning) run their jobs on what it returns; the Dask backend
is imported only when it is chosen, since Dask is an optional extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from evosoko.errors import ConfigError
from evosoko.parallel.jobs import JobBackend, ProcessBackend, SerialBackend

__all__ = ["BACKENDS", "BackendSettings", "make_backend"]

BACKENDS = ("serial", "processes", "dask")


class BackendSettings(Protocol):
    """What :func:`make_backend` reads: a ``[parallel]`` table (:class:`evosoko.config.
    ParallelConfig` of a run, ``JobsParallel`` of a comparison or a sweep). Read-only
    members, so that a table whose ``backend`` is a narrower ``Literal`` fits."""

    @property
    def backend(self) -> str: ...

    @property
    def workers(self) -> int: ...

    @property
    def address(self) -> str | None: ...

    @property
    def local_workers(self) -> int | None: ...


def make_backend(
    parallel: BackendSettings, *, warm_up: Callable[[], None] | None = None
) -> JobBackend:
    """The job backend that ``parallel.backend`` names (one of :data:`BACKENDS`).

    ``dask`` takes exactly one of ``parallel.address`` (an existing scheduler) and
    ``parallel.local_workers`` (a local cluster started for the experiment), retries a task
    ``parallel.retries`` times (0 when the table has no such field) and imports Dask only then
    (it is optional). ``warm_up`` (picklable) runs in every worker process before its first job
    (the serial backend's caller warms up itself).
    """
    name = parallel.backend
    if name == "serial":
        return SerialBackend()
    if name == "processes":
        return ProcessBackend(parallel.workers, warm_up)
    if name == "dask":
        from evosoko.parallel.dask_cluster import require_distributed

        require_distributed()
        from evosoko.parallel.dask_jobs import DaskBackend

        return DaskBackend(
            parallel.address,
            parallel.local_workers,
            retries=getattr(parallel, "retries", 0),
            warm_up=warm_up,
        )
    raise ConfigError(f"unknown job backend {name!r}; known: {', '.join(BACKENDS)}")
