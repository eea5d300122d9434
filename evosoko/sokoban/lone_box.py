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

Boxes that can never move again (:func:`evosoko.sokoban.freeze.mark_frozen`) stay where they
are in any solution, so they are walls to the others: with some, the test matches the other
boxes to the goals left on tables of the board with those walls, built on first use and kept
by the frozen cells' hash (up to :data:`MAX_SLOTS` sets within :data:`FROZEN_BYTES`, a new one
replacing the oldest). A row of boxes frozen on goals cuts the player's way round, and with it
goals a lone box could reach on the open floor.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import counted, uncounted
from evosoko.sokoban.cell_sets import clear_cells
from evosoko.sokoban.cell_sides import (
    DISCOVERY,
    TREE_ROWS,
    SideSearch,
    label_sides,
    search_region,
)
from evosoko.sokoban.freeze import mark_frozen

FROZEN_BYTES = 1 << 24
"""Memory of the tables kept for sets of frozen boxes (at most :data:`MAX_SLOTS` sets)."""

MAX_SLOTS = 1024
"""Most sets of frozen boxes whose tables are kept (a search of XSokoban 48, 34 boxes, meets
thousands: docs/xsokoban.md, round 35)."""

MAX_ENTRIES = 1 << 26
"""Most entries (goals x cells x 4) of the table of a level the test runs on; larger levels
are not tested."""


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
    goal_cells: np.ndarray
    """int64[goals]: the goal of each row of ``reaches``."""
    frozen_keys: np.ndarray
    """uint64[slots]: the hash of the frozen cells whose tables each slot holds (0: none; no
    slots: frozen boxes are not made walls)."""
    frozen_next: np.ndarray
    """int64[1]: the slot the next new set of frozen cells is built in (in turn)."""
    frozen_side: np.ndarray
    """int8[slots, cells, 4]: ``side`` with a slot's frozen boxes as walls."""
    frozen_reaches: np.ndarray
    """bool[slots, goals, cells * 4]: ``reaches`` with them (rows of their goals all False)."""
    frozen: np.ndarray
    """bool[cells]: scratch of :func:`~evosoko.sokoban.freeze.mark_frozen`, all False."""
    open_cells: np.ndarray
    """bool[cells]: scratch, the floor without the frozen boxes."""
    free_boxes: np.ndarray
    """int64[goals]: scratch, the boxes not frozen."""
    dfs: np.ndarray
    """int64[TREE_ROWS, cells]: scratch of the depth-first search that finds the sides."""


def no_lone_box_tables() -> LoneBoxTables:
    """Tables of no entries: :func:`lone_box_lost` tests nothing."""
    return _tables(np.zeros((0, 4), np.int8), np.zeros((0, 0), np.bool_), np.zeros(0, np.int64))


def lone_box_tables(floor, deltas, goal_cells) -> LoneBoxTables:
    """The :class:`LoneBoxTables` of a level's ``floor`` (bool[cells]), ``deltas`` and
    ``goal_cells`` (no entries when they would exceed :data:`MAX_ENTRIES`)."""
    floor = np.asarray(floor, dtype=np.bool_)
    deltas = np.asarray(deltas, dtype=np.int64)
    goal_cells = np.asarray(goal_cells, dtype=np.int64)
    cells = floor.shape[0]
    if len(goal_cells) * cells * 4 > MAX_ENTRIES:
        return no_lone_box_tables()
    tables = _tables(
        np.full((cells, 4), -1, dtype=np.int8),
        np.zeros((len(goal_cells), cells * 4), dtype=np.bool_),
        goal_cells,
    )
    _build(floor, deltas, tables.goal_cells, tables.side, tables.reaches, tables)
    return tables


def _tables(side, reaches, goal_cells) -> LoneBoxTables:
    goals, cells = len(goal_cells), side.shape[0]
    per_slot = cells * 4 + goals * cells * 4
    slots = 1
    while slots < MAX_SLOTS and 2 * slots * per_slot <= FROZEN_BYTES:
        slots *= 2
    slots = slots if cells > 0 and per_slot <= FROZEN_BYTES else 0
    return LoneBoxTables(
        side=side,
        reaches=reaches,
        goal_of=np.zeros(goals, np.int64),
        owner=np.zeros(goals, np.int64),
        came=np.zeros(goals, np.int64),
        seen=np.zeros(goals + 1, np.int64),
        sides=np.zeros(goals, np.int64),
        queue=np.zeros(max(goals, cells * 4), np.int64),
        goal_cells=goal_cells,
        frozen_keys=np.zeros(slots, np.uint64),
        frozen_next=np.zeros(1, np.int64),
        frozen_side=np.zeros((slots, cells if slots else 0, 4), np.int8),
        frozen_reaches=np.zeros((slots, goals if slots else 0, cells * 4), np.bool_),
        frozen=np.zeros(cells, np.bool_),
        open_cells=np.zeros(cells, np.bool_),
        free_boxes=np.zeros(goals, np.int64),
        dfs=np.zeros((TREE_ROWS, cells), np.int64),
    )


@numba.njit(cache=True)
def _build(open_cells, deltas, goal_cells, side, reaches, tables):  # pragma: no cover - compiled
    """Fill ``side`` and ``reaches`` for the floor ``open_cells`` (goals off it get no cells)."""
    side[:] = -1
    reaches[:] = False
    _sides(open_cells, deltas, side, tables.dfs, tables.queue)
    for row in range(goal_cells.shape[0]):
        if open_cells[goal_cells[row]]:
            _reach_goal(open_cells, deltas, side, goal_cells[row], reaches[row], tables.queue)


@numba.njit(cache=True)
def _sides(floor, deltas, side, dfs, stack):  # pragma: no cover - compiled
    """Fill ``side`` (see :class:`LoneBoxTables`) from one depth-first search of each region
    of the floor (:mod:`evosoko.sokoban.cell_sides`). ``dfs``: int64[TREE_ROWS, cells] scratch,
    ``stack``: int64[2 * cells] scratch."""
    search = SideSearch(dfs, stack, np.zeros(1, np.int64), np.zeros(4, np.int64))
    walls = np.zeros(floor.shape[0], np.bool_)  # no boxes: ``floor`` is the open floor
    dfs[:] = 0  # a new clock: nothing of an earlier search may look found
    for root in range(floor.shape[0]):
        if floor[root] and dfs[DISCOVERY, root] == 0:
            search_region(floor, walls, deltas, root, search)
    for x in range(floor.shape[0]):
        if floor[x]:
            label_sides(floor, walls, deltas, search, x, side[x])


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
            back = d ^ 1  # the opposite direction (deltas are up, down, left, right)
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


@uncounted
def lone_box_lost(tables, tab, boxes, reach_mark, reach, assigned):  # pragma: no cover
    """True when ``boxes`` cannot be matched to distinct goals each reaches alone from its side
    (see the module), on the level's arrays ``tab``. ``reach_mark == reach`` marks the player's
    region; ``assigned``: each box's goal in a matching to try first (no entries: none). False
    when the tables are empty."""
    n = boxes.shape[0]
    if tables.reaches.shape[0] != n or n == 0:
        return False
    if tables.frozen_keys.shape[0] > 0:  # boxes that can never move are walls to the others
        frozen, free = tables.frozen, tables.free_boxes
        mark_frozen(tab.floor, tab.dead, tab.deltas, boxes, -1, -1, frozen)
        key = np.uint64(0)
        m = 0
        for i in range(n):
            if frozen[boxes[i]]:
                key ^= tab.zobrist_box[boxes[i]]
            else:
                free[m] = boxes[i]
                m += 1
        if 0 < m < n:
            slot = _frozen_slot(tables, tab, frozen, max(key, np.uint64(1)))
            clear_cells(frozen, boxes)
            side, reaches = tables.frozen_side[slot], tables.frozen_reaches[slot]
            return _unmatched(
                tables, side, reaches, free[:m], tab.deltas, reach_mark, reach, assigned[:0]
            )
        clear_cells(frozen, boxes)
        if m == 0:
            return False
    return _unmatched(
        tables, tables.side, tables.reaches, boxes, tab.deltas, reach_mark, reach, assigned
    )


@counted
def _frozen_slot(tables, tab, frozen, key):  # pragma: no cover - compiled
    """The slot of the frozen tables (``side``, ``reaches``) of the board with the cells marked
    in ``frozen`` as walls: the one that holds ``key`` (their hash), else the next in turn,
    built afresh."""
    keys = tables.frozen_keys
    for slot in range(keys.shape[0]):
        if keys[slot] == key:
            return slot
    slot = tables.frozen_next[0]  # the slots are replaced in turn
    tables.frozen_next[0] = (slot + 1) % keys.shape[0]
    open_cells = tables.open_cells
    for cell in range(open_cells.shape[0]):
        open_cells[cell] = tab.floor[cell] and not frozen[cell]
    _build(
        open_cells,
        tab.deltas,
        tables.goal_cells,
        tables.frozen_side[slot],
        tables.frozen_reaches[slot],
        tables,
    )
    keys[slot] = key
    return slot


@uncounted
def _unmatched(
    tables, side, reaches, boxes, deltas, reach_mark, reach, assigned
):  # pragma: no cover
    """True when ``boxes`` have no matching to distinct goals each reaches from its side on
    ``side`` and ``reaches``."""
    n, goals = boxes.shape[0], reaches.shape[0]
    goal_of, owner, sides = tables.goal_of, tables.owner, tables.sides
    for i in range(n):
        box = boxes[i]
        sides[i] = -1
        for k in range(4):
            if reach_mark[box + deltas[k]] == reach and side[box, k] >= 0:
                sides[i] = side[box, k]
                break
    for goal in range(goals):
        owner[goal] = -1
    for i in range(n):
        goal_of[i] = -1
        if assigned.shape[0] == n:
            goal = assigned[i]
            if owner[goal] < 0 and _reaches(reaches, boxes[i], sides[i], goal):
                goal_of[i] = goal
                owner[goal] = i
    for i in range(n):
        if goal_of[i] < 0 and not _augment(tables, reaches, boxes, i):
            return True
    return False


@uncounted
def _reaches(reaches, box, s, goal):  # pragma: no cover - compiled
    """Whether a lone box on ``box`` with the player on side ``s`` (-1: any) reaches ``goal``."""
    row = reaches[goal]
    if s >= 0:
        return row[4 * box + s]
    return row[4 * box] or row[4 * box + 1] or row[4 * box + 2] or row[4 * box + 3]


@uncounted
def _augment(tables, reaches, boxes, start):  # pragma: no cover - compiled
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
    goals = reaches.shape[0]
    seen[goals] += 1
    stamp = seen[goals]
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        box = queue[head]
        head += 1
        for goal in range(goals):
            if seen[goal] == stamp or not _reaches(reaches, boxes[box], sides[box], goal):
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
