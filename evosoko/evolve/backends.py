"""The evaluation backend of a run, chosen by its ``[parallel]`` table.

:func:`worker_pool` starts the workers of the configured backend once for a whole run (a
:class:`~evosoko.evolve.evaluation.ProcessPool`, a Dask connection, or none for ``serial``);
:func:`make_evaluator` builds one level's evaluator on them. The ``dask`` backend imports Dask
only here, when it is chosen, so that it stays an optional dependency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from evosoko.config import FitnessConfig, ParallelConfig
from evosoko.evolve.evaluation import ProcessEvaluator, ProcessPool, SerialEvaluator
from evosoko.parallel.dask_cluster import require_distributed
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.evolve.dask_evaluation import DaskEvaluator, DaskPool

__all__ = ["make_evaluator", "worker_pool"]


@contextmanager
def worker_pool(
    parallel: ParallelConfig,
    *,
    warm_up: Callable[[], None] | None = None,
    crash_marker: str | None = None,
) -> Iterator[ProcessPool | DaskPool | None]:
    """The workers of the configured backend for a whole run, started now and closed on exit:
    a :class:`ProcessPool`, a Dask connection (:class:`DaskPool`), or None for ``serial``.

    ``warm_up`` (picklable) runs in every worker as it starts, before any task: the run passes
    the compilation of the kernels it needs, so no worker compiles inside a budget.
    ``crash_marker``: the test hook of :func:`make_evaluator`.
    """
    pool: ProcessPool | DaskPool | None
    if parallel.backend == "serial":
        pool = None
    elif parallel.backend == "processes":
        pool = ProcessPool(parallel.workers, crash_marker=crash_marker, warm_up=warm_up)
        pool.prepare(None)
    elif parallel.backend == "dask":
        require_distributed()
        from evosoko.evolve.dask_evaluation import DaskPool

        pool = DaskPool(parallel.address, parallel.local_workers, warm_up=warm_up)
    else:
        raise ValueError(f"unknown evaluation backend {parallel.backend!r}")
    try:
        yield pool
    finally:
        if pool is not None:
            pool.close()


@contextmanager
def make_evaluator(
    level: Level,
    parallel: ParallelConfig,
    encoding: str,
    fitness: FitnessConfig,
    *,
    crash_marker: str | None = None,
    pool: ProcessPool | DaskPool | None = None,
) -> Iterator[SerialEvaluator | ProcessEvaluator | DaskEvaluator]:
    """An evaluator for ``level`` on the configured backend, closed on exit.

    ``pool``: workers from :func:`worker_pool` to use (they stay up for the next level);
    without it the evaluator starts workers of its own and stops them on exit.
    ``crash_marker`` is a test hook: the first worker that finds this file deletes it and dies.
    The ``dask`` backend imports Dask here, so that it stays an optional dependency.
    """
    if parallel.backend == "serial":
        evaluator: SerialEvaluator | ProcessEvaluator | DaskEvaluator = SerialEvaluator(
            level, encoding, fitness, parallel.batch_size
        )
    elif parallel.backend == "processes":
        evaluator = ProcessEvaluator(
            level,
            encoding,
            fitness,
            parallel.workers,
            parallel.batch_size,
            crash_marker=crash_marker,
            pool=pool if isinstance(pool, ProcessPool) else None,
        )
    elif parallel.backend == "dask":
        require_distributed()
        from evosoko.evolve.dask_evaluation import DaskEvaluator, DaskPool

        evaluator = DaskEvaluator(
            level,
            encoding,
            fitness,
            address=parallel.address,
            local_workers=parallel.local_workers,
            batch_size=parallel.batch_size,
            retries=parallel.retries,
            crash_marker=crash_marker,
            connection=pool.connection if isinstance(pool, DaskPool) else None,
        )
    else:
        raise ValueError(f"unknown evaluation backend {parallel.backend!r}")
    try:
        yield evaluator
    finally:
        evaluator.close()
