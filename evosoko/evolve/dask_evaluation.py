"""The ``dask`` evaluation backend: genome batches scored as tasks on a Dask cluster.

The level reaches each worker once, as plain data (its XSB rows, title, encoding and fitness
settings), in a :class:`LevelPlugin` registered on the cluster; a worker that joins later (or
replaces one that died) gets it when it starts. Each ``map`` call then sends batches of
``batch_size`` genomes as tasks that look the level up by the plugin's name and return the
evaluation columns (a few arrays, as the process pool's workers do); results are gathered in input
order, so they are identical to the ``serial`` backend's (fitness is deterministic). A batch travels
packed: the genes of all its genomes in one flat int32 array plus their lengths
(:func:`pack_genomes`), which is several times cheaper to build and to pickle than tuples of Python
ints.

Failures: a task that raises is run again up to ``retries`` times; a task whose worker dies is
moved by the scheduler to another worker (Dask's ``allowed-failures`` bounds how many workers
one task may take down before it fails with ``KilledWorker``). The evaluator then submits the
unfinished batches again, up to :data:`MAX_RESUBMITS` times per call.

This module imports ``distributed``; :func:`evosoko.evolve.backends.make_evaluator` imports
it only when the ``dask`` backend is chosen.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
from distributed import KilledWorker, WorkerPlugin, get_worker

from evosoko.config import FitnessConfig
from evosoko.evolve.evaluation import LevelTask, ProcessEvaluator
from evosoko.evolve.fitness import Evaluation, FitnessFunction, evaluations_from_columns
from evosoko.parallel.dask_cluster import DaskConnection
from evosoko.parallel.dask_plugins import register_warm_up, unregister_warm_up
from evosoko.parallel.packing import pack_genomes, unpack_genomes
from evosoko.sokoban.given_holes import rules_notes
from evosoko.sokoban.level import Level

__all__ = [
    "MAX_RESUBMITS",
    "DaskEvaluator",
    "DaskPool",
    "LevelPlugin",
    "pack_genomes",
    "unpack_genomes",
]

log = logging.getLogger(__name__)

MAX_RESUBMITS = 3
"""How often one ``map`` call submits batches again after they failed with a killed worker."""

TASK_POLL_SECONDS = 0.01
"""How often a :class:`DaskTaskQueue` looks whether a task (an island's epoch, a search) has
finished: tasks that long make the polling free."""


class LevelPlugin(WorkerPlugin):
    """Worker state of one evaluator: the level rebuilt from its rows, and its fitness function.

    ``crash_marker`` is a test hook: the first task that finds this file deletes it and ends
    its worker process at once, in the middle of a batch.
    """

    def __init__(
        self,
        name: str,
        rows: list[str],
        title: str | None,
        encoding: str,
        fitness: FitnessConfig,
        crash_marker: str | None = None,
        notes: tuple = (),
    ) -> None:
        self.name = name
        self.notes = tuple(notes)  # the rules notes (given holes) the level plays by
        self.rows = rows
        self.title = title
        self.encoding = encoding
        self.fitness = fitness
        self.crash_marker = crash_marker
        self.fitness_function: FitnessFunction | None = None

    def setup(self, worker: Any) -> None:
        """Build the level and its tables once in this worker."""
        from evosoko.sokoban.build import level_from_rows

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            level = level_from_rows(self.rows, title=self.title, notes=self.notes)
        self.fitness_function = FitnessFunction(level, self.encoding, self.fitness)

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


class DaskTaskQueue:
    """Tasks of a :class:`DaskEvaluator`'s level, each a Dask task under a key; results come
    back as they finish (a task whose worker dies is moved by the scheduler, up to its
    ``allowed-failures``)."""

    def __init__(self, evaluator: DaskEvaluator, function: LevelTask) -> None:
        self._evaluator = evaluator
        self._function = function
        self._running: dict[Any, Hashable] = {}

    def submit(self, key: Hashable, *args: object) -> None:
        """Start ``function(level, fitness_function, *args)`` on the cluster."""
        evaluator = self._evaluator
        future = evaluator.client.submit(
            call_with_level,
            evaluator.plugin_name,
            self._function,
            *args,
            key=f"evosoko-task-{uuid.uuid4().hex}",
            retries=evaluator.retries,
            pure=False,
        )
        self._running[future] = key

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
            self._evaluator.client.cancel(list(self._running))
        self._running.clear()

    def end_running(self) -> None:
        """As :meth:`cancel`: a search running on a Dask worker finishes unseen."""
        self.cancel()


class DaskEvaluator:
    """Scores genomes on a Dask cluster: an existing scheduler (``address``) or a local
    cluster of ``local_workers`` processes started here and closed by :meth:`close`."""

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
        connection: DaskConnection | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        ProcessEvaluator._check_level_rebuilds(level)  # workers rebuild it from its rows too
        self.batch_size = batch_size
        self.retries = retries
        self.resubmits = 0
        self._own_connection = connection is None
        self._connection = connection or DaskConnection(address, local_workers)
        self.client = self._connection.client
        self.plugin_name = f"evosoko-level-{uuid.uuid4().hex}"
        rows, title = level.rows(), level.title
        plugin = LevelPlugin(
            self.plugin_name, rows, title, encoding, fitness, crash_marker, rules_notes(level)
        )
        try:
            self.client.register_plugin(plugin, name=self.plugin_name)
        except BaseException:
            if self._own_connection:
                self._connection.close()
            raise
        if not self.client.nthreads():
            log.warning(
                "the Dask scheduler at %s has no workers yet; evaluation waits for them",
                self._connection.address,
            )

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order; survives workers that die."""
        batches = [
            pack_genomes(genomes[start : start + self.batch_size])
            for start in range(0, len(genomes), self.batch_size)
        ]
        results: list[tuple[np.ndarray, ...] | None] = [None] * len(batches)
        for attempt in range(MAX_RESUBMITS + 1):
            pending = [i for i, result in enumerate(results) if result is None]
            if not pending:
                break
            if attempt > 0:
                self.resubmits += 1
                log.warning("re-submitting %d batch(es) whose workers died", len(pending))
            self._run(batches, pending, results)
        if any(result is None for result in results):
            raise RuntimeError(
                f"evaluation batches killed their Dask workers {MAX_RESUBMITS + 1} times "
                "in one call"
            )
        return [e for batch in results for e in evaluations_from_columns(batch)]  # type: ignore[arg-type]

    def _run(
        self, batches: list[tuple[np.ndarray, np.ndarray]], pending: list[int], results: list
    ) -> None:
        """Submit the ``pending`` batches and store what finishes; batches that fail with a
        killed worker stay ``None``, any other failure propagates."""
        call = uuid.uuid4().hex
        futures = self.client.map(
            evaluate_batch,
            [self.plugin_name] * len(pending),
            [batches[i][0] for i in pending],
            [batches[i][1] for i in pending],
            key=[f"evosoko-evaluate-{call}-{i}" for i in pending],
            retries=self.retries,
            pure=False,
        )
        try:
            finished = self.client.gather(futures)  # one round trip for all batches
        except KilledWorker:
            finished = [_result_or_none(future) for future in futures]
        for index, result in zip(pending, finished):
            results[index] = result

    def task_queue(self, function: LevelTask) -> DaskTaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks run on the cluster,
        whose results come back as they finish (``function`` must be importable there)."""
        return DaskTaskQueue(self, function)

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments`` on the
        cluster; the results in order."""
        queue = self.task_queue(function)
        calls = list(arguments)
        for position, args in enumerate(calls):
            queue.submit(position, *args)
        results: dict[Hashable, object] = {}
        while len(results) < len(calls):
            finished = queue.next_result()
            assert finished is not None  # without a timeout it waits for one
            results[finished[0]] = finished[1]
        return [results[position] for position in range(len(calls))]

    def close(self) -> None:
        """Remove the level from the workers and disconnect (closing a local cluster), unless
        the connection was given (it then stays for the next level)."""
        shared = not self._own_connection
        if (shared or self._connection.cluster is None) and self.client.status == "running":
            try:
                self.client.unregister_worker_plugin(self.plugin_name)
            except Exception as error:  # noqa: BLE001 - the scheduler may be gone; still disconnect
                log.warning("could not remove the level from the Dask workers: %s", error)
        if self._own_connection:
            self._connection.close()


class DaskPool:
    """A connection to a Dask cluster for a whole run (see
    :func:`evosoko.evolve.backends.worker_pool`): each level registers its plugin on it, and
    ``warm_up`` runs on every worker, those that join later too."""

    def __init__(
        self,
        address: str | None,
        local_workers: int | None,
        *,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        self.connection = DaskConnection(address, local_workers)
        self._warm_up_name: str | None = None
        if warm_up is not None:
            try:
                self._warm_up_name = register_warm_up(self.connection, warm_up)
            except BaseException:
                self.connection.close()
                raise

    def close(self) -> None:
        """Remove the warm-up and disconnect (closing a local cluster)."""
        try:
            if self._warm_up_name is not None:
                unregister_warm_up(self.connection, self._warm_up_name)
        finally:
            self.connection.close()


def _result_or_none(future: Any) -> list[tuple] | None:
    """The batch's result, or None when it failed because its workers kept dying."""
    try:
        return future.result()
    except KilledWorker as error:
        log.warning("evaluation task %s failed: %s", future.key, error)
        return None
