"""The packing macros of the feature-space search: from a node, push the nearest boxes
straight to the open goals of the first unfinished layer of the packing order (of each goal
area with ``goal_areas``; see ``PACK_MACROS`` in :mod:`evosoko.search.fess.space`), each as one
child."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.search.box_paths import LABEL_STAMP, PathBoard, box_path
from evosoko.search.fess.advisors import advised_key
from evosoko.search.fess.space import (
    ALTERNATE,
    PACK_MACROS,
    cell_features,
    cell_key,
    heap_insert,
    packing_walk,
    player_walk,
    state_cell,
)
from evosoko.search.heuristics import ChildRows, child_h, heuristic_tables
from evosoko.search.store import (
    DUPLICATES,
    EMPTY,
    FREEZE,
    G_WEIGHT,
    GENERATED,
    GOAL_MACRO_STEP,
    GOAL_MACROS,
    H_WEIGHT,
    HEAP,
    HEURISTIC,
    NodeFields,
    add_node,
    find_slot,
    frontier_push,
    priority,
)
from evosoko.sokoban.cell_sets import all_on_goals, copy_cells
from evosoko.sokoban.freeze import freeze_deadlock
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.patterns import pattern_lost
from evosoko.sokoban.reach import normalized_player
from evosoko.sokoban.successors import REACH_STAMP, moved_child

MACRO_CAP = 6
"""Most packing macros per expansion: with the 4 pushes per box, an expansion adds at most the
store's growth margin of nodes."""

PACK_MACRO_STEP = 1 << 29
"""A ``step`` of ``PACK_MACRO_STEP + d``: a packing macro whose last push went in direction
``d`` (the pushes are rebuilt by :func:`evosoko.search.box_paths.box_path_pushes`). Between the
tunnel macros' codes (``d + 4 * (pushes - 1)``, fewer pushes than the board has cells) and the
goal macros' (``GOAL_MACRO_STEP + k``)."""


@uncounted
def last_push(code):  # pragma: no cover - compiled
    """The step ``code`` as the deadlock tests after a push read it
    (:func:`evosoko.sokoban.corral_deadlock.lost_after_push`): a packing macro as its last push
    (direction ``d``: its box stands in front of the player, as after one push), any other step
    as it is."""
    if PACK_MACRO_STEP <= code < GOAL_MACRO_STEP:
        return code - PACK_MACRO_STEP
    return code


IN_ORDER = 1
"""A layer of :func:`layer_states` before the open one of its goal area (or of a full area)."""
OPEN = 2
"""The layer of :func:`layer_states` whose empty goals a packing macro fills."""


@uncounted
def layer_states(layer, goals_per_layer, area_ends, boxes, counts, states):  # pragma: no cover
    """Fill ``states`` (int8, one entry per layer), with boxes on ``boxes``: ``OPEN`` for the
    first layer with an empty goal of each goal area (one area: that layer alone), ``IN_ORDER``
    for the layers before it and those of a full area, 0 after it (goals filled there are out
    of plan); ``counts``: scratch, one entry per layer. Returns whether a layer is ``OPEN``."""
    packing_walk(layer, goals_per_layer, area_ends, boxes, counts)  # fills the counts
    layers = goals_per_layer.shape[0]
    for k in range(layers):
        states[k] = 0
    opened = False
    k = 0
    while k < layers:
        if counts[k] < goals_per_layer[k]:
            states[k] = OPEN
            opened = True
            k = area_ends[k]
        else:
            states[k] = IN_ORDER
            k += 1
    return opened


class ExpandedNode(NamedTuple):
    """The node whose packing macros are made: its id, its boxes (int64) and the rows its
    children are made in (:class:`evosoko.search.heuristics.ChildRows`)."""

    node: int
    boxes: np.ndarray
    child_rows: ChildRows


@uncounted
def packing_macros(
    tab, room_tab, params, store, scratch, work, fess, expanded
):  # pragma: no cover - compiled
    """Add the packing macros (see ``PACK_MACROS``) of the :class:`ExpandedNode` ``expanded``
    to the store and to ``fess`` (the search's features and space); returns a solved node or -1.
    A macro that freezes its box off goal or completes a deadlock pattern is left out; the corral
    tests read it as its last push when its state is expanded (:func:`last_push`).

    ``occupied`` (in ``scratch``) holds the parent's boxes and ``reach_mark`` its player region
    (``stamps[REACH_STAMP]``), as the expansion left them.
    """
    node, parent_boxes, child_rows = expanded.node, expanded.boxes, expanded.child_rows
    features, space = fess.features, fess.space
    nodes, table, frontier, counters = store.nodes, store.table, store.frontier, store.counters
    room = room_tab.room
    goal_macros = params[GOAL_MACROS] != 0 and room_tab.entrance >= 0
    reach = scratch.stamps[REACH_STAMP]
    child, child_assign, child_potential = (
        child_rows.boxes,
        child_rows.assign,
        child_rows.potential,
    )
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    push_distance = tab.push_distance
    zb, zp = tab.zobrist_box, tab.zobrist_player
    node_boxes, key_player, g_of, moves_of = nodes.boxes, nodes.player, nodes.g, nodes.moves
    hash_of, assign, potential = nodes.hash, nodes.assign, nodes.potential
    reach_mark, queue = scratch.reach_mark, scratch.queue
    occupied, freeze_scratch = scratch.occupied, scratch.freeze
    layer, goals_per_layer, counts = features.layer, features.goals_per_layer, features.counts
    goal_index, path_scratch = features.goal_index, features.box_path
    cell_inputs = cell_features(features)
    path_board = PathBoard(floor, dead, deltas, occupied)
    walk = (reach_mark, reach)
    space_state = space.state
    per_goal = space_state[PACK_MACROS]
    alternate = space_state[ALTERNATE]
    freeze = params[FREEZE] != 0
    patterns = features.corral.patterns
    learned = patterns.sizes.shape[0] > 0
    heuristic = heuristic_tables(tab, params[HEURISTIC])
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    box_count = parent_boxes.shape[0]
    with_assignment = assign.shape[1] == box_count
    states = features.states
    if not layer_states(layer, goals_per_layer, features.area_ends, parent_boxes, counts, states):
        return -1
    limit = path_scratch.seen.shape[0]
    since = path_scratch.stamps[LABEL_STAMP] + 1  # labels made before: other positions
    made = 0
    for goal in range(floor.shape[0]):
        if made >= MACRO_CAP:
            break
        if (
            layer[goal] < 0
            or states[layer[goal]] != OPEN
            or occupied[goal]
            or (goal_macros and room[goal])
        ):
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
                if layer[b] >= 0 and states[layer[b]] != 0:  # packed in order
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
            found, pushes = box_path(path_board, b, walk, goal, limit, path_scratch, since)
            if found < 0:
                continue
            player_after = found // 4
            occupied[b] = False
            occupied[goal] = True
            ok = not (
                freeze
                and freeze_deadlock(floor, dead, goals, occupied, deltas, goal, freeze_scratch)
            )
            if ok and learned:  # a deadlock pattern proven earlier in the search
                ok = not pattern_lost(patterns, occupied, player_after, goal)
            h = 0
            normalized = 0
            if ok:
                moved = moved_child(
                    node_boxes[node], assign[node], best, goal, child, child_assign, with_assignment
                )
                h, _ = child_h(
                    heuristic, nodes.h[node], potential[node], b, goal, moved, child_rows, work
                )
                ok = h < UNREACHABLE
            cell = 0
            if ok:
                region = player_walk(cell_inputs, queue)
                normalized = normalized_player(
                    floor, occupied, deltas, player_after, region.mark, region.stamp, queue
                )
                cell = state_cell(
                    cell_inputs, space_state, floor, occupied, deltas, child, queue, True
                )
            occupied[goal] = False
            occupied[b] = True
            if not ok:
                continue
            key_hash = hash_of[node] ^ zb[b] ^ zb[goal] ^ zp[key_player[node]] ^ zp[normalized]
            slot = find_slot(nodes, table, key_hash, child, normalized)
            if table[slot] != EMPTY:
                counters[DUPLICATES] += 1
                continue
            g = g_of[node] + pushes
            moves = moves_of[node] + 2 * pushes
            new = add_node(
                nodes,
                table,
                counters,
                slot,
                child,
                NodeFields(
                    normalized,
                    player_after,
                    node,
                    PACK_MACRO_STEP + found % 4,
                    g,
                    moves,
                    h,
                    key_hash,
                ),
            )
            if with_assignment:
                copy_cells(assign[new], child_assign)
                copy_cells(potential[new], child_potential)
            counters[GENERATED] += 1
            made += 1
            if all_on_goals(goals, child):
                return new
            node_key = priority(g, h, moves, g_weight, h_weight)
            in_cell = advised_key(
                space, node, -1, new, cell, cell_key(space, g, h, moves, node_key)
            )
            heap_insert(space, cell, new, in_cell)
            if alternate > 0:
                frontier_push(frontier, counters, HEAP, node_key, new)
    return -1
