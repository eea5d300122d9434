"""Deadlock tests: positions from which the level can no longer be solved.

Four sound tests (each one only reports positions that are truly lost):

- *dead squares*: a box on a cell from which no push sequence reaches any goal
  (``Level.dead_squares``);
- *freeze deadlocks*: boxes that can never move again (blocked on both axes by walls, dead
  squares or other frozen boxes) while at least one of them is off a goal;
- *bipartite deadlocks*: no perfect matching of boxes to goals over push distances;
- *frozen-goal deadlocks*: boxes frozen on their goals never move again, so they are walls for
  the others: with them as walls, some other box can reach none of the goals left, or the
  others cannot be matched to those goals (a goal filled in the wrong order).

Under the given-holes rules (:mod:`evosoko.sokoban.holes.board`) only the first two hold, in a
stronger form: a box is lost on a cell from which it cannot reach *its own* hole, and *every*
frozen box is lost (on a hole or not: a box that never moves never vanishes). The exemption of
boxes frozen on goals, the bipartite matching and the frozen-goal test do not apply there (the
pairing is given); :func:`evosoko.sokoban.holes.board.holes_deadlock` and the given-holes
search and replay apply the rules that hold, :func:`is_deadlocked` is for standard levels only.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from scipy.optimize import linear_sum_assignment

from evosoko.sokoban.analysis import pull_distances_from
from evosoko.sokoban.freeze import freeze_deadlock, frozen_group, make_freeze_scratch, mark_frozen
from evosoko.sokoban.level import UNREACHABLE, Level, State
from evosoko.sokoban.rules import delta_array


def is_freeze_deadlock(level: Level, occupied: np.ndarray, box: int) -> bool:
    """True when ``box`` (typically the one just pushed) is frozen with a box off goal.

    The classic recursive test: a box is blocked along an axis when a wall lies on either side
    along it, or dead squares on both sides, or a neighbouring box along it is itself frozen
    (checked recursively with the boxes under examination treated as walls). The position is
    deadlocked when ``box`` is blocked along both axes and some box of the frozen group is not
    on a goal; a frozen group entirely on goals is no deadlock.
    """
    if not occupied[box]:
        raise ValueError(f"is_freeze_deadlock: no box at cell {box}")
    return bool(
        freeze_deadlock(
            level.floor,
            level.dead_squares,
            level.goals,
            occupied,
            delta_array(level.width),
            int(box),
            make_freeze_scratch(level.cells),
        )
    )


def frozen_boxes(level: Level, occupied: np.ndarray, box: int) -> tuple[int, ...]:
    """The sorted boxes of the frozen group found from ``box``; empty when ``box`` can move."""
    scratch = make_freeze_scratch(level.cells)
    size = frozen_group(
        level.floor, level.dead_squares, occupied, delta_array(level.width), int(box), scratch
    )
    return tuple(sorted(set(scratch.group[:size].tolist())))


def matching_cost(level: Level, boxes: Iterable[int]) -> int:
    """Minimum total push distance of a perfect box-to-goal matching (other boxes ignored).

    ``UNREACHABLE`` when every perfect matching uses a pair whose push distance is
    ``UNREACHABLE``: a bipartite deadlock. Solved by ``scipy.optimize.linear_sum_assignment``.
    """
    boxes = np.fromiter(boxes, dtype=np.int64)
    return _assignment_cost(level.push_distance[:, boxes].astype(np.int64))


def _assignment_cost(costs: np.ndarray) -> int:
    """Minimum-cost perfect matching of a square goals x boxes cost matrix; ``UNREACHABLE``
    when it needs an impossible pair."""
    unreachable = costs >= UNREACHABLE
    finite = costs[~unreachable]
    # Larger than any matching of finite pairs, so one unreachable pair is never preferred.
    penalty = (int(finite.max()) + 1 if finite.size else 1) * len(costs) + 1
    costs[unreachable] = penalty
    goal_rows, box_columns = linear_sum_assignment(costs)
    chosen = costs[goal_rows, box_columns]
    if np.any(chosen >= penalty):
        return UNREACHABLE
    return int(chosen.sum())


def frozen_cells(level: Level, boxes: Iterable[int]) -> frozenset[int]:
    """The boxes that can never move: the greatest set of boxes each blocked on both axes by
    walls, boxes of the set, or dead squares on both sides (the compiled
    :func:`~evosoko.sokoban.freeze.mark_frozen` that the GA's replay runs)."""
    cells = np.fromiter(boxes, dtype=np.int64)
    frozen = np.zeros(level.cells, dtype=np.bool_)
    mark_frozen(level.floor, level.dead_squares, delta_array(level.width), cells, -1, -1, frozen)
    return frozenset(np.flatnonzero(frozen).tolist())


def frozen_goal_tables(
    level: Level, frozen: Iterable[int]
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """With the boxes on ``frozen`` goal cells as walls: the goals left, their push distances
    (int32[goals left, cells]) and the dead cells (bool[cells]: no goal left reachable)."""
    frozen = set(frozen)
    floor = level.floor.copy()
    floor[list(frozen)] = False
    goals_left = [goal for goal in level.goal_cells.tolist() if goal not in frozen]
    table = np.array(
        [pull_distances_from(level, goal, floor=floor) for goal in goals_left], dtype=np.int32
    ).reshape(len(goals_left), level.cells)
    unreachable = table.min(axis=0) >= UNREACHABLE if goals_left else np.zeros(level.cells, bool)
    return goals_left, table, level.dead_squares | (floor & unreachable)


def frozen_goal_matching_cost(level: Level, boxes: Iterable[int]) -> int:
    """:func:`matching_cost` with the boxes frozen on goals as walls: the other boxes matched
    to the other goals (``UNREACHABLE`` when impossible, or when a box is frozen off goal)."""
    boxes = [int(box) for box in boxes]
    frozen = frozen_cells(level, boxes)
    if not frozen:
        return matching_cost(level, boxes)
    if any(not level.goals[cell] for cell in frozen):
        return UNREACHABLE
    _, table, _ = frozen_goal_tables(level, frozen)
    free = [box for box in boxes if box not in frozen]
    return _assignment_cost(table[:, free].astype(np.int64)) if free else 0


def is_bipartite_deadlock(level: Level, boxes: Iterable[int]) -> bool:
    """True when the boxes cannot all be matched to distinct goals they can each reach."""
    return matching_cost(level, boxes) >= UNREACHABLE


def is_deadlocked(level: Level, state: State) -> bool:
    """True when ``state`` is lost: a box on a dead square, a frozen box off goal, no matching
    (with boxes frozen on goals as walls)."""
    boxes = state.boxes
    dead = level.dead_squares
    if any(dead[box] for box in boxes):
        return True
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(boxes)] = True
    deltas = delta_array(level.width)
    scratch = make_freeze_scratch(level.cells)
    for box in boxes:
        if not level.goals[box] and freeze_deadlock(
            level.floor, dead, level.goals, occupied, deltas, box, scratch
        ):
            return True
    return frozen_goal_matching_cost(level, boxes) >= UNREACHABLE
