"""Evaluation backends: one ``map(genomes) -> list[Evaluation]`` in this process or in a pool.

``make_evaluator(level, parallel, encoding, fitness)`` is a context manager that yields an
:class:`Evaluator`. The ``processes`` backend starts a ``ProcessPoolExecutor`` whose workers
receive the level once, as plain data (its XSB rows and title), through the pool initializer,
then batches packed as two flat arrays (``evosoko.evolve.packing``); they return the
evaluations as columns (a few arrays), from which the parent makes :class:`Evaluation` tuples.
Results are identical to the ``serial`` backend and come back in order.

A worker that dies (the pool raises ``BrokenProcessPool``) is replaced: the pool is recreated
and the batches that did not finish are submitted again, up to ``MAX_POOL_RESTARTS`` times in a
row. Besides ``map``, both evaluators run other tasks where the level lives: ``run_each`` (all
results, in order) and ``task_queue`` (results as they finish; the island model's scheduler). Log
records of workers reach the parent's handlers through ``multiprocessing_logging`` when the start
method is fork, through a ``QueueHandler``/``QueueListener`` pair otherwise.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import numpy as np

from evosoko.config import FitnessConfig, ParallelConfig
from evosoko.evolve.fitness import Evaluation, FitnessFunction, evaluations_from_columns
from evosoko.evolve.packing import pack_genomes
from evosoko.evolve.worker_lifetime import exit_with_parent
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.evolve.dask_evaluation import DaskEvaluator

log = logging.getLogger(__name__)

MAX_POOL_RESTARTS = 3
"""How often a broken pool may be recreated in a row (no task finishing in between)."""


LevelTask = Callable[..., object]
"""A task run where the level lives: called as ``task(level, fitness_function, *args)``."""


class Evaluator(Protocol):
    """Anything that scores genomes of one level; the engine only needs ``map``."""

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order."""
        ...


class SerialEvaluator:
    """Evaluates in this process, in batches of ``batch_size``."""

    def __init__(self, level: Level, encoding: str, fitness: FitnessConfig, batch_size: int = 256):
        self.fitness_function = FitnessFunction(level, encoding, fitness)
        self.batch_size = batch_size

    @classmethod
    def around(cls, fitness_function: FitnessFunction, batch_size: int = 256) -> "SerialEvaluator":
        """An evaluator that uses an existing fitness function (and its tables)."""
        evaluator = cls.__new__(cls)
        evaluator.fitness_function = fitness_function
        evaluator.batch_size = batch_size
        return evaluator

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order."""
        results: list[Evaluation] = []
        for start in range(0, len(genomes), self.batch_size):
            results.extend(self.fitness_function(genomes[start : start + self.batch_size]))
        return results

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments``, in
        order."""
        level = self.fitness_function.level
        return [function(level, self.fitness_function, *args) for args in arguments]

    def task_queue(self, function: LevelTask) -> "SerialTaskQueue":
        """A queue of ``function(level, fitness_function, *args)`` tasks, run here one by one."""
        return SerialTaskQueue(self.fitness_function, function)

    def close(self) -> None:
        """Nothing to release."""


class SerialTaskQueue:
    """Tasks run in this process in the order submitted, one per ``next_result`` call (the
    serial counterpart of :class:`PoolTaskQueue`)."""

    def __init__(self, fitness_function: FitnessFunction, function: LevelTask) -> None:
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

    def next_result(self) -> tuple[Hashable, object]:
        """Run the oldest task; its key and result."""
        key, args = self._waiting.popleft()
        level = self._fitness_function.level
        return key, self._function(level, self._fitness_function, *args)

    def cancel(self) -> None:
        """Forget every pending task."""
        self._waiting.clear()


# ---- worker side --------------------------------------------------------------------------------
_worker_fitness: FitnessFunction | None = None
_worker_crash_marker: str | None = None


def _init_worker(
    rows: list[str],
    title: str | None,
    encoding: str,
    fitness: dict,
    log_queue,
    crash_marker: str | None,
) -> None:
    """Pool initializer: rebuild the level from plain data and set up logging. Workers ignore
    SIGINT: the parent decides what an interrupt stops (Ctrl-C reaches the whole process group)."""
    global _worker_fitness, _worker_crash_marker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # no orphans when the run's process is killed
    if log_queue is not None:
        root = logging.getLogger()
        root.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
        root.setLevel(logging.DEBUG)
    from evosoko.sokoban.build import level_from_rows

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        level = level_from_rows(rows, title=title)
    _worker_fitness = FitnessFunction(level, encoding, FitnessConfig(**fitness))
    _worker_crash_marker = crash_marker
    log.debug("evaluation worker %d ready for level %s", os.getpid(), level.name)


def _evaluate_batch(genes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """Worker task: evaluate one packed batch (:func:`pack_genomes`); returns the evaluation
    columns (:meth:`FitnessFunction.evaluate_columns`), which pickle as a few buffers."""
    _die_if_marked()
    assert _worker_fitness is not None, "worker used before its initializer ran"
    return _worker_fitness.evaluate_columns(genes, lengths)


def _call_with_level(function: LevelTask, *args) -> object:
    """Worker task: ``function(level, fitness_function, *args)`` with this worker's level."""
    _die_if_marked()
    assert _worker_fitness is not None, "worker used before its initializer ran"
    return function(_worker_fitness.level, _worker_fitness, *args)


def _die_if_marked() -> None:
    """Test hook: the first worker that finds the crash marker deletes it and dies mid-task."""
    if _worker_crash_marker is None:
        return
    try:
        os.remove(_worker_crash_marker)
    except FileNotFoundError:
        return
    log.warning("evaluation worker %d dies on purpose (test hook)", os.getpid())
    _flush_log_queues()
    os._exit(1)


def _flush_log_queues() -> None:
    """Push buffered log records through their queues before this process ends abruptly."""
    for handler in logging.getLogger().handlers:
        queue = getattr(handler, "queue", None)
        if queue is not None and hasattr(queue, "join_thread"):
            queue.close()
            queue.join_thread()


# ---- parent side --------------------------------------------------------------------------------
BATCHES_PER_WORKER = 2
"""Fewest batches each worker gets per ``map`` call, so no worker idles while another works."""


def batch_size_for(genomes: int, workers: int, batch_size: int) -> int:
    """Genomes per task: at most ``batch_size``, small enough to give every worker
    ``BATCHES_PER_WORKER`` batches."""
    share = -(-genomes // (workers * BATCHES_PER_WORKER))
    return max(1, min(batch_size, share))


class ProcessEvaluator:
    """Evaluates in a pool of worker processes; the pool is replaced when a worker dies."""

    def __init__(
        self,
        level: Level,
        encoding: str,
        fitness: FitnessConfig,
        workers: int,
        batch_size: int,
        *,
        crash_marker: str | None = None,
    ) -> None:
        self.level = level
        self.workers = workers
        self.batch_size = batch_size
        self.pool_restarts = 0
        self._context = multiprocessing.get_context()
        self._log_setup = _WorkerLogging(self._context.get_start_method())
        self._initargs = (level.rows(), level.title, encoding, fitness.model_dump())
        self._crash_marker = crash_marker
        self._check_level_rebuilds(level)
        self._pool = self._new_pool()

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order; survives a worker's death."""
        size = batch_size_for(len(genomes), self.workers, self.batch_size)
        batches = (
            pack_genomes(genomes[start : start + size]) for start in range(0, len(genomes), size)
        )
        results = self._run(_evaluate_batch, batches)
        return [e for batch in results for e in evaluations_from_columns(batch)]

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments``, in the
        workers (``function`` must be importable there); the results in order."""
        return self._run(_call_with_level, ((function, *args) for args in arguments))

    def task_queue(self, function: LevelTask) -> "PoolTaskQueue":
        """A queue of ``function(level, fitness_function, *args)`` tasks run in the workers,
        whose results come back as they finish (see :class:`PoolTaskQueue`)."""
        return PoolTaskQueue(self, _call_with_level, (function,))

    def _run(self, task: Callable, calls: Iterable[tuple]) -> list:
        """``task(*args)`` in the pool for each tuple of ``calls``, submitted as they are made
        (workers start while the rest is prepared); the results in order, whatever dies."""
        queue = PoolTaskQueue(self, task)
        count = 0
        for args in calls:
            queue.submit(count, *args)
            count += 1
        results: list = [None] * count
        for _ in range(count):
            index, result = queue.next_result()
            results[index] = result
        return results

    def _submit(self, task: Callable, args: tuple) -> Future | None:
        """Start ``task(*args)`` on the pool; None when the pool is already broken."""
        try:
            return self._pool.submit(task, *args)
        except BrokenProcessPool:
            return None

    def _replace_pool(self) -> None:
        """A new pool in place of a broken one, with new log queues (see ``_WorkerLogging``)."""
        self.pool_restarts += 1
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._log_setup.renew()
        self._pool = self._new_pool()

    def close(self) -> None:
        """Shut the pool down and stop forwarding worker logs."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._log_setup.close()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=self._context,
            initializer=_init_worker,
            initargs=(*self._initargs, self._log_setup.queue, self._crash_marker),
        )

    @staticmethod
    def _check_level_rebuilds(level: Level) -> None:
        """Workers rebuild the level from its rows: make sure cell indices are unchanged."""
        from evosoko.sokoban.build import level_from_rows

        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rebuilt = level_from_rows(level.rows(), title=level.title)
        if (rebuilt.width, rebuilt.height, rebuilt.start) != (
            level.width,
            level.height,
            level.start,
        ):
            raise ValueError(f"level {level.name} does not survive a round trip through its rows")


class PoolTaskQueue:
    """Tasks on a :class:`ProcessEvaluator`'s pool, each under a key; ``next_result`` returns
    ``(key, result)`` of a finished task as soon as one finishes. When a worker dies, the pool
    is replaced and every task that had not finished runs again; more than
    ``MAX_POOL_RESTARTS`` replacements in a row without a finished task is an error."""

    def __init__(self, evaluator: ProcessEvaluator, task: Callable, prefix: tuple = ()) -> None:
        self._evaluator = evaluator
        self._task = task
        self._prefix = prefix
        self._running: dict[Future, tuple[Hashable, tuple]] = {}
        self._lost: list[tuple[Hashable, tuple]] = []  # to run again in a new pool
        self._finished: deque[tuple[Hashable, object]] = deque()
        self._restarts_in_a_row = 0

    @property
    def pending(self) -> int:
        """Tasks submitted whose results were not taken yet."""
        return len(self._running) + len(self._lost) + len(self._finished)

    def submit(self, key: Hashable, *args: object) -> None:
        """Start ``task(*prefix, *args)`` in the pool."""
        self._start(key, (*self._prefix, *args))

    def next_result(self) -> tuple[Hashable, object]:
        """The key and result of a finished task (waits for one)."""
        while not self._finished:
            if self._lost:
                self._restart()
                continue
            done, _ = wait(self._running, return_when=FIRST_COMPLETED)
            for future in done:
                key, args = self._running.pop(future)
                try:
                    self._finished.append((key, future.result()))
                    self._restarts_in_a_row = 0
                except BrokenProcessPool:
                    self._lost.append((key, args))
        return self._finished.popleft()

    def cancel(self) -> None:
        """Forget every pending task (tasks already running finish unseen)."""
        for future in self._running:
            future.cancel()
        self._running.clear()
        self._lost.clear()
        self._finished.clear()

    def _start(self, key: Hashable, args: tuple) -> None:
        future = self._evaluator._submit(self._task, args)
        if future is None:
            self._lost.append((key, args))
        else:
            self._running[future] = (key, args)

    def _restart(self) -> None:
        if self._restarts_in_a_row == MAX_POOL_RESTARTS:
            raise RuntimeError(f"evaluation workers died {MAX_POOL_RESTARTS + 1} times in a row")
        self._restarts_in_a_row += 1
        again = self._lost + list(self._running.values())
        log.warning(
            "an evaluation worker died; restarting the pool and re-running %d task(s)", len(again)
        )
        self._lost, self._running = [], {}
        self._evaluator._replace_pool()
        for key, args in again:
            self._start(key, args)


class _WorkerLogging:
    """Routes worker log records to the parent's handlers for the pool's start method."""

    def __init__(self, start_method: str) -> None:
        self._start_method = start_method
        self.queue = None
        self._listener: logging.handlers.QueueListener | None = None
        self._wrapped = False
        self._start()

    def renew(self) -> None:
        """Give up the queues of a broken pool and route through new ones.

        A worker killed while it sends a record keeps the queue's cross-process lock forever,
        and everything that logs through that queue afterwards would hang (a pool that breaks
        terminates its other workers wherever they are). The old queues are abandoned without
        waiting for them; records still buffered in them are lost.
        """
        self._unwrap(abandon=True)
        if self.queue is not None:
            self.queue.cancel_join_thread()  # its listener thread is a daemon: left behind
            self._listener = None
            self.queue = None
        self._start()

    def _start(self) -> None:
        root = logging.getLogger()
        if self._start_method == "fork":
            import multiprocessing_logging

            unwrapped = [
                h
                for h in root.handlers
                if not isinstance(h, multiprocessing_logging.MultiProcessingHandler)
            ]
            if unwrapped:
                for index, handler in enumerate(unwrapped):
                    root.removeHandler(handler)
                    root.addHandler(
                        multiprocessing_logging.MultiProcessingHandler(
                            f"mp-handler-{index}", handler
                        )
                    )
                self._wrapped = True
        else:
            self.queue = multiprocessing.get_context(self._start_method).Queue(-1)
            self._listener = logging.handlers.QueueListener(
                self.queue, *root.handlers, respect_handler_level=True
            )
            self._listener.start()

    def close(self) -> None:
        if self._listener is not None:
            self._listener.stop()
        self._unwrap(abandon=False)

    def _unwrap(self, abandon: bool) -> None:
        """Put the wrapped handlers back in place of their multiprocessing wrappers. Each
        wrapper's receiving thread is told to stop once its queue is drained (the wrapped
        handler itself is not closed); ``abandon``: do not wait for that, and never wait for
        the queue at exit either (its lock may be held by a dead worker)."""
        if not self._wrapped:
            return
        import multiprocessing_logging

        root = logging.getLogger()
        for handler in list(root.handlers):
            if isinstance(handler, multiprocessing_logging.MultiProcessingHandler):
                root.removeHandler(handler)
                handler._is_closed = True
                if abandon:
                    handler.queue.cancel_join_thread()
                else:
                    handler._receive_thread.join(5.0)
                root.addHandler(handler.sub_handler)
        self._wrapped = False


@contextmanager
def make_evaluator(
    level: Level,
    parallel: ParallelConfig,
    encoding: str,
    fitness: FitnessConfig,
    *,
    crash_marker: str | None = None,
) -> Iterator[SerialEvaluator | ProcessEvaluator | DaskEvaluator]:
    """An evaluator for ``level`` on the configured backend, closed on exit.

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
        )
    elif parallel.backend == "dask":
        from evosoko.evolve.dask_cluster import require_distributed

        require_distributed()
        from evosoko.evolve.dask_evaluation import DaskEvaluator

        evaluator = DaskEvaluator(
            level,
            encoding,
            fitness,
            address=parallel.address,
            local_workers=parallel.local_workers,
            batch_size=parallel.batch_size,
            retries=parallel.retries,
            crash_marker=crash_marker,
        )
    else:
        raise ValueError(f"unknown evaluation backend {parallel.backend!r}")
    try:
        yield evaluator
    finally:
        evaluator.close()
