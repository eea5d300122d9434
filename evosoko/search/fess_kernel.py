"""The feature-space search kernel: push-level states spread over cells of a feature space.

In the spirit of FESS (Shoham and Schaeffer 2020): every stored state is projected onto a
cell of a small feature space, here *packing* (boxes on goals filled in the retrograde
packing order, :mod:`evosoko.search.packing_order`) times *connectivity* (the number of
separate regions of free floor: 1 when the player can walk everywhere). The search does not
follow one priority queue; it cycles through the non-empty cells and expands, in each, the
state with the best key (``g * g_weight + h * h_weight`` on the matching heuristic). States
that made progress of either kind are a small cell among many, and still get one expansion
per cycle: the search pursues many kinds of partial plans at once instead of the few that
one heuristic likes.

The cells, their heaps and the features are in :mod:`evosoko.search.fess_space`. Successors are
those of :mod:`evosoko.search.push_kernel` (dead squares, freeze, PI-corrals, dead-end
tunnel macros and the goal-room macro); the key and path bookkeeping are the same too, so
:func:`evosoko.search.paths.push_path` rebuilds solutions unchanged.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.search.box_paths import box_path, make_box_path_scratch
from evosoko.search.fess_space import (
    ALTERNATE,
    CELL_G,
    CELL_H,
    CONNECTIVITY_CAP,
    CORRIDOR_MACROS,
    PACK_MACROS,
    TURN,
    cell_of,
    connectivity,
    heap_insert,
    heap_pop,
    next_cell,
    packing_feature,
)
from evosoko.search.push_expansion import (
    add_child,
    all_on_goals,
    begin_expansion,
    child_position,
    child_slot,
    clear_cells,
    expansion_context,
    goal_macros_on,
    in_corral,
    push_child,
)
from evosoko.search.store import (
    CHUNK,
    CONTINUE,
    DUPLICATES,
    EMPTY,
    EXHAUSTED,
    EXPANDED,
    FRONT_SIZE,
    G_WEIGHT,
    H_WEIGHT,
    HEAP,
    NEED_SPACE,
    NODES,
    RESUME_AT,
    RESUME_NODE,
    SOLUTION,
    SOLVED,
    WORK,
    WORK_LIMIT,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.level import UNREACHABLE

MACRO_CAP = 6
"""Most packing macros per expansion: with the 4 pushes per box, an expansion adds at most the
store's growth margin of nodes."""

PACK_MACRO_STEP = 1 << 29
"""A ``step`` of ``PACK_MACRO_STEP + d``: a packing macro whose last push went in direction
``d`` (the pushes are rebuilt by :func:`evosoko.search.box_paths.box_path_pushes`). Between the
tunnel macros' codes (``d + 4 * (pushes - 1)``, fewer pushes than the board has cells) and the
goal macros' (``GOAL_MACRO_STEP + k``)."""


def make_features(order, cells: int, goal_cells=None) -> tuple:
    """(goal layers, goals per layer, per-layer scratch, stamp, region mark, goal index of
    each cell (-1 off goals), box-path scratch) of the kernel."""
    layer = order.layer.astype(np.int64)
    goals_per_layer = np.bincount(layer[layer >= 0], minlength=order.layers).astype(np.int64)
    goal_index = np.full(cells, -1, dtype=np.int64)
    if goal_cells is not None:
        goal_index[np.asarray(goal_cells, dtype=np.int64)] = np.arange(len(goal_cells))
    return (
        layer,
        goals_per_layer,
        np.zeros(max(1, order.layers), dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        goal_index,
        make_box_path_scratch(cells),
    )


def fess_root(features, space, floor, deltas, boxes, h, g_weight, h_weight) -> None:
    """Put the root (node 0, the start with ``boxes``) into the heap of its cell."""
    layer, goals_per_layer, counts, stamp, mark, _, _ = features
    boxes = np.asarray(boxes, dtype=np.int64)
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    occupied[boxes] = True
    packing = packing_feature(layer, goals_per_layer, boxes, counts)
    stamp[0] += 1
    regions = connectivity(floor, occupied, deltas, mark, stamp[0], np.zeros_like(mark))
    cell = cell_of(packing, regions, space[5][CONNECTIVITY_CAP])
    heap_insert(space, cell, 0, priority(0, h, 0, g_weight, h_weight))


@numba.njit(cache=True)
def fess_search(
    tab, room_tab, features, params, nodes, table, space, frontier, counters, scratch, work
):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes, one per visited cell; returns CONTINUE, SOLVED,
    EXHAUSTED or NEED_SPACE.

    ``features``: see :func:`make_features`.
    """
    floor, goals, deltas = tab.floor, tab.goals, tab.deltas
    node_boxes, _, actual, parent, step, g_of, moves_of, _, _, closed, _ = nodes
    _, distance, queue, _, occupied, _, _, _, _, _ = scratch
    layer, goals_per_layer, layer_counts, feature_stamp, conn_mark, _, _ = features
    space_state = space[5]
    cap = space_state[CONNECTIVITY_CAP]
    alternate = space_state[ALTERNATE]
    pack_macros = space_state[PACK_MACROS] > 0
    corridor_macros = space_state[CORRIDOR_MACROS] > 0
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    margin = 4 * box_count + 2 + MACRO_CAP
    context, parent_boxes = expansion_context(
        tab, room_tab, scratch, nodes, table, counters, params, work
    )
    child = context[7]

    work_limit = params[WORK_LIMIT]  # as in push_search: a call may stop inside an expansion
    spent = 0
    successors_here = 0
    expanded_here = 0
    while expanded_here < params[CHUNK] and (expanded_here == 0 or spent < work_limit):
        if (
            counters[NODES] + margin >= capacity
            or space[0].shape[0] < capacity
            or counters[FRONT_SIZE] + margin >= frontier[0].shape[0]
        ):
            counters[WORK] += spent
            return NEED_SPACE
        first_successor = 0
        if counters[RESUME_NODE] >= 0:  # an expansion the last call left unfinished
            node = counters[RESUME_NODE]
            first_successor = counters[RESUME_AT]
            counters[RESUME_NODE] = -1
        else:
            space_state[TURN] += 1
            if alternate > 0 and space_state[TURN] % alternate == 0:
                node = frontier_pop(frontier, counters, HEAP)
            else:
                cell = next_cell(space)
                node = (
                    heap_pop(space, cell) if cell >= 0 else frontier_pop(frontier, counters, HEAP)
                )
            if node < 0:
                counters[WORK] += spent
                return EXHAUSTED
            if closed[node]:
                continue
            closed[node] = 1
            counters[EXPANDED] += 1
        expanded_here += 1

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
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return CONTINUE
                target, pushes, player_after, code, ok, h, normalized, units = push_child(
                    context, node, i, b, d, reach, packed, corridor_macros
                )
                if target < 0:
                    continue
                successors_here += 1
                spent += units
                child_cell = 0
                g = g_of[node] + pushes
                moves = moves_of[node] + distance[b - deltas[d]] + pushes
                key_hash = np.uint64(0)
                slot = 0
                if ok:
                    key_hash, slot = child_slot(context, node, b, target, normalized)
                    other = table[slot]
                    if other != EMPTY:
                        counters[DUPLICATES] += 1
                        if not closed[other] and (
                            g < g_of[other] or (g == g_of[other] and moves < moves_of[other])
                        ):
                            g_of[other] = g
                            moves_of[other] = moves
                            parent[other] = node
                            actual[other] = player_after
                            step[other] = code
                            if alternate > 0:  # the cell keeps its stale key; the frontier not
                                frontier_push(
                                    frontier,
                                    counters,
                                    HEAP,
                                    priority(g, h, moves, g_weight, h_weight),
                                    other,
                                )
                        ok = False
                if ok:
                    packing = packing_feature(layer, goals_per_layer, child, layer_counts)
                    feature_stamp[0] += 1
                    regions = connectivity(
                        floor, occupied, deltas, conn_mark, feature_stamp[0], queue
                    )
                    child_cell = cell_of(packing, regions, cap)
                occupied[target] = False
                occupied[b] = True
                if not ok:
                    continue
                new = add_child(
                    context, slot, normalized, player_after, node, code, g, moves, h, key_hash
                )
                if all_on_goals(goals, child):
                    counters[SOLUTION] = new
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return SOLVED
                node_key = priority(g, h, moves, g_weight, h_weight)
                heap_insert(space, child_cell, new, _cell_key(space_state, g, h, moves, node_key))
                if alternate > 0:
                    frontier_push(frontier, counters, HEAP, node_key, new)
        if pack_macros:
            solved_node = _packing_macros(
                context, features, space, frontier, counters, node, parent_boxes, reach
            )
            if solved_node >= 0:
                counters[SOLUTION] = solved_node
                clear_cells(occupied, parent_boxes)
                counters[WORK] += spent
                return SOLVED
        clear_cells(occupied, parent_boxes)
    counters[WORK] += spent
    return CONTINUE


@numba.njit(cache=True)
def _cell_key(space_state, g, h, moves, node_key):  # pragma: no cover - compiled
    """The key of a state in its cell's heap (``node_key`` unless ``CELL_G`` is set)."""
    if space_state[CELL_G] < 0:
        return node_key
    return priority(g, h, moves, space_state[CELL_G], space_state[CELL_H])


@numba.njit(cache=True)
def _packing_macros(
    context, features, space, frontier, counters, node, parent_boxes, reach
):  # pragma: no cover - compiled
    """Add the packing macros of ``node`` (see ``PACK_MACROS``); returns a solved node or -1.

    ``occupied`` (in ``scratch``) holds the parent's boxes and ``reach_mark == reach`` its
    player region, as the expansion left them. ``context``: see
    :mod:`evosoko.search.push_expansion`.
    """
    tab, room_tab, scratch, nodes, table, _, params, child, _, _ = context
    room = room_tab[0]
    goal_macros = goal_macros_on(context)
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    push_distance = tab.push_distance
    _, _, _, _, _, g_of, moves_of, _, _, _, _ = nodes
    reach_mark, _, queue, _, occupied, _, _, _, _, _ = scratch
    layer, goals_per_layer, counts, feature_stamp, conn_mark, goal_index, path_scratch = features
    space_state = space[5]
    cap = space_state[CONNECTIVITY_CAP]
    per_goal = space_state[PACK_MACROS]
    alternate = space_state[ALTERNATE]
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    box_count = parent_boxes.shape[0]
    layers = goals_per_layer.shape[0]
    for k in range(layers):
        counts[k] = 0
    for b in parent_boxes:
        if layer[b] >= 0:
            counts[layer[b]] += 1
    first_open = -1
    for k in range(layers):
        if counts[k] < goals_per_layer[k]:
            first_open = k
            break
    if first_open < 0:
        return -1
    limit = path_scratch[0].shape[0]
    made = 0
    for goal in range(floor.shape[0]):
        if made >= MACRO_CAP:
            break
        if layer[goal] != first_open or occupied[goal] or (goal_macros and room[goal]):
            continue
        row = goal_index[goal]
        tried = 0
        last_distance = -1
        while tried < per_goal and made < MACRO_CAP:
            # the next nearest box (by push distance, others ignored) not packed in order
            best = -1
            best_distance = UNREACHABLE
            for i in range(box_count):
                b = parent_boxes[i]
                if 0 <= layer[b] <= first_open:
                    continue
                distance = push_distance[row, b]
                if distance <= last_distance or distance >= best_distance:
                    continue
                best = i
                best_distance = distance
            if best < 0:
                break
            tried += 1
            last_distance = best_distance
            b = parent_boxes[best]
            found, pushes = box_path(
                floor, dead, occupied, deltas, b, reach_mark, reach, goal, limit, path_scratch
            )
            if found < 0:
                continue
            player_after = found // 4
            ok, h, _, normalized = child_position(
                context, node, best, b, 0, goal, pushes, player_after, False, reach
            )
            regions = 0
            if ok:
                feature_stamp[0] += 1
                regions = connectivity(floor, occupied, deltas, conn_mark, feature_stamp[0], queue)
            occupied[goal] = False
            occupied[b] = True
            if not ok:
                continue
            key_hash, slot = child_slot(context, node, b, goal, normalized)
            if table[slot] != EMPTY:
                counters[DUPLICATES] += 1
                continue
            g = g_of[node] + pushes
            moves = moves_of[node] + 2 * pushes
            new = add_child(
                context,
                slot,
                normalized,
                player_after,
                node,
                PACK_MACRO_STEP + found % 4,
                g,
                moves,
                h,
                key_hash,
            )
            made += 1
            if all_on_goals(goals, child):
                return new
            packing = packing_feature(layer, goals_per_layer, child, counts)
            node_key = priority(g, h, moves, g_weight, h_weight)
            cell_key = _cell_key(space_state, g, h, moves, node_key)
            heap_insert(space, cell_of(packing, regions, cap), new, cell_key)
            if alternate > 0:
                frontier_push(frontier, counters, HEAP, node_key, new)
    return -1
