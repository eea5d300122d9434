"""Evaluation backends: one ``map(genomes) -> list[Evaluation]`` in this process or in a pool.

:func:`evosoko.evolve.backends.make_evaluator` yields an :class:`Evaluator` built from these
classes. The ``processes`` backend runs a :class:`ProcessPool` (a ``ProcessPoolExecutor``) that
may live for a whole run: :func:`evosoko.evolve.backends.worker_pool` starts it once, outside
every level's budget, and each level's evaluator uses it. A level reaches the workers
as plain data (its XSB rows, title, encoding and fitness settings, the configuration's own
fitness terms included, pickled once per level) with
its tasks; a worker rebuilds it when it first meets it, and every worker does so before the
level's first generation (:meth:`ProcessPool.prepare`). Genomes travel in batches packed as two
flat arrays (``evosoko.parallel.packing``); workers return the evaluations as columns (a few
arrays), from which the parent makes :class:`Evaluation` tuples. Results are identical to the
``serial`` backend and come back in order.

A worker that dies (the pool raises ``BrokenProcessPool``) is replaced: the pool is recreated
and the batches that did not finish are submitted again, up to ``MAX_POOL_RESTARTS`` times in a
row. Besides ``map``, both evaluators run other tasks where the level lives: ``run_each`` (all
results, in order) and ``task_queue`` (results as they finish; the island model's scheduler). Log
records of workers reach the parent's handlers through ``multiprocessing_logging`` when the start
method is fork, through a ``QueueHandler``/``QueueListener`` pair otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import multiprocessing
import os
import pickle
import signal
import threading
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Protocol

import numpy as np

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import Evaluation, FitnessFunction, evaluations_from_columns
from evosoko.parallel.packing import pack_genomes
from evosoko.parallel.worker_lifetime import exit_with_parent
from evosoko.search.clocks import end_searches_when
from evosoko.sokoban.given_holes import rules_notes
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Barrier

log = logging.getLogger(__name__)

MAX_POOL_RESTARTS = 3
"""How often a broken pool may be recreated in a row (no task finishing in between)."""


LevelTask = Callable[..., object]
"""A task run where the level lives: called as ``task(level, fitness_function, *args)``."""


class TaskQueue(Protocol):
    """Tasks run where the level lives, each under a key, their results as they finish."""

    def submit(self, key: Hashable, *args: object) -> None:
        """Queue ``function(level, fitness_function, *args)``."""
        ...

    def next_result(self, timeout: float | None = None) -> tuple[Hashable, object] | None:
        """The key and result of a finished task (None when ``timeout`` seconds passed first,
        or nothing is pending)."""
        ...

    def cancel(self) -> None:
        """Forget every pending task (tasks already running finish unseen)."""
        ...

    def end_running(self) -> None:
        """Forget every pending task and end the searches running now at their next time
        check where the backend can (processes; Dask only cancels); returns once none runs."""
        ...


class Evaluator(Protocol):
    """What the loops use of an evaluator of one level, on every backend: ``map`` scores
    genomes (the engine), ``task_queue`` runs tasks where the level lives with their results as
    they finish (the islands' epochs, a population of searches' searches), ``run_each`` runs
    tasks and returns all results in order."""

    def map(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The evaluation of each genome, in order."""
        ...

    def task_queue(self, function: LevelTask) -> TaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks."""
        ...

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments``; the
        results in order."""
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

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments``, in
        order."""
        return [function(self.level, self.fitness_function, *args) for args in arguments]

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
_worker_crash_marker: str | None = None
_worker_barrier = None  # all workers meet here in ProcessPool.prepare


def _init_worker(
    log_queue, crash_marker: str | None, barrier, end_searches, warm_up: Callable | None
) -> None:
    """Pool initializer: set up logging and call ``warm_up`` (compile or load kernels; a
    forked worker finds them compiled already). Workers ignore SIGINT: the parent decides what
    an interrupt stops (Ctrl-C reaches the whole process group), and ends the searches running
    here by setting the event ``end_searches`` (:meth:`ProcessPool.end_running`)."""
    global _worker_crash_marker, _worker_barrier
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # no orphans when the run's process is killed
    end_searches_when(end_searches.is_set)
    if log_queue is not None:
        root = logging.getLogger()
        root.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
        root.setLevel(logging.DEBUG)
    _worker_crash_marker = crash_marker
    _worker_barrier = barrier
    if warm_up is not None:
        warm_up()


def _fitness_for(level: LevelPayload) -> FitnessFunction:
    """This worker's fitness function of ``level``, rebuilt from its plain data when new."""
    global _worker_level
    key, blob = level
    if _worker_level is None or _worker_level[0] != key:
        from evosoko.sokoban.build import level_from_rows

        rows, title, encoding, fitness, notes = pickle.loads(blob)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rebuilt = level_from_rows(rows, title=title, notes=notes)
        _worker_level = (key, FitnessFunction(rebuilt, encoding, fitness))
        log.debug("evaluation worker %d ready for level %s", os.getpid(), rebuilt.name)
    return _worker_level[1]


def _prepare(level: LevelPayload | None, timeout: float) -> int:
    """Worker task: rebuild ``level`` here (None: only start), then wait until every worker has
    (each of the pool's workers runs one such task); returns this worker's pid."""
    if level is not None:
        _fitness_for(level)
    if _worker_barrier is not None:
        with contextlib.suppress(threading.BrokenBarrierError):
            _worker_barrier.wait(timeout)
    return os.getpid()


def _evaluate_batch(
    level: LevelPayload, genes: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Worker task: evaluate one packed batch (:func:`pack_genomes`) of ``level``; returns the
    evaluation columns (:meth:`FitnessFunction.evaluate_columns`), which pickle as a few
    buffers."""
    _die_if_marked()
    return _fitness_for(level).evaluate_columns(genes, lengths)


def _call_with_level(level: LevelPayload, function: LevelTask, *args) -> object:
    """Worker task: ``function(level, fitness_function, *args)`` with ``level`` rebuilt here."""
    _die_if_marked()
    fitness_function = _fitness_for(level)
    return function(fitness_function.level, fitness_function, *args)


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

PREPARE_TIMEOUT = 60.0
"""Seconds a worker waits in :meth:`ProcessPool.prepare` for the others (they may be compiling
kernels on a slow machine); a pool whose workers do not all arrive runs on regardless."""


def batch_size_for(genomes: int, workers: int, batch_size: int) -> int:
    """Genomes per task: at most ``batch_size``, small enough to give every worker
    ``BATCHES_PER_WORKER`` batches."""
    share = -(-genomes // (workers * BATCHES_PER_WORKER))
    return max(1, min(batch_size, share))


LevelPayload = tuple[str, bytes]
"""A level as its tasks carry it: a key unique to one evaluator, and the pickled plain data
(XSB rows, title, encoding, fitness settings) that a worker rebuilds it from."""


class ProcessPool:
    """Worker processes that evaluate genomes of one level after another; the pool is replaced
    when a worker dies. ``warm_up`` (a picklable callable) runs in every worker as it starts."""

    def __init__(
        self, workers: int, *, crash_marker: str | None = None, warm_up: Callable | None = None
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self.restarts = 0
        self._context = multiprocessing.get_context()
        self._log_setup = _WorkerLogging(self._context.get_start_method())
        self._crash_marker = crash_marker
        self._warm_up = warm_up
        self._barrier: Barrier | None = None
        self._end_searches = self._context.Event()
        self._executor = self._new_executor()

    def evaluator(
        self, level: Level, encoding: str, fitness: FitnessConfig, batch_size: int
    ) -> ProcessEvaluator:
        """An evaluator of ``level`` on this pool, its level already rebuilt in every worker."""
        return ProcessEvaluator(level, encoding, fitness, self.workers, batch_size, pool=self)

    def prepare(self, level: LevelPayload | None) -> list[int]:
        """Start every worker (if not yet) and have each rebuild ``level`` (None: only start),
        so that neither costs time inside a budget; returns the process ids of the workers
        that did (all of them, unless one died or timed out)."""
        futures = [self.submit(_prepare, (level, PREPARE_TIMEOUT)) for _ in range(self.workers)]
        started = [future for future in futures if future is not None]
        try:
            wait(started)
        finally:
            if self._barrier is not None and self._barrier.broken:
                self._barrier.reset()
        return [future.result() for future in started if future.exception() is None]

    def submit(self, task: Callable, args: tuple) -> Future | None:
        """Start ``task(*args)`` on the pool; None when the pool is already broken."""
        try:
            return self._executor.submit(task, *args)
        except BrokenProcessPool:
            return None

    def end_running(self, futures: Iterable[Future]) -> None:
        """End the tasks of ``futures`` early: those not started are cancelled, the searches
        running in the workers end at their next time check as if out of time (their results
        are not worth keeping); returns once none is running."""
        futures = list(futures)
        for future in futures:
            future.cancel()
        self._end_searches.set()
        try:
            wait(futures)
        finally:
            self._end_searches.clear()

    def replace(self) -> None:
        """A new pool in place of a broken one, with new log queues (see ``_WorkerLogging``)."""
        self.restarts += 1
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._log_setup.renew()
        self._executor = self._new_executor()

    def close(self) -> None:
        """Shut the pool down and stop forwarding worker logs."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._log_setup.close()

    def _new_executor(self) -> ProcessPoolExecutor:
        self._barrier = self._context.Barrier(self.workers)
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=self._context,
            initializer=_init_worker,
            initargs=(
                self._log_setup.queue,
                self._crash_marker,
                self._barrier,
                self._end_searches,
                self._warm_up,
            ),
        )


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
        self._check_level_rebuilds(level)
        self.level = level
        self.batch_size = batch_size
        self._own_pool = pool is None
        self.pool = pool if pool is not None else ProcessPool(workers, crash_marker=crash_marker)
        self.workers = self.pool.workers
        self._restarts_before = self.pool.restarts
        # the fitness settings travel as the validated model: its own fitness terms with them
        data = (level.rows(), level.title, encoding, fitness, rules_notes(level))
        self.payload: LevelPayload = (uuid.uuid4().hex, pickle.dumps(data))
        self.pool.prepare(self.payload)

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
        results = self._run(_evaluate_batch, batches)
        return [e for batch in results for e in evaluations_from_columns(batch)]

    def run_each(self, function: LevelTask, arguments: Iterable[tuple]) -> list:
        """``function(level, fitness_function, *args)`` for each tuple of ``arguments``, in the
        workers (``function`` must be importable there); the results in order."""
        return self._run(_call_with_level, ((self.payload, function, *args) for args in arguments))

    def task_queue(self, function: LevelTask) -> PoolTaskQueue:
        """A queue of ``function(level, fitness_function, *args)`` tasks run in the workers,
        whose results come back as they finish (see :class:`PoolTaskQueue`)."""
        return PoolTaskQueue(self, _call_with_level, (self.payload, function))

    def _run(self, task: Callable, calls: Iterable[tuple]) -> list:
        """``task(*args)`` in the pool for each tuple of ``calls``, submitted as they are made
        (workers start while the rest is prepared); the results in order, whatever dies."""
        queue = PoolTaskQueue(self, task)
        count = 0
        for args in calls:
            queue.submit(count, *args)
            count += 1
        by_key: dict[Hashable, object] = {}
        while len(by_key) < count:
            finished = queue.next_result()
            assert finished is not None  # without a timeout it waits for one
            key, result = finished
            by_key[key] = result
        return [by_key[index] for index in range(count)]

    def _submit(self, task: Callable, args: tuple) -> Future | None:
        """Start ``task(*args)`` on the pool; None when the pool is already broken."""
        return self.pool.submit(task, args)

    def _replace_pool(self) -> None:
        self.pool.replace()

    def close(self) -> None:
        """Shut down a pool of its own (a shared pool stays for the next level)."""
        if self._own_pool:
            self.pool.close()

    @staticmethod
    def _check_level_rebuilds(level: Level) -> None:
        """Workers rebuild the level from its rows: make sure cell indices are unchanged."""
        from evosoko.sokoban.build import level_from_rows

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

    def next_result(self, timeout: float | None = None) -> tuple[Hashable, object] | None:
        """The key and result of a finished task: waits for one, at most ``timeout`` seconds
        (None when none finished by then, or nothing is pending)."""
        while not self._finished:
            if self._lost:
                self._restart()
                continue
            if not self._running:
                return None
            done, _ = wait(self._running, timeout=timeout, return_when=FIRST_COMPLETED)
            if not done:
                return None
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

    def end_running(self) -> None:
        """Forget every pending task and end the searches running now at their next time
        check (:meth:`ProcessPool.end_running`); returns once none runs."""
        running = list(self._running)
        self.cancel()
        self._evaluator.pool.end_running(running)

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
        self.queue: Queue | None = None
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
