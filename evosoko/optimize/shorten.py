"""Shortening verified solutions: fewer moves, fewer pushes, or a Pareto set of both.

A solution is seen as its *push sequence* (which box is pushed which way, in order) with walks
in between. Three steps, each of which keeps the solution legal (every candidate is replayed
by :func:`evosoko.sokoban.solutions.verify_solution` before it is kept):

- *re-walking*: the walks between pushes become shortest walks; for a fixed push sequence that
  is the fewest moves there are.
- *loop cutting*: when the same position (boxes and the player's region) occurs twice, the
  pushes between the two visits are dropped.
- *window re-planning*: the pushes between positions ``i`` and ``j`` are replaced by the result
  of a bounded search from position ``i`` to the boxes of position ``j`` (push-A*, so the
  fewest pushes, for pushes first; move-level A* on short windows for moves first). Windows
  of several sizes slide over the solution while the time budget lasts; a window is kept when
  the whole solution gets shorter in the chosen order (pushes then moves, or moves then
  pushes). Move-level windows reorder the pushes of a few boxes to save walking.

``objective="pareto"`` runs both orders and returns every solution no other beats in both
moves and pushes.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from evosoko.errors import ConfigError, SolutionError
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import Board, normalized_player, walk_path
from evosoko.sokoban.solutions import verify_solution
from evosoko.sokoban.variants import level_rules

OBJECTIVES = ("moves", "pushes", "pareto")
"""What :func:`optimize_solution` shortens first."""

PUSH_WINDOWS = (("push-astar", 64), ("push-astar", 32), ("push-astar", 16), ("push-astar", 8))
"""Window searches of the pushes-first order: fewest pushes between two positions."""
MOVE_WINDOWS = (("astar", 6), ("astar", 4), ("astar", 2))
"""Further window searches of the moves-first order: fewest moves over a few pushes."""

Push = tuple[int, int]
"""A push: the cell of the box before it, and the direction (0-3, ``u d l r``)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A verified solution with its counts."""

    lurd: str
    moves: int
    pushes: int

    def better_than(self, other: Candidate, objective: str) -> bool:
        """Strictly shorter in ``objective`` order (pushes then moves, or moves then pushes)."""
        if objective == "pushes":
            return (self.pushes, self.moves) < (other.pushes, other.moves)
        return (self.moves, self.pushes) < (other.moves, other.pushes)


@dataclass(frozen=True, slots=True)
class OptimizeResult:
    """The original solution, the best found for the objective, and the Pareto set."""

    level: Level
    objective: str
    original: Candidate
    best: Candidate
    pareto: tuple[Candidate, ...]
    seconds: float

    def as_json(self) -> dict[str, object]:
        """Plain JSON values, as ``evosoko optimize --json`` prints them."""
        return {
            "index": self.level.index,
            "level": self.level.json_label,
            "objective": self.objective,
            "moves_before": self.original.moves,
            "pushes_before": self.original.pushes,
            "moves": self.best.moves,
            "pushes": self.best.pushes,
            "seconds": round(self.seconds, 3),
            "solution": self.best.lurd,
            "pareto": [
                {"moves": c.moves, "pushes": c.pushes, "solution": c.lurd} for c in self.pareto
            ],
        }


def optimize_solution(
    level: Level,
    lurd: str,
    objective: str = "moves",
    seconds: float = 10.0,
    node_limit: int = 20_000,
) -> OptimizeResult:
    """Shorten ``lurd`` (a solution of ``level``) within ``seconds``.

    ``objective``: ``moves`` (fewest moves, then pushes), ``pushes`` (fewest pushes, then
    moves) or ``pareto`` (both; ``best`` is the fewest moves). ``node_limit`` bounds each window
    search. Raises :class:`SolutionError` when ``lurd`` does not solve ``level``.
    """
    if objective not in OBJECTIVES:
        raise ConfigError(
            f"unknown objective {objective!r}; choose one of: {', '.join(OBJECTIVES)}"
        )
    if not seconds > 0:
        raise ConfigError(f"optimize seconds must be positive, not {seconds}")
    rules = level_rules(level)
    if rules.boxes_vanish:
        raise ConfigError(
            f"level {level.name} plays the {rules.name} rules, which optimize does not support "
            "yet (its window searches play standard Sokoban)"
        )
    started = time.perf_counter()
    check = verify_solution(level, lurd)
    if not check.valid or not check.solved:
        raise SolutionError(
            f"level {level.name}: the solution to optimize "
            + (check.error or "does not solve the level")
        )
    original = Candidate(check.lurd, check.moves, check.pushes)
    deadline = started + seconds
    found = [original]
    orders = ["pushes", "moves"] if objective == "pareto" else [objective]
    for position, order in enumerate(orders):
        share = deadline if position == len(orders) - 1 else started + seconds / len(orders)
        found.append(_shorten(level, original, order, share, node_limit))
    if objective == "pareto":  # moves-first from the fewest-pushes solution too
        found.append(_shorten(level, found[1], "moves", deadline, node_limit, repeat=False))
    pareto = pareto_front(found)
    best_order = "pushes" if objective == "pushes" else "moves"
    best = found[0]
    for candidate in found[1:]:
        if candidate.better_than(best, best_order):
            best = candidate
    return OptimizeResult(level, objective, original, best, pareto, time.perf_counter() - started)


def pareto_front(candidates: list[Candidate]) -> tuple[Candidate, ...]:
    """The candidates no other beats in both moves and pushes (fewest moves first, unique)."""
    unique = {(c.moves, c.pushes): c for c in candidates}
    front: list[Candidate] = []
    for (_moves, pushes), candidate in sorted(unique.items()):
        if not front or pushes < front[-1].pushes:
            front.append(candidate)
    return tuple(front)


# ---- the steps ---------------------------------------------------------------------------------
def _shorten(
    level: Level,
    start: Candidate,
    order: str,
    deadline: float,
    node_limit: int,
    repeat: bool = True,
) -> Candidate:
    best = start
    pushes = push_sequence(level, best.lurd)
    for step in (_rewalked, _without_loops):
        candidate = _verified(level, step(level, pushes))
        if candidate is not None and candidate.better_than(best, order):
            best, pushes = candidate, push_sequence(level, candidate.lurd)
    windows = PUSH_WINDOWS if order == "pushes" else PUSH_WINDOWS[:3] + MOVE_WINDOWS
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        for algo, size in windows:
            replanned = _replan_windows(
                level, best, pushes, algo, size, order, deadline, node_limit
            )
            if replanned is not None:
                best, pushes = replanned, push_sequence(level, replanned.lurd)
                improved = True
            if time.perf_counter() >= deadline:
                break
        if not repeat:
            break
    return best


def push_sequence(level: Level, lurd: str) -> list[Push]:
    """The pushes of a legal ``lurd``, as (box cell, direction)."""
    board = Board(level)
    pushes = []
    for letter in lurd:
        direction = DIRECTIONS.index(letter.lower())
        box = board.player + level.deltas[direction]
        pushing = bool(board.occupied[box])
        if not board.step(direction):
            raise SolutionError(f"level {level.name}: illegal step {letter!r} while optimizing")
        if pushing:
            pushes.append((box, direction))
    return pushes


def positions(level: Level, pushes: list[Push]) -> list[State] | None:
    """The position after each prefix of ``pushes`` (the start first), or None if illegal."""
    board = Board(level)
    states = [board.state()]
    for box, direction in pushes:
        lurd = _push_lurd(level, board, box, direction)
        if lurd is None:
            return None
        states.append(board.state())
    return states


def walk_pushes(level: Level, pushes: list[Push], start: State | None = None) -> str | None:
    """LURD playing ``pushes`` with shortest walks in between, or None if one cannot be made."""
    board = Board(level, start)
    parts = []
    for box, direction in pushes:
        lurd = _push_lurd(level, board, box, direction)
        if lurd is None:
            return None
        parts.append(lurd)
    return "".join(parts)


def _push_lurd(level: Level, board: Board, box: int, direction: int) -> str | None:
    target = box + level.deltas[direction]
    if not board.occupied[box] or board.occupied[target] or not level.floor[target]:
        return None
    walk = walk_path(level, board.occupied, board.player, box - level.deltas[direction])
    if walk is None:
        return None
    for letter in walk:
        board.step(DIRECTIONS.index(letter))
    board.step(direction)
    return walk + DIRECTIONS[direction].upper()


def _verified(level: Level, lurd: str | None) -> Candidate | None:
    if lurd is None:
        return None
    check = verify_solution(level, lurd)
    if not check.valid or not check.solved:
        return None
    return Candidate(check.lurd, check.moves, check.pushes)


def _rewalked(level: Level, pushes: list[Push]) -> str | None:
    return walk_pushes(level, pushes)


def _state_key(level: Level, state: State) -> tuple:
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(state.boxes)] = True
    return state.boxes, normalized_player(level, state.player, occupied)


def _without_loops(level: Level, pushes: list[Push]) -> str | None:
    """Drop the pushes between two visits of the same position (boxes and player region)."""
    states = positions(level, pushes)
    if states is None:
        return None
    return walk_pushes(level, _loop_free(level, pushes, states))


def _loop_free(level: Level, pushes: list[Push], states: list[State]) -> list[Push]:
    last_visit: dict[tuple, int] = {}
    for index, state in enumerate(states):
        last_visit[_state_key(level, state)] = index
    result = []
    index = 0
    while index < len(pushes):
        jump = last_visit[_state_key(level, states[index])]
        if jump > index:
            index = jump
            continue
        result.append(pushes[index])
        index += 1
    return result


def _replan_windows(
    level: Level,
    best: Candidate,
    pushes: list[Push],
    algo: str,
    size: int,
    order: str,
    deadline: float,
    node_limit: int,
) -> Candidate | None:
    """Slide a window of ``size`` pushes over the solution; the first improvement or None."""
    from evosoko.search import solve

    states = positions(level, pushes)
    if states is None:
        return None
    count = len(pushes)
    size = min(size, count)
    stride = max(1, size // 2)
    for first in range(0, max(1, count - size + 1), stride):
        if time.perf_counter() >= deadline:
            return None
        last = min(count, first + size)
        window_level = _between(level, states[first], states[last])
        if window_level is None:
            continue
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        result = solve(window_level, algo, node_limit=node_limit, time_limit=left)
        if result.solution is None:  # not solved
            continue
        middle = push_sequence(window_level, result.solution)
        candidate = _verified(level, walk_pushes(level, pushes[:first] + middle + pushes[last:]))
        if candidate is not None and candidate.better_than(best, order):
            return candidate
    return None


def _between(level: Level, start: State, end: State) -> Level | None:
    """``level`` starting at ``start`` with goals on the boxes of ``end``; None if no change."""
    if start.boxes == end.boxes:
        return None
    goals = np.zeros(level.cells, dtype=bool)
    goals[list(end.boxes)] = True
    return dataclasses.replace(level, goals=goals, start=start, notes=())
