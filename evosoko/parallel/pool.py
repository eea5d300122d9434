"""The one local process pool: tasks on worker processes that survive a dying worker.

:class:`ProcessPool` serves the GA's evaluators (genome batches, island epochs, searches: see
:mod:`evosoko.evolve.evaluation`) and the jobs of ``compare``, ``sweep`` and level evolution
(it is a :class:`~evosoko.parallel.jobs.JobBackend`). Its workers

- ignore Ctrl-C (it reaches the whole process group; the parent decides what stops) and end
  when the parent dies (:func:`~evosoko.parallel.worker_lifetime.exit_with_parent`);
- run ``warm_up`` (compiling kernels) as they start, so that no task's time includes it;
- send their log records to the parent's handlers (``multiprocessing_logging`` when the start
  method is fork, a ``QueueHandler``/``QueueListener`` pair otherwise);
- can be told to stop what they run (:meth:`ProcessPool.end_running`), which a task reads
  through :func:`stop_requested`.

A worker that dies breaks the executor (``BrokenProcessPool``): :class:`PoolTaskQueue` replaces it
and submits the tasks that had not finished again, up to :data:`MAX_POOL_RESTARTS` times in a
row without a finished task.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import logging.handlers
import multiprocessing
import os
import signal
import threading
import traceback
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Protocol, cast

from evosoko.parallel.worker_lifetime import exit_with_parent

if TYPE_CHECKING:
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Barrier, Event

__all__ = [
    "MAX_POOL_RESTARTS",
    "PoolTaskQueue",
    "ProcessPool",
    "TaskQueue",
    "die_if_marked",
    "guarded",
    "results_in_order",
    "stop_requested",
]

log = logging.getLogger(__name__)

MAX_POOL_RESTARTS = 3
"""How often a broken pool may be replaced in a row (no task finishing in between)."""

MEET_TIMEOUT = 60.0
"""Seconds a worker waits in :meth:`ProcessPool.on_every_worker` for the others (they may be
compiling kernels on a slow machine); a pool whose workers do not all arrive runs on."""


# ---- worker side --------------------------------------------------------------------------------
_crash_marker: str | None = None
_barrier: Barrier | None = None  # all workers meet here in ProcessPool.on_every_worker
_stop: Event | None = None


def _start_worker(
    log_queue: Queue | None,
    crash_marker: str | None,
    barrier: Barrier,
    stop: Event,
    warm_up: Callable[[], None] | None,
) -> None:
    """Worker initializer: see the module docstring."""
    global _crash_marker, _barrier, _stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # no orphans when the parent is killed
    if log_queue is not None:
        root = logging.getLogger()
        root.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
        root.setLevel(logging.DEBUG)
    _crash_marker, _barrier, _stop = crash_marker, barrier, stop
    if warm_up is not None:
        warm_up()


def stop_requested() -> bool:
    """In a worker: whether the parent asked the tasks running now to end
    (:meth:`ProcessPool.end_running`); False outside a pool's worker."""
    return _stop is not None and _stop.is_set()


def die_if_marked() -> None:
    """Test hook, in a worker: the first worker that finds the pool's crash marker file
    deletes it and ends its process at once, in the middle of its task."""
    if _crash_marker is None:
        return
    try:
        os.remove(_crash_marker)
    except FileNotFoundError:
        return
    log.warning("worker %d dies on purpose (test hook)", os.getpid())
    _flush_log_queues()
    os._exit(1)


def _flush_log_queues() -> None:
    """Push buffered log records through their queues before this process ends abruptly."""
    import multiprocessing_logging

    for handler in logging.getLogger().handlers:
        if isinstance(
            handler, (logging.handlers.QueueHandler, multiprocessing_logging.MultiProcessingHandler)
        ):
            queue: Any = handler.queue
            queue.close()
            queue.join_thread()


def _meet(task: Callable[..., object] | None, args: tuple, timeout: float) -> int:
    """Worker task: ``task(*args)``, then wait until every worker has done it; the pid."""
    if task is not None:
        task(*args)
    if _barrier is not None:
        with contextlib.suppress(threading.BrokenBarrierError):
            _barrier.wait(timeout)
    return os.getpid()


def guarded(function: Callable[[Any], dict], payload: Any) -> dict:
    """Call a job ``function``; an exception becomes an ``error`` result with its traceback."""
    try:
        return function(payload)
    except Exception as error:  # noqa: BLE001 - a job's failure must not end the experiment
        return {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}


# ---- parent side --------------------------------------------------------------------------------
class TaskQueue(Protocol):
    """Tasks, each under a key, their results as they finish: a process pool's
    (:class:`PoolTaskQueue`), a Dask cluster's, or this process's."""

    def submit(self, key: Hashable, *args: object) -> None:
        """Queue a task of these arguments."""
        ...

    def next_result(self, timeout: float | None = None) -> tuple[Hashable, object] | None:
        """The key and result of a finished task (None when ``timeout`` seconds passed first,
        or nothing is pending)."""
        ...

    def cancel(self) -> None:
        """Forget every pending task (tasks already running finish unseen)."""
        ...

    def end_running(self) -> None:
        """Forget every pending task and end the tasks running now where the backend can
        (processes; Dask only cancels); returns once none runs."""
        ...


def results_in_order(queue: TaskQueue, calls: Iterable[tuple]) -> list:
    """Submit a task for each tuple of ``calls`` (workers start while the rest is made) and
    return all results in the order of ``calls``."""
    count = 0
    for args in calls:
        queue.submit(count, *args)
        count += 1
    by_key: dict[Hashable, object] = {}
    while len(by_key) < count:
        finished = queue.next_result()
        assert finished is not None  # without a timeout it waits for one
        by_key[finished[0]] = finished[1]
    return [by_key[index] for index in range(count)]


class ProcessPool:
    """``workers`` worker processes; replaced when one dies (see :class:`PoolTaskQueue`).

    ``warm_up`` (picklable) runs in every worker as it starts; ``crash_marker`` is the test
    hook of :func:`die_if_marked`; ``start_method``: how workers start (None: the platform's
    default; ``"spawn"`` for work that must not inherit this process's threads).
    """

    def __init__(
        self,
        workers: int,
        *,
        warm_up: Callable[[], None] | None = None,
        crash_marker: str | None = None,
        start_method: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self.restarts = 0
        self._context = multiprocessing.get_context(start_method)
        self._crash_marker = crash_marker
        self._warm_up = warm_up
        self._stop = self._context.Event()
        self._barrier = self._context.Barrier(workers)
        self._logging: _WorkerLogging | None = None
        self._executor: ProcessPoolExecutor | None = None

    def submit(self, task: Callable[..., object], *args: object) -> Future | None:
        """Start ``task(*args)`` in a worker (starting the workers first if the pool is new or
        closed); None when the pool is already broken."""
        if self._executor is None:
            self._logging = _WorkerLogging(self._context.get_start_method())
            self._executor = self._new_executor()
        try:
            return self._executor.submit(task, *args)
        except BrokenProcessPool:
            return None

    def on_every_worker(
        self, task: Callable[..., object] | None = None, *args: object
    ) -> list[int]:
        """Start every worker (if not yet) and have each run ``task(*args)`` once (None: only
        start), so that neither costs time inside a budget; the process ids of the workers
        that did (all of them, unless one died or timed out)."""
        futures = [self.submit(_meet, task, args, MEET_TIMEOUT) for _ in range(self.workers)]
        started = [future for future in futures if future is not None]
        try:
            wait(started)
        finally:
            if self._barrier.broken:
                self._barrier.reset()
        return [future.result() for future in started if future.exception() is None]

    def end_running(self, futures: Iterable[Future]) -> None:
        """End the tasks of ``futures`` early: those not started are cancelled, those running
        see :func:`stop_requested` true; returns once none runs."""
        futures = list(futures)
        for future in futures:
            future.cancel()
        self._stop.set()
        try:
            wait(futures)
        finally:
            self._stop.clear()

    def replace(self) -> None:
        """A new executor in place of a broken one, with new log queues (see
        :meth:`_WorkerLogging.renew`)."""
        self.restarts += 1
        if self._executor is None or self._logging is None:
            return
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._logging.renew()
        self._executor = self._new_executor()

    def imap_unordered(
        self, function: Callable[[Any], dict], payloads: Sequence[Any]
    ) -> Iterator[tuple[int, dict]]:
        """The job backend's method: ``(position, function(payload))`` as jobs finish, at most
        ``2 * workers`` queued at a time (so that stopping early wastes little); a job that
        raises gives an ``error`` result."""
        queue = PoolTaskQueue(self, guarded, (function,))
        waiting = iter(enumerate(payloads))
        for position, payload in itertools.islice(waiting, 2 * self.workers):
            queue.submit(position, payload)
        while (finished := queue.next_result()) is not None:
            yield cast(int, finished[0]), cast(dict, finished[1])
            for position, payload in itertools.islice(waiting, 1):
                queue.submit(position, payload)

    def close(self) -> None:
        """Cancel the tasks not started, wait for the running ones, stop forwarding logs (a
        later task starts new workers)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._logging is not None:
            self._logging.close()
            self._logging = None

    def abort(self) -> None:
        """Stop at once (Ctrl-C): end the workers, dropping what they were running."""
        if self._executor is not None:
            for process in list(self._executor._processes.values()):
                process.terminate()
        self.close()

    def _new_executor(self) -> ProcessPoolExecutor:
        assert self._logging is not None
        self._barrier = self._context.Barrier(self.workers)
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=self._context,
            initializer=_start_worker,
            initargs=(
                self._logging.queue,
                self._crash_marker,
                self._barrier,
                self._stop,
                self._warm_up,
            ),
        )


class PoolTaskQueue:
    """Tasks on a :class:`ProcessPool`, each under a key: ``task(*prefix, *args)``;
    :meth:`next_result` returns ``(key, result)`` of a finished task as soon as one finishes
    (of tasks finished together, the first submitted first). When a worker dies, the pool is
    replaced and every task that had not finished runs again; more than
    :data:`MAX_POOL_RESTARTS` replacements in a row without a finished task is an error."""

    def __init__(self, pool: ProcessPool, task: Callable[..., object], prefix: tuple = ()) -> None:
        self._pool = pool
        self._task = task
        self._prefix = prefix
        self._order = itertools.count()
        self._running: dict[Future, tuple[int, Hashable, tuple]] = {}
        self._lost: list[tuple[int, Hashable, tuple]] = []  # to run again in a new pool
        self._finished: deque[tuple[Hashable, object]] = deque()
        self._restarts_in_a_row = 0

    @property
    def pending(self) -> int:
        """Tasks submitted whose results were not taken yet."""
        return len(self._running) + len(self._lost) + len(self._finished)

    def submit(self, key: Hashable, *args: object) -> None:
        """Start ``task(*prefix, *args)`` in the pool."""
        self._start((next(self._order), key, (*self._prefix, *args)))

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
            for future in sorted(done, key=lambda f: self._running[f][0]):
                order, key, args = self._running.pop(future)
                try:
                    self._finished.append((key, future.result()))
                    self._restarts_in_a_row = 0
                except BrokenProcessPool:
                    self._lost.append((order, key, args))
        return self._finished.popleft()

    def cancel(self) -> None:
        """Forget every pending task (tasks already running finish unseen)."""
        for future in self._running:
            future.cancel()
        self._running.clear()
        self._lost.clear()
        self._finished.clear()

    def end_running(self) -> None:
        """Forget every pending task and end the running ones (:meth:`ProcessPool.
        end_running`); returns once none runs."""
        running = list(self._running)
        self.cancel()
        self._pool.end_running(running)

    def _start(self, entry: tuple[int, Hashable, tuple]) -> None:
        future = self._pool.submit(self._task, *entry[2])
        if future is None:
            self._lost.append(entry)
        else:
            self._running[future] = entry

    def _restart(self) -> None:
        if self._restarts_in_a_row == MAX_POOL_RESTARTS:
            raise RuntimeError(f"pool workers died {MAX_POOL_RESTARTS + 1} times in a row")
        self._restarts_in_a_row += 1
        again = sorted(self._lost + list(self._running.values()))
        log.warning("a worker died; restarting the pool and re-running %d task(s)", len(again))
        self._lost, self._running = [], {}
        self._pool.replace()
        for entry in again:
            self._start(entry)


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
            self._listener = None
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
