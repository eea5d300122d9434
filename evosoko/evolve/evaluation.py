"""Evaluators: one level's genomes scored, and tasks run where the level lives, on any backend.

:func:`make_evaluator` yields one of the :class:`Evaluator` classes for a level:
:class:`SerialEvaluator` (this process), :class:`ProcessEvaluator` (a
:class:`~evosoko.parallel.pool.ProcessPool`) or
:class:`~evosoko.evolve.dask_evaluation.DaskEvaluator` (a
:class:`~evosoko.parallel.dask_pool.DaskPool`); :func:`worker_pool` starts the workers once for
a whole run, outside every level's budget. A level reaches the pool's workers as plain data
(its XSB rows, title, encoding and fitness settings, the configuration's own fitness terms
included, pickled once per level) with its tasks; a worker rebuilds it when it first meets it,
and every worker does so before the level's first generation. Genomes travel in batches packed
as two flat arrays (``evosoko.parallel.packing``); workers return the evaluations as columns (a
few arrays), from which the parent makes :class:`Evaluation` tuples. Results are identical to
the ``serial`` backend and come back in order; the pool survives workers that die.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import numpy as np

from evosoko.config import FitnessConfig, ParallelConfig
from evosoko.evolve.fitness import Evaluation, FitnessFunction, evaluations_from_columns
from evosoko.evolve.level_tasks import LevelPayload, LevelTask, fitness_from_payload, level_payload
from evosoko.parallel.backends import make_backend
from evosoko.parallel.dask_cluster import require_distributed
from evosoko.parallel.jobs import SerialBackend
from evosoko.parallel.packing import pack_genomes
from evosoko.parallel.pool import (
    PoolTaskQueue,
    ProcessPool,
    TaskQueue,
    die_if_marked,
    results_in_order,
    stop_requested,
)
from evosoko.search.clocks import end_searches_when
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.evolve.dask_evaluation import DaskEvaluator
    from evosoko.parallel.dask_pool import DaskPool

__all__ = [
    "Evaluator",
    "ProcessEvaluator",
    "SerialEvaluator",
    "TaskQueue",
    "make_evaluator",
    "worker_pool",
]

log = logging.getLogger(__name__)


class Evaluator(Protocol):
    """What the loops use of an evaluator of one level, on every backend: ``map`` scores
    genomes (the engine), ``task_queue`` runs tasks where the level lives with their results as
    they finish (the islands' epochs, a population of searches' searches; all results in order:
    :func:`~evosoko.parallel.pool.results_in_order`)."""

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order."""
        ...

    def task_queue(self, function: LevelTask) -> TaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks."""
        ...

    def close(self) -> None:
        """Release what it holds (a pool of its own)."""
        ...


class SerialEvaluator:
    """Evaluates in this process, in batches of ``batch_size``."""

    def __init__(self, level: Level, encoding: str, fitness: FitnessConfig, batch_size: int = 256):
        self.level = level
        self.fitness_function = FitnessFunction(level, encoding, fitness)
        self.batch_size = batch_size

    @classmethod
    def tasks_only(cls, level: Level) -> SerialEvaluator:
        """An evaluator that only runs tasks of ``level`` (their fitness function is None)."""
        evaluator = cls.__new__(cls)
        evaluator.fitness_function = None  # type: ignore[assignment]
        evaluator.level = level
        evaluator.batch_size = 1
        return evaluator

    @classmethod
    def around(cls, fitness_function: FitnessFunction, batch_size: int = 256) -> SerialEvaluator:
        """An evaluator that uses an existing fitness function (and its tables)."""
        evaluator = cls.__new__(cls)
        evaluator.level = fitness_function.level
        evaluator.fitness_function = fitness_function
        evaluator.batch_size = batch_size
        return evaluator

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order."""
        results: list[Evaluation] = []
        for start in range(0, len(genomes), self.batch_size):
            results.extend(self.fitness_function(genomes[start : start + self.batch_size]))
        return results

    def task_queue(self, function: LevelTask) -> SerialTaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks, run here one by one."""
        return SerialTaskQueue(self.level, self.fitness_function, function)

    def close(self) -> None:
        """Nothing to release."""


class SerialTaskQueue:
    """Tasks run in this process in the order submitted, one per ``next_result`` call (the
    serial counterpart of :class:`PoolTaskQueue`)."""

    def __init__(
        self, level: Level, fitness_function: FitnessFunction | None, function: LevelTask
    ) -> None:
        self._level = level
        self._fitness_function = fitness_function
        self._function = function
        self._waiting: deque[tuple[Hashable, tuple]] = deque()

    @property
    def pending(self) -> int:
        """Tasks submitted whose results were not taken yet."""
        return len(self._waiting)

    def submit(self, key: Hashable, *args: object) -> None:
        """Queue ``function(level, fitness_function, *args)``."""
        self._waiting.append((key, args))

    def next_result(self, timeout: float | None = None) -> tuple[Hashable, object] | None:
        """Run the oldest task; its key and result (None when nothing is pending)."""
        if not self._waiting:
            return None
        key, args = self._waiting.popleft()
        return key, self._function(self._level, self._fitness_function, *args)

    def cancel(self) -> None:
        """Forget every pending task."""
        self._waiting.clear()

    def end_running(self) -> None:
        """Forget every pending task (none runs between two calls of :meth:`next_result`)."""
        self._waiting.clear()


# ---- worker side --------------------------------------------------------------------------------
_worker_level: tuple[str, FitnessFunction] | None = None  # (level key, its fitness function)


def _fitness_for(level: LevelPayload) -> FitnessFunction:
    """This worker's fitness function of ``level``, rebuilt from its plain data when new; the
    searches run here end when the pool asks (:meth:`ProcessPool.end_running`)."""
    global _worker_level
    if _worker_level is None or _worker_level[0] != level[0]:
        end_searches_when(stop_requested)
        _worker_level = (level[0], fitness_from_payload(level))
        name = _worker_level[1].level.name
        log.debug("evaluation worker %d ready for level %s", os.getpid(), name)
    return _worker_level[1]


def _evaluate_batch(
    level: LevelPayload, genes: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Worker task: evaluate one packed batch (:func:`pack_genomes`) of ``level``; returns the
    evaluation columns (:meth:`FitnessFunction.evaluate_columns`), which pickle as a few
    buffers."""
    die_if_marked()
    return _fitness_for(level).evaluate_columns(genes, lengths)


def _call_with_level(level: LevelPayload, function: LevelTask, *args) -> object:
    """Worker task: ``function(level, fitness_function, *args)`` with ``level`` rebuilt here."""
    die_if_marked()
    fitness_function = _fitness_for(level)
    return function(fitness_function.level, fitness_function, *args)


# ---- parent side --------------------------------------------------------------------------------
BATCHES_PER_WORKER = 2
"""Fewest batches each worker gets per ``map`` call, so no worker idles while another works."""


def batch_size_for(genomes: int, workers: int, batch_size: int) -> int:
    """Genomes per task: at most ``batch_size``, small enough to give every worker
    ``BATCHES_PER_WORKER`` batches."""
    share = -(-genomes // (workers * BATCHES_PER_WORKER))
    return max(1, min(batch_size, share))


class ProcessEvaluator:
    """Evaluates one level's genomes in a :class:`ProcessPool`: the given ``pool`` (left
    running on :meth:`close`), or a pool of its own."""

    def __init__(
        self,
        level: Level,
        encoding: str,
        fitness: FitnessConfig,
        workers: int,
        batch_size: int,
        *,
        crash_marker: str | None = None,
        pool: ProcessPool | None = None,
    ) -> None:
        self.payload = level_payload(level, encoding, fitness)  # checks the level first
        self.level = level
        self.batch_size = batch_size
        self._own_pool = pool is None
        self.pool = pool if pool is not None else ProcessPool(workers, crash_marker=crash_marker)
        self.workers = self.pool.workers
        self._restarts_before = self.pool.restarts
        self.pool.on_every_worker(_fitness_for, self.payload)

    @property
    def pool_restarts(self) -> int:
        """How often the pool was replaced (a worker died) while this evaluator used it."""
        return self.pool.restarts - self._restarts_before

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order; survives a worker's death."""
        size = batch_size_for(len(genomes), self.workers, self.batch_size)
        batches = (
            (self.payload, *pack_genomes(genomes[start : start + size]))
            for start in range(0, len(genomes), size)
        )
        results = results_in_order(PoolTaskQueue(self.pool, _evaluate_batch), batches)
        return [e for batch in results for e in evaluations_from_columns(batch)]

    def task_queue(self, function: LevelTask) -> PoolTaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks run in the workers,
        whose results come back as they finish (see :class:`PoolTaskQueue`)."""
        return PoolTaskQueue(self.pool, _call_with_level, (self.payload, function))

    def close(self) -> None:
        """Shut down a pool of its own (a shared pool stays for the next level)."""
        if self._own_pool:
            self.pool.close()


@contextmanager
def worker_pool(
    parallel: ParallelConfig,
    *,
    warm_up: Callable[[], None] | None = None,
    crash_marker: str | None = None,
) -> Iterator[ProcessPool | DaskPool | None]:
    """The workers of the configured backend for a whole run, started now and closed on exit:
    a :class:`ProcessPool`, a :class:`DaskPool`, or None for ``serial``.

    ``warm_up`` (picklable) runs in every worker as it starts, before any task: the run passes
    the compilation of the kernels it needs, so no worker compiles inside a budget.
    ``crash_marker``: the test hook of :func:`make_evaluator`.
    """
    if parallel.backend == "serial":
        yield None
        return
    pool = make_backend(
        parallel, warm_up=warm_up, retries=parallel.retries, crash_marker=crash_marker
    )
    assert not isinstance(pool, SerialBackend)
    try:
        if isinstance(pool, ProcessPool):
            pool.on_every_worker()
        yield pool
    finally:
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
    evaluator: SerialEvaluator | ProcessEvaluator | DaskEvaluator
    if parallel.backend == "serial":
        evaluator = SerialEvaluator(level, encoding, fitness, parallel.batch_size)
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
        from evosoko.evolve.dask_evaluation import DaskEvaluator
        from evosoko.parallel.dask_pool import DaskPool

        evaluator = DaskEvaluator(
            level,
            encoding,
            fitness,
            address=parallel.address,
            local_workers=parallel.local_workers,
            batch_size=parallel.batch_size,
            retries=parallel.retries,
            crash_marker=crash_marker,
            pool=pool if isinstance(pool, DaskPool) else None,
        )
    else:
        raise ValueError(f"unknown evaluation backend {parallel.backend!r}")
    try:
        yield evaluator
    finally:
        evaluator.close()
