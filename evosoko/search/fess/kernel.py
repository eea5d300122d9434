"""The feature-space search kernel: push-level states spread over cells of a feature space.

In the spirit of FESS (Shoham and Schaeffer 2020): every stored state is projected onto a
cell of a small feature space, here *packing* (boxes on goals filled in the retrograde
packing order, :mod:`evosoko.search.packing_order`) times *out-of-plan* (goals filled too
early) times *room connectivity* (links between rooms that boxes cut, :mod:`evosoko.sokoban.rooms`)
times *connectivity* (the number of separate regions of free floor: 1 when the player
can walk everywhere). The search does not
follow one priority queue; it cycles through the non-empty cells and expands, in each, the
state with the best key (``g * g_weight + h * h_weight`` on the matching heuristic). States
that made progress of either kind are a small cell among many, and still get one expansion
per cycle: the search pursues many kinds of partial plans at once instead of the few that
one heuristic likes.

The cells, their heaps and the features are in :mod:`evosoko.search.fess.space`. Successors are
those of :mod:`evosoko.search.push_kernel` (dead squares, freeze, PI-corrals, dead-end
tunnel macros and the goal-room macro); the key and path bookkeeping are the same too, so
:func:`evosoko.search.paths.push_path` rebuilds solutions unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.search.box_paths import BoxPathScratch, box_path, make_box_path_scratch
from evosoko.search.fess.space import (
    ALTERNATE,
    CORRIDOR_MACROS,
    PACK_MACROS,
    TURN,
    Hotspots,
    RoomLinks,
    cell_features,
    cell_key,
    heap_insert,
    heap_pop,
    next_cell,
    no_hotspots,
    state_cell,
)
from evosoko.search.push_kernel import (
    NORM_STAMP,
    REACH_STAMP,
    ChildRows,
    _child_h,
    _deepest_goal_ahead,
    _moved,
    _packed_prefix,
    heuristic_tables,
)
from evosoko.search.store import (
    CHUNK,
    CONTINUE,
    CORRALS,
    DUPLICATES,
    EMPTY,
    EXHAUSTED,
    EXPANDED,
    FREEZE,
    FRONT_SIZE,
    G_WEIGHT,
    GENERATED,
    GOAL_MACRO_STEP,
    GOAL_MACROS,
    H_WEIGHT,
    HEAP,
    HEURISTIC,
    NEED_SPACE,
    NODES,
    RESUME_AT,
    RESUME_NODE,
    SOLUTION,
    SOLVED,
    TUNNELS,
    WORK,
    WORK_LIMIT,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.cell_sets import all_on_goals, clear_cells
from evosoko.sokoban.corral_deadlock import (
    CorralSearch,
    cluster_lost_after_push,
    deadlock_board,
    lost_after_push,
    make_corral_scratch,
)
from evosoko.sokoban.corrals import ALLOWED_MARK, pi_corral
from evosoko.sokoban.freeze import freeze_deadlock
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.reach import explore, normalized_after_push, normalized_player

MACRO_CAP = 6
"""Most packing macros per expansion: with the 4 pushes per box, an expansion adds at most the
store's growth margin of nodes."""

PACK_MACRO_STEP = 1 << 29
"""A ``step`` of ``PACK_MACRO_STEP + d``: a packing macro whose last push went in direction
``d`` (the pushes are rebuilt by :func:`evosoko.search.box_paths.box_path_pushes`). Between the
tunnel macros' codes (``d + 4 * (pushes - 1)``, fewer pushes than the board has cells) and the
goal macros' (``GOAL_MACRO_STEP + k``)."""


class Features(NamedTuple):
    """What the feature-space kernels read and write to put a state in its cell, and the
    scratch of their macros and deadlock tests (:func:`make_features`)."""

    layer: np.ndarray
    """int64[cells]: the packing layer of each goal (-1 off goals)."""
    goals_per_layer: np.ndarray
    """int64[layers]: how many goals each layer has."""
    counts: np.ndarray
    """int64[layers or 1]: scratch, boxes on the goals of each layer."""
    stamp: np.ndarray
    """int64[1]: the running stamp of ``mark``."""
    mark: np.ndarray
    """int64[cells]: the regions of free floor counted by the connectivity feature."""
    goal_index: np.ndarray
    """int64[cells]: the row of each goal in the push-distance table (-1 off goals)."""
    box_path: BoxPathScratch
    """Scratch of the packing macros' box paths."""
    corral: CorralSearch
    """Scratch and bounds of the corral and cluster deadlock tests (no positions: none)."""
    links: RoomLinks
    """The room links (all -1: none)."""
    hotspots: Hotspots
    """Which boxes hinder which (no table: none)."""


def make_features(
    order,
    cells: int,
    goal_cells=None,
    corral_limit: int = 0,
    link=None,
    ends=None,
    cluster_cache: int = 0,
    cluster_limit: int | None = None,
    cluster_width: int | None = None,
    hotspots: Hotspots | None = None,
) -> Features:
    """The :class:`Features` of a level with packing ``order``; corral deadlock searches of up to
    ``corral_limit`` positions (0: none), with cluster deadlock tests as well when
    ``cluster_cache`` > 0 (the slots of their cache), of up to ``cluster_limit`` positions
    (None: ``corral_limit``) that give up when more than ``cluster_width`` positions wait (None:
    never); ``link``, ``ends``: see
    :func:`evosoko.sokoban.rooms.room_links` (None: no links; no ends: every blocked link
    counts, see :func:`evosoko.sokoban.rooms.blocked_links`); ``hotspots``: see
    :func:`evosoko.search.fess.space.hotspot_table` (None: none)."""
    layer = order.layer.astype(np.int64)
    goals_per_layer = order.goals_per_layer
    goal_index = np.full(cells, -1, dtype=np.int64)
    if goal_cells is not None:
        goal_index[np.asarray(goal_cells, dtype=np.int64)] = np.arange(len(goal_cells))
    link = np.full(cells, -1, dtype=np.int64) if link is None else np.asarray(link, np.int64)
    ends = np.zeros((0, 2), dtype=np.int64) if ends is None else np.asarray(ends, np.int64)
    return Features(
        layer=layer,
        goals_per_layer=goals_per_layer,
        counts=np.zeros(max(1, order.layers), dtype=np.int64),
        stamp=np.zeros(1, dtype=np.int64),
        mark=np.zeros(cells, dtype=np.int64),
        goal_index=goal_index,
        box_path=make_box_path_scratch(cells),
        corral=make_corral_scratch(
            cells, corral_limit, cluster_cache, cluster_limit, cluster_width
        ),
        links=RoomLinks(link, np.zeros(max(1, int(link.max()) + 1), dtype=np.int64), ends),
        hotspots=no_hotspots(cells) if hotspots is None else hotspots,
    )


def fess_root(features, space, floor, deltas, boxes, h, g_weight, h_weight) -> None:
    """Put the root (node 0, the start with ``boxes``) into the heap of its cell."""
    boxes = np.asarray(boxes, dtype=np.int64)
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    occupied[boxes] = True
    queue = np.zeros(floor.shape[0], dtype=np.int64)
    cell = state_cell(features, space.state, floor, occupied, deltas, boxes, queue)
    heap_insert(space, cell, 0, priority(0, h, 0, g_weight, h_weight))


@numba.njit(cache=True)
def fess_search(
    tab, room_tab, features, params, store, space, scratch, work
):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes of ``store``
    (:class:`evosoko.search.store.StoreArrays`), one per visited cell; returns CONTINUE,
    SOLVED, EXHAUSTED or NEED_SPACE.

    ``features``: see :func:`make_features`.
    """
    nodes, table, frontier, counters = store.nodes, store.table, store.frontier, store.counters
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    zb, zp, dead_end_tunnel = tab.zobrist_box, tab.zobrist_player, tab.dead_end_tunnel
    node_boxes, key_player, actual, parent = nodes.boxes, nodes.player, nodes.actual, nodes.parent
    step, g_of, moves_of, h_of = nodes.step, nodes.g, nodes.moves, nodes.h
    hash_of, closed, assign, potential = nodes.hash, nodes.closed, nodes.assign, nodes.potential
    reach_mark, distance, queue = scratch.reach_mark, scratch.distance, scratch.queue
    norm_mark, occupied, stamps = scratch.norm_mark, scratch.occupied, scratch.stamps
    corral_scratch, corral_marks, freeze_scratch = (
        scratch.corral,
        scratch.corral_marks,
        scratch.freeze,
    )
    corral_search = features.corral
    board = deadlock_board(tab)
    cell_inputs = cell_features(features)
    corral_deadlocks = corral_search.players.shape[0] > 0
    cluster_deadlocks = corral_deadlocks and corral_search.cache_info.shape[0] > 0
    space_state = space.state
    alternate = space_state[ALTERNATE]
    pack_macros = space_state[PACK_MACROS] > 0
    corridor_macros = space_state[CORRIDOR_MACROS] > 0
    heuristic = heuristic_tables(tab, params[HEURISTIC])
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    freeze = params[FREEZE] != 0
    corrals = params[CORRALS] != 0
    tunnels = params[TUNNELS] != 0
    room, entrance, inward = room_tab.room, room_tab.entrance, room_tab.inward
    pack_goal, pack_pushes, pack_player = room_tab.goal, room_tab.pushes, room_tab.player_end
    goal_macros = params[GOAL_MACROS] != 0 and entrance >= 0
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    margin = 4 * box_count + 2 + MACRO_CAP
    child = np.empty(box_count, dtype=node_boxes.dtype)  # int16 or int32: the store's cells
    child_assign = np.empty(box_count, dtype=assign.dtype)
    child_potential = np.empty(box_count, dtype=potential.dtype)
    child_rows = ChildRows(child, child_assign, child_potential)
    parent_boxes = np.empty(box_count, dtype=np.int64)
    with_assignment = assign.shape[1] == box_count

    work_limit = params[WORK_LIMIT]  # as in push_search: a call may stop inside an expansion
    spent = 0
    matching_update_work = box_count * box_count
    successors_here = 0
    expanded_here = 0
    while expanded_here < params[CHUNK] and (expanded_here == 0 or spent < work_limit):
        if (
            counters[NODES] + margin >= capacity
            or space.key.shape[0] < capacity
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

        for k in range(box_count):
            parent_boxes[k] = node_boxes[node, k]
            occupied[parent_boxes[k]] = True
        stamps[REACH_STAMP] += 1
        reach = stamps[REACH_STAMP]
        reached, _ = explore(
            floor, occupied, deltas, actual[node], reach_mark, reach, queue, distance
        )
        spent += box_count + reached
        restricted = False
        if corrals:
            restricted = (
                pi_corral(
                    floor,
                    dead,
                    goals,
                    deltas,
                    occupied,
                    parent_boxes,
                    reach_mark,
                    reach,
                    corral_scratch,
                    corral_marks,
                )
                >= 0
            )
        if (corral_deadlocks and first_successor == 0 and parent[node] >= 0) and lost_after_push(
            board, occupied, reach_mark, reach, actual[node], step[node], corral_search
        ):
            clear_cells(occupied, parent_boxes)
            continue  # a corral next to the box pushed last is lost (corral_deadlock.py)
        if (
            cluster_deadlocks and first_successor == 0 and parent[node] >= 0
        ) and cluster_lost_after_push(board, occupied, actual[node], step[node], corral_search):
            clear_cells(occupied, parent_boxes)
            continue  # the boxes touching the box pushed last cannot reach goals on their own
        allowed = corral_scratch.allowed
        allowed_stamp = corral_marks[ALLOWED_MARK]
        packed = _packed_prefix(room, pack_goal, occupied, parent_boxes) if goal_macros else -1

        for i in range(first_successor >> 2, box_count):
            b = parent_boxes[i]
            if restricted and allowed[b] != allowed_stamp:
                continue
            for d in range(4):
                if 4 * i + d < first_successor:
                    continue
                if spent >= work_limit and successors_here > 0:
                    counters[RESUME_NODE] = node  # go on from this successor next call
                    counters[RESUME_AT] = 4 * i + d
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return CONTINUE
                behind = b - deltas[d]
                if reach_mark[behind] != reach:
                    continue
                target = b + deltas[d]
                if not floor[target] or occupied[target] or dead[target]:
                    continue
                pushes = 1
                if tunnels and dead_end_tunnel[d, target]:
                    extra = _deepest_goal_ahead(floor, goals, occupied, deltas[d], target)
                    if extra < 0:
                        continue
                    target += extra * deltas[d]
                    pushes += extra
                elif corridor_macros:
                    extra = _through_corridor(floor, dead, goals, occupied, deltas, d, b, target)
                    target += extra * deltas[d]
                    pushes += extra
                player_after = target - deltas[d]
                code = d + 4 * (pushes - 1)
                if goal_macros:
                    if room[b] or room[target]:
                        continue
                    if target == entrance and d == inward and 0 <= packed < pack_goal.shape[0]:
                        target = pack_goal[packed]
                        pushes = 1 + pack_pushes[packed]
                        player_after = pack_player[packed]
                        code = GOAL_MACRO_STEP + packed
                occupied[b] = False
                occupied[target] = True
                successors_here += 1
                spent += box_count
                ok = not (
                    freeze
                    and freeze_deadlock(
                        floor, dead, goals, occupied, deltas, target, freeze_scratch
                    )
                )
                normalized = 0
                child_cell = 0
                moved = 0
                if ok:
                    moved = _moved(
                        node_boxes[node],
                        assign[node],
                        i,
                        target,
                        child,
                        child_assign,
                        with_assignment,
                    )
                    stamps[NORM_STAMP] += 1
                    if pushes == 1 and code < GOAL_MACRO_STEP:
                        normalized = normalized_after_push(
                            floor,
                            occupied,
                            deltas,
                            reach_mark,
                            reach,
                            key_player[node],
                            b,
                            target,
                            d,
                            norm_mark,
                            stamps[NORM_STAMP],
                            queue,
                        )
                    else:
                        normalized = normalized_player(
                            floor,
                            occupied,
                            deltas,
                            player_after,
                            norm_mark,
                            stamps[NORM_STAMP],
                            queue,
                        )
                g = g_of[node] + pushes
                moves = moves_of[node] + distance[behind] + pushes
                key_hash = np.uint64(0)
                slot = 0
                h = 0
                if ok:
                    key_hash = (
                        hash_of[node] ^ zb[b] ^ zb[target] ^ zp[key_player[node]] ^ zp[normalized]
                    )
                    slot = find_slot(nodes, table, key_hash, child, normalized)
                    other = table[slot]
                    if other != EMPTY:  # stored: its h is the child's (h depends on boxes only)
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
                                    priority(g, h_of[other], moves, g_weight, h_weight),
                                    other,
                                )
                        ok = False
                if ok:  # a new state: match its boxes (from the parent's matching)
                    h, full = _child_h(
                        heuristic, h_of[node], potential[node], b, target, moved, child_rows, work
                    )
                    if full:
                        spent += matching_update_work
                    ok = h < UNREACHABLE
                if ok:
                    child_cell = state_cell(
                        cell_inputs, space_state, floor, occupied, deltas, child, queue
                    )
                occupied[target] = False
                occupied[b] = True
                if not ok:
                    continue
                new = add_node(
                    nodes,
                    table,
                    counters,
                    slot,
                    child,
                    normalized,
                    player_after,
                    node,
                    code,
                    g,
                    moves,
                    h,
                    key_hash,
                )
                if with_assignment:
                    assign[new, :] = child_assign
                    potential[new, :] = child_potential
                counters[GENERATED] += 1
                if all_on_goals(goals, child):
                    counters[SOLUTION] = new
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return SOLVED
                node_key = priority(g, h, moves, g_weight, h_weight)
                heap_insert(space, child_cell, new, cell_key(space, g, h, moves, node_key))
                if alternate > 0:
                    frontier_push(frontier, counters, HEAP, node_key, new)
        if pack_macros:
            solved_node = _packing_macros(
                tab,
                room_tab,
                features,
                params,
                store,
                space,
                scratch,
                work,
                node,
                parent_boxes,
                child_rows,
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
def _through_corridor(floor, dead, goals, occupied, deltas, d, source, target):  # pragma: no cover
    """Further pushes in direction ``d`` that carry a box just pushed from ``source`` to
    ``target`` through a one-wide corridor: while the box and the player behind it both have
    walls on either side across ``d``, the box is off goal and the next cell is free and not
    dead, nothing but pushing on can use the box's place, so the macro does it at once. Not
    complete (a box may have to wait inside a corridor), so only ``push-fess`` uses it, and
    a search that exhausts its space with it runs again without it."""
    across = 2 if d < 2 else 0
    extra = 0
    behind = source
    cell = target
    while True:
        if goals[cell]:
            return extra
        for k in range(across, across + 2):
            if floor[cell + deltas[k]] or floor[behind + deltas[k]]:
                return extra
        after = cell + deltas[d]
        if not floor[after] or occupied[after] or dead[after]:
            return extra
        behind = cell
        cell = after
        extra += 1


@numba.njit(cache=True)
def _packing_macros(
    tab, room_tab, features, params, store, space, scratch, work, node, parent_boxes, child_rows
):  # pragma: no cover - compiled
    """Add the packing macros of ``node`` (see ``PACK_MACROS``) with the boxes
    ``parent_boxes`` (int64), made in ``child_rows``; returns a solved node or -1.

    ``occupied`` (in ``scratch``) holds the parent's boxes and ``reach_mark`` its player region
    (``stamps[REACH_STAMP]``), as the expansion left them.
    """
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
    reach_mark, queue, norm_mark = scratch.reach_mark, scratch.queue, scratch.norm_mark
    occupied, stamps, freeze_scratch = scratch.occupied, scratch.stamps, scratch.freeze
    layer, goals_per_layer, counts = features.layer, features.goals_per_layer, features.counts
    goal_index, path_scratch = features.goal_index, features.box_path
    cell_inputs = cell_features(features)
    space_state = space.state
    per_goal = space_state[PACK_MACROS]
    alternate = space_state[ALTERNATE]
    freeze = params[FREEZE] != 0
    heuristic = heuristic_tables(tab, params[HEURISTIC])
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    box_count = parent_boxes.shape[0]
    with_assignment = assign.shape[1] == box_count
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
    limit = path_scratch.seen.shape[0]
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
            occupied[b] = False
            occupied[goal] = True
            ok = not (
                freeze
                and freeze_deadlock(floor, dead, goals, occupied, deltas, goal, freeze_scratch)
            )
            h = 0
            normalized = 0
            if ok:
                moved = _moved(
                    node_boxes[node], assign[node], best, goal, child, child_assign, with_assignment
                )
                h, _ = _child_h(
                    heuristic, nodes.h[node], potential[node], b, goal, moved, child_rows, work
                )
                ok = h < UNREACHABLE
            cell = 0
            if ok:
                stamps[NORM_STAMP] += 1
                normalized = normalized_player(
                    floor, occupied, deltas, player_after, norm_mark, stamps[NORM_STAMP], queue
                )
                cell = state_cell(cell_inputs, space_state, floor, occupied, deltas, child, queue)
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
                normalized,
                player_after,
                node,
                PACK_MACRO_STEP + found % 4,
                g,
                moves,
                h,
                key_hash,
            )
            if with_assignment:
                assign[new, :] = child_assign
                potential[new, :] = child_potential
            counters[GENERATED] += 1
            made += 1
            if all_on_goals(goals, child):
                return new
            node_key = priority(g, h, moves, g_weight, h_weight)
            heap_insert(space, cell, new, cell_key(space, g, h, moves, node_key))
            if alternate > 0:
                frontier_push(frontier, counters, HEAP, node_key, new)
    return -1
