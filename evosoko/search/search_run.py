"""One search in progress (:class:`SearchRun`): its state store, kernel parameters and budget.

:func:`evosoko.search.solver.solve` builds one and runs it; the feature-space search
(:mod:`evosoko.search.fess.run`) derives its own. The budget is spent in kernel calls sized to
about ``_CHUNK_SECONDS`` each, so the clock and the memory limit are checked between calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from evosoko.search import move_kernel, push_kernel
from evosoko.search.algorithms import MOVE, Algorithm
from evosoko.search.clocks import OutOfTime, TimeLimit
from evosoko.search.drop import drop_states
from evosoko.search.goalroom import find_goal_room, no_goal_room
from evosoko.search.heuristics import HEURISTICS, MATCHING
from evosoko.search.paths import move_path, partial_path, push_path, search_result
from evosoko.search.result import (
    MEMORY_LIMIT,
    NODE_LIMIT,
    SOLVED,
    TIMEOUT,
    UNSOLVABLE,
    PartialPath,
    SearchResult,
)
from evosoko.search.settings import PushSettings
from evosoko.search.store import (
    CHUNK,
    CORRALS,
    DUPLICATES,
    EXHAUSTED,
    EXPANDED,
    FREEZE,
    G_WEIGHT,
    GENERATED,
    GOAL_AT_GENERATION,
    GOAL_MACROS,
    H_WEIGHT,
    HEAP,
    HEURISTIC,
    MIN_EXCEEDED,
    MODE,
    NEED_SPACE,
    NO_THRESHOLD,
    PARAM_COUNT,
    REOPEN,
    RESUME_NODE,
    SHUFFLE,
    SOLUTION,
    THRESHOLD,
    TUNNELS,
    WEIGHT_SCALE,
    WORK,
    WORK_LIMIT,
    Store,
    frontier_push,
    progress_points,
)
from evosoko.sokoban.arrays import arrays_bytes, level_arrays
from evosoko.sokoban.level import Level

DEFAULT_MEMORY = 2 * 1024**3
"""Bytes the tables and the state store of one search may use; past that the search stops with
``memory-limit``, or drops states and goes on (``on_full``, :meth:`SearchRun.make_room`); tables
that would not fit are not built at all."""

_CHUNK_SECONDS = 0.01
"""Target wall time of one kernel call: the clock of the time limit is read between calls."""
_FIRST_WORK_LIMIT = 1 << 14
"""Work units of the first kernel call; the next ones follow the measured rate."""
_UNLIMITED = 1 << 62
DROP_SHARE = 0.25
"""Share of its capacity a full store frees when it drops states (``on_full = "drop"``): a
drop passes once over every stored state, so each drop pays for a quarter of a store of new
ones."""
RESTART_WEIGHT_SPREAD = 2.0
"""A restart (:meth:`SearchRun.restart`) weighs ``h`` by the search's own weight times a factor
drawn log-uniformly between ``1 / RESTART_WEIGHT_SPREAD`` and ``RESTART_WEIGHT_SPREAD``."""


def restart_weight(h_weight: int, seed: int, restart: int) -> int:
    """The weight of ``h`` (scaled by :data:`~evosoko.search.store.WEIGHT_SCALE`) of a search's
    ``restart``-th restart, from its first pass's ``h_weight``: drawn from a generator seeded
    with ``seed`` and ``restart`` alone, so a run's passes are the same however it is run."""
    rng = np.random.default_rng((int(seed) % (1 << 63), restart))
    factor = RESTART_WEIGHT_SPREAD ** rng.uniform(-1.0, 1.0)
    return max(1, round(h_weight * factor))


def table_bytes(level: Level) -> int:
    """Memory the per-level tables of a search take: push distances of every goal from every
    cell (kept as int32 by the level and int64 by the kernels) and a few arrays per cell."""
    return level.box_count * level.cells * 12 + 256 * level.cells


def _next_chunk(chunk: int, elapsed: float) -> int:
    """Expansions of the next kernel call, so that it takes about ``_CHUNK_SECONDS`` (at most
    four times the last call's, and 65,536)."""
    return int(min(max(chunk * _CHUNK_SECONDS / elapsed, 1), 4 * chunk, 1 << 16))


def _next_work_limit(limit: int, done: int, seconds: float, target: float = _CHUNK_SECONDS) -> int:
    """The work limit of the next kernel call: what the measured rate does in ``target``
    seconds, changed at most fourfold per call, at least 1."""
    if done <= 0:
        return limit
    wanted = done * target / max(seconds, 1e-6)
    return int(min(max(wanted, limit / 4, 1), limit * 4, _UNLIMITED))


_SECONDS_PER_UNIT: list[float] = []


def _seconds_per_work_unit() -> float:
    """Seconds one work unit of a full matching takes here, measured once per process."""
    if not _SECONDS_PER_UNIT:
        from evosoko.sokoban.matching import matching_kernel

        size = 96
        rng = np.random.default_rng(0)
        distances = rng.integers(0, 50, size=(size, size)).astype(np.int64)
        boxes = np.arange(size, dtype=np.int64)
        assignment = np.zeros(size, dtype=np.int16)  # as on small boards: compiled already
        scratch = np.zeros((6, size + 1), dtype=np.int64)
        matching_kernel(distances, boxes, assignment, scratch)  # compiled before timing
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            matching_kernel(distances, boxes, assignment, scratch)
            best = min(best, time.perf_counter() - started)
        _SECONDS_PER_UNIT.append(best / size**3)
    return _SECONDS_PER_UNIT[0]


class SearchRun:
    """One search in progress: its store, kernel parameters and budget."""

    model: str | None = None
    """The deadlock model a guided algorithm orders by (None: the shipped one)."""

    def __init__(
        self,
        level,
        algorithm: Algorithm,
        heuristic,
        time_limit,
        node_limit,
        settings: PushSettings | None,
        seed,
        memory_limit,
        store_cells: int = 0,
        clock: str = "wall",
    ):
        """``settings``: the search's family settings (:mod:`evosoko.search.settings`; None
        for a move-level search, which has none)."""
        self.limit = TimeLimit(time_limit, clock)
        """The time limit on its clock (:mod:`evosoko.search.clocks`)."""
        self.level = level
        self.algorithm = algorithm
        self.heuristic = heuristic
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.settings = settings
        self.seed = seed
        self.is_move = algorithm.level == MOVE
        self.store_cells = max(level.cells, store_cells)
        self.store = Store(level.box_count, capacity=16, cells=self.store_cells)  # until prepared
        self._prepared = False
        self.progress: list[tuple[int, float, int]] = []
        """``(expanded, seconds, h)`` whenever the lowest stored heuristic fell."""
        self.drops = 0
        """How many times a full store dropped states (``on_full = "drop"``)."""
        self.dropped = 0
        """States dropped in all."""
        self.restarts = 0
        """How many times the search started again from the start after drops (:meth:`restart`)."""
        self._pass_drops = 0
        """Drops since the search last started from the start."""
        self._first_h_weight = 0
        """The weight of ``h`` of the first pass (set at the first restart)."""
        self._seconds_per_node = 0.0
        """Seconds on the limit's clock per node (of the capacity after it) that the last
        growth took."""

    def _prepare(self) -> str | None:
        """Build the tables, store and parameters; a status when the budget forbids it."""
        level, algorithm = self.level, self.algorithm
        box_count = level.box_count
        kind = HEURISTICS[self.heuristic]
        if table_bytes(level) >= self.memory_limit:
            return MEMORY_LIMIT
        self.tab = level_arrays(level)
        self.store = Store(
            box_count, with_assignment=kind == MATCHING and not self.is_move, cells=self.store_cells
        )
        room_for_nodes = self.memory_limit - table_bytes(level)
        self.max_nodes = max(1 << 12, room_for_nodes // self.bytes_per_node())
        self.params = np.zeros(PARAM_COUNT, dtype=np.int64)
        self.params[MODE] = algorithm.mode
        self.params[HEURISTIC] = kind
        self.params[G_WEIGHT] = algorithm.g_weight
        h_weight = algorithm.h_weight
        if h_weight is None:  # weighted by the settings (push searches only)
            assert self.settings is not None
            h_weight = round(self.settings.weight * WEIGHT_SCALE)
        self.params[H_WEIGHT] = h_weight
        self.goal_room = None
        if self.settings is not None:
            self.params[FREEZE] = self.settings.freeze
            self.params[CORRALS] = self.settings.corrals
            self.params[TUNNELS] = self.settings.tunnels
            goal_rooms = self.settings.goal_rooms
            if goal_rooms is None:
                goal_rooms = not algorithm.optimal
            if goal_rooms:
                self.goal_room = find_goal_room(
                    level, self.settings.goal_room_steps, self.limit.tick
                )
        self.room_tab = (
            self.goal_room.kernel_arrays() if self.goal_room else no_goal_room(level.cells)
        )
        self.params[GOAL_MACROS] = self.goal_room is not None
        self.params[REOPEN] = algorithm.reopen
        self.params[THRESHOLD] = NO_THRESHOLD
        self.params[GOAL_AT_GENERATION] = algorithm.goal_test
        self.params[SHUFFLE] = algorithm.shuffle
        self.params[CHUNK] = 1
        self.params[WORK_LIMIT] = _FIRST_WORK_LIMIT
        self.work = np.zeros((6, box_count + 1), dtype=np.int64)
        if self.is_move:
            self.scratch: move_kernel.MoveScratch | push_kernel.PushSearchScratch
            self.scratch = move_kernel.make_scratch(level.cells, box_count)
            move_kernel.seed_random(self.seed)
        else:
            patterns = self._scratch_patterns()
            self.scratch = push_kernel.make_scratch(level.cells, box_count, patterns)
            kept = arrays_bytes(self.scratch.deadlocks.patterns)
            self.max_nodes -= kept // self.bytes_per_node()  # the patterns share the memory
        self.start_boxes = np.array(level.start.boxes, dtype=np.int64)
        if self.out_of_time():
            return TIMEOUT
        if kind == MATCHING and self.time_limit is not None:
            # one matching cannot be cut short: do not start one that cannot end in time
            needed = box_count**3 * _seconds_per_work_unit()
            if self.limit.passed(ahead=needed):
                return TIMEOUT
        return None

    def _scratch_patterns(self) -> int:
        """How many deadlock patterns the push kernel's own corral tests keep
        (``deadlock_patterns``; 0: no such tests)."""
        return self.settings.deadlock_patterns if self.settings is not None else 0

    def bytes_per_node(self) -> int:
        """Memory one stored state takes: its store's row, table and frontier share
        (:meth:`Store.bytes_per_node`), and whatever else the search keeps per state."""
        return self.store.bytes_per_node()

    def compile_rest(self) -> None:
        """Call the kernels a short search may end before calling, so that they are compiled
        before a timed search needs them (:func:`~evosoko.search.solver.warm_up`): none here."""

    def out_of_time(self) -> bool:
        """True once the time limit has passed on the run's clock."""
        return self.limit.passed()

    # ---- running ------------------------------------------------------------------------------
    def search(self) -> str:
        """Run to the end or the budget; returns the status."""
        try:
            return self._search()
        except OutOfTime:  # long set-up work read the clock (see evosoko.search.clocks), or
            return TIMEOUT  # the store's growth could not end in time (make_room)

    def _search(self) -> str:
        if not self._prepared:
            refused = self._prepare()
            if refused is not None:
                return refused
            self._prepared = True
        if all(self.level.goals[b] for b in self.level.start.boxes):
            self._add_root()
            self.store.counters[SOLUTION] = 0
            return SOLVED
        if not self.algorithm.iterative:
            self._add_root()
            outcome = self._run_kernel()
            if outcome == UNSOLVABLE and self.params[GOAL_MACROS]:
                self.params[GOAL_MACROS] = 0  # the packing order may be what failed
                self.store.clear()
                self._add_root()
                outcome = self._run_kernel()
            return outcome
        threshold = self._add_root()
        while True:
            self.params[THRESHOLD] = threshold
            self.store.counters[MIN_EXCEEDED] = -1
            outcome = self._run_kernel()
            if outcome != UNSOLVABLE:
                return outcome
            threshold = int(self.store.counters[MIN_EXCEEDED])
            if threshold < 0:
                return UNSOLVABLE
            self.store.clear()
            self._add_root()

    def _add_root(self) -> int:
        store = self.store
        player = self.level.start.player
        if self.is_move:
            _, h, key = move_kernel.move_root(
                self.tab, self.params, store.arrays, self.start_boxes, player, self.work
            )
        else:
            _, h, key = push_kernel.push_root(
                self.tab,
                self.params,
                store.arrays,
                self.scratch,
                self.start_boxes,
                player,
                self.work,
            )
        frontier_push(store.frontier, store.counters, self.algorithm.mode, key, 0)
        return int(h)

    def _call_kernel(self) -> int:
        """One kernel call of ``params[CHUNK]`` expansions; returns its code."""
        kernel: Callable[..., int] = (  # the move or the push search: their own leading arguments
            move_kernel.move_search if self.is_move else push_kernel.push_search
        )
        arguments: tuple[Any, ...] = (self.tab,) if self.is_move else (self.tab, self.room_tab)
        return kernel(*arguments, self.params, self.store.arrays, self.scratch, self.work)

    def _grow(self) -> None:
        """Make room after a kernel asked for it."""
        self.store.grow(self.max_nodes)

    def _run_kernel(self) -> str:
        """Call the kernel until it ends or a limit is reached.

        Each call takes about ``_CHUNK_SECONDS``: both its expansions (``CHUNK``) and its work
        units (``WORK_LIMIT``, which a push-level call honours even inside an expansion, going
        on from there on the next call) follow the rates measured on the calls before
        (:meth:`_next_call`), so the clock and Ctrl-C are looked at often however costly one
        expansion is. A guided algorithm (``push-learned*``) runs its own loop
        (:func:`evosoko.search.learned.run_guided`).
        """
        if self.algorithm.guided:
            from evosoko.search.learned import run_guided

            return run_guided(self)
        store = self.store
        chunk = 1
        while True:
            self.params[CHUNK] = chunk
            if self.node_limit is not None:
                left = self.node_limit - int(store.counters[EXPANDED])
                if left <= 0:
                    if store.counters[RESUME_NODE] < 0:
                        return NODE_LIMIT
                    left = 1  # a node limit counts whole expansions: finish the one cut short
                self.params[CHUNK] = min(chunk, left)
            called = time.perf_counter()
            work_before = int(store.counters[WORK])
            code = self._call_kernel()
            done = time.perf_counter()
            self._note_progress()
            if code == EXHAUSTED and not self._pass_drops:
                return UNSOLVABLE
            if store.counters[SOLUTION] >= 0:
                return SOLVED
            out_of_states = code == EXHAUSTED or (code == NEED_SPACE and not self.make_room())
            if out_of_states and not self.restart():  # after a drop no proof: states are gone
                return MEMORY_LIMIT
            if self.out_of_time():
                return TIMEOUT
            chunk = self._next_call(
                chunk, max(done - called, 1e-6), int(store.counters[WORK]) - work_before
            )

    def _next_call(self, chunk: int, seconds: float, work: int) -> int:
        """The expansions of the next kernel call, after one of ``chunk`` expansions that did
        ``work`` work units in ``seconds``; sets its ``params[WORK_LIMIT]``. Both follow the
        measured rate: where one search's calls end does not change its course (an expansion
        cut short goes on where it stopped)."""
        self.params[WORK_LIMIT] = _next_work_limit(int(self.params[WORK_LIMIT]), work, seconds)
        return _next_chunk(chunk, seconds)

    def _note_progress(self) -> None:
        """After a kernel call: each new lowest heuristic its states reached, with the expansions
        when it was stored (logged by the kernel, so the same however the calls were cut) and the
        seconds now."""
        seconds = self.limit.wall_seconds()
        for expanded, low in progress_points(self.store.counters):
            self.progress.append((expanded, seconds, low))

    def make_room(self) -> bool:
        """Grow the store for the kernel (:meth:`_grown_room`); when it may not grow, a search
        that may drop states (:meth:`may_drop`) drops some instead (:meth:`_dropped_room`).
        False: neither, the search ends at memory-limit."""
        return self._grown_room() or self._dropped_room()

    def _grown_room(self) -> bool:
        """Grow the store for the kernel; False when that would pass the memory limit or the
        memory cannot be had. Raises :class:`~evosoko.search.clocks.OutOfTime` (the search
        ends with ``timeout``) instead of starting a growth that, at the last one's seconds
        per node, would end past the time limit: one growth copies every stored node, 0.15 s
        on the 261-box lattice of ``benchmarks/bench_limits.py`` at 262,144 nodes, and is not
        cut short. A search that may drop states grows its frontier to at most two entries per
        state of ``max_nodes`` (what :meth:`bytes_per_node` counts)."""
        store = self.store
        if not store.can_grow(self.max_nodes):
            return False
        if self.may_drop() and not store.frontier_may_grow(2 * self.max_nodes):
            return False
        if self.limit.passed(ahead=self._seconds_per_node * 2 * store.capacity):
            raise OutOfTime
        started = self.limit.read()
        try:
            self._grow()
        except MemoryError:  # the machine (or ulimit -v) has less room than the memory limit
            return False
        self._seconds_per_node = (self.limit.read() - started) / store.capacity
        return True

    def may_drop(self) -> bool:
        """Whether a full store drops states instead of ending the search: ``on_full`` is
        ``"drop"`` and the search is not optimal (its optimality would not survive), iterative
        or guided, and keeps a heap frontier."""
        algorithm = self.algorithm
        return (
            getattr(self.settings, "on_full", "stop") == "drop"
            and not (algorithm.optimal or algorithm.iterative or algorithm.guided)
            and algorithm.mode == HEAP
        )

    def _dropped_room(self) -> bool:
        """Drop up to :data:`DROP_SHARE` of the store's capacity in open leaves
        (:func:`~evosoko.search.drop.drop_states`); False when the search may not drop states
        (:meth:`may_drop`) or too few were dropped to go on."""
        if not self.may_drop():
            return False
        new_id = self._drop_states()
        if new_id is None:
            return False
        self.drops += 1
        self._pass_drops += 1
        self.dropped += int(np.count_nonzero(new_id < 0))
        return self.store.has_room(2) and self.store.frontier_may_grow(2 * self.max_nodes)

    def restart(self) -> bool:
        """Start again from the start position, with an empty store of the same capacity, after
        the frontier emptied or a drop freed too little: the states the drops forgot made the
        search incomplete. What it learned stays (deadlock patterns, the cluster tests' cache,
        the level's tables); the weight of ``h`` is redrawn (:func:`restart_weight`, from the
        seed and the restart's number) so that the new pass does not retrace the last. False
        when the search may not drop states (:meth:`may_drop`) or has no restart left
        (``restarts`` of its settings): it ends at memory-limit."""
        allowed = getattr(self.settings, "restarts", 0)
        if not self.may_drop() or self.restarts >= allowed:
            return False
        if not self.restarts:
            self._first_h_weight = int(self.params[H_WEIGHT])
        self.restarts += 1
        self._pass_drops = 0
        self.params[H_WEIGHT] = restart_weight(self._first_h_weight, self.seed or 0, self.restarts)
        self._clear()
        self._add_root()
        return True

    def _clear(self) -> None:
        """Forget every stored state (before a restart)."""
        self.store.clear()

    def _drop_states(self) -> np.ndarray | None:
        """:func:`~evosoko.search.drop.drop_states` on this search's store and frontier."""
        assert isinstance(self.scratch, push_kernel.PushSearchScratch)
        pending = self.scratch.pending
        return drop_states(
            self.store,
            DROP_SHARE,
            pending=pending.ids[: int(pending.size[0])],
            weights=self._weights(),
        )

    def _weights(self) -> tuple[int, int]:
        """The weights of ``g`` and ``h`` in the search's heap key."""
        return int(self.params[G_WEIGHT]), int(self.params[H_WEIGHT])

    # ---- reporting ----------------------------------------------------------------------------
    def result(self, status: str, partial: int) -> SearchResult:
        counters = self.store.counters
        solution = self._path(int(counters[SOLUTION])) if status == SOLVED else None
        partial_paths: tuple[PartialPath, ...] = ()
        if solution is None and partial and status in (TIMEOUT, NODE_LIMIT, MEMORY_LIMIT):
            partial_paths = self._partial_paths(partial)
        return search_result(
            self.level,
            status=status,
            algorithm=self.algorithm.name,
            heuristic=self.heuristic,
            solution=solution,
            counts=(int(counters[EXPANDED]), int(counters[GENERATED]), int(counters[DUPLICATES])),
            seconds=self.limit.wall_seconds(),
            partial=partial_paths,
            progress=self._progress(status),
            drop_counts=(self.drops, self.dropped, self.restarts),
        )

    def _progress(self, status: str) -> tuple[tuple[int, float, int], ...]:
        """The progress noted, ending at distance 0 when solved."""
        points = list(self.progress)
        if status == SOLVED and (not points or points[-1][2] > 0):
            expanded = int(self.store.counters[EXPANDED])
            points.append((expanded, self.limit.wall_seconds(), 0))
        return tuple(points)

    def _path(self, node: int) -> str:
        if self.is_move:
            return move_path(self.store, node)
        return push_path(self.level, self.store, node, self.goal_room)

    def _partial_paths(self, count: int) -> tuple[PartialPath, ...]:
        h = self.store.field("h")
        return tuple(
            partial_path(self.level, self._path(node), int(h[node]))
            for node in self._partial_nodes(count)
        )

    def _partial_nodes(self, count: int) -> list[int]:
        """The ``count`` frontier states with the lowest ``h``, then the lowest ``g``."""
        return self._lowest_h(self._open_nodes())[:count].tolist()

    def _open_nodes(self) -> np.ndarray:
        open_nodes = np.flatnonzero(self.store.field("closed") == 0)
        return open_nodes if len(open_nodes) else np.arange(self.store.size)

    def _lowest_h(self, nodes: np.ndarray) -> np.ndarray:
        """``nodes`` ordered by ``h``, then ``g``."""
        store = self.store
        return nodes[np.lexsort((store.field("g")[nodes], store.field("h")[nodes]))]
