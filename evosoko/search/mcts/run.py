"""``mcts``: Monte Carlo tree search (UCT) over the candidate pushes of push genomes.

The tree's moves are the pushes the GA's push genomes choose from (the rules live in
:mod:`evosoko.search.mcts.rules`), its rollouts are guided by a cheap policy (a softmax over how
much each candidate push brings the distance objective down), and their reward comes from that
objective (``--heuristic``: ``matching`` by default, ``push-distance`` or ``manhattan``): 1 for a
solved level, else how far the rollout got from the start's distance toward 0. Positions are
stored once, by Zobrist hash, so transpositions share their statistics. The loop itself is
:mod:`evosoko.search.mcts.kernel`; the tree's arrays are :mod:`evosoko.search.mcts.tree`.

On a given-holes level (:mod:`evosoko.sokoban.holes.board`) it plays that variant's pushes, each
box vanishing into its own hole, and its objective is the paired distance (each box's distance
to its own hole): :mod:`evosoko.search.mcts.holes`; results name it ``paired-push-distance``
(``paired-manhattan`` with ``--heuristic manhattan``), as the given-holes searches do.

It reports what every search reports (:class:`~evosoko.search.result.SearchResult`), with its own
units: ``expanded`` counts *iterations* (selection, expansion of one leaf, rollout, backup; a
``node_limit`` bounds them, finishing the iteration under way), ``generated`` the *tree nodes*
(distinct positions stored) and ``duplicates`` the *transpositions* (pushes that led to a
position already in the tree). With ``partial=k`` an unfinished search returns the best rollout
(the lowest objective any rollout or tree node reached, and the pushes to it) and then the tree's
nodes of lowest objective, ``h`` being that objective. The search is the same for the same seed
(a time limit only decides where it stops), and ``unsolvable`` means proven: the start, or every
position the candidate pushes reach from it, is lost. MCTS is not complete in any other sense:
a ``budget`` stop (seconds or iterations) says nothing about solvability.
"""

from __future__ import annotations

import time

import numpy as np

from evosoko.search.algorithms import Algorithm
from evosoko.search.clocks import TimeLimit
from evosoko.search.heuristics import HEURISTICS
from evosoko.search.mcts import kernel as mcts_kernel
from evosoko.search.mcts.tree import (
    BEST_DISTANCE,
    BEST_LENGTH,
    CORRALS,
    COUNTER_COUNT,
    EXPLORATION,
    ITERATION_CHUNK,
    ITERATIONS,
    LOST,
    LOST_FACTOR,
    MEASURE,
    N_DISTANCE,
    N_PARENT,
    N_STATUS,
    N_VIA,
    NODES,
    PARAM_COUNT,
    PHASE,
    PRIOR_UNIFORM,
    PUSHES_BEST,
    PUSHES_NOW,
    REAL_COUNT,
    ROLLOUT_PUSHES,
    SELECTING,
    SOLUTION_LENGTH,
    TEMPERATURE,
    TRANSPOSITIONS,
    WORK,
    WORK_LIMIT,
    KernelParameters,
    MctsTree,
    Start,
    grown,
    new_tree,
    tree_bytes,
)
from evosoko.search.mcts.variants import rules_arrays, start_objective
from evosoko.search.paths import SearchBug, partial_path, search_result
from evosoko.search.result import (
    MEMORY_LIMIT,
    NODE_LIMIT,
    SOLVED,
    TIMEOUT,
    UNSOLVABLE,
    PartialPath,
    SearchResult,
)
from evosoko.search.search_run import _next_work_limit, table_bytes
from evosoko.search.settings import MctsSettings
from evosoko.sokoban.arrays import read_only_cells
from evosoko.sokoban.holes.board import board_for
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.variants import level_rules

_FIRST_CAPACITY = 1 << 10
_CHUNK_SECONDS = 0.01
"""Target wall time of one kernel call: the clock is read between calls."""
_FIRST_WORK_LIMIT = 1 << 14


class MctsRun:
    """One Monte Carlo tree search in progress (the interface of the solver's run classes:
    ``search()`` returns a status, ``result(status, partial)`` the verified result).

    Its knobs are :class:`~evosoko.search.settings.MctsSettings` (the candidate pushes always
    leave out freezing pushes, as push genomes' do); ``store_cells`` is accepted for the
    solver's warm-up (the tree keeps box cells as int32 on every board). ``memory_limit`` bounds the
    rules' tables and the tree's arrays: tables that would not fit are not built, and a tree that
    would outgrow what is left ends the search; both with ``memory-limit``.

    A given-holes level is played by its own rules (:mod:`evosoko.search.mcts.holes`: boxes
    vanish in their own holes, the objective is the paired distance, ``corrals`` does not
    apply), with the same tree, budgets and statistics.
    """

    plays_given_holes = True
    """:func:`evosoko.search.solve` hands given-holes levels to this runner, not to the
    given-holes searches."""

    def __init__(
        self,
        level: Level,
        algorithm: Algorithm,
        heuristic: str,
        time_limit: float | None,
        node_limit: int | None,
        settings: MctsSettings,
        seed: int,
        memory_limit: int,
        store_cells: int = 0,
        clock: str = "wall",
    ) -> None:
        self.limit = TimeLimit(time_limit, clock)
        self.level = level
        self.rules = level_rules(level)
        self.algorithm = algorithm
        self.heuristic = heuristic
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.tables_fit = table_bytes(level) < memory_limit
        box_count = level.box_count
        self.start_boxes = read_only_cells(sorted(level.start.boxes))
        self.start = Start(self.start_boxes, int(level.start.player))
        start_distance = 0  # lost at once, or no search: the rollout length does not matter
        if self.tables_fit:
            self.arrays, self.scratch = rules_arrays(self.rules, level, heuristic)
            start_distance = start_objective(self.rules, level, heuristic)
            if start_distance >= UNREACHABLE:
                start_distance = 0
        self.settings = settings
        self.rollout_pushes = min(
            settings.rollout_pushes_per_distance * start_distance + settings.rollout_extra_pushes,
            settings.rollout_pushes_cap,
        )
        self.params = np.zeros(PARAM_COUNT, dtype=np.int64)
        self.params[MEASURE] = HEURISTICS[heuristic]
        self.params[CORRALS] = bool(settings.corrals)
        self.params[ROLLOUT_PUSHES] = self.rollout_pushes
        self.real = np.zeros(REAL_COUNT, dtype=np.float64)
        self.real[EXPLORATION] = settings.exploration
        self.real[TEMPERATURE] = settings.temperature
        self.real[LOST_FACTOR] = settings.lost_reward
        self.real[PRIOR_UNIFORM] = settings.prior_uniform
        self.parameters = KernelParameters(self.params, self.real)
        self.counters = np.zeros(COUNTER_COUNT, dtype=np.int64)
        self.counters[SOLUTION_LENGTH] = -1
        self.counters[BEST_DISTANCE] = UNREACHABLE
        self.rng = np.array([seed_state(seed)], dtype=np.uint64)
        self.weights = np.zeros(max(4 * box_count, 1), dtype=np.float64)
        capacity = _FIRST_CAPACITY if self.tables_fit else 1
        self.tree = new_tree(capacity, 8 * capacity, box_count, self.rollout_pushes)

    # ---- running ------------------------------------------------------------------------------
    def search(self) -> str:
        """Run to a solution, a proof or the budget; returns the status."""
        if not self.tables_fit:
            return MEMORY_LIMIT
        counters, params = self.counters, self.params
        chunk = 1
        params[WORK_LIMIT] = _FIRST_WORK_LIMIT
        while True:
            params[ITERATION_CHUNK] = chunk
            if self.node_limit is not None:
                left = self.node_limit - int(counters[ITERATIONS])
                if left <= 0 and counters[PHASE] == SELECTING:
                    return NODE_LIMIT
                params[ITERATION_CHUNK] = min(chunk, max(left, 0))
            called = time.perf_counter()
            iterations_before, work_before = int(counters[ITERATIONS]), int(counters[WORK])
            code = self._call_kernel()
            now = time.perf_counter()
            if code == mcts_kernel.FOUND:
                return SOLVED
            if code == mcts_kernel.EXHAUSTED:
                return UNSOLVABLE
            if code == mcts_kernel.NEED_SPACE:
                if table_bytes(self.level) + 2 * tree_bytes(self.tree) > self.memory_limit:
                    return MEMORY_LIMIT
                self.tree = grown(self.tree, counters, self.rollout_pushes)
            if self.limit.passed():
                return TIMEOUT
            elapsed = max(now - called, 1e-6)
            done = int(counters[ITERATIONS]) - iterations_before
            chunk = min(max(_next_work_limit(chunk, done, elapsed, _CHUNK_SECONDS), 1), 1 << 16)
            params[WORK_LIMIT] = _next_work_limit(
                int(params[WORK_LIMIT]), int(counters[WORK]) - work_before, elapsed, _CHUNK_SECONDS
            )

    def _call_kernel(self) -> int:
        return int(
            mcts_kernel.mcts_search(
                self.arrays,
                self.scratch,
                self.tree,
                self.start,
                self.parameters,
                self.counters,
                self.rng,
                self.weights,
            )
        )

    # ---- reporting ----------------------------------------------------------------------------
    def result(self, status: str, partial: int) -> SearchResult:
        """The :class:`SearchResult`: the solution replay-verified, statistics in the units of
        the module docstring, and with ``partial`` the best rollout and tree nodes."""
        counters = self.counters
        solution = None
        partial_paths: tuple[PartialPath, ...] = ()
        if status == SOLVED:
            length = int(counters[SOLUTION_LENGTH])
            solution = lurd_of_pushes(self.level, self.tree.pushes[PUSHES_NOW, :length])
        elif partial and status != UNSOLVABLE:
            partial_paths = self._partial_paths(partial)
        return search_result(
            self.level,
            status=status,
            algorithm=self.algorithm.name,
            heuristic=self.rules.objective_label(self.heuristic),
            solution=solution,
            counts=(int(counters[ITERATIONS]), int(counters[NODES]), int(counters[TRANSPOSITIONS])),
            seconds=self.limit.wall_seconds(),
            partial=partial_paths,
        )

    def best_rollout(self) -> tuple[int, list[int]]:
        """(lowest objective reached, the pushes to it as ``box * 4 + direction`` codes)."""
        length = int(self.counters[BEST_LENGTH])
        return int(self.counters[BEST_DISTANCE]), self.tree.pushes[PUSHES_BEST, :length].tolist()

    def _partial_paths(self, count: int) -> tuple[PartialPath, ...]:
        tree, nodes = self.tree, int(self.counters[NODES])
        candidates: list[tuple[int, list[int]]] = []
        distance, best_pushes = self.best_rollout()
        if nodes and distance < UNREACHABLE:
            candidates.append((distance, best_pushes))
        distances = tree.nodes[:nodes, N_DISTANCE]
        open_nodes = np.flatnonzero(tree.nodes[:nodes, N_STATUS] != LOST)
        order = open_nodes[np.argsort(distances[open_nodes], kind="stable")]
        for node in order[: count + 1].tolist():
            candidates.append((int(distances[node]), node_pushes(tree, node)))
        paths: list[PartialPath] = []
        seen = set()
        for h, codes in sorted(candidates, key=lambda item: (item[0], len(item[1]))):
            path = partial_path(self.level, lurd_of_pushes(self.level, codes), h)
            if path.state in seen:
                continue
            seen.add(path.state)
            paths.append(path)
            if len(paths) == count:
                break
        return tuple(paths)


def seed_state(seed: int) -> int:
    """The generator's starting state for ``seed`` (any integer): numpy's ``SeedSequence``
    hash of it, so that neighbouring seeds start far apart in the generator's sequence (the
    sequence steps by a constant: started from nearby states, two seeds would replay each
    other's draws one step apart)."""
    entropy = int(seed) % (1 << 128)
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


def node_pushes(tree: MctsTree, node: int) -> list[int]:
    """The push codes from the root to ``node`` along the parents it was first reached from."""
    codes = []
    while tree.nodes[node, N_PARENT] >= 0:
        codes.append(int(tree.nodes[node, N_VIA]))
        node = int(tree.nodes[node, N_PARENT])
    return codes[::-1]


def lurd_of_pushes(level: Level, codes) -> str:
    """LURD of the pushes ``codes`` (``box * 4 + direction``) from the start, shortest walks
    between them; :class:`SearchBug` when one cannot be made."""
    board = board_for(level)
    parts = []
    for code in np.asarray(codes, dtype=np.int64).tolist():
        try:
            parts.append(board.push(code >> 2, code & 3))
        except ValueError as error:
            raise SearchBug(f"{level.name}: mcts produced an illegal push: {error}") from None
    return "".join(parts)
