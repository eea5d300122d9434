"""The workers a ``[parallel]`` table names: :func:`make_backend`.

A run's evaluators (:func:`evosoko.evolve.evaluation.worker_pool`), compare, sweep, the Optuna
tuning and level evolution all start their workers here. The Dask pool is imported only when
it is chosen, since Dask is an optional extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from evosoko.errors import ConfigError
from evosoko.parallel.jobs import SerialBackend
from evosoko.parallel.pool import ProcessPool

if TYPE_CHECKING:
    from evosoko.parallel.dask_pool import DaskPool

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
    parallel: BackendSettings,
    *,
    warm_up: Callable[[], None] | None = None,
    retries: int = 0,
    crash_marker: str | None = None,
) -> SerialBackend | ProcessPool | DaskPool:
    """The workers that ``parallel.backend`` names (one of :data:`BACKENDS`): this process,
    a :class:`ProcessPool` of ``parallel.workers`` or a :class:`DaskPool`.

    ``dask`` takes exactly one of ``parallel.address`` (an existing scheduler) and
    ``parallel.local_workers`` (a local cluster started here), runs a failed task again
    ``retries`` times and imports Dask only then (it is optional). ``warm_up`` (picklable) runs
    in every worker process before its first task (the serial backend's caller warms up
    itself). ``crash_marker``: the process pool's test hook
    (:func:`evosoko.parallel.pool.die_if_marked`).
    """
    name = parallel.backend
    if name == "serial":
        return SerialBackend()
    if name == "processes":
        return ProcessPool(parallel.workers, warm_up=warm_up, crash_marker=crash_marker)
    if name == "dask":
        from evosoko.parallel.dask_cluster import require_distributed

        require_distributed()
        from evosoko.parallel.dask_pool import DaskPool

        return DaskPool(parallel.address, parallel.local_workers, retries=retries, warm_up=warm_up)
    raise ConfigError(f"unknown job backend {name!r}; known: {', '.join(BACKENDS)}")
