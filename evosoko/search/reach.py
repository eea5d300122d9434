"""Compiled player reachability on flat arrays, with stamp marks so nothing is cleared per call.

``mark[c] == stamp`` means "reached in the current exploration"; callers bump the stamp before
each call. Same rules as :func:`evosoko.sokoban.rules.reachable_cells` (tests compare them).
"""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def explore(floor, occupied, deltas, start, mark, stamp, distance, queue):  # pragma: no cover
    """Breadth-first walk from ``start``: marks reached cells and their walking distances."""
    mark[start] = stamp
    distance[start] = 0
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        cell = queue[head]
        head += 1
        for k in range(4):
            neighbour = cell + deltas[k]
            if floor[neighbour] and not occupied[neighbour] and mark[neighbour] != stamp:
                mark[neighbour] = stamp
                distance[neighbour] = distance[cell] + 1
                queue[tail] = neighbour
                tail += 1
    return tail


@numba.njit(cache=True)
def smallest_reachable(floor, occupied, deltas, start, mark, stamp, queue):  # pragma: no cover
    """The smallest cell reachable from ``start`` (the normalized player cell)."""
    mark[start] = stamp
    queue[0] = start
    smallest = start
    head = 0
    tail = 1
    while head < tail:
        cell = queue[head]
        head += 1
        smallest = min(smallest, cell)
        for k in range(4):
            neighbour = cell + deltas[k]
            if floor[neighbour] and not occupied[neighbour] and mark[neighbour] != stamp:
                mark[neighbour] = stamp
                queue[tail] = neighbour
                tail += 1
    return smallest


@numba.njit(cache=True)
def normalized_after_push(
    floor,
    occupied,
    deltas,
    reach_mark,
    stamp,
    parent_normalized,
    source,
    target,
    direction,
    norm_mark,
    norm_stamp,
    queue,
):  # pragma: no cover - compiled
    """Normalized player cell after a single push of the box on ``source`` to ``target``.

    ``occupied`` is the position after the push; ``reach_mark == stamp`` marks the player's
    region R before it, whose smallest cell is ``parent_normalized``. The player now stands on
    ``source``. When ``source`` opens onto nothing outside R, and ``target`` either lay outside
    R or can be walked around through its eight neighbours, the new region is R minus
    ``target`` plus ``source``, and its smallest cell follows without a search; otherwise this
    falls back to :func:`smallest_reachable`.
    """
    width = deltas[1]
    across = 2 if direction < 2 else 0
    for k in range(across, across + 2):
        side = source + deltas[k]
        if floor[side] and not occupied[side] and reach_mark[side] != stamp:
            return smallest_reachable(floor, occupied, deltas, source, norm_mark, norm_stamp, queue)
    if reach_mark[target] == stamp and (
        parent_normalized == target or not _walkable_around(floor, occupied, target, width)
    ):
        return smallest_reachable(floor, occupied, deltas, source, norm_mark, norm_stamp, queue)
    return min(parent_normalized, source)


@numba.njit(cache=True)
def _walkable_around(floor, occupied, cell, width):  # pragma: no cover - compiled
    """True when the free side neighbours of ``cell`` connect through its ring of 8 cells."""
    ring = (-width, -width + 1, 1, width + 1, width, width - 1, -1, -width - 1)
    free = 0
    for k in range(8):
        neighbour = cell + ring[k]
        if floor[neighbour] and not occupied[neighbour]:
            free |= 1 << k
    sides = 0
    links = 0
    for k in range(0, 8, 2):
        if free & (1 << k):
            sides += 1
            if free & (1 << (k + 1)) and free & (1 << ((k + 2) % 8)):
                links += 1
    return sides <= 1 or links >= sides - 1
