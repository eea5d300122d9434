"""How far boxes are from goals, compiled: the minimum-cost perfect matching of boxes to goals
on push distances, and the two simpler sums, for the search's heuristics and the GA's fitness.

:func:`goal_distance` measures a box configuration one of three ways (``MANHATTAN``: each box's
Manhattan distance to its nearest goal; ``PUSH_DISTANCE``: its push distance to the nearest goal;
``MATCHING``: the matching below). The matching is the same quantity as
:func:`evosoko.sokoban.deadlocks.matching_cost` (tests hold the two equal), computed by the
Hungarian algorithm (shortest augmenting paths with potentials, O(n^3)) so it can run inside
compiled loops: the search's heuristic and the GA's fitness both call it. A result of
``UNREACHABLE`` or more means no perfect matching avoids an unreachable pair: a bipartite deadlock.

Not applied to given-holes levels (:mod:`evosoko.sokoban.holes.board`): their pairing is given,
so each box's push distance to its own hole replaces the matching (in the given-holes search's
heuristic and the GA's fitness there).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.level import UNREACHABLE

_INFINITY = 1 << 60

MANHATTAN, PUSH_DISTANCE, MATCHING = 0, 1, 2
"""Codes of the three measures of :func:`goal_distance`."""


@numba.njit(cache=True)
def goal_distance(
    kind, nearest_manhattan, nearest_push, push_distance, boxes, assignment, work
):  # pragma: no cover - compiled
    """How far ``boxes`` are from the goals by measure ``kind`` (uncapped sums; the matching
    fills ``assignment`` with each box's goal, ``work`` is its scratch)."""
    if kind == MATCHING:
        return matching_kernel(push_distance, boxes, assignment, work)
    total = 0
    for b in boxes:
        if kind == PUSH_DISTANCE:
            total += nearest_push[b]
        else:
            total += nearest_manhattan[b]
    return total


@numba.njit(cache=True)
def matching_kernel(push_distance, boxes, assignment, work):  # pragma: no cover - compiled
    """Cost of the best matching of ``boxes`` to goals; writes each box's goal to ``assignment``.

    ``work`` is int64 scratch of shape ``(6, boxes + 1)``. Unreachable pairs cost
    ``UNREACHABLE`` each, so any matching that needs one costs at least ``UNREACHABLE``.
    """
    n = boxes.shape[0]
    for j in range(n + 1):
        work[0, j] = 0  # row potentials
        work[1, j] = 0  # column potentials
        work[2, j] = 0  # column (goal) j+1 -> row (box) matched, 0 = none
        work[3, j] = 0
    for row in range(1, n + 1):
        _add_row(push_distance, boxes, row, work)
    return _matched_cost(push_distance, boxes, assignment, work)


@numba.njit(cache=True)
def matching_from_duals(
    push_distance, boxes, assignment, potentials, work
):  # pragma: no cover - compiled
    """:func:`matching_kernel`'s cost for ``boxes``, started from any goals' ``potentials``;
    from those of an earlier matching of the same goals (:func:`store_potentials`) of a box
    set that differs in a few boxes, in O(k n^2) for ``k`` boxes whose cheapest goals were
    taken, instead of O(n^3).

    With the goals' potentials kept, each box's potential is its least reduced cost, so the
    duals are feasible whatever the goals' potentials; each box takes a goal that is tight
    for it while one is free, and each box left over is matched by one shortest augmenting
    path (a phase of :func:`matching_kernel`). The cost is the least, as
    :func:`matching_kernel`'s; where several matchings cost that, ``assignment`` may be
    another of them.
    """
    n = boxes.shape[0]
    row_potential = work[0]
    column_potential = work[1]
    column_row = work[2]
    for j in range(n + 1):
        work[0, j] = 0
        work[2, j] = 0
        work[3, j] = 0
    column_potential[0] = 0
    for j in range(n):
        column_potential[j + 1] = potentials[j]
    for row in range(1, n + 1):
        box = boxes[row - 1]
        lowest = _INFINITY
        free_tight = 0
        for j in range(1, n + 1):
            reduced = min(push_distance[j - 1, box], UNREACHABLE) - column_potential[j]
            if reduced < lowest:
                lowest = reduced
                free_tight = j if column_row[j] == 0 else 0
            elif reduced == lowest and free_tight == 0 and column_row[j] == 0:
                free_tight = j
        row_potential[row] = lowest
        if free_tight > 0:
            column_row[free_tight] = row
    for row in range(1, n + 1):
        if not _has_goal(column_row, row):
            _add_row(push_distance, boxes, row, work)
    return _matched_cost(push_distance, boxes, assignment, work)


@numba.njit(cache=True, inline="always")
def _has_goal(column_row, row):  # pragma: no cover - compiled
    """Whether a goal of ``column_row`` is matched to box ``row``."""
    for j in range(1, column_row.shape[0]):
        if column_row[j] == row:
            return True
    return False


@uncounted
def _add_row(push_distance, boxes, row, work):  # pragma: no cover - compiled
    """Match ``row`` (1-based) by one shortest augmenting path (one phase of the Hungarian
    algorithm), the potentials in ``work`` being feasible and tight on the rows matched."""
    n = boxes.shape[0]
    row_potential = work[0]
    column_potential = work[1]
    column_row = work[2]
    way = work[3]
    min_to = work[4]
    used = work[5]
    column_row[0] = row
    free_column = 0
    for j in range(n + 1):
        min_to[j] = _INFINITY
        used[j] = 0
    while True:
        used[free_column] = 1
        current_row = column_row[free_column]
        delta = _INFINITY
        next_column = 0
        box = boxes[current_row - 1]
        for j in range(1, n + 1):
            if used[j]:
                continue
            cost = min(push_distance[j - 1, box], UNREACHABLE)
            reduced = cost - row_potential[current_row] - column_potential[j]
            if reduced < min_to[j]:
                min_to[j] = reduced
                way[j] = free_column
            if min_to[j] < delta:
                delta = min_to[j]
                next_column = j
        for j in range(n + 1):
            if used[j]:
                row_potential[column_row[j]] += delta
                column_potential[j] -= delta
            else:
                min_to[j] -= delta
        free_column = next_column
        if column_row[free_column] == 0:
            break
    while free_column != 0:
        previous = way[free_column]
        column_row[free_column] = column_row[previous]
        free_column = previous


@uncounted
def _matched_cost(push_distance, boxes, assignment, work):  # pragma: no cover - compiled
    """Each box's goal of the matching in ``work`` into ``assignment``; returns its cost."""
    n = boxes.shape[0]
    total = 0
    for j in range(1, n + 1):
        row = work[2, j] - 1
        assignment[row] = j - 1
        total += min(push_distance[j - 1, boxes[row]], UNREACHABLE)
    return total


@uncounted
def store_potentials(work, potentials):  # pragma: no cover - compiled
    """Copy the goals' dual potentials the last matching left in ``work`` to ``potentials``,
    shifted so the largest is 0 (with the row potentials shifted back, the duals stay feasible
    and tight; so shifted, every potential lies within ``UNREACHABLE`` of 0 and fits int32)."""
    n = potentials.shape[0]
    top = work[1, 1]
    for j in range(2, n + 1):
        top = max(top, work[1, j])
    for j in range(n):
        potentials[j] = work[1, j + 1] - top


@uncounted
def matching_update(
    push_distance, boxes, assignment, potentials, moved, work
):  # pragma: no cover - compiled
    """Cost of the best matching of ``boxes`` after one box moved, in O(n^2) instead of O(n^3).

    ``assignment`` and ``potentials`` come from the best matching before the move (each box's
    goal, in the order of ``boxes``, and the goals' potentials of :func:`store_potentials`);
    ``moved`` is the row of the box that moved. The other rows keep their costs, so the old
    duals stay feasible for them: the moved row is taken out and matched again by one shortest
    augmenting path (one phase of :func:`matching_kernel`). Updates both arrays in place and
    returns the same cost :func:`matching_kernel` would.
    """
    n = boxes.shape[0]
    row_potential = work[0]
    column_potential = work[1]
    column_row = work[2]
    column_potential[0] = 0
    row_potential[0] = 0
    column_row[0] = 0
    for j in range(n):
        column_potential[j + 1] = potentials[j]
        column_row[j + 1] = 0
    for row in range(n):
        if row == moved:
            continue
        goal = assignment[row]
        column_row[goal + 1] = row + 1
        cost = min(push_distance[goal, boxes[row]], UNREACHABLE)
        row_potential[row + 1] = cost - potentials[goal]
    box = boxes[moved]
    lowest = _INFINITY
    for j in range(n):
        lowest = min(lowest, min(push_distance[j, box], UNREACHABLE) - potentials[j])
    row_potential[moved + 1] = lowest
    _add_row(push_distance, boxes, moved + 1, work)
    total = _matched_cost(push_distance, boxes, assignment, work)
    store_potentials(work, potentials)
    return total


@numba.njit(cache=True, inline="always")
def pushed_closer(push_distance, goal, cell, beyond):  # pragma: no cover - compiled
    """Whether a box pushed from ``cell`` to ``beyond`` came one push closer to ``goal``.

    Then an optimal matching that pairs them stays optimal, at a cost lower by 1 (no other
    matching's cost fell by more), and its duals stay feasible for :func:`matching_update`: a
    push lowers a box's push distance to any goal by at most 1 (the lower cost is exact only
    where the cost was not capped at ``UNREACHABLE``).
    """
    before = min(push_distance[goal, cell], UNREACHABLE)
    return min(push_distance[goal, beyond], UNREACHABLE) == before - 1


def matching_cost(push_distance: np.ndarray, boxes) -> int:
    """Python entry point of :func:`matching_kernel` (capped at ``UNREACHABLE``)."""
    boxes = np.asarray(boxes, dtype=np.int64)
    assignment = np.zeros(len(boxes), dtype=np.int16)
    work = np.zeros((6, len(boxes) + 1), dtype=np.int64)
    cost = matching_kernel(np.asarray(push_distance, dtype=np.int64), boxes, assignment, work)
    return min(int(cost), UNREACHABLE)
