"""The sides of a cell: which of its free neighbours stay joined when the cell is taken away.

A box on cell ``x`` splits the free floor around it into at most four *sides*: the regions of
the free floor without ``x`` that hold its neighbours (two neighbours the player can walk
between without crossing ``x`` are one side). One depth-first search of a region of free floor
(:func:`search_region`) answers this for every cell of the region (:func:`label_sides`), in
time linear in the region: without ``x``, a child's subtree stays joined to the rest when it
reaches above ``x`` (its low point), else it is a side of its own; a neighbour below ``x``
that is no child lies in one child's subtree.

Used by the lone-box deadlock test (:mod:`evosoko.sokoban.lone_box`: every cell of the floor),
by the box paths of push-fess's packing macro (:mod:`evosoko.search.box_paths`: the cells one
box reaches, the other boxes in place) and by the push searches' told regions
(:mod:`evosoko.sokoban.free_regions`: the parts a pushed box cuts the player's region into, and
the smallest cell of each, the normalized player).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted

TREE_ROWS = 5
DISCOVERY, LOW, FINISH, PARENT, SMALLEST = range(TREE_ROWS)
"""Rows of :attr:`SideSearch.tree`."""


class SideSearch(NamedTuple):
    """Scratch and result of :func:`search_region`."""

    tree: np.ndarray
    """int64[TREE_ROWS, cells]: each cell's discovery time, low point, last discovery in its
    subtree, parent (-1: the root) and the smallest cell of its subtree, for the cells the last
    search found."""
    stack: np.ndarray
    """int64[2 * cells]: scratch, the cells of the search's path and the next direction of
    each."""
    clock: np.ndarray
    """int64[1]: the running clock (times only grow, so a cell with a discovery time at or
    below the clock a search started at is not found by it yet)."""
    parts: np.ndarray
    """int64[4]: scratch of :func:`label_sides`."""


def make_side_search(cells: int) -> SideSearch:
    """A :class:`SideSearch` for a level of ``cells`` cells."""
    return SideSearch(
        tree=np.zeros((TREE_ROWS, cells), dtype=np.int64),
        stack=np.zeros(2 * cells, dtype=np.int64),
        clock=np.zeros(1, dtype=np.int64),
        parts=np.zeros(4, dtype=np.int64),
    )


@uncounted
def search_region(floor, occupied, deltas, root, search):  # pragma: no cover - compiled
    """Depth-first search of the region of free floor (``floor``, not ``occupied``) that holds
    ``root``, filling ``search.tree`` for its cells."""
    tree, stack, clock = search.tree, search.stack, search.clock
    disc, low, finish, parent = tree[DISCOVERY], tree[LOW], tree[FINISH], tree[PARENT]
    smallest = tree[SMALLEST]
    cells = floor.shape[0]
    start = clock[0]
    time = start + 1
    disc[root] = low[root] = time
    parent[root] = -1
    smallest[root] = root
    stack[0], stack[cells] = root, 0
    top = 1
    while top > 0:
        x = stack[top - 1]
        k = stack[cells + top - 1]  # the next direction to look in from x
        up = parent[x]
        reach = low[x]
        while k < 4:
            y = x + deltas[k]
            k += 1
            if not floor[y] or occupied[y]:
                continue
            if disc[y] <= start:  # a child: search it first, come back to x after
                stack[cells + top - 1] = k
                low[x] = reach
                time += 1
                disc[y] = low[y] = time
                parent[y] = x
                smallest[y] = y
                stack[top], stack[cells + top] = y, 0
                top += 1
                break
            if y != up:
                reach = min(reach, disc[y])
        else:  # every direction looked at: x is done
            low[x] = reach
            finish[x] = time
            top -= 1
            if up >= 0:
                low[up] = min(low[up], reach)
                smallest[up] = min(smallest[up], smallest[x])
    clock[0] = time


@uncounted
def label_sides(floor, occupied, deltas, search, x, side):  # pragma: no cover - compiled
    """Number the sides of the free cell ``x``, a cell of the region :func:`search_region` has
    just searched, in ``side`` (4 entries: the side of the neighbour in each direction of
    ``deltas``, numbered in that order from 0; -1: no free floor there)."""
    parts = search.parts
    count = 0
    for k in range(4):
        y = x + deltas[k]
        if not floor[y] or occupied[y]:
            side[k] = -1
            continue
        part = part_of(search, deltas, x, y)
        label = count
        for i in range(count):
            if parts[i] == part:
                label = i
        if label == count:
            parts[count] = part
            count += 1
        side[k] = label


@numba.njit(cache=True, inline="always")
def part_of(search, deltas, x, y):  # pragma: no cover - compiled
    """The part of the searched region without its cell ``x`` that holds its cell ``y``: the
    direction (in ``deltas``) of the child of ``x`` whose subtree is a part of its own (it
    reaches no higher than ``x``, or ``x`` is the root), or -1 for the part that holds the
    root, joined by every child subtree reaching above ``x``. (A cell the search did not find
    has discovery and finish times at or below its start, so it is nobody's child here.)"""
    tree = search.tree
    disc, low, finish, parent = tree[DISCOVERY], tree[LOW], tree[FINISH], tree[PARENT]
    if disc[y] <= disc[x] or disc[y] > finish[x]:
        return -1  # not below x
    for j in range(4):
        child = x + deltas[j]
        if parent[child] == x and disc[child] <= disc[y] <= finish[child]:
            return j if parent[x] < 0 or low[child] >= disc[x] else -1
    return -1


@uncounted
def one_side(floor, occupied, deltas, x, side):  # pragma: no cover - compiled
    """Label the free neighbours of ``x`` all side 0 in ``side`` (-1: no free floor there),
    as :func:`label_sides` does when they meet without ``x`` (through its ring of eight cells,
    :func:`evosoko.sokoban.reach.walkable_around`)."""
    for k in range(4):
        y = x + deltas[k]
        side[k] = 0 if floor[y] and not occupied[y] else -1
