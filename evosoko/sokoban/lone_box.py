"""Where a lone box can go with the player on its side: a deadlock test by matching.

Take every other box away. A box on cell ``x`` splits the floor around it into at most four
*sides*: the regions of the floor without ``x`` that hold its neighbours (two neighbours the
player can walk between without crossing ``x`` are one side). Which goals the box can be pushed
to depends on the side the player stands on: a box in a corridor below a one-wide door can only
be pushed up through the door by a player below it, and a player who walked into the corridor
from the other end is never below it. :func:`lone_box_tables` finds, for every goal, the cells
and sides from which a lone box reaches it (a breadth-first search of pulls over box cells and
sides, backwards from the goal).

:func:`lone_box_lost` tests a position: each box must be matched to a goal of its own that it
reaches alone from its side (where the player can step next to it; a box the player cannot
reach counts from any side). In a solution every box's pushes, taken alone, are pushes a lone
box makes from the same side (removing boxes only frees the player, and a player walking
between two pushes of another box never crosses this one), ending on distinct goals; so a
position without such a matching has no solution.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

_OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)
"""The direction opposite each of up, down, left, right (the order of a level's deltas)."""

MAX_ENTRIES = 1 << 26
"""Most entries (goals x cells x 4) of the table of a level the test runs on, and most cells
squared (the work of finding the sides); larger levels are not tested."""


class LoneBoxTables(NamedTuple):
    """The sides of every cell and the goals a lone box reaches from each (no entries: no
    test), with the scratch of the matching."""

    side: np.ndarray
    """int8[cells, 4]: the side (0-3) of the floor without the cell that holds its neighbour in
    each direction (-1: a wall there)."""
    reaches: np.ndarray
    """bool[goals, cells * 4]: whether a lone box on cell ``x`` with the player on side ``s``
    can be pushed onto goal ``g`` (entry ``[g, 4 * x + s]``)."""
    goal_of: np.ndarray
    """int64[goals]: scratch, the goal matched to each box (-1: none)."""
    owner: np.ndarray
    """int64[goals]: scratch, the box matched to each goal (-1: none)."""
    came: np.ndarray
    """int64[goals]: scratch, the box an augmenting path reached each goal from."""
    seen: np.ndarray
    """int64[goals + 1]: scratch, the stamp of the goals an augmenting path saw; the last entry
    is the running stamp."""
    sides: np.ndarray
    """int64[goals]: scratch, each box's side (-1: any)."""
    queue: np.ndarray
    """int64[cells * 4]: scratch of the searches."""


def no_lone_box_tables() -> LoneBoxTables:
    """Tables of no entries: :func:`lone_box_lost` tests nothing."""
    return _tables(np.zeros((0, 4), np.int8), np.zeros((0, 0), np.bool_), 0)


def lone_box_tables(floor, deltas, goal_cells) -> LoneBoxTables:
    """The :class:`LoneBoxTables` of a level's ``floor`` (bool[cells]), ``deltas`` and
    ``goal_cells`` (no entries when they would exceed :data:`MAX_ENTRIES`)."""
    floor = np.asarray(floor, dtype=np.bool_)
    deltas = np.asarray(deltas, dtype=np.int64)
    goal_cells = np.asarray(goal_cells, dtype=np.int64)
    cells = floor.shape[0]
    if len(goal_cells) * cells * 4 > MAX_ENTRIES or cells * cells > MAX_ENTRIES:
        return no_lone_box_tables()
    side = np.full((cells, 4), -1, dtype=np.int8)
    _sides(floor, deltas, side, np.zeros(cells, np.int64), np.zeros(cells, np.int64))
    reaches = np.zeros((len(goal_cells), cells * 4), dtype=np.bool_)
    queue = np.zeros(cells * 4, dtype=np.int64)
    for row, goal in enumerate(goal_cells.tolist()):
        _reach_goal(floor, deltas, side, goal, reaches[row], queue)
    return _tables(side, reaches, len(goal_cells))


def _tables(side, reaches, goals: int) -> LoneBoxTables:
    return LoneBoxTables(
        side=side,
        reaches=reaches,
        goal_of=np.zeros(goals, np.int64),
        owner=np.zeros(goals, np.int64),
        came=np.zeros(goals, np.int64),
        seen=np.zeros(goals + 1, np.int64),
        sides=np.zeros(goals, np.int64),
        queue=np.zeros(max(goals, side.shape[0] * 4), np.int64),
    )


@numba.njit(cache=True)
def _sides(floor, deltas, side, mark, queue):  # pragma: no cover - compiled
    """Fill ``side`` (see :class:`LoneBoxTables`): a flood fill of the floor without each cell
    from each of its neighbours not yet given a side."""
    stamp = 0
    for x in range(floor.shape[0]):
        if not floor[x]:
            continue
        labels = 0
        for k in range(4):
            start = x + deltas[k]
            if not floor[start] or side[x, k] >= 0:
                continue
            stamp += 1
            mark[x] = stamp  # the box: the fill goes round it
            mark[start] = stamp
            queue[0] = start
            head, tail = 0, 1
            while head < tail:
                cell = queue[head]
                head += 1
                for j in range(4):
                    other = cell + deltas[j]
                    if floor[other] and mark[other] != stamp:
                        mark[other] = stamp
                        queue[tail] = other
                        tail += 1
            for j in range(4):
                if mark[x + deltas[j]] == stamp and floor[x + deltas[j]]:
                    side[x, j] = labels
            labels += 1


@numba.njit(cache=True)
def _reach_goal(floor, deltas, side, goal, reach, queue):  # pragma: no cover - compiled
    """Mark in ``reach`` (bool[cells * 4]) the cells and sides from which a lone box can be
    pushed onto ``goal``: pulls backwards from the box on the goal, the player on any side."""
    tail = 0
    for k in range(4):
        s = side[goal, k]
        if s >= 0 and not reach[4 * goal + s]:
            reach[4 * goal + s] = True
            queue[tail] = 4 * goal + s
            tail += 1
    head = 0
    while head < tail:
        state = queue[head]
        head += 1
        y, t = state // 4, state % 4
        for d in range(4):  # the push in direction d that brought the box onto y
            back = _OPPOSITE[d]
            if side[y, back] != t:
                continue  # the player, on the cell the box left, is on another side of y
            x = y - deltas[d]
            before = side[x, back]  # where the player stood to push: x - deltas[d]
            if before < 0:
                continue
            previous = 4 * x + before
            if not reach[previous]:
                reach[previous] = True
                queue[tail] = previous
                tail += 1


@numba.njit(cache=True)
def lone_box_lost(tables, deltas, boxes, reach_mark, reach, assigned):  # pragma: no cover
    """True when ``boxes`` cannot be matched to distinct goals each reaches alone from its side
    (see the module). ``reach_mark == reach`` marks the player's region; ``assigned``: each
    box's goal in a matching to try first (no entries: none). False when the tables are empty."""
    n = boxes.shape[0]
    if tables.reaches.shape[0] != n:
        return False
    side, goal_of, owner, sides = tables.side, tables.goal_of, tables.owner, tables.sides
    for i in range(n):
        box = boxes[i]
        sides[i] = -1
        for k in range(4):
            if reach_mark[box + deltas[k]] == reach and side[box, k] >= 0:
                sides[i] = side[box, k]
                break
        owner[i] = -1
    for i in range(n):
        goal_of[i] = -1
        if assigned.shape[0] == n:
            goal = assigned[i]
            if owner[goal] < 0 and _reaches(tables, boxes[i], sides[i], goal):
                goal_of[i] = goal
                owner[goal] = i
    for i in range(n):
        if goal_of[i] < 0 and not _augment(tables, boxes, i):
            return True
    return False


@numba.njit(cache=True)
def _reaches(tables, box, s, goal):  # pragma: no cover - compiled
    """Whether a lone box on ``box`` with the player on side ``s`` (-1: any) reaches ``goal``."""
    row = tables.reaches[goal]
    if s >= 0:
        return row[4 * box + s]
    return row[4 * box] or row[4 * box + 1] or row[4 * box + 2] or row[4 * box + 3]


@numba.njit(cache=True)
def _augment(tables, boxes, start):  # pragma: no cover - compiled
    """Match box ``start`` by an augmenting path (breadth first over the boxes); False when
    there is none."""
    goal_of, owner, came, seen, sides, queue = (
        tables.goal_of,
        tables.owner,
        tables.came,
        tables.seen,
        tables.sides,
        tables.queue,
    )
    n = boxes.shape[0]
    seen[n] += 1
    stamp = seen[n]
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        box = queue[head]
        head += 1
        for goal in range(n):
            if seen[goal] == stamp or not _reaches(tables, boxes[box], sides[box], goal):
                continue
            seen[goal] = stamp
            came[goal] = box
            if owner[goal] < 0:
                while True:  # flip the path back to start
                    holder = came[goal]
                    previous = goal_of[holder]
                    goal_of[holder] = goal
                    owner[goal] = holder
                    if holder == start:
                        return True
                    goal = previous
            queue[tail] = owner[goal]
            tail += 1
    return False
