"""Room in a full store: drop the stored states least likely to matter, compact the rest.

A non-optimal search whose store reaches its memory limit (``on_full = "drop"``,
:class:`~evosoko.search.settings.PushSettings`) goes on after :func:`drop_states`: it drops
dead ends first, expanded states with no stored child (their successors were all dropped,
known or pruned; a search that finds one again expands it again), the worst by priority; then,
when those are too few, open leaves (states never expanded, with no stored child, not the
expansion in progress) with the worst keys, in the feature space the worst of each cell so that
every cell keeps its best. So the frontier, the search's future, goes last: dropping open leaves
first left XSokoban 16's store nearly all expanded states, a handful open after each drop, until
the frontier emptied. It moves the kept rows down in their order (a kept state's parent is
expanded, so kept too, and gets its new number), and rebuilds the hash table, the frontier and
the cells' heaps. A dropped
state may be generated again later, as a new state. Every step is one pass over flat arrays in
a compiled kernel; the scratch it needs is a few bytes per stored state (the drop's own arrays,
below a tenth of a state's row), held only during the drop.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.search.fess.space import ADVISED_NODE, IN_HEAPS, FeatureSpace, heap_insert
from evosoko.search.store import (
    EMPTY,
    FRONT_HEAD,
    FRONT_SIZE,
    NODES,
    RESUME_NODE,
    Store,
    priority,
    rehash,
    sift_down,
)

NO_KEY = np.iinfo(np.int64).max
"""The key of an open state no frontier entry holds (dropped first)."""


def drop_states(
    store: Store,
    share: float,
    space: FeatureSpace | None = None,
    pending: np.ndarray | None = None,
    weights: tuple[int, int] = (1, 1),
) -> np.ndarray | None:
    """Drop up to ``share`` of ``store``'s capacity in leaves and compact the store (see the
    module docstring); the frontier must be a heap. Expanded leaves (no stored child) go first,
    the worst by their key under ``weights`` (``g_weight``, ``h_weight`` of
    :func:`~evosoko.search.store.priority`; one is kept), then open leaves. ``space``: the
    feature space whose cells hold the open states (None: the frontier's keys order them).
    ``pending``: node ids an unfinished expansion still holds (``PendingSuccessors.ids[:size]``),
    kept and renumbered in place.
    Returns each old node's new number (-1: dropped), or None when no state could be
    dropped (the store is unchanged)."""
    count = store.size
    nodes, counters = store.nodes, store.counters
    keep = np.zeros(count, dtype=np.bool_)
    resume = int(counters[RESUME_NODE])
    keep[0] = True
    if resume >= 0:
        keep[resume] = True
        if pending is not None:
            keep[pending] = True
    candidate = leaves(nodes.parent, nodes.closed, keep, count, False)
    if space is None:
        cells = np.zeros(count, dtype=np.int32)
        keys = frontier_keys(store.frontier, counters, count)
        cell_count = 1
    else:
        cells = heap_cells(space, count)
        candidate &= cells >= 0
        keys = space.key[:count]
        cell_count = len(space.root)
    target = int(share * store.capacity)
    drop = np.zeros(count, dtype=np.bool_)
    closed_leaves = leaves(nodes.parent, nodes.closed, keep, count, True)
    leaf_count = int(np.count_nonzero(closed_leaves))
    if leaf_count:  # dead ends first: expanded, with no stored child, the worst by priority
        ranks = node_priorities(nodes, count, weights[0], weights[1])
        single = np.zeros(count, dtype=np.int32)
        drop = worst_in_cells(single, ranks, closed_leaves, min(1.0, target / leaf_count), 1)
    short = target - int(np.count_nonzero(drop))
    candidates = int(np.count_nonzero(candidate))
    if short > 0 and candidates:  # then the open leaves, the worst keys (of each cell)
        drop |= worst_in_cells(cells, keys, candidate, min(1.0, short / candidates), cell_count)
    if not drop.any():
        return None
    new_id = renumber(drop)
    compact_nodes(nodes, new_id)
    kept = int(count - np.count_nonzero(drop))
    counters[NODES] = kept
    if resume >= 0:
        counters[RESUME_NODE] = new_id[resume]
        if pending is not None:
            pending[:] = new_id[pending]
    store.table.fill(EMPTY)
    rehash(store.table, nodes.hash, kept)
    rebuild_heap(store.frontier, counters, new_id, nodes.closed)
    if space is not None:
        compact_rows(space.key, new_id)
        if len(space.advice):
            compact_rows(space.advice, new_id)
        compact_rows(cells, new_id)
        rebuild_cells(space, cells, nodes.closed, kept)
        advised = space.state[ADVISED_NODE]
        if advised >= 0:
            space.state[ADVISED_NODE] = new_id[advised]
    return new_id


@numba.njit(cache=True)
def leaves(parent, closed, keep, count, expanded):  # pragma: no cover - compiled
    """Nodes ``0..count-1`` that may be dropped: no stored node's parent, not in ``keep``, and
    open (``expanded`` False) or expanded (True): the ends of paths that lead to no other state
    the search holds."""
    leaf = np.ones(count, dtype=np.bool_)
    for node in range(count):
        up = parent[node]
        if up >= 0:
            leaf[up] = False
    for node in range(count):
        leaf[node] = leaf[node] and (closed[node] != 0) == expanded and not keep[node]
    return leaf


@numba.njit(cache=True)
def node_priorities(nodes, count, g_weight, h_weight):  # pragma: no cover - compiled
    """The heap key (:func:`~evosoko.search.store.priority`) of each of the nodes
    ``0..count-1``."""
    keys = np.empty(count, dtype=np.int64)
    for node in range(count):
        keys[node] = priority(nodes.g[node], nodes.h[node], nodes.moves[node], g_weight, h_weight)
    return keys


@numba.njit(cache=True)
def frontier_keys(frontier, counters, count):  # pragma: no cover - compiled
    """Each node's lowest key among the frontier's entries (:data:`NO_KEY`: none)."""
    keys, ids = frontier
    lowest = np.full(count, NO_KEY, dtype=np.int64)
    for k in range(counters[FRONT_HEAD], counters[FRONT_SIZE]):
        node = ids[k]
        lowest[node] = min(lowest[node], keys[k])
    return lowest


@numba.njit(cache=True)
def heap_cells(space, count):  # pragma: no cover - compiled
    """The cell whose heap holds each of the nodes ``0..count-1`` (-1: none), read by walking
    every cell's pairing heap from its root."""
    cell_of = np.full(count, -1, dtype=np.int32)
    child, sibling, root = space.child, space.sibling, space.root
    stack = np.empty(max(1, int(space.state[IN_HEAPS])), dtype=np.int64)
    for cell in range(root.shape[0]):
        if root[cell] < 0:
            continue
        stack[0] = root[cell]
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            cell_of[node] = cell
            if child[node] >= 0:
                stack[top] = child[node]
                top += 1
            if sibling[node] >= 0:
                stack[top] = sibling[node]
                top += 1
    return cell_of


@numba.njit(cache=True)
def worst_in_cells(cells, keys, candidate, fraction, cell_count):  # pragma: no cover - compiled
    """The candidates to drop: in each cell, the ``fraction`` of its candidates with the largest
    keys (rounded down; on equal keys the later node), never all of them, so that each cell
    keeps its best."""
    count = cells.shape[0]
    per_cell = np.zeros(cell_count + 1, dtype=np.int64)
    for node in range(count):
        if candidate[node]:
            per_cell[cells[node] + 1] += 1
    for cell in range(cell_count):
        per_cell[cell + 1] += per_cell[cell]
    order = np.empty(per_cell[cell_count], dtype=np.int64)
    filled = per_cell[:cell_count].copy()
    for node in range(count):
        if candidate[node]:
            order[filled[cells[node]]] = node
            filled[cells[node]] += 1
    drop = np.zeros(count, dtype=np.bool_)
    for cell in range(cell_count):
        start, end = per_cell[cell], per_cell[cell + 1]
        size = end - start
        dropped = min(int(fraction * size), size - 1)
        if dropped <= 0:
            continue
        members = order[start:end]
        ranked = members[np.argsort(keys[members], kind="mergesort")]
        for k in range(size - dropped, size):
            drop[ranked[k]] = True
    return drop


@numba.njit(cache=True)
def renumber(drop):  # pragma: no cover - compiled
    """Each node's number once the dropped ones are gone (-1: dropped), order kept."""
    new_id = np.full(drop.shape[0], -1, dtype=np.int32)
    kept = 0
    for node in range(drop.shape[0]):
        if not drop[node]:
            new_id[node] = kept
            kept += 1
    return new_id


@numba.njit(cache=True)
def compact_nodes(nodes, new_id):  # pragma: no cover - compiled
    """Move every kept node's row of ``nodes`` (:class:`~evosoko.search.store.NodeArrays`) to
    its new number (never above the old) and renumber its parent (kept: it was expanded)."""
    boxes, assign, potential = nodes.boxes, nodes.assign, nodes.potential
    for node in range(new_id.shape[0]):
        to = new_id[node]
        if to < 0:
            continue
        up = nodes.parent[node]
        nodes.parent[to] = new_id[up] if up >= 0 else -1
        if to == node:
            continue
        for k in range(boxes.shape[1]):  # element by element: no slice views in the loop
            boxes[to, k] = boxes[node, k]
        for k in range(assign.shape[1]):
            assign[to, k] = assign[node, k]
            potential[to, k] = potential[node, k]
        nodes.player[to] = nodes.player[node]
        nodes.actual[to] = nodes.actual[node]
        nodes.step[to] = nodes.step[node]
        nodes.g[to] = nodes.g[node]
        nodes.moves[to] = nodes.moves[node]
        nodes.h[to] = nodes.h[node]
        nodes.hash[to] = nodes.hash[node]
        nodes.closed[to] = nodes.closed[node]


@numba.njit(cache=True)
def compact_rows(array, new_id):  # pragma: no cover - compiled
    """Move every kept node's entry of a per-node ``array`` to its new number."""
    for node in range(new_id.shape[0]):
        to = new_id[node]
        if to >= 0:
            array[to] = array[node]


@numba.njit(cache=True)
def rebuild_heap(frontier, counters, new_id, closed):  # pragma: no cover - compiled
    """Keep the heap entries of kept open nodes, renumbered, and restore the heap order."""
    keys, ids = frontier
    size = 0
    for k in range(counters[FRONT_SIZE]):
        to = new_id[ids[k]]
        if to >= 0 and closed[to] == 0:
            keys[size] = keys[k]
            ids[size] = to
            size += 1
    counters[FRONT_SIZE] = size
    counters[FRONT_HEAD] = 0
    for start in range(size // 2 - 1, -1, -1):
        sift_down(keys, ids, size, start, keys[start], ids[start])


@numba.njit(cache=True)
def rebuild_cells(space, cells, closed, count):  # pragma: no cover - compiled
    """Empty every cell's heap and put back the open nodes ``0..count-1`` of ``cells`` (their
    compacted cells, -1: none) with their keys."""
    space.root[:] = EMPTY
    space.size[:] = 0
    space.state[IN_HEAPS] = 0
    space.child[:count] = EMPTY
    space.sibling[:count] = EMPTY
    for node in range(count):
        if cells[node] >= 0 and closed[node] == 0:
            heap_insert(space, cells[node], node, space.key[node])
