"""The push-level search kernel: one state per box configuration and player region.

A node is reached by a push; its key is the sorted boxes plus the normalized player cell
(smallest cell the player can reach), its ``actual`` cell the one the player stands on right
after the push (behind the box's new cell). ``g`` counts pushes, ``moves`` the real walking steps
plus pushes along the stored path (walks measured by breadth-first search).

Successors are the legal pushes (player can walk behind the box, the target is empty floor and
not a dead square), restricted to one PI-corral's barrier when one exists (``corrals``), minus
those that freeze a box off goal (``freeze``) and, with the matching heuristic, those that leave
no perfect box-goal matching. The frontier mode and the weights of ``g`` and ``h`` in the
priority make the algorithm: A*, weighted A*, greedy, breadth-first, or one depth-first
iteration of IDA* (``THRESHOLD``).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.search.heuristics import box_term
from evosoko.search.push_expansion import (
    NORM_STAMP,
    add_child,
    all_on_goals,
    begin_expansion,
    child_slot,
    clear_cells,
    expansion_context,
    in_corral,
    push_child,
)
from evosoko.search.store import (
    AT_EXPANSION,
    AT_GENERATION,
    CHUNK,
    CONTINUE,
    DUPLICATES,
    EMPTY,
    EXHAUSTED,
    EXPANDED,
    FRONT_SIZE,
    G_WEIGHT,
    GOAL_AT_GENERATION,
    H_WEIGHT,
    HEAP,
    HEURISTIC,
    LIFO,
    MIN_EXCEEDED,
    MODE,
    NEED_SPACE,
    NO_THRESHOLD,
    NODES,
    REOPEN,
    RESUME_AT,
    RESUME_NODE,
    SOLUTION,
    SOLVED,
    THRESHOLD,
    WORK,
    WORK_LIMIT,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.reach import normalized_player


@numba.njit(cache=True)
def push_root(
    tab, params, nodes, table, counters, scratch, boxes, player, work
):  # pragma: no cover - compiled
    """Store the start position as node 0; returns its heuristic value."""
    floor, deltas, push_distance = tab.floor, tab.deltas, tab.push_distance
    nearest_push, nearest_manhattan = tab.nearest_push, tab.nearest_manhattan
    zb, zp = tab.zobrist_box, tab.zobrist_player
    _, _, queue, norm_mark, occupied, _, _, stamps, _, _ = scratch
    for b in boxes:
        occupied[b] = True
    stamps[NORM_STAMP] += 1
    normalized = normalized_player(
        floor, occupied, deltas, player, norm_mark, stamps[NORM_STAMP], queue
    )
    for b in boxes:
        occupied[b] = False
    assignment = nodes[10][0]
    h = box_term(
        params[HEURISTIC], nearest_manhattan, nearest_push, push_distance, boxes, assignment, work
    )
    key_hash = zp[normalized]
    for b in boxes:
        key_hash ^= zb[b]
    slot = find_slot(nodes, table, key_hash, boxes, normalized)
    node = add_node(
        nodes, table, counters, slot, boxes, normalized, player, -1, 0, 0, 0, h, key_hash
    )
    frontier_key = priority(0, h, 0, params[G_WEIGHT], params[H_WEIGHT])
    return node, h, frontier_key


@numba.njit(cache=True)
def push_search(
    tab, room_tab, params, nodes, table, frontier, counters, scratch, work
):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes; returns CONTINUE, SOLVED, EXHAUSTED or NEED_SPACE.

    ``room_tab`` holds the goal room of :mod:`evosoko.search.goalroom` (used when
    ``params[GOAL_MACROS]``): room mask, (entrance, inward direction), packing goals, pushes
    of each macro and the player's cell after it.
    """
    goals, deltas = tab.goals, tab.deltas
    node_boxes, _, actual, parent, step, g_of, moves_of, h_of, _, closed, _ = nodes
    _, distance, _, _, occupied, _, _, _, _, pending_lists = scratch
    pending_ids, pending_keys, pending = pending_lists
    mode = params[MODE]
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    reopen = params[REOPEN] != 0
    threshold = params[THRESHOLD]
    goal_test = params[GOAL_AT_GENERATION]
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    frontier_capacity = frontier[0].shape[0]
    margin = 4 * box_count + 2
    candidate_ids = np.empty(4 * box_count, dtype=np.int64)  # local: no aliasing in the loop
    candidate_keys = np.empty(4 * box_count, dtype=np.int64)
    context, parent_boxes = expansion_context(
        tab, room_tab, scratch, nodes, table, counters, params, work
    )
    child = context[7]

    work_limit = params[WORK_LIMIT]
    spent = 0  # work units of this call; added to counters[WORK] on the way out
    successors_here = 0
    expanded_here = 0
    while expanded_here < params[CHUNK] and (expanded_here == 0 or spent < work_limit):
        if (
            counters[NODES] + margin >= capacity
            or counters[FRONT_SIZE] + margin >= frontier_capacity
        ):
            counters[WORK] += spent
            return NEED_SPACE
        first_successor = 0
        candidates = 0
        if counters[RESUME_NODE] >= 0:  # an expansion the last call left unfinished
            node = counters[RESUME_NODE]
            first_successor = counters[RESUME_AT]
            candidates = pending[0]
            candidate_ids[:candidates] = pending_ids[:candidates]
            candidate_keys[:candidates] = pending_keys[:candidates]
            counters[RESUME_NODE] = -1
        else:
            node = frontier_pop(frontier, counters, mode)
            if node < 0:
                counters[WORK] += spent
                return EXHAUSTED
            if closed[node]:
                continue
            closed[node] = 1
            counters[EXPANDED] += 1
            if goal_test != AT_GENERATION and all_on_goals(goals, node_boxes[node]):
                counters[SOLUTION] = node
                counters[WORK] += spent
                return SOLVED
        expanded_here += 1
        bound_h = h_of[node] if h_weight > 0 else 0

        reach, reached, restricted, packed = begin_expansion(context, node, parent_boxes)
        spent += box_count + reached

        for i in range(first_successor >> 2, box_count):
            b = parent_boxes[i]
            if restricted and not in_corral(context, b):
                continue
            for d in range(max(0, first_successor - 4 * i), 4):
                if spent >= work_limit and successors_here > 0:
                    counters[RESUME_NODE] = node  # go on from this successor next call
                    counters[RESUME_AT] = 4 * i + d
                    pending[0] = candidates
                    pending_ids[:candidates] = candidate_ids[:candidates]
                    pending_keys[:candidates] = candidate_keys[:candidates]
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return CONTINUE
                target, pushes, player_after, code, ok, h, normalized, units = push_child(
                    context, node, i, b, d, reach, packed, False
                )
                if target < 0:
                    continue
                successors_here += 1
                spent += units
                occupied[target] = False
                occupied[b] = True
                if not ok:
                    continue
                g = g_of[node] + pushes
                moves = moves_of[node] + distance[b - deltas[d]] + pushes
                if threshold != NO_THRESHOLD and g + h > threshold:
                    if counters[MIN_EXCEEDED] < 0 or g + h < counters[MIN_EXCEEDED]:
                        counters[MIN_EXCEEDED] = g + h
                    continue
                key_hash, slot = child_slot(context, node, b, target, normalized)
                other = table[slot]
                if other != EMPTY:
                    counters[DUPLICATES] += 1
                    better = g < g_of[other] and (reopen or not closed[other])
                    shorter = g == g_of[other] and moves < moves_of[other] and not closed[other]
                    if not (better or shorter):
                        continue
                    g_of[other] = g
                    moves_of[other] = moves
                    parent[other] = node
                    actual[other] = player_after
                    step[other] = code
                    if shorter and mode != HEAP:
                        continue
                    closed[other] = 0
                    candidate_ids[candidates] = other
                    candidate_keys[candidates] = priority(g, h, moves, g_weight, h_weight)
                    candidates += 1
                    continue
                new = add_child(
                    context, slot, normalized, player_after, node, code, g, moves, h, key_hash
                )
                if (
                    goal_test != AT_EXPANSION
                    and all_on_goals(goals, child)
                    and (goal_test == AT_GENERATION or g <= g_of[node] + bound_h)
                ):
                    counters[SOLUTION] = new
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return SOLVED
                candidate_ids[candidates] = new
                candidate_keys[candidates] = priority(g, h, moves, g_weight, h_weight)
                candidates += 1
        clear_cells(occupied, parent_boxes)
        _push_candidates(frontier, counters, mode, candidate_ids, candidate_keys, candidates)
    counters[WORK] += spent
    return CONTINUE


@numba.njit(cache=True)
def _push_candidates(frontier, counters, mode, ids, keys, count):  # pragma: no cover
    """Frontier insertion; on a stack the best candidate goes on top."""
    if mode == LIFO:
        order = np.argsort(keys[:count])
        for k in range(count - 1, -1, -1):
            frontier_push(frontier, counters, mode, keys[order[k]], ids[order[k]])
    else:
        for k in range(count):
            frontier_push(frontier, counters, mode, keys[k], ids[k])
