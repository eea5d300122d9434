"""``solve``: run one named search on one level within a time and node budget."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from evosoko.errors import ConfigError
from evosoko.search import move_kernel, push_kernel
from evosoko.search.algorithms import MOVE, Algorithm, algorithm_named, heuristic_for
from evosoko.search.goalroom import find_goal_room, no_goal_room
from evosoko.search.heuristics import HEURISTICS, MATCHING
from evosoko.search.paths import move_path, push_path, verified
from evosoko.search.result import (
    NODE_LIMIT,
    SOLVED,
    TIMEOUT,
    UNSOLVABLE,
    PartialPath,
    SearchResult,
)
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
    HEURISTIC,
    MIN_EXCEEDED,
    MODE,
    NEED_SPACE,
    NO_THRESHOLD,
    NODES,
    PARAM_COUNT,
    REOPEN,
    SHUFFLE,
    SOLUTION,
    THRESHOLD,
    TUNNELS,
    WEIGHT_SCALE,
    Store,
    frontier_push,
)
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.level import Level

DEFAULT_MEMORY = 2 * 1024**3
"""Bytes the state store of one search may use; past that the search stops with node-limit."""

_CHUNK_SECONDS = 0.01
"""Target wall time of one kernel call: the clock is read between calls."""


@dataclass(frozen=True, slots=True)
class Pruning:
    """Which sound pruning rules push-level searches apply (dead squares are always pruned).

    ``freeze``: freeze deadlocks of the pushed box. ``corrals``: PI-corral pruning.
    ``tunnels``: a box pushed into a dead-end tunnel is pushed on to the deepest free goal
    ahead in one macro step (and the push is dropped when there is none). These three keep
    push-optimality and completeness, so ``unsolvable`` stays exact with them on. ``goal_rooms``:
    goal macros with a fixed packing order (:mod:`evosoko.search.goalroom`); neither optimal nor
    complete, so None (the default) uses them in the non-optimal searches only, and a search that
    exhausts its space with them is repeated without them.
    """

    freeze: bool = True
    corrals: bool = True
    tunnels: bool = True
    goal_rooms: bool | None = None


def solve(
    level: Level,
    algo: str = "push-astar",
    heuristic: str | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float = 3.0,
    partial: int = 0,
    *,
    pruning: Pruning = Pruning(),
    seed: int = 0,
    memory_limit: int = DEFAULT_MEMORY,
    model: str | None = None,
) -> SearchResult:
    """Search ``level`` with algorithm ``algo`` and return a :class:`SearchResult`.

    ``time_limit`` (seconds) and ``node_limit`` (states expanded) end the search with status
    ``timeout`` / ``node-limit``; a search that exhausts its space reports ``unsolvable``.
    ``weight`` is the heuristic weight of ``push-wastar``; ``seed`` orders ``random``'s
    successors. With ``partial=k`` an interrupted search also returns its ``k`` best frontier
    states (lowest ``h``, then lowest cost) with their paths. Every solution and partial path
    is replay-verified; a failure raises :class:`evosoko.search.paths.SearchBug`. ``model`` is
    the deadlock network file of the ``push-learned`` searches (None: the one shipped).
    """
    algorithm = algorithm_named(algo)
    heuristic = heuristic_for(algorithm, heuristic)
    check_arguments(time_limit, node_limit, weight, partial)
    warm_up([algorithm.name])
    run_class = _Run
    if algorithm.feature_space:
        from evosoko.search.fess import FeatureSpaceRun as run_class
    run = run_class(
        level, algorithm, heuristic, time_limit, node_limit, weight, pruning, seed, memory_limit
    )
    run.model = model
    status = run.search()
    return run.result(status, partial)


def check_arguments(
    time_limit: float | None, node_limit: int | None, weight: float, partial: int
) -> None:
    """Raise :class:`ConfigError` for a budget, weight or partial count that makes no sense."""
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"time limit must be positive, not {time_limit}")
    if node_limit is not None and node_limit < 1:
        raise ConfigError(f"node limit must be at least 1, not {node_limit}")
    if not weight >= 1:
        raise ConfigError(f"weight must be at least 1, not {weight}")
    if partial < 0:
        raise ConfigError(f"partial must be zero or more, not {partial}")


class _Run:
    """One search in progress: its store, kernel parameters and budget."""

    def __init__(
        self,
        level,
        algorithm: Algorithm,
        heuristic,
        time_limit,
        node_limit,
        weight,
        pruning,
        seed,
        memory_limit,
    ):
        self.started = time.perf_counter()
        self.level = level
        self.algorithm = algorithm
        self.heuristic = heuristic
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.is_move = algorithm.level == MOVE
        self.tab = level_arrays(level)
        box_count = level.box_count
        kind = HEURISTICS[heuristic]
        self.store = Store(box_count, with_assignment=kind == MATCHING and not self.is_move)
        self.max_nodes = max(1 << 12, memory_limit // self.store.bytes_per_node())
        self.params = np.zeros(PARAM_COUNT, dtype=np.int64)
        self.params[MODE] = algorithm.mode
        self.params[HEURISTIC] = kind
        self.params[G_WEIGHT] = algorithm.g_weight
        h_weight = algorithm.h_weight
        self.params[H_WEIGHT] = round(weight * WEIGHT_SCALE) if h_weight is None else h_weight
        self.params[FREEZE] = pruning.freeze
        self.params[CORRALS] = pruning.corrals
        self.params[TUNNELS] = pruning.tunnels
        goal_rooms = pruning.goal_rooms
        if goal_rooms is None:
            goal_rooms = not algorithm.optimal
        self.goal_room = find_goal_room(level) if goal_rooms and not self.is_move else None
        self.room_tab = (
            self.goal_room.kernel_arrays() if self.goal_room else no_goal_room(level.cells)
        )
        self.params[GOAL_MACROS] = self.goal_room is not None
        self.params[REOPEN] = algorithm.reopen
        self.params[THRESHOLD] = NO_THRESHOLD
        self.params[GOAL_AT_GENERATION] = algorithm.goal_test
        self.params[SHUFFLE] = algorithm.shuffle
        self.params[CHUNK] = 64
        self.work = np.zeros((6, box_count + 1), dtype=np.int64)
        if self.is_move:
            self.scratch = move_kernel.make_scratch(level.cells, box_count)
            move_kernel.seed_random(seed)
        else:
            self.scratch = push_kernel.make_scratch(level.cells)
        self.start_boxes = np.array(level.start.boxes, dtype=np.int64)

    # ---- running ------------------------------------------------------------------------------
    def search(self) -> str:
        """Run to the end or the budget; returns the status."""
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
                self.tab,
                self.params,
                store.nodes,
                store.table,
                store.counters,
                self.start_boxes,
                player,
                self.work,
            )
        else:
            _, h, key = push_kernel.push_root(
                self.tab,
                self.params,
                store.nodes,
                store.table,
                store.counters,
                self.scratch,
                self.start_boxes,
                player,
                self.work,
            )
        frontier_push(store.frontier, store.counters, self.algorithm.mode, key, 0)
        return int(h)

    def _call_kernel(self) -> int:
        """One kernel call of ``params[CHUNK]`` expansions; returns its code."""
        store = self.store
        if self.is_move:
            kernel, arguments = move_kernel.move_search, (self.tab,)
        else:
            kernel, arguments = push_kernel.push_search, (self.tab, self.room_tab)
        return kernel(
            *arguments,
            self.params,
            store.nodes,
            store.table,
            store.frontier,
            store.counters,
            self.scratch,
            self.work,
        )

    def _grow(self) -> None:
        """Make room after a kernel asked for it."""
        self.store.grow()

    def _run_kernel(self) -> str:
        if self.algorithm.guided:
            from evosoko.search.learned import run_guided

            return run_guided(self)
        store = self.store
        chunk = 64
        while True:
            if self.node_limit is not None:
                left = self.node_limit - int(store.counters[EXPANDED])
                if left <= 0:
                    return NODE_LIMIT
                chunk = min(chunk, left)
            self.params[CHUNK] = chunk
            called = time.perf_counter()
            code = self._call_kernel()
            now = time.perf_counter()
            if code == EXHAUSTED:
                return UNSOLVABLE
            if store.counters[SOLUTION] >= 0:
                return SOLVED
            if code == NEED_SPACE and not self.make_room():
                return NODE_LIMIT
            if self.time_limit is not None and now - self.started >= self.time_limit:
                return TIMEOUT
            elapsed = max(now - called, 1e-6)
            chunk = int(min(max(chunk * _CHUNK_SECONDS / elapsed, 16), 1 << 16))

    def make_room(self) -> bool:
        """Grow the store for the kernel; False when that would pass the memory limit."""
        store = self.store
        if (
            store.capacity * 2 > self.max_nodes
            and store.size + 8 * store.box_count >= store.capacity
        ):
            return False
        self._grow()
        return True

    # ---- reporting ----------------------------------------------------------------------------
    def result(self, status: str, partial: int) -> SearchResult:
        counters = self.store.counters
        solution = None
        moves = pushes = 0
        partial_paths: tuple[PartialPath, ...] = ()
        if status == SOLVED:
            lurd = self._path(int(counters[SOLUTION]))
            verification = verified(self.level, lurd, must_solve=True)
            solution, moves, pushes = verification.lurd, verification.moves, verification.pushes
        elif partial and status in (TIMEOUT, NODE_LIMIT):
            partial_paths = self._partial_paths(partial)
        return SearchResult(
            status=status,
            algorithm=self.algorithm.name,
            heuristic=self.heuristic,
            solution=solution,
            moves=moves,
            pushes=pushes,
            expanded=int(counters[EXPANDED]),
            generated=int(counters[GENERATED]),
            duplicates=int(counters[DUPLICATES]),
            seconds=time.perf_counter() - self.started,
            partial=partial_paths,
        )

    def _path(self, node: int) -> str:
        if self.is_move:
            return move_path(self.store, node)
        return push_path(self.level, self.store, node, self.goal_room)

    def _partial_paths(self, count: int) -> tuple[PartialPath, ...]:
        store = self.store
        open_nodes = np.flatnonzero(store.field("closed") == 0)
        if len(open_nodes) == 0:
            open_nodes = np.arange(store.size)
        h = store.field("h")[open_nodes]
        g = store.field("g")[open_nodes]
        best = open_nodes[np.lexsort((g, h))[:count]]
        paths = []
        for node in best.tolist():
            lurd = self._path(node)
            verification = verified(self.level, lurd, must_solve=False)
            paths.append(
                PartialPath(
                    lurd=verification.lurd,
                    moves=verification.moves,
                    pushes=verification.pushes,
                    h=int(store.field("h")[node]),
                    state=verification.final,
                )
            )
        return tuple(paths)


_WARMED: set[str] = set()
_WARM_UP_ROWS = ["#######", "#     #", "# $$. #", "#@  . #", "#######"]


def warm_up(algorithms: Iterable[str] | None = None) -> None:
    """Compile (or load from the numba cache) the kernels of ``algorithms`` (default: every
    algorithm) once, outside any timed search."""
    from evosoko.search.algorithms import ALGORITHMS
    from evosoko.sokoban.build import level_from_rows

    names = list(ALGORITHMS) if algorithms is None else list(algorithms)
    todo = [name for name in names if name not in _WARMED]
    if not todo:
        return
    first = not _WARMED
    _WARMED.update(todo)
    level = level_from_rows(_WARM_UP_ROWS, title="warm-up")
    for name in todo:
        if algorithm_named(name).guided:  # push-astar's kernel; the network needs no compiling
            warm_up(["push-astar"])
            continue
        for heuristic in algorithm_named(name).heuristics:
            solve(level, name, heuristic, node_limit=50)
    if first:  # a long search grows its store: rehashing is a kernel of its own
        store = Store(level.box_count, capacity=64)
        store.counters[NODES] = 60
        store.grow()
