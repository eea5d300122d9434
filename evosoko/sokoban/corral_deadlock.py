"""Corral deadlocks, compiled: a bounded search proves that the boxes around a corral are lost.

A *corral* is a region of free floor the player cannot reach; its *barrier* is the boxes next to
it. The test removes every other box from the board and searches the pushes of the barrier
boxes alone (dead squares and freeze deadlocks pruned), breadth first, until the player reaches
a cell of the corral or every barrier box stands on a goal. If the search runs out of positions
first, the position is lost:

Removing boxes only helps the player and the boxes left, so the pushes of the barrier boxes in
any solution of the real position, taken alone, are a sequence the reduced search can make;
that sequence ends with the barrier boxes on goals, and none of its positions is frozen with a
box off goal (with the other boxes back, the same boxes would be frozen in the real position
too and could never reach their goals). Reaching the corral is an early way out that only ever
answers "not proven". A search that hits its bound of positions answers "not proven" as well.
So the test is sound: a position it calls lost has no solution (a hypothesis test holds it to
push-BFS on random small levels).

Used by ``push-fess`` (:mod:`evosoko.search.fess_kernel`) on the corrals next to the box pushed
last, once per expansion.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.sokoban.cell_sets import all_on_goals, clear_cells
from evosoko.sokoban.freeze import freeze_deadlock
from evosoko.sokoban.reach import explore

MAX_BARRIER = 10
"""Corrals with more barrier boxes are not tested."""

_MIX = np.uint64(0x9E3779B97F4A7C15)


def make_corral_scratch(cells: int, limit: int) -> tuple:
    """Scratch of :func:`corral_deadlock` for boards of ``cells`` cells and searches of at most
    ``limit`` positions: (region mark, reach mark, occupied, queue, boxes of each position, its
    player, hash table, stamps (region, reach), box buffer)."""
    slots = 1
    while slots < 2 * limit:
        slots *= 2
    return (
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.int64),
        np.zeros((limit, MAX_BARRIER), dtype=np.int64),
        np.zeros(limit, dtype=np.int64),
        np.full(slots, -1, dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros(MAX_BARRIER, dtype=np.int64),
    )


@numba.njit(cache=True)
def lost_after_push(
    floor, dead, goals, deltas, occupied, reach_mark, reach, player, code, freeze_scratch, scratch
):  # pragma: no cover - compiled
    """:func:`lost_next_to` the box a push step ``code`` (direction ``code & 3``, as the push
    searches store it) left next to ``player``; False for other steps (macros)."""
    if code < 0 or code >= 4 * floor.shape[0]:
        return False
    box = player + deltas[code & 3]
    if not occupied[box]:
        return False
    return lost_next_to(
        floor, dead, goals, deltas, occupied, reach_mark, reach, box, freeze_scratch, scratch
    )


@numba.njit(cache=True)
def lost_next_to(
    floor, dead, goals, deltas, occupied, reach_mark, reach, box, freeze_scratch, scratch
):  # pragma: no cover - compiled
    """True when a corral next to the box on ``box`` is a proven deadlock (see the module).

    ``occupied`` holds the position's boxes and ``reach_mark == reach`` the player's region.
    """
    region_mark, marks = scratch[0], scratch[7]
    before = marks[0]
    player = -1
    for k in range(4):  # any cell of the player's region will do as the start
        if reach_mark[box + deltas[k]] == reach:
            player = box + deltas[k]
    if player < 0:
        return False
    for k in range(4):
        cell = box + deltas[k]
        if not floor[cell] or occupied[cell] or reach_mark[cell] == reach:
            continue
        if region_mark[cell] > before:
            continue  # the corral of an earlier side
        if corral_deadlock(
            floor, dead, goals, deltas, occupied, player, cell, freeze_scratch, scratch
        ):
            return True
    return False


@numba.njit(cache=True)
def corral_deadlock(
    floor, dead, goals, deltas, occupied, player, start, freeze_scratch, scratch
):  # pragma: no cover - compiled
    """True when the corral holding the free cell ``start`` is proven lost (see the module)."""
    region_mark, reach_mark, occ, queue, boxes, players, table, marks, buffer = scratch
    marks[0] += 1
    region = marks[0]
    size, _ = explore(floor, occupied, deltas, start, region_mark, region, queue, queue[:0])
    count = 0
    for i in range(size):
        for k in range(4):
            cell = queue[i] + deltas[k]
            if occupied[cell] and not occ[cell]:
                if count == MAX_BARRIER:
                    clear_cells(occ, buffer[:count])
                    return False
                occ[cell] = True
                buffer[count] = cell
                count += 1
    clear_cells(occ, buffer[:count])
    _sort(buffer, count)
    if all_on_goals(goals, buffer[:count]):
        return False
    limit = players.shape[0]
    table[:] = -1
    boxes[0, :count] = buffer[:count]
    players[0] = player
    made = 1
    head = 0
    while head < made:
        for j in range(count):
            occ[boxes[head, j]] = True
        marks[1] += 1
        reached, smallest = explore(
            floor, occ, deltas, players[head], reach_mark, marks[1], queue, queue[:0]
        )
        fresh = _insert(table, boxes, players, head, count, smallest)
        if fresh:
            for i in range(reached):
                if region_mark[queue[i]] == region:
                    clear_cells(occ, boxes[head, :count])
                    return False  # the player got into the corral: not proven
        for j in range(count if fresh else 0):
            b = boxes[head, j]
            for k in range(4):
                target = b + deltas[k]
                if reach_mark[b - deltas[k]] != marks[1]:
                    continue
                if not floor[target] or occ[target] or dead[target]:
                    continue
                occ[b] = False
                occ[target] = True
                frozen = freeze_deadlock(floor, dead, goals, occ, deltas, target, freeze_scratch)
                occ[target] = False
                occ[b] = True
                if frozen:
                    continue
                if made == limit:
                    clear_cells(occ, boxes[head, :count])
                    return False  # out of positions: not proven
                boxes[made, :count] = boxes[head, :count]
                boxes[made, j] = target
                _sort(boxes[made], count)
                players[made] = b
                if all_on_goals(goals, boxes[made, :count]):
                    clear_cells(occ, boxes[head, :count])
                    return False
                made += 1
        clear_cells(occ, boxes[head, :count])
        head += 1
    return True


@numba.njit(cache=True)
def _insert(table, boxes, players, row, count, normalized):  # pragma: no cover - compiled
    """Enter position ``row`` (its player set to ``normalized``); False if it was seen."""
    players[row] = normalized
    h = np.uint64(normalized + 1) * _MIX
    for j in range(count):
        h = (h ^ np.uint64(boxes[row, j] + 1)) * _MIX
    mask = table.shape[0] - 1
    slot = int(h >> np.uint64(20)) & mask
    while table[slot] >= 0:
        other = table[slot]
        if players[other] == normalized:
            same = True
            for j in range(count):
                if boxes[other, j] != boxes[row, j]:
                    same = False
                    break
            if same:
                return False
        slot = (slot + 1) & mask
    table[slot] = row
    return True


@numba.njit(cache=True)
def _sort(cells, count):  # pragma: no cover - compiled
    for i in range(1, count):
        value = cells[i]
        j = i - 1
        while j >= 0 and cells[j] > value:
            cells[j + 1] = cells[j]
            j -= 1
        cells[j + 1] = value
