"""The pull search: states reached backwards from the solved position, one pull at a time.

A pull is a push played in reverse: the player stands next to a box, steps away from it and
drags the box onto the cell it left. Every state a pull search reaches can be pushed back to
the solved position, so when a forward search meets one of them (same boxes, same player
region), the forward path and the reversed pulls make a solution
(:mod:`evosoko.search.bidirectional`).

States are kept in a :class:`evosoko.search.store.Store` with the forward search's keys (sorted
boxes, smallest cell of the player's region) and Zobrist hashes, so either store can look up
the other's states. ``step`` holds the direction of the pull, ``actual`` where the player
stands after it. A box is only pulled onto a *live* cell: one a lone box can be pushed to from
some start cell of a box (other cells are never reached by the forward search). The frontier is
a heap ordered by ``g + weight * h``, ``h`` the cost of the best matching of boxes to start
cells (pushes of a lone box from its start cell). A state whose boxes have no such matching
cannot be reached from the start and is not stored (a bipartite deadlock, backwards). Only a
child not stored yet is matched, and from its parent's matching in O(n^2)
(:func:`evosoko.sokoban.matching.matching_update`): 1.5-3x more pulls a second on XSokoban
screens than matching each child from scratch, the same states in the same order. The state
expanded is matched from the duals of the one expanded before it (the first of a call from
zero potentials)
(:func:`evosoko.sokoban.matching.matching_from_duals`): on screen 48 (34 boxes) 100,000
expansions take 2.2-2.6 CPU-s against 4.9 from scratch, the same states in the same order.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numba
import numpy as np

from evosoko.search.store import (
    CONTINUE,
    DUPLICATES,
    EMPTY,
    EXHAUSTED,
    EXPANDED,
    FRONT_SIZE,
    GENERATED,
    HEAP,
    NEED_SPACE,
    NODES,
    WORK,
    NodeFields,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import (
    matching_from_duals,
    matching_kernel,
    matching_update,
    store_potentials,
)
from evosoko.sokoban.reach import explore
from evosoko.sokoban.successors import moved_child as _moved


def start_distances(floor: np.ndarray, deltas, start_boxes) -> np.ndarray:
    """int64[boxes, cells]: pushes a lone box needs from each start cell of a box to each cell
    (``UNREACHABLE`` where it cannot go)."""
    table = np.full((len(start_boxes), len(floor)), UNREACHABLE, dtype=np.int64)
    for row, start in enumerate(start_boxes):
        distance = table[row]
        distance[start] = 0
        queue = deque([int(start)])
        while queue:
            cell = queue.popleft()
            for delta in deltas:
                target, behind = cell + delta, cell - delta
                if floor[target] and floor[behind] and distance[target] == UNREACHABLE:
                    distance[target] = distance[cell] + 1
                    queue.append(int(target))
    return table


class PullTables(NamedTuple):
    """What the pull kernels read of the start position."""

    distance: np.ndarray
    """int64[start boxes, cells]: pulls of a box from each cell back to each start cell
    (:func:`start_distances`): the matching heuristic of the pull search."""
    live: np.ndarray
    """bool[cells]: cells some box can be pushed to from its start cell."""
    goal_cells: np.ndarray
    """int64[boxes]: the sorted goal cells (the boxes of the solved position)."""


PULL_MATCHING_WORK = 1
"""Work units a pull expansion counts per ``n**3`` of the full matching of its ``n`` boxes."""

REACH_STAMP, NORM_STAMP = 0, 1
"""Slots of :attr:`PullScratch.stamps`."""


class PullScratch(NamedTuple):
    """Per-search scratch of the pull kernels."""

    assignment: np.ndarray
    """int16[boxes]: each box's start cell in the matching."""
    work: np.ndarray
    """int64[6, boxes + 1]: the matching's work."""
    reach_mark: np.ndarray
    """int64[cells]: the player's region of the node expanded (``stamps[REACH_STAMP]``)."""
    norm_mark: np.ndarray
    """int64[cells]: the region walked to normalize a child's player (``stamps[NORM_STAMP]``)."""
    queue: np.ndarray
    """int64[cells]: breadth-first queue."""
    occupied: np.ndarray
    """bool[cells]: the boxes of the node expanded (all False between expansions)."""
    stamps: np.ndarray
    """int64[2]: the running stamps of ``reach_mark`` and ``norm_mark``."""


def make_scratch(cells: int, box_count: int) -> PullScratch:
    """A :class:`PullScratch` for a level of ``cells`` cells and ``box_count`` boxes."""
    return PullScratch(
        assignment=np.zeros(box_count, dtype=np.int16),
        work=np.zeros((6, box_count + 1), dtype=np.int64),
        reach_mark=np.zeros(cells, dtype=np.int64),
        norm_mark=np.zeros(cells, dtype=np.int64),
        queue=np.zeros(cells, dtype=np.int64),
        occupied=np.zeros(cells, dtype=np.bool_),
        stamps=np.zeros(2, dtype=np.int64),
    )


@numba.njit(cache=True)
def pull_roots(tab, pull_tab, weight, store, scratch):  # pragma: no cover - compiled
    """Store the solved position once per region of free floor (the player may finish in any
    of them) and put each in the frontier of ``store``
    (:class:`evosoko.search.store.StoreArrays`); returns how many. ``tab``: the level's
    :class:`~evosoko.sokoban.arrays.LevelArrays`, ``pull_tab`` its :class:`PullTables`."""
    nodes, table, frontier, counters = store.nodes, store.table, store.frontier, store.counters
    floor, deltas, zb, zp = tab.floor, tab.deltas, tab.zobrist_box, tab.zobrist_player
    distance, goal_cells = pull_tab.distance, pull_tab.goal_cells
    assignment, work, reach_mark = scratch.assignment, scratch.work, scratch.reach_mark
    queue, occupied, stamps = scratch.queue, scratch.occupied, scratch.stamps
    h = matching_kernel(distance, goal_cells, assignment, work)
    boxes_hash = np.uint64(0)
    for b in goal_cells:
        occupied[b] = True
        boxes_hash ^= zb[b]
    stamps[REACH_STAMP] += 1
    roots = 0
    for cell in range(floor.shape[0]):
        if not floor[cell] or occupied[cell] or reach_mark[cell] == stamps[REACH_STAMP]:
            continue
        _, smallest = explore(
            floor, occupied, deltas, cell, reach_mark, stamps[REACH_STAMP], queue, queue[:0]
        )
        key_hash = boxes_hash ^ zp[smallest]
        slot = find_slot(nodes, table, key_hash, goal_cells, smallest)
        node = add_node(
            nodes,
            table,
            counters,
            slot,
            goal_cells,
            NodeFields(smallest, cell, -1, 0, 0, 0, h, key_hash),
        )
        frontier_push(frontier, counters, HEAP, priority(0, h, 0, 100, weight), node)
        roots += 1
    for b in goal_cells:
        occupied[b] = False
    return roots


@numba.njit(cache=True)
def pull_search(
    tab, pull_tab, weight, chunk, work_limit, store, scratch
):  # pragma: no cover - compiled
    """Expand up to ``chunk`` states of the pull frontier of ``store``
    (:class:`evosoko.search.store.StoreArrays`), and no more once ``work_limit`` work units are
    done (the expansion under way is finished: one is at least done); the units go to
    ``counters[WORK]`` (:data:`PULL_MATCHING_WORK`). Returns ``CONTINUE``, ``EXHAUSTED`` (every
    state reachable backwards is stored) or ``NEED_SPACE`` (grow the store first)."""
    nodes, table, frontier, counters = store.nodes, store.table, store.frontier, store.counters
    floor, deltas, zb, zp = tab.floor, tab.deltas, tab.zobrist_box, tab.zobrist_player
    distance, live = pull_tab.distance, pull_tab.live
    assignment, work, reach_mark = scratch.assignment, scratch.work, scratch.reach_mark
    norm_mark, queue = scratch.norm_mark, scratch.queue
    occupied, stamps = scratch.occupied, scratch.stamps
    node_boxes = nodes.boxes
    child = np.empty(node_boxes.shape[1], dtype=node_boxes.dtype)
    child_assign = np.empty_like(assignment)
    potentials = np.zeros(node_boxes.shape[1], dtype=np.int64)  # any goal potentials do
    child_potentials = np.empty_like(potentials)
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    margin = 4 * box_count + 2
    full_matching = PULL_MATCHING_WORK * box_count * box_count * box_count
    matching_work = box_count * box_count
    spent = 0
    expanded_here = 0
    while expanded_here < chunk and (expanded_here == 0 or spent < work_limit):
        if (
            counters[NODES] + margin >= capacity
            or counters[FRONT_SIZE] + margin >= frontier[0].shape[0]
        ):
            counters[WORK] += spent
            return NEED_SPACE
        node = frontier_pop(frontier, counters, HEAP)
        if node < 0:
            counters[WORK] += spent
            return EXHAUSTED
        expanded_here += 1
        nodes.closed[node] = 1
        counters[EXPANDED] += 1
        g = nodes.g[node]
        parent_hash = nodes.hash[node] ^ zp[nodes.player[node]]
        for k in range(box_count):
            occupied[node_boxes[node, k]] = True
        stamps[REACH_STAMP] += 1
        reach = stamps[REACH_STAMP]
        reached, _ = explore(
            floor, occupied, deltas, nodes.actual[node], reach_mark, reach, queue, queue[:0]
        )
        # from the last expansion's duals; the children update it
        matching_from_duals(distance, node_boxes[node], assignment, potentials, work)
        spent += box_count + reached + full_matching
        store_potentials(work, potentials)
        for k in range(box_count):
            box = node_boxes[node, k]
            for d in range(4):
                target = box + deltas[d]  # where the box goes: the player stands there now
                player = target + deltas[d]  # and steps on to here
                if reach_mark[target] != reach or not live[target]:
                    continue
                if not floor[player] or occupied[player]:
                    continue
                moved = _moved(node_boxes[node], assignment, k, target, child, child_assign, True)
                occupied[box] = False
                occupied[target] = True
                stamps[NORM_STAMP] += 1
                walked, smallest = explore(
                    floor, occupied, deltas, player, norm_mark, stamps[NORM_STAMP], queue, queue[:0]
                )
                spent += box_count + walked
                occupied[target] = False
                occupied[box] = True
                key_hash = parent_hash ^ zb[box] ^ zb[target] ^ zp[smallest]
                counters[GENERATED] += 1
                slot = find_slot(nodes, table, key_hash, child, smallest)
                if table[slot] != EMPTY:
                    counters[DUPLICATES] += 1
                    continue
                child_potentials[:] = potentials
                spent += matching_work
                child_h = matching_update(
                    distance, child, child_assign, child_potentials, moved, work
                )
                if child_h >= UNREACHABLE:
                    continue  # no start cell for some box: never reached from the start
                added = add_node(
                    nodes,
                    table,
                    counters,
                    slot,
                    child,
                    NodeFields(smallest, player, node, d, g + 1, 0, child_h, key_hash),
                )
                frontier_push(
                    frontier, counters, HEAP, priority(g + 1, child_h, 0, 100, weight), added
                )
        for k in range(box_count):
            occupied[node_boxes[node, k]] = False
    counters[WORK] += spent
    return CONTINUE


@numba.njit(cache=True)
def best_meeting(nodes, start, stop, other_nodes, other_table):  # pragma: no cover - compiled
    """Of ``nodes[start:stop]``, the state the other store holds too with the fewest pushes on
    both sides together (``g`` + the other's ``g``; the first of them on ties): (its id, the
    other store's id, those pushes), or (-1, -1, -1)."""
    best, best_other, best_pushes = -1, -1, -1
    for node in range(start, stop):
        slot = find_slot(
            other_nodes, other_table, nodes.hash[node], nodes.boxes[node], nodes.player[node]
        )
        found = other_table[slot]
        if found != EMPTY:
            pushes = np.int64(nodes.g[node]) + np.int64(other_nodes.g[found])
            if best < 0 or pushes < best_pushes:
                best, best_other, best_pushes = node, found, pushes
    return best, best_other, best_pushes
