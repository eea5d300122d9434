"""The expansion of a push-level node, written once for the push searches
(:mod:`evosoko.search.push_kernel`) and the feature-space search
(:mod:`evosoko.search.fess_kernel`).

An expansion stands the player in the node's position (:func:`begin_expansion`: its boxes in
``occupied``, its region and walking distances, the PI-corral that restricts its pushes and how
far the goal room is packed), then takes each push of each box in turn: :func:`push_successor`
says where the push ends with its macros (dead-end tunnels, ``push-fess``'s corridors, the goal
room's packing) and :func:`child_position` makes it (:func:`push_child` does both): the box moved in ``occupied``, the freeze
test, the child's sorted boxes and heuristic, and its normalized player cell. The searches
differ only in what they do with the child (their frontiers, duplicates and stop rules).

These take the search's ``context``, one tuple made at the start of a kernel call:
``(tab, room_tab, scratch, nodes, table, counters, params, child, child_assign, work)``: the
level's :class:`~evosoko.sokoban.arrays.LevelArrays`, the goal room of
:mod:`evosoko.search.goalroom`, the scratch arrays of :func:`make_scratch`, the store's nodes,
table and counters, the search's parameters, the child's boxes and goals being built, and the matching's work arrays.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.search.heuristics import MANHATTAN, MATCHING, PUSH_DISTANCE, box_term
from evosoko.search.store import (
    CORRALS,
    FREEZE,
    GENERATED,
    GOAL_MACRO_STEP,
    GOAL_MACROS,
    HEURISTIC,
    TUNNELS,
    add_node,
    find_slot,
)
from evosoko.sokoban.corrals import pi_corral
from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.reach import explore, normalized_after_push, normalized_player
from evosoko.sokoban.symbols import UNREACHABLE

REACH_STAMP, NORM_STAMP = 0, 1


def make_scratch(cells: int, box_count: int) -> tuple:
    """Per-search scratch arrays of the push kernel."""
    corral_scratch = tuple(np.zeros(cells, dtype=np.int64) for _ in range(7))
    return (
        np.zeros(cells, dtype=np.int64),  # reach mark
        np.zeros(cells, dtype=np.int64),  # walking distance
        np.zeros(cells, dtype=np.int64),  # queue
        np.zeros(cells, dtype=np.int64),  # normalization mark
        np.zeros(cells, dtype=np.bool_),  # occupied
        corral_scratch,
        np.zeros(4, dtype=np.int64),  # corral stamps
        np.zeros(2, dtype=np.int64),  # reach and normalization stamps
        make_freeze_scratch(cells),
        (  # successors of the expansion in progress, kept across calls until it ends
            np.zeros(4 * box_count, dtype=np.int64),  # node ids
            np.zeros(4 * box_count, dtype=np.int64),  # frontier keys
            np.zeros(1, dtype=np.int64),  # how many
        ),
    )


@numba.njit(cache=True)
def expansion_context(
    tab, room_tab, scratch, nodes, table, counters, params, work
):  # pragma: no cover - compiled
    """The ``context`` of one kernel call (see the module docstring), with the child's arrays
    made here, and the array that :func:`begin_expansion` fills with the parent's boxes."""
    node_boxes, assign = nodes[0], nodes[10]
    box_count = node_boxes.shape[1]
    child = np.empty(box_count, dtype=node_boxes.dtype)  # int16 or int32: the store's cells
    child_assign = np.empty(box_count, dtype=assign.dtype)
    context = (tab, room_tab, scratch, nodes, table, counters, params, child, child_assign, work)
    return context, np.empty(box_count, dtype=np.int64)


@numba.njit(cache=True)
def goal_macros_on(context):  # pragma: no cover - compiled
    """Whether the goal room's macros are on (``params[GOAL_MACROS]``, and the level has one)."""
    _, room_tab, _, _, _, _, params, _, _, _ = context
    return params[GOAL_MACROS] != 0 and room_tab[1][0] >= 0


@numba.njit(cache=True)
def begin_expansion(context, node, parent_boxes):  # pragma: no cover - compiled
    """Stand the player in ``node``'s position: its boxes copied to ``parent_boxes`` and marked
    in ``occupied``, its region marked in ``reach_mark`` with the walking distances.

    Returns ``(reach, reached, restricted, packed)``: the region's stamp, the cells in it,
    whether a PI-corral restricts the pushes (to the boxes :func:`in_corral` allows, when
    ``params[CORRALS]``) and how many goals of the room's packing order are filled (-1 without
    the goal room's macros or when the room holds others).
    """
    tab, room_tab, scratch, nodes, _, _, params, _, _, _ = context
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    reach_mark, distance, queue, _, occupied, corral_scratch, corral_marks, stamps, _, _ = scratch
    node_boxes, actual = nodes[0], nodes[2]
    for k in range(parent_boxes.shape[0]):
        parent_boxes[k] = node_boxes[node, k]
        occupied[parent_boxes[k]] = True
    stamps[REACH_STAMP] += 1
    reach = stamps[REACH_STAMP]
    reached, _ = explore(floor, occupied, deltas, actual[node], reach_mark, reach, queue, distance)
    restricted = False
    if params[CORRALS] != 0:
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
    room, _, pack_goal, _, _ = room_tab
    packed = -1
    if goal_macros_on(context):
        packed = packed_prefix(room, pack_goal, occupied, parent_boxes)
    return reach, reached, restricted, packed


@numba.njit(cache=True)
def in_corral(context, b):  # pragma: no cover - compiled
    """Whether the box on ``b`` is one of those the PI-corral that :func:`begin_expansion`
    found lets move (read only when that corral ``restricted`` the pushes)."""
    _, _, scratch, _, _, _, _, _, _, _ = context
    return scratch[5][5][b] == scratch[6][3]


@numba.njit(cache=True)
def push_successor(
    tab, room_tab, occupied, reach_mark, reach, b, d, tunnels, corridor_macros, goal_macros, packed
):  # pragma: no cover - compiled
    """The push of the box on ``b`` in direction ``d``, with its macros: ``(target, pushes,
    player_after, code)``, ``code`` the node's ``step``; ``target`` is -1 when there is no such
    push (the player cannot get behind the box, the target is blocked or dead, a dead-end
    tunnel holds no goal ahead, or the goal room takes only its macro)."""
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    behind = b - deltas[d]
    if reach_mark[behind] != reach:
        return -1, 0, 0, 0
    target = b + deltas[d]
    if not floor[target] or occupied[target] or dead[target]:
        return -1, 0, 0, 0
    pushes = 1
    if tunnels and tab.dead_end_tunnel[d, target]:
        extra = deepest_goal_ahead(floor, goals, occupied, deltas[d], target)
        if extra < 0:
            return -1, 0, 0, 0  # the box can only go deeper, and no goal lies there
        target += extra * deltas[d]
        pushes += extra
    elif corridor_macros:
        extra = through_corridor(floor, dead, goals, occupied, deltas, d, b, target)
        target += extra * deltas[d]
        pushes += extra
    player_after = target - deltas[d]
    code = d + 4 * (pushes - 1)
    if goal_macros:
        room, entrance_data, pack_goal, pack_pushes, pack_player = room_tab
        if room[b] or room[target]:
            return -1, 0, 0, 0  # packed boxes stay; only the macro enters the room
        if (
            target == entrance_data[0]
            and d == entrance_data[1]
            and 0 <= packed < pack_goal.shape[0]
        ):
            target = pack_goal[packed]
            pushes = 1 + pack_pushes[packed]
            player_after = pack_player[packed]
            code = GOAL_MACRO_STEP + packed
    return target, pushes, player_after, code


@numba.njit(cache=True)
def push_child(context, node, i, b, d, reach, packed, corridor_macros):  # pragma: no cover
    """The child of pushing box ``i`` of ``node`` (on ``b``) in direction ``d``: the push with
    its macros (:func:`push_successor`), then the position it makes (:func:`child_position`).

    Returns ``(target, pushes, player_after, code, ok, h, normalized, units)``; ``target`` is
    -1 when there is no such push, and ``units`` the work the push cost (0 then). Otherwise
    ``occupied`` is left with the box on ``target``, for the caller to put back.
    """
    tab, room_tab, scratch, _, _, _, params, child, _, _ = context
    target, pushes, player_after, code = push_successor(
        tab,
        room_tab,
        scratch[4],
        scratch[0],
        reach,
        b,
        d,
        params[TUNNELS] != 0,
        corridor_macros,
        goal_macros_on(context),
        packed,
    )
    if target < 0:
        return target, pushes, player_after, code, False, 0, 0, 0
    incremental = pushes == 1 and code < GOAL_MACRO_STEP
    ok, h, full, normalized = child_position(
        context, node, i, b, d, target, pushes, player_after, incremental, reach
    )
    box_count = child.shape[0]
    units = box_count + box_count * box_count * box_count if full else box_count
    return target, pushes, player_after, code, ok, h, normalized, units


@numba.njit(cache=True)
def child_position(
    context, node, i, b, d, target, pushes, player_after, incremental, reach
):  # pragma: no cover - compiled
    """Push box ``i`` of ``node`` from ``b`` to ``target`` (``pushes`` pushes, the player
    ending on ``player_after``): ``occupied`` is left with the box moved, for the caller to
    put back once it is done with the child, and ``child`` (``child_assign``) holds the
    child's sorted boxes (their goals).

    Returns ``(ok, h, full, normalized)``: whether the child lives (no freeze deadlock when
    ``params[FREEZE]``, a finite heuristic), its heuristic, whether a full matching ran for it,
    and its normalized player cell, found from the parent's region when ``incremental`` (one
    push in direction ``d``), else by a search from ``player_after``.
    """
    tab, _, scratch, nodes, _, _, params, child, child_assign, work = context
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    reach_mark, _, queue, norm_mark, occupied, _, _, stamps, freeze_scratch, _ = scratch
    node_boxes, key_player, _, _, _, _, _, h_of, _, _, assign = nodes
    with_assignment = assign.shape[1] == child.shape[0]
    occupied[b] = False
    occupied[target] = True
    ok = not (
        params[FREEZE] != 0
        and freeze_deadlock(floor, dead, goals, occupied, deltas, target, freeze_scratch)
    )
    h = 0
    full = False
    if ok:
        moved_child(node_boxes[node], assign[node], i, target, child, child_assign, with_assignment)
        h, full = child_h(
            params[HEURISTIC],
            h_of[node],
            assign[node],
            i,
            b,
            target,
            pushes,
            child,
            child_assign,
            tab.push_distance,
            tab.nearest_push,
            tab.nearest_manhattan,
            work,
        )
        ok = h < UNREACHABLE
    normalized = 0
    if ok:
        stamps[NORM_STAMP] += 1
        if incremental:
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
                floor, occupied, deltas, player_after, norm_mark, stamps[NORM_STAMP], queue
            )
    return ok, h, full, normalized


@numba.njit(cache=True)
def add_child(
    context, slot, normalized, player_after, node, code, g, moves, h, key_hash
):  # pragma: no cover - compiled
    """Store the child in ``context``'s ``child`` (and its goals) in the free ``slot`` as a
    new node reached from ``node`` by step ``code``; counts it generated and returns its id."""
    _, _, _, nodes, table, counters, _, child, child_assign, _ = context
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
    assign = nodes[10]
    if assign.shape[1] == child.shape[0]:
        assign[new, :] = child_assign
    counters[GENERATED] += 1
    return new


@numba.njit(cache=True)
def child_slot(context, node, b, target, normalized):  # pragma: no cover - compiled
    """The key hash of the child in ``context``'s ``child`` (the parent's, with the box moved
    from ``b`` to ``target`` and the player's normalized cell changed) and its slot in the
    store's table."""
    tab, _, _, nodes, table, _, _, child, _, _ = context
    _, key_player, _, _, _, _, _, _, hash_of, _, _ = nodes
    zb, zp = tab.zobrist_box, tab.zobrist_player
    key_hash = hash_of[node] ^ zb[b] ^ zb[target] ^ zp[key_player[node]] ^ zp[normalized]
    return key_hash, find_slot(nodes, table, key_hash, child, normalized)


@numba.njit(cache=True)
def deepest_goal_ahead(floor, goals, occupied, delta, cell):  # pragma: no cover - compiled
    """Steps from ``cell`` to the deepest goal of the free run ahead in a dead-end tunnel, or -1.

    Nobody can get past a box in a dead-end tunnel, so it only ever moves deeper; stopping
    short of the deepest free goal seals that goal, going past it leaves the box off goal for
    good. So the deepest free goal is the one place it can usefully end.
    """
    deepest = -1
    steps = 0
    while True:
        if goals[cell]:
            deepest = steps
        cell += delta
        if not floor[cell] or occupied[cell]:
            return deepest
        steps += 1


@numba.njit(cache=True)
def packed_prefix(room, pack_goal, occupied, boxes):  # pragma: no cover - compiled
    """How many goals of the packing order are filled, when the room holds exactly those;
    else -1."""
    inside = 0
    for b in boxes:
        if room[b]:
            inside += 1
    for k in range(inside):
        if not occupied[pack_goal[k]]:
            return -1
    return inside


@numba.njit(cache=True)
def all_on_goals(goals, boxes):  # pragma: no cover - compiled
    """Whether every box stands on a goal."""
    for b in boxes:
        if not goals[b]:
            return False
    return True


@numba.njit(cache=True)
def clear_cells(occupied, boxes):  # pragma: no cover - compiled
    """Take ``boxes`` off ``occupied`` (the expansion's end)."""
    for b in boxes:
        occupied[b] = False


@numba.njit(cache=True)
def moved_child(
    boxes, assignment, index, target, child, child_assign, with_assignment
):  # pragma: no cover - compiled
    """``child`` = ``boxes`` with box ``index`` moved to ``target``, kept sorted (and its goal)."""
    count = boxes.shape[0]
    written = 0
    placed = False
    for k in range(count):
        if k == index:
            continue
        if not placed and target < boxes[k]:
            child[written] = target
            if with_assignment:
                child_assign[written] = assignment[index]
            written += 1
            placed = True
        child[written] = boxes[k]
        if with_assignment:
            child_assign[written] = assignment[k]
        written += 1
    if not placed:
        child[written] = target
        if with_assignment:
            child_assign[written] = assignment[index]


@numba.njit(cache=True)
def child_h(
    kind,
    parent_h,
    parent_assign,
    index,
    source,
    target,
    pushes,
    child,
    child_assign,
    push_distance,
    nearest_push,
    nearest_manhattan,
    work,
):  # pragma: no cover - compiled
    """Heuristic of the child, incremental where possible, and whether a full matching ran.

    Matching: when the moved box came ``pushes`` pushes closer to its assigned goal, the
    parent's assignment stays optimal (``pushes`` pushes lower any matching by at most that),
    so ``h - pushes``.
    """
    if kind == MANHATTAN:
        return parent_h - nearest_manhattan[source] + nearest_manhattan[target], False
    if kind == PUSH_DISTANCE:
        return parent_h - nearest_push[source] + nearest_push[target], False
    goal = parent_assign[index]
    if push_distance[goal, target] == push_distance[goal, source] - pushes:
        return parent_h - pushes, False
    h = box_term(
        MATCHING, nearest_manhattan, nearest_push, push_distance, child, child_assign, work
    )
    return h, True


@numba.njit(cache=True)
def through_corridor(floor, dead, goals, occupied, deltas, d, source, target):  # pragma: no cover
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
