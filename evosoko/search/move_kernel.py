"""The move-level search kernel: one state per player cell and box configuration.

This is the search students write: each step moves the player one cell (pushing a box when
one is in the way); ``g`` counts moves. The only pruning is dead squares. The frontier mode,
the weights of ``g`` and ``h`` and the successor shuffle make the algorithm: breadth-first,
depth-first, random successor order, A* or greedy.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.search.heuristics import MATCHING, box_term, player_term
from evosoko.search.store import (
    AT_GENERATION,
    CHUNK,
    CONTINUE,
    DUPLICATES,
    EMPTY,
    EXHAUSTED,
    EXPANDED,
    FRONT_SIZE,
    G_WEIGHT,
    GENERATED,
    GOAL_AT_GENERATION,
    H_WEIGHT,
    HEAP,
    HEURISTIC,
    LIFO,
    MODE,
    NEED_SPACE,
    NODES,
    REOPEN,
    SHUFFLE,
    SOLUTION,
    SOLVED,
    WORK,
    WORK_LIMIT,
    NodeFields,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.cell_sets import all_on_goals, box_blocked, clear_cells
from evosoko.sokoban.level import UNREACHABLE

PUSHED = 4
"""Added to a node's ``step`` when that step pushed a box."""


class MoveScratch(NamedTuple):
    """Per-search scratch of the move kernel."""

    occupied: np.ndarray
    """bool[cells]: the boxes of the node expanded (all False between expansions)."""
    assignment: np.ndarray
    """int32[boxes]: the matching's assignment."""
    directions: np.ndarray
    """int64[4]: the successor order (``random`` shuffles it on from one expansion to the
    next, across kernel calls, so that where a call ends does not change the search)."""


def make_scratch(cells: int, box_count: int) -> MoveScratch:
    """A :class:`MoveScratch` for a level of ``cells`` cells and ``box_count`` boxes."""
    return MoveScratch(
        occupied=np.zeros(cells, dtype=np.bool_),
        assignment=np.zeros(box_count, dtype=np.int32),
        directions=np.arange(4, dtype=np.int64),
    )


@numba.njit(cache=True)
def seed_random(seed):  # pragma: no cover - compiled
    """Seed numba's generator used for the random successor order."""
    np.random.seed(seed)


@numba.njit(cache=True)
def move_root(tab, params, store, boxes, player, work):  # pragma: no cover - compiled
    """Store the start position as node 0 of ``store``
    (:class:`evosoko.search.store.StoreArrays`); returns ``(node, h, frontier key)``."""
    nodes, table, counters = store.nodes, store.table, store.counters
    goals, rows, columns = tab.goals, tab.rows, tab.columns
    push_distance, nearest_push, nearest_manhattan = (
        tab.push_distance,
        tab.nearest_push,
        tab.nearest_manhattan,
    )
    zb, zp = tab.zobrist_box, tab.zobrist_player
    kind = params[HEURISTIC]
    assignment = np.zeros(boxes.shape[0], dtype=np.int32)
    h = box_term(kind, nearest_manhattan, nearest_push, push_distance, boxes, assignment, work)
    h += player_term(kind, rows, columns, goals, boxes, player)
    key_hash = zp[player]
    for b in boxes:
        key_hash ^= zb[b]
    slot = find_slot(nodes, table, key_hash, boxes, player)
    node = add_node(
        nodes, table, counters, slot, boxes, NodeFields(player, player, -1, 0, 0, 0, h, key_hash)
    )
    return node, h, priority(0, h, 0, params[G_WEIGHT], params[H_WEIGHT])


@numba.njit(cache=True)
def move_search(tab, params, store, scratch, work):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes of ``store``
    (:class:`evosoko.search.store.StoreArrays`); returns CONTINUE, SOLVED, EXHAUSTED or
    NEED_SPACE."""
    nodes, table, frontier, counters = store.nodes, store.table, store.frontier, store.counters
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    rows, columns = tab.rows, tab.columns
    push_distance, nearest_push, nearest_manhattan = (
        tab.push_distance,
        tab.nearest_push,
        tab.nearest_manhattan,
    )
    zb, zp = tab.zobrist_box, tab.zobrist_player
    node_boxes, key_player, parent, step = nodes.boxes, nodes.player, nodes.parent, nodes.step
    g_of, moves_of, h_of, hash_of, closed = nodes.g, nodes.moves, nodes.h, nodes.hash, nodes.closed
    occupied, assignment, directions = scratch.occupied, scratch.assignment, scratch.directions
    mode = params[MODE]
    kind = params[HEURISTIC]
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    reopen = params[REOPEN] != 0
    shuffle = params[SHUFFLE] != 0
    at_generation = params[GOAL_AT_GENERATION] == AT_GENERATION
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    child = np.empty(box_count, dtype=node_boxes.dtype)
    candidate_ids = np.empty(4, dtype=np.int64)
    candidate_keys = np.empty(4, dtype=np.int64)

    full_matching = box_count * box_count * box_count if kind == MATCHING else box_count
    work_limit = counters[WORK] + params[WORK_LIMIT]
    expanded_here = 0
    while expanded_here < params[CHUNK] and (expanded_here == 0 or counters[WORK] < work_limit):
        if counters[NODES] + 8 >= capacity or counters[FRONT_SIZE] + 8 >= frontier[0].shape[0]:
            return NEED_SPACE
        node = frontier_pop(frontier, counters, mode)
        if node < 0:
            return EXHAUSTED
        if closed[node]:
            continue
        closed[node] = 1
        counters[EXPANDED] += 1
        counters[WORK] += 4 + box_count
        expanded_here += 1
        boxes = node_boxes[node]
        if not at_generation and all_on_goals(goals, boxes):
            counters[SOLUTION] = node
            return SOLVED
        player = key_player[node]
        for b in boxes:
            occupied[b] = True
        box_part = h_of[node] - player_term(kind, rows, columns, goals, boxes, player)
        if shuffle:
            np.random.shuffle(directions)
        candidates = 0
        for d in directions:
            target = player + deltas[d]
            if not floor[target]:
                continue
            pushed = occupied[target]
            child[:] = boxes
            key_hash = hash_of[node] ^ zp[player] ^ zp[target]
            child_box_part = box_part
            if pushed:
                beyond = target + deltas[d]
                if box_blocked(floor, occupied, dead, beyond):
                    continue
                _replace_sorted(child, target, beyond)
                key_hash ^= zb[target] ^ zb[beyond]
                counters[WORK] += full_matching
                child_box_part = box_term(
                    kind, nearest_manhattan, nearest_push, push_distance, child, assignment, work
                )
                if kind == MATCHING and child_box_part >= UNREACHABLE:
                    continue
            h = child_box_part + player_term(kind, rows, columns, goals, child, target)
            g = g_of[node] + 1
            slot = find_slot(nodes, table, key_hash, child, target)
            other = table[slot]
            if other != EMPTY:
                counters[DUPLICATES] += 1
                if g >= g_of[other] or not (reopen or not closed[other]):
                    continue
                g_of[other] = g
                moves_of[other] = g
                parent[other] = node
                step[other] = d + (4 if pushed else 0)
                closed[other] = 0
                candidate_ids[candidates] = other
            else:
                new = add_node(
                    nodes,
                    table,
                    counters,
                    slot,
                    child,
                    NodeFields(target, target, node, d + (4 if pushed else 0), g, g, h, key_hash),
                )
                counters[GENERATED] += 1
                if at_generation and all_on_goals(goals, child):
                    counters[SOLUTION] = new
                    clear_cells(occupied, boxes)
                    return SOLVED
                candidate_ids[candidates] = new
            if mode == HEAP:
                candidate_keys[candidates] = priority(g, h, g, g_weight, h_weight)
            else:
                candidate_keys[candidates] = candidates
            candidates += 1
        clear_cells(occupied, boxes)
        if mode == LIFO:
            for k in range(candidates - 1, -1, -1):
                frontier_push(frontier, counters, mode, candidate_keys[k], candidate_ids[k])
        else:
            for k in range(candidates):
                frontier_push(frontier, counters, mode, candidate_keys[k], candidate_ids[k])
    return CONTINUE


@numba.njit(cache=True)
def _replace_sorted(boxes, source, target):  # pragma: no cover - compiled
    """Move the box on ``source`` to ``target`` in the sorted array ``boxes``."""
    count = boxes.shape[0]
    index = 0
    while boxes[index] != source:
        index += 1
    boxes[index] = target
    while index > 0 and boxes[index - 1] > boxes[index]:
        boxes[index - 1], boxes[index] = boxes[index], boxes[index - 1]
        index -= 1
    while index < count - 1 and boxes[index + 1] < boxes[index]:
        boxes[index + 1], boxes[index] = boxes[index], boxes[index + 1]
        index += 1
