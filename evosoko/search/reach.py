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
