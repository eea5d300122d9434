"""Hints and fresh solutions for ``evosoko play``, from push-A* on the current position.

The position is turned into a level of its own (same walls and goals, boxes and player where
they are now) and solved with push-A* under a time limit. A hint is the solution's first push
with the walk before it; the search also tells when the position is lost (its space is
exhausted) or when it ran out of time.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from evosoko.errors import EvosokoError
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.holes.board import board_for
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import direction_name
from evosoko.sokoban.variants import level_rules

HINT_SECONDS = 1.0
"""Time limit of the search behind a hint."""

SOLVE_SECONDS = 10.0
"""Time limit of the search behind a fresh solution to replay."""

_WARM_UP_ROWS = ("#####", "#@$.#", "#####")

PUSH = "push"
LOST = "lost"
TIMEOUT = "timeout"
SOLVED = "solved"


@dataclass(frozen=True)
class Plan:
    """What push-A* found from a position.

    ``status``: ``push`` (``lurd`` solves the level from the position), ``lost`` (no solution
    exists from there), ``timeout`` (the search ran out of time or nodes) or ``solved`` (the
    position already is). ``seconds``: the search's time.
    """

    status: str
    lurd: str = ""
    pushes: int = 0
    seconds: float = 0.0

    @property
    def first_push(self) -> str:
        """The walk to the first push and that push (``""`` when there is none)."""
        for position, letter in enumerate(self.lurd):
            if letter.isupper():
                return self.lurd[: position + 1]
        return ""


@dataclass(frozen=True)
class Hint:
    """The next push of a solution from a position: walk there, then push ``box`` one cell in
    ``direction`` (0-3 = ``u d l r``); ``pushes_left``: pushes of that whole solution."""

    walk: str
    box: int
    direction: int
    pushes_left: int

    def describe(self, level: Level) -> str:
        """``push the box at row 3, column 5 right (4 pushes to go)``."""
        row, column = level.position(self.box)
        left = f"{self.pushes_left} push{'es' if self.pushes_left != 1 else ''} to go"
        return (
            f"push the box at row {row + 1}, column {column + 1} "
            f"{direction_name(self.direction)} ({left})"
        )


def warm_up() -> None:
    """Compile (or load from the cache) push-A*'s kernels, so the first hint is fast."""
    from evosoko.search import solve

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solve(level_from_rows(_WARM_UP_ROWS, title="warm-up"), "push-astar", node_limit=10)


def plan_from(level: Level, state: State, seconds: float = HINT_SECONDS) -> Plan:
    """Solve ``level`` from ``state`` with push-A* within ``seconds``."""
    from evosoko.search import solve

    if level_rules(level).boxes_vanish:
        return _given_holes_plan(level, state, seconds)
    if all(level.goals[box] for box in state.boxes):
        return Plan(SOLVED)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            here = level_from_rows(level.rows(state), title=level.title)
    except EvosokoError:  # cannot happen for a position reached by legal steps
        return Plan(LOST)
    result = solve(here, "push-astar", time_limit=seconds)
    if result.solved:
        return Plan(PUSH, result.solution or "", result.pushes, result.seconds)
    status = LOST if result.status == "unsolvable" else TIMEOUT
    return Plan(status, seconds=result.seconds)


def _given_holes_plan(level: Level, state, seconds: float) -> Plan:
    """:func:`plan_from` for a given-holes level: its search starts from the position itself."""
    from evosoko.search.given_holes import solve_given_holes

    if state.remaining == 0:
        return Plan(SOLVED)
    result = solve_given_holes(level, "push-astar", time_limit=seconds, start=state)
    if result.solved:
        return Plan(PUSH, result.solution or "", result.pushes, result.seconds)
    status = LOST if result.status == "unsolvable" else TIMEOUT
    return Plan(status, seconds=result.seconds)


def hint_from(level: Level, state: State, plan: Plan) -> Hint | None:
    """The first push of ``plan`` (found from ``state``) as a :class:`Hint`; None without one."""
    steps = plan.first_push
    if not steps:
        return None
    board = board_for(level, state)
    for letter in steps[:-1]:
        if not board.step(DIRECTIONS.index(letter)):
            return None
    direction = DIRECTIONS.index(steps[-1].lower())
    box = board.player + level.deltas[direction]
    if not (board.occupied[box] and board.can_step(direction)):
        return None
    return Hint(steps[:-1], int(box), direction, plan.pushes)
