"""The ``dask`` evaluator: one level's genome batches and tasks run on a Dask cluster.

The level reaches each worker once, as plain data (its XSB rows, title, encoding and fitness
settings), in a :class:`LevelPlugin` registered on the :class:`~evosoko.parallel.dask_pool.
DaskPool`; a worker that joins later (or replaces one that died) gets it when it starts. Each
``map`` call then sends packed batches (:func:`~evosoko.parallel.packing.pack_genomes`) of
``batch_size`` genomes as tasks that look the level up by the plugin's name and return the
evaluation columns, as the process pool's workers do; results are gathered in input order, so
they are identical to the ``serial`` backend's. Batches lost with killed workers are submitted
again (:meth:`DaskPool.results_in_order`).

This module imports ``distributed``; :func:`evosoko.evolve.evaluation.make_evaluator` imports
it only when the ``dask`` backend is chosen.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from distributed import WorkerPlugin, get_worker

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import Evaluation, FitnessFunction, evaluations_from_columns
from evosoko.evolve.level_tasks import LevelPayload, LevelTask, fitness_from_payload, level_payload
from evosoko.parallel.dask_pool import DaskPool, DaskTaskQueue
from evosoko.parallel.packing import pack_genomes
from evosoko.sokoban.level import Level

__all__ = ["DaskEvaluator", "LevelPlugin"]

log = logging.getLogger(__name__)

LEVEL_PLUGIN = "evosoko-level"
"""The name prefix of :class:`LevelPlugin` registrations."""


class LevelPlugin(WorkerPlugin):
    """Worker state of one evaluator: the level rebuilt from its payload, and its fitness
    function.

    ``crash_marker`` is a test hook: the first task that finds this file deletes it and ends
    its worker process at once, in the middle of a batch.
    """

    def __init__(self, payload: LevelPayload, crash_marker: str | None = None) -> None:
        self.payload = payload
        self.crash_marker = crash_marker
        self.fitness_function: FitnessFunction | None = None

    def setup(self, worker: Any) -> None:
        """Build the level and its tables once in this worker."""
        self.fitness_function = fitness_from_payload(self.payload)

    def evaluate(self, genes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        """Score one packed batch; the evaluation columns out (as the process pool's workers)."""
        if self.crash_marker is not None:
            self._maybe_crash()
        assert self.fitness_function is not None, "plugin used before its setup ran"
        return self.fitness_function.evaluate_columns(genes, lengths)

    def _maybe_crash(self) -> None:
        try:
            os.remove(self.crash_marker)  # type: ignore[arg-type]
        except FileNotFoundError:
            return
        log.warning("evaluation worker %d dies on purpose (test hook)", os.getpid())
        os._exit(1)


def _plugin(plugin_name: str) -> LevelPlugin:
    plugin = get_worker().plugins[plugin_name]
    if not isinstance(plugin, LevelPlugin):
        raise TypeError(f"worker plugin {plugin_name!r} is not a LevelPlugin")
    return plugin


def evaluate_batch(
    plugin_name: str, genes: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Task: score a packed batch with the level of the plugin called ``plugin_name``."""
    return _plugin(plugin_name).evaluate(genes, lengths)


def call_with_level(plugin_name: str, function: LevelTask, *args: Any) -> object:
    """Task: ``function(level, fitness_function, *args)`` with the plugin's level."""
    fitness_function = _plugin(plugin_name).fitness_function
    assert fitness_function is not None, "plugin used before its setup ran"
    return function(fitness_function.level, fitness_function, *args)


class DaskEvaluator:
    """Scores genomes on a Dask cluster: the given ``pool`` (left running on :meth:`close`),
    or a pool of its own on ``address`` or on a local cluster of ``local_workers``."""

    def __init__(
        self,
        level: Level,
        encoding: str,
        fitness: FitnessConfig,
        *,
        address: str | None = None,
        local_workers: int | None = None,
        batch_size: int = 32,
        retries: int = 2,
        crash_marker: str | None = None,
        pool: DaskPool | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        payload = level_payload(level, encoding, fitness)  # before connecting: it checks the level
        self.batch_size = batch_size
        self._own_pool = pool is None
        self.pool = pool or DaskPool(address, local_workers, retries=retries)
        self.client = self.pool.client
        self._resubmits_before = self.pool.resubmits
        plugin = LevelPlugin(payload, crash_marker)
        try:
            self.plugin_name = self.pool.register_plugin(plugin, LEVEL_PLUGIN)
        except BaseException:
            if self._own_pool:
                self.pool.close()
            raise
        if not self.client.nthreads():
            log.warning(
                "the Dask scheduler at %s has no workers yet; evaluation waits for them",
                self.pool.connection.address,
            )

    @property
    def resubmits(self) -> int:
        """How often batches lost with killed workers were submitted again for this level."""
        return self.pool.resubmits - self._resubmits_before

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order; survives workers that die."""
        batches = [
            (self.plugin_name, *pack_genomes(genomes[start : start + self.batch_size]))
            for start in range(0, len(genomes), self.batch_size)
        ]
        results = self.pool.results_in_order(evaluate_batch, batches)
        return [e for batch in results for e in evaluations_from_columns(batch)]

    def task_queue(self, function: LevelTask) -> DaskTaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks run on the cluster,
        whose results come back as they finish (``function`` must be importable there)."""
        return self.pool.task_queue(call_with_level, (self.plugin_name, function))

    def close(self) -> None:
        """Remove the level from the workers and, with a pool of its own, disconnect (closing
        a local cluster); a given pool stays for the next level."""
        if not (self._own_pool and self.pool.connection.cluster is not None):
            self.pool.unregister_plugin(self.plugin_name)  # else the local cluster ends now
        if self._own_pool:
            self.pool.close()
