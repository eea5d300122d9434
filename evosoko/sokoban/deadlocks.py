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
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np
from scipy.optimize import linear_sum_assignment

from evosoko.sokoban.analysis import pull_distances_from
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
        freeze_deadlock_kernel(
            ~level.floor,
            level.dead_squares,
            level.goals,
            occupied,
            delta_array(level.width),
            int(box),
        )
    )


def frozen_boxes(level: Level, occupied: np.ndarray, box: int) -> tuple[int, ...]:
    """The sorted boxes of the frozen group found from ``box``; empty when ``box`` can move."""
    group = _frozen_group(
        ~level.floor, level.dead_squares, occupied, delta_array(level.width), int(box)
    )
    return tuple(sorted(set(group.tolist())))


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
    walls, boxes of the set, or dead squares on both sides."""
    frozen = {int(box) for box in boxes}
    width = level.width
    changed = True
    while changed:
        changed = False
        for cell in sorted(frozen):
            for a, b in ((cell - width, cell + width), (cell - 1, cell + 1)):
                blocked = not level.floor[a] or not level.floor[b] or a in frozen or b in frozen
                if not blocked and not (level.dead_squares[a] and level.dead_squares[b]):
                    frozen.discard(cell)
                    changed = True
                    break
    return frozenset(frozen)


def frozen_goal_tables(level: Level, frozen: Iterable[int]) -> tuple[list[int], np.ndarray, np.ndarray]:
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
    blocked = ~level.floor
    deltas = delta_array(level.width)
    for box in boxes:
        if not level.goals[box] and freeze_deadlock_kernel(
            blocked, dead, level.goals, occupied, deltas, box
        ):
            return True
    return frozen_goal_matching_cost(level, boxes) >= UNREACHABLE


# ---- kernels (callable from other numba code) ---------------------------------------------------
@numba.njit(cache=True)
def freeze_deadlock_kernel(blocked, dead, goals, occupied, deltas, box):  # pragma: no cover
    """Numba kernel of :func:`is_freeze_deadlock` on flat arrays (``blocked`` = not floor)."""
    group = _frozen_group(blocked, dead, occupied, deltas, box)
    for member in group:
        if not goals[member]:
            return True
    return False


@numba.njit(cache=True)
def _frozen_group(blocked, dead, occupied, deltas, box):  # pragma: no cover - compiled
    """Boxes of the frozen group found from ``box`` (empty when it can move).

    The recursion of the classic test, unrolled onto an explicit stack (numba cannot cache
    recursive functions): each frame is a box under examination, treated as a wall meanwhile,
    with the axis it is checking and which neighbour it is waiting on.
    """
    cells = blocked.shape[0]
    as_wall = np.zeros(cells, dtype=np.bool_)
    group = np.empty(cells, dtype=np.int64)
    frame_box = np.empty(cells + 1, dtype=np.int64)
    frame_axis = np.zeros(cells + 1, dtype=np.int64)
    frame_side = np.zeros(cells + 1, dtype=np.int64)  # 0: none tried, 1: side a, 2: side b
    frame_size = np.zeros(cells + 1, dtype=np.int64)  # group size when the neighbour was tried
    size = 0
    depth = 0
    child_frozen = -1  # -1: no answer pending, 0: the neighbour can move, 1: it is frozen
    current = box
    while True:
        if current >= 0:  # enter a new frame
            as_wall[current] = True
            group[size] = current
            size += 1
            frame_box[depth] = current
            frame_axis[depth] = 0
            frame_side[depth] = 0
            depth += 1
            current = -1
        top = depth - 1
        here = frame_box[top]
        side_a = here + deltas[2 * frame_axis[top]]
        side_b = here + deltas[2 * frame_axis[top] + 1]
        blocked_axis = False
        if child_frozen == 1:
            blocked_axis = True
        elif child_frozen == 0:
            size = frame_size[top]
            if frame_side[top] == 1 and occupied[side_b]:
                frame_side[top] = 2
                current = side_b
        elif (blocked[side_a] or blocked[side_b] or as_wall[side_a] or as_wall[side_b]) or (
            dead[side_a] and dead[side_b]
        ):
            blocked_axis = True
        elif occupied[side_a]:
            frame_side[top] = 1
            current = side_a
        elif occupied[side_b]:
            frame_side[top] = 2
            current = side_b
        child_frozen = -1
        if current >= 0:
            frame_size[top] = size
            continue
        if blocked_axis and frame_axis[top] == 0:
            frame_axis[top] = 1
            frame_side[top] = 0
            continue
        # the frame is decided: frozen when this axis is blocked too, else free
        as_wall[here] = False
        depth -= 1
        child_frozen = 1 if blocked_axis else 0
        if depth == 0:
            return group[:size] if blocked_axis else group[:0]
