"""Push-level search under the given-holes rules (:mod:`evosoko.sokoban.holes.board`).

A state is the normalized player and each box's cell (``VANISHED`` once in its hole): boxes
are told apart, since each has its own hole. One push moves one box one cell; a box pushed
into its own hole vanishes. ``push-bfs`` is uniform cost over pushes, ``push-astar`` A* with
the paired-distance heuristic (each box's lone-box push distance to *its* hole, summed: one
push changes it by at most one and a vanishing box takes its term with it, so it is admissible
and consistent and A* is push-optimal), ``push-wastar`` and ``push-greedy`` weight it.

Pruning, each rule sound under these rules:

- *dead squares, per box*: a box on a cell from which no push sequence reaches its own hole
  (``push_distance`` of its hole is ``UNREACHABLE``); stronger than the standard rule.
- *freeze deadlocks*: a box that can never move again can never reach its hole, so every
  frozen group is lost, whether or not it stands on holes; the compiled freeze test of
  :mod:`evosoko.sokoban.freeze` is called with no goals to make exactly that test.

Not applied (they do not hold once boxes vanish or are told apart): the bipartite matching
(the pairing is given; the per-box distances replace it), frozen-goal deadlocks and the
goal-room packing macros (a box never rests on a goal), PI-corral pruning and tunnel macros
(their proofs count boxes that stay on the board; a vanishing box opens its corral).
"""

from __future__ import annotations

import heapq
from itertools import count

import numpy as np

from evosoko.errors import ConfigError
from evosoko.search.clocks import TimeLimit
from evosoko.search.paths import partial_path, search_result
from evosoko.search.result import NODE_LIMIT, SOLVED, TIMEOUT, UNSOLVABLE, PartialPath, SearchResult
from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.holes.board import VANISHED, HolesBoard, HolesState
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.reach import explore
from evosoko.sokoban.rules import delta_array
from evosoko.sokoban.variants import given_pairing

ALGORITHMS = {
    "push-bfs": (1, 0),
    "push-astar": (1, 1),
    "push-wastar": (1, None),
    "push-greedy": (0, 1),
}
"""Given-holes searches: name -> (weight of g, weight of h; None = the ``weight`` argument)."""
OPTIMAL = ("push-bfs", "push-astar")
PAIRED_MANHATTAN = "manhattan"
"""The heuristic that measures each box's Manhattan distance to its own hole; every other
name (``push-distance``, ``matching``) measures the paired push distance. Results name what
was measured: ``paired-manhattan`` or ``paired-push-distance``."""


def solve_given_holes(
    level: Level,
    algo: str = "push-astar",
    heuristic: str = "push-distance",
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float = 3.0,
    start: HolesState | None = None,
    partial: int = 0,
    *,
    clock: str = "wall",
) -> SearchResult:
    """Search a given-holes level from its start (or from ``start``, a position reached by
    play: the solution and partial paths then replay from there); the result is like
    :func:`evosoko.search.solve`'s, ``partial=k`` included (the k open states of lowest ``h``,
    then lowest cost, when a budget ended the search)."""
    if algo not in ALGORITHMS:
        raise ConfigError(
            f"{algo} does not play given-holes levels; use one of: {', '.join(ALGORITHMS)}, mcts"
        )
    return _Search(level, algo, heuristic, time_limit, node_limit, weight, start, clock).run(
        partial
    )


def paired_distance(level: Level, by_box, manhattan: bool = False) -> int:
    """The heuristic: sum over the boxes left of the distance to each box's own hole."""
    pairing = given_pairing(level)
    total = 0
    for number, cell in enumerate(by_box):
        if cell == VANISHED:
            continue
        if manhattan:
            row, column = level.position(cell)
            hole_row, hole_column = level.position(pairing.holes[number])
            total += abs(row - hole_row) + abs(column - hole_column)
        else:
            total += int(level.push_distance[pairing.goal_rows[number], cell])
    return total


class _Search:
    def __init__(
        self, level, algo, heuristic, time_limit, node_limit, weight, start=None, clock="wall"
    ):
        self.level = level
        self.start = start or HolesState(level.start.player, tuple(level.start.boxes))
        self.algo = algo
        self.heuristic = heuristic
        self.time_limit = time_limit
        self.node_limit = node_limit
        g_weight, h_weight = ALGORITHMS[algo]
        self.g_weight = g_weight
        self.h_weight = weight if h_weight is None else h_weight
        self.manhattan = heuristic == PAIRED_MANHATTAN
        self.pairing = given_pairing(level)
        self.floor = np.ascontiguousarray(level.floor, dtype=np.bool_)
        self.dead = np.ascontiguousarray(level.dead_squares, dtype=np.bool_)
        self.no_goals = np.zeros(level.cells, dtype=np.bool_)
        self.deltas = delta_array(level.width)
        self.scratch = make_freeze_scratch(level.cells)
        self.mark = np.zeros(level.cells, dtype=np.int64)
        self.queue = np.zeros(level.cells, dtype=np.int64)
        self.stamp = 0
        self.own_distance = np.array(
            [level.push_distance[row] for row in self.pairing.goal_rows], dtype=np.int64
        )
        self.expanded = self.generated = self.duplicates = 0
        self.limit = TimeLimit(time_limit, clock)

    # ---- one step of the rules ---------------------------------------------------------------
    def _occupied(self, by_box) -> np.ndarray:
        occupied = np.zeros(self.level.cells, dtype=np.bool_)
        for cell in by_box:
            if cell != VANISHED:
                occupied[cell] = True
        return occupied

    def _reach(self, occupied, player) -> int:
        """Mark the player's area with a new stamp; returns the normalized player."""
        self.stamp += 1
        _, smallest = explore(
            self.floor,
            occupied,
            self.deltas,
            player,
            self.mark,
            self.stamp,
            self.queue,
            self.queue[:0],
        )
        return int(smallest)

    def _h(self, by_box) -> int:
        if self.manhattan:
            return paired_distance(self.level, by_box, manhattan=True)
        return int(sum(self.own_distance[n, c] for n, c in enumerate(by_box) if c != VANISHED))

    def _pushes(self, player, by_box):
        """Successors ``(box cell, direction, new by_box, new player)`` of a state, deadlocks
        pruned."""
        occupied = self._occupied(by_box)
        self._reach(occupied, player)
        stamp = self.stamp
        reached = self.mark
        out = []
        for number, cell in enumerate(by_box):
            if cell == VANISHED:
                continue
            for direction in range(4):
                delta = self.deltas[direction]
                target = cell + delta
                if reached[cell - delta] != stamp or not self.floor[target] or occupied[target]:
                    continue
                moved = list(by_box)
                if target == self.pairing.holes[number]:
                    moved[number] = VANISHED
                elif self.own_distance[number, target] >= UNREACHABLE:
                    continue
                else:
                    moved[number] = target
                    occupied[cell] = False
                    occupied[target] = True
                    frozen = freeze_deadlock(
                        self.floor,
                        self.dead,
                        self.no_goals,
                        occupied,
                        self.deltas,
                        int(target),
                        self.scratch,
                    )
                    occupied[target] = False
                    occupied[cell] = True
                    if frozen:
                        continue
                out.append((cell, direction, tuple(moved)))
        return out

    # ---- the search --------------------------------------------------------------------------
    def run(self, partial: int = 0) -> SearchResult:
        """Search to the end or the budget; ``partial``: how many frontier paths to return
        when the budget ends it."""
        start = tuple(self.start.by_box)
        player = self._reach(self._occupied(start), self.start.player)
        root = (player, start)
        parents: dict = {root: None}
        best_g = {root: 0}
        closed: set = set()
        tie = count()
        frontier = [(self._priority(0, start), next(tie), 0, root)]
        status = UNSOLVABLE
        goal = None
        if all(c == VANISHED for c in start):
            goal, status = root, SOLVED
        while frontier and goal is None:
            if self.node_limit is not None and self.expanded >= self.node_limit:
                status = NODE_LIMIT
                break
            if self._out_of_time():
                status = TIMEOUT
                break
            _, _, g, state = heapq.heappop(frontier)
            if g > best_g[state]:
                continue
            self.expanded += 1
            closed.add(state)
            player, by_box = state
            for cell, direction, moved in self._pushes(player, by_box):
                occupied = self._occupied(moved)
                child = (self._reach(occupied, cell), moved)
                if child in best_g and best_g[child] <= g + 1:
                    self.duplicates += 1
                    continue
                if child not in best_g:
                    self.generated += 1
                best_g[child] = g + 1
                parents[child] = (state, cell, direction)
                if all(c == VANISHED for c in moved) and self.algo != "push-astar":
                    goal, status = child, SOLVED  # BFS, greedy: at generation is optimal/enough
                    break
                heapq.heappush(frontier, (self._priority(g + 1, moved), next(tie), g + 1, child))
            if goal is None and self.algo == "push-astar":
                goal = self._goal_popped(frontier, best_g)
                if goal is not None:
                    status = SOLVED
        paths: tuple[PartialPath, ...] = ()
        if partial and status in (NODE_LIMIT, TIMEOUT):
            paths = self._partial_paths(partial, best_g, closed, parents)
        return self._result(status, goal, parents, paths)

    def _out_of_time(self) -> bool:
        return self.time_limit is not None and self.expanded % 64 == 0 and self.limit.passed()

    def _goal_popped(self, frontier, best_g):
        """A* stops when a solved state is the best on the frontier (its ``h`` is 0)."""
        while frontier:
            _, _, g, state = frontier[0]
            if g > best_g[state]:
                heapq.heappop(frontier)
                continue
            return state if all(c == VANISHED for c in state[1]) else None
        return None

    def _priority(self, g: int, by_box) -> float:
        return self.g_weight * g + self.h_weight * self._h(by_box)

    def _partial_paths(self, count, best_g, closed, parents) -> tuple[PartialPath, ...]:
        """The ``count`` open states of lowest ``h``, then lowest cost (first stored first),
        with their verified paths from the search's start; every state when none is open."""
        open_states = [state for state in best_g if state not in closed] or list(best_g)
        ranked = sorted(open_states, key=lambda state: (self._h(state[1]), best_g[state]))
        return tuple(
            partial_path(
                self.level, self._lurd(state, parents), self._h(state[1]), start=self.start
            )
            for state in ranked[:count]
        )

    def _result(self, status, goal, parents, partial=()) -> SearchResult:
        return search_result(
            self.level,
            status=status,
            algorithm=self.algo,
            heuristic="paired-manhattan" if self.manhattan else "paired-push-distance",
            solution=self._lurd(goal, parents) if status == SOLVED else None,
            counts=(self.expanded, self.generated, self.duplicates),
            seconds=self.limit.wall_seconds(),
            partial=partial,
            start=self.start,
        )

    def _lurd(self, goal, parents) -> str:
        pushes = []
        state = goal
        while parents[state] is not None:
            state, cell, direction = parents[state]
            pushes.append((cell, direction))
        board = HolesBoard(self.level, self.start)
        return "".join(board.push(cell, direction) for cell, direction in reversed(pushes))
