"""The push-level search kernel: one state per box configuration and player region.

A node is reached by a push; its key is the sorted boxes plus the normalized player cell
(smallest cell the player can reach), its ``actual`` cell the one the player stands on right
after the push (behind the box's new cell). ``g`` counts pushes, ``moves`` the real walking steps
plus pushes along the stored path (walks measured by breadth-first search).

Successors are the legal pushes (player can walk behind the box, the target is empty floor and
not a dead square), restricted to one PI-corral's barrier when one exists (``corrals``), carried
on by the dead-end tunnel and goal-room macros, minus those that freeze a box off goal
(``freeze``) and, with the matching heuristic, those that leave no perfect box-goal matching.
The frontier mode and the weights of ``g`` and ``h`` in the priority make the algorithm: A*,
weighted A*, greedy, breadth-first, or one depth-first iteration of IDA* (``THRESHOLD``).

The successor loop is written once, in :func:`expand_pushes`, for these searches and for the
feature-space search (:mod:`evosoko.search.fess.kernel`): numba compiles it apart for each
(``fess`` None or not), so that what they share costs no call per node or per push. The rules
it applies to a push are in :mod:`evosoko.sokoban.successors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import counted, uncounted
from evosoko.search.fess.advisors import (
    EXPLORER,
    Children,
    held_children,
    hold_child,
    insert_children,
    move_advice,
    parent_advice,
)
from evosoko.search.fess.macros import MACRO_CAP, ExpandedNode, last_push, packing_macros
from evosoko.search.fess.space import (
    ADVICE,
    ADVISORS,
    ALTERNATE,
    CORRIDOR_MACROS,
    PACK_MACROS,
    TURN,
    cell_features,
    cell_key,
    heap_insert,
    heap_pop,
    next_cell,
    player_walk,
    state_cell,
    state_cell_told,
)
from evosoko.search.heuristics import MATCHING, ChildRows, box_term, child_h, heuristic_tables
from evosoko.search.store import (
    AT_EXPANSION,
    AT_GENERATION,
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
    GOAL_AT_GENERATION,
    GOAL_MACRO_STEP,
    GOAL_MACROS,
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
    TUNNELS,
    WORK,
    WORK_LIMIT,
    NodeFields,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
    priority,
)
from evosoko.sokoban.cell_sets import all_on_goals, clear_cells, copy_cells
from evosoko.sokoban.cell_sides import SideSearch, make_side_search, search_region
from evosoko.sokoban.corral_deadlock import (
    CorralSearch,
    cluster_lost_after_push,
    deadlock_board,
    lost_after_push,
    make_corral_scratch,
)
from evosoko.sokoban.corrals import (
    ALLOWED_MARK,
    MARK_SLOTS,
    REGION_MARK,
    REGIONS,
    CorralBoard,
    PiCorralScratch,
    make_pi_corral_scratch,
    pi_corral,
)
from evosoko.sokoban.free_regions import (
    NOT_TOLD,
    ParentRegions,
    regions_after_move,
    smallest_after_move,
)
from evosoko.sokoban.freeze import FreezeScratch, freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.lone_box import lone_box_lost
from evosoko.sokoban.matching import store_potentials
from evosoko.sokoban.patterns import pattern_lost
from evosoko.sokoban.reach import (
    Area,
    Pushed,
    Walk,
    explore,
    normalized_after_push,
    normalized_player,
)
from evosoko.sokoban.successors import (
    NORM_STAMP,
    REACH_STAMP,
    deepest_goal_ahead,
    moved_child,
    packed_prefix,
    through_corridor,
)

if TYPE_CHECKING:
    from evosoko.search.fess.kernel import Features
    from evosoko.search.fess.space import FeatureSpace


class PendingSuccessors(NamedTuple):
    """The successors of an expansion that a kernel call left unfinished, kept for the next
    call (``counters[RESUME_NODE]``)."""

    ids: np.ndarray
    """int64[4 * boxes]: node ids."""
    keys: np.ndarray
    """int64[4 * boxes]: their frontier keys."""
    size: np.ndarray
    """int64[1]: how many."""


class PushSearchScratch(NamedTuple):
    """Per-search scratch of the push-level kernels (:func:`push_search`, and the feature-space
    kernel of :mod:`evosoko.search.fess.kernel`)."""

    reach_mark: np.ndarray
    """int64[cells]: the player's region of the node expanded (``stamps[REACH_STAMP]``)."""
    distance: np.ndarray
    """int64[cells]: walking distance of the player to each cell of that region."""
    queue: np.ndarray
    """int64[cells]: breadth-first queue."""
    norm_mark: np.ndarray
    """int64[cells]: the region walked to normalize a child's player (``stamps[NORM_STAMP]``)."""
    occupied: np.ndarray
    """bool[cells]: the boxes of the node expanded (all False between expansions)."""
    corral: PiCorralScratch
    """Scratch of :func:`evosoko.sokoban.corrals.pi_corral`."""
    corral_marks: np.ndarray
    """int64[MARK_SLOTS]: its stamps and count (see :func:`evosoko.sokoban.corrals.pi_corral`)."""
    stamps: np.ndarray
    """int64[2]: the running stamps of ``reach_mark`` and ``norm_mark``."""
    freeze: FreezeScratch
    """Scratch of :func:`evosoko.sokoban.freeze.freeze_deadlock`."""
    pending: PendingSuccessors
    """Successors of an unfinished expansion (push search only)."""
    deadlocks: CorralSearch
    """The corral deadlock tests of the push search and the patterns they keep (no positions:
    none; the feature-space search has its own, :attr:`FessArrays.features`)."""
    sides: SideSearch
    """The depth-first search of the player's region of the node expanded, when children's
    regions are told (:class:`evosoko.sokoban.free_regions.ParentRegions`)."""


PATTERN_CORRAL_LIMIT = 200
"""Positions a corral deadlock test of the push search may visit (when it keeps patterns)."""


def make_scratch(cells: int, box_count: int, patterns: int = 0) -> PushSearchScratch:
    """A :class:`PushSearchScratch` for a level of ``cells`` cells and ``box_count`` boxes; with
    ``patterns`` > 0 the push search tests the corrals next to the box pushed last
    (:data:`PATTERN_CORRAL_LIMIT` positions) and keeps up to ``patterns`` proofs as deadlock
    patterns (:mod:`evosoko.sokoban.patterns`)."""
    return PushSearchScratch(
        reach_mark=np.zeros(cells, dtype=np.int64),
        distance=np.zeros(cells, dtype=np.int64),
        queue=np.zeros(cells, dtype=np.int64),
        norm_mark=np.zeros(cells, dtype=np.int64),
        occupied=np.zeros(cells, dtype=np.bool_),
        corral=make_pi_corral_scratch(cells),
        corral_marks=np.zeros(MARK_SLOTS, dtype=np.int64),
        stamps=np.zeros(2, dtype=np.int64),
        freeze=make_freeze_scratch(cells),
        pending=PendingSuccessors(
            np.zeros(4 * box_count, dtype=np.int64),
            np.zeros(4 * box_count, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        ),
        deadlocks=make_corral_scratch(
            cells, PATTERN_CORRAL_LIMIT if patterns > 0 else 0, patterns=patterns
        ),
        sides=make_side_search(cells),
    )


@numba.njit(cache=True)
def push_root(tab, params, store, scratch, boxes, player, work):  # pragma: no cover - compiled
    """Store the start position as node 0 of ``store``
    (:class:`evosoko.search.store.StoreArrays`); returns ``(node, h, frontier key)``."""
    nodes, table, counters = store.nodes, store.table, store.counters
    floor, deltas, push_distance = tab.floor, tab.deltas, tab.push_distance
    nearest_push, nearest_manhattan = tab.nearest_push, tab.nearest_manhattan
    zb, zp = tab.zobrist_box, tab.zobrist_player
    queue, norm_mark = scratch.queue, scratch.norm_mark
    occupied, stamps = scratch.occupied, scratch.stamps
    for b in boxes:
        occupied[b] = True
    stamps[NORM_STAMP] += 1
    normalized = normalized_player(
        floor, occupied, deltas, player, norm_mark, stamps[NORM_STAMP], queue
    )
    for b in boxes:
        occupied[b] = False
    assignment = nodes.assign[0]
    h = box_term(
        params[HEURISTIC], nearest_manhattan, nearest_push, push_distance, boxes, assignment, work
    )
    if params[HEURISTIC] == MATCHING and nodes.potential.shape[1] == boxes.shape[0]:
        store_potentials(work, nodes.potential[0])
    key_hash = zp[normalized]
    for b in boxes:
        key_hash ^= zb[b]
    slot = find_slot(nodes, table, key_hash, boxes, normalized)
    node = add_node(
        nodes,
        table,
        counters,
        slot,
        boxes,
        NodeFields(normalized, player, -1, 0, 0, 0, h, key_hash),
    )
    frontier_key = priority(0, h, 0, params[G_WEIGHT], params[H_WEIGHT])
    return node, h, frontier_key


class FessArrays(NamedTuple):
    """What the feature-space search adds to :func:`expand_pushes`: its features and scratch
    (:class:`evosoko.search.fess.kernel.Features`) and its space of cells
    (:class:`evosoko.search.fess.space.FeatureSpace`)."""

    features: Features
    space: FeatureSpace


@numba.njit(cache=True)
def push_search(tab, room_tab, params, store, scratch, work):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes of ``store``
    (:class:`evosoko.search.store.StoreArrays`) in the order of the frontier
    (``params[MODE]``); returns CONTINUE, SOLVED, EXHAUSTED or NEED_SPACE (see
    :func:`expand_pushes`)."""
    return expand_pushes(tab, room_tab, params, store, scratch, work, None)


class ExpansionRows(NamedTuple):
    """The rows one call of :func:`expand_pushes` builds its successors in."""

    child: ChildRows
    parent_boxes: np.ndarray
    """int64[boxes]: the boxes of the node being expanded."""
    candidate_ids: np.ndarray
    """int64[4 * boxes]: the frontier's candidates of one expansion."""
    candidate_keys: np.ndarray
    """int64[4 * boxes]: their keys."""
    children: Children
    """The feature-space search's children of one expansion (no rows otherwise)."""


@numba.njit(cache=True)
def expand_pushes(tab, room_tab, params, store, scratch, work, fess):  # pragma: no cover
    """Expand up to ``params[CHUNK]`` nodes of ``store``
    (:class:`evosoko.search.store.StoreArrays`); returns CONTINUE, SOLVED, EXHAUSTED or
    NEED_SPACE.

    The one successor loop of the push searches. ``fess`` None: the frontier's order
    (``params[MODE]``: A*, weighted A*, greedy, breadth-first, or one IDA* iteration below
    ``params[THRESHOLD]``). ``fess`` a :class:`FessArrays`: the feature-space search (one node
    per visited cell, its corral and cluster deadlock tests, corridor and packing macros; see
    :mod:`evosoko.search.fess.kernel`). numba compiles the two apart (the ``fess is None``
    branches fall away in each), so sharing the loop costs neither a call per push nor one per
    node. ``room_tab``: the goal room (:class:`evosoko.search.goalroom.GoalRoomArrays`, used
    when ``params[GOAL_MACROS]``).
    """
    nodes = store.nodes
    box_count = nodes.boxes.shape[1]
    rows = ExpansionRows(
        ChildRows(
            np.empty(box_count, dtype=nodes.boxes.dtype),  # int16 or int32: the store's cells
            np.empty(box_count, dtype=nodes.assign.dtype),
            np.empty(box_count, dtype=nodes.potential.dtype),
        ),
        np.empty(box_count, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        held_children(box_count if fess is not None else 0),
    )
    return _expand_chunk(tab, room_tab, params, store, scratch, work, fess, rows)


@uncounted
def _expand_chunk(tab, room_tab, params, store, scratch, work, fess, rows):  # pragma: no cover
    """The loop of :func:`expand_pushes`, in the rows ``rows`` (:class:`ExpansionRows`) it
    makes: compiled without numba's reference counts
    (:data:`evosoko.reference_counts.uncounted`; its cost: docs/xsokoban.md, round 37)."""
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
    pending = scratch.pending
    mode = params[MODE]
    heuristic = heuristic_tables(tab, params[HEURISTIC])
    g_weight = params[G_WEIGHT]
    h_weight = params[H_WEIGHT]
    freeze = params[FREEZE] != 0
    corrals = params[CORRALS] != 0
    reopen = params[REOPEN] != 0
    threshold = params[THRESHOLD]
    goal_test = params[GOAL_AT_GENERATION]
    tunnels = params[TUNNELS] != 0
    room, entrance, inward = room_tab.room, room_tab.entrance, room_tab.inward
    pack_goal, pack_pushes, pack_player = room_tab.goal, room_tab.pushes, room_tab.player_end
    goal_macros = params[GOAL_MACROS] != 0 and entrance >= 0
    box_count = node_boxes.shape[1]
    capacity = node_boxes.shape[0]
    frontier_capacity = frontier[0].shape[0]
    margin = 4 * box_count + 2
    corridor_macros = False
    told_regions = corrals  # a child's regions told by the parent's labels (free_regions)
    corral_search = scratch.deadlocks
    if fess is not None:
        features, space = fess.features, fess.space
        corral_search = features.corral
        cell_inputs = cell_features(features)
        space_state = space.state
        alternate = space_state[ALTERNATE]
        pack_macros = space_state[PACK_MACROS] > 0
        corridor_macros = space_state[CORRIDOR_MACROS] > 0
        advising = space_state[ADVICE] != 0
        explorer = advising and space_state[ADVISORS] & EXPLORER != 0
        told_regions = corrals and not explorer  # the explorer reads the normalization's walk
        children = rows.children  # inserted once the expansion's are all known
        margin += MACRO_CAP
    board = deadlock_board(tab)
    corral_deadlocks = corral_search.players.shape[0] > 0
    cluster_deadlocks = corral_deadlocks and corral_search.cache_info.shape[0] > 0
    lone_box_matching = corral_deadlocks and corral_search.lone_box.reaches.shape[0] > 0
    patterns = corral_search.patterns
    learned = patterns.sizes.shape[0] > 0
    child_rows = rows.child
    child, child_assign, child_potential = child_rows.boxes, child_rows.assign, child_rows.potential
    parent_boxes = rows.parent_boxes
    with_assignment = assign.shape[1] == box_count
    candidate_ids, candidate_keys = rows.candidate_ids, rows.candidate_keys

    work_limit = params[WORK_LIMIT]
    spent = 0  # work units of this call; added to counters[WORK] on the way out
    matching_update_work = box_count * box_count
    successors_here = 0
    expanded_here = 0
    while expanded_here < params[CHUNK] and (expanded_here == 0 or spent < work_limit):
        # room is looked at before an expansion only (it had room for all its successors
        # then): a full store drops states at the same point however the calls are cut
        if counters[RESUME_NODE] < 0 and (
            counters[NODES] + margin >= capacity
            or counters[FRONT_SIZE] + margin >= frontier_capacity
        ):
            counters[WORK] += spent
            return NEED_SPACE
        if fess is not None:  # noqa: SIM102 - numba drops a branch on "fess is None" alone
            if space.key.shape[0] < capacity:
                counters[WORK] += spent
                return NEED_SPACE
        first_successor = 0
        candidates = 0
        popped_cell = -1  # the expanded state's cell when its cell's heap gave it
        if counters[RESUME_NODE] >= 0:  # an expansion the last call left unfinished
            node = counters[RESUME_NODE]
            first_successor = counters[RESUME_AT]
            if fess is None:
                candidates = pending.size[0]
                copy_cells(candidate_ids[:candidates], pending.ids[:candidates])
                copy_cells(candidate_keys[:candidates], pending.keys[:candidates])
            counters[RESUME_NODE] = -1
        else:
            if fess is None:
                node = frontier_pop(frontier, counters, mode)
            else:
                node, popped_cell = _fess_pop(space, frontier, counters)
            if node < 0:
                counters[WORK] += spent
                return EXHAUSTED
            if closed[node]:
                continue
            closed[node] = 1
            counters[EXPANDED] += 1
            if fess is None:  # noqa: SIM102 - numba drops a branch on "fess is None" alone
                if goal_test != AT_GENERATION and all_on_goals(goals, node_boxes[node]):
                    counters[SOLUTION] = node
                    counters[WORK] += spent
                    return SOLVED
        expanded_here += 1
        bound_h = h_of[node] if h_weight > 0 else 0

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
                    CorralBoard(floor, dead, goals, deltas),
                    occupied,
                    parent_boxes,
                    reach_mark,
                    reach,
                    corral_scratch,
                    corral_marks,
                )
                >= 0
            )
        if corral_deadlocks:  # noqa: SIM102 - cluster tests run only beside corral tests
            # a corral next to the box pushed last is lost, the boxes touching it cannot reach
            # goals on their own (evosoko.sokoban.corral_deadlock), or the boxes cannot be
            # matched to goals each reaches alone from its side (evosoko.sokoban.lone_box)
            if (
                first_successor == 0
                and parent[node] >= 0
                and (
                    (
                        corral_deadlocks
                        and lost_after_push(
                            board,
                            occupied,
                            reach_mark,
                            reach,
                            actual[node],
                            last_push(step[node]),
                            corral_search,
                        )
                    )
                    or (
                        cluster_deadlocks
                        and cluster_lost_after_push(
                            board, occupied, actual[node], last_push(step[node]), corral_search
                        )
                    )
                    or (
                        lone_box_matching
                        and lone_box_lost(
                            corral_search.lone_box,
                            tab,
                            parent_boxes,
                            reach_mark,
                            reach,
                            assign[node],
                        )
                    )
                )
            ):
                clear_cells(occupied, parent_boxes)
                continue
        if fess is not None:
            parent_cell = -1  # the expanded state's cell, which the advisors compare with
            if advising:
                parent_cell = parent_advice(
                    cell_inputs,
                    space_state,
                    floor,
                    dead,
                    occupied,
                    deltas,
                    parent_boxes,
                    Area(reach_mark, reach, 0),
                    queue,
                    popped_cell,
                )
        allowed = corral_scratch.allowed
        allowed_stamp = corral_marks[ALLOWED_MARK]
        if told_regions:  # the parts a child's box cuts the player's region into
            search_region(floor, occupied, deltas, key_player[node], scratch.sides)
        regions = ParentRegions(
            reach_mark,
            reach,
            corral_scratch.region,
            corral_scratch.region_mark,
            corral_marks[REGION_MARK],
            corral_marks[REGIONS],
            corral_scratch.region_smallest,
            key_player[node],
            scratch.sides,
            deltas,
        )
        packed = packed_prefix(room, pack_goal, occupied, parent_boxes) if goal_macros else -1

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
                    if fess is None:
                        pending.size[0] = candidates
                        copy_cells(pending.ids[:candidates], candidate_ids[:candidates])
                        copy_cells(pending.keys[:candidates], candidate_keys[:candidates])
                    elif advising:
                        insert_children(space, children, node)
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return CONTINUE
                behind = b - deltas[d]
                if reach_mark[behind] != reach:
                    continue
                target = b + deltas[d]
                # box_blocked written out: as a call it took 1.5 % more CPU time in push-astar
                # (bench_search.py --suite microban --node-limit 400000)
                if not floor[target] or occupied[target] or dead[target]:
                    continue
                pushes = 1
                if tunnels and dead_end_tunnel[d, target]:
                    extra = deepest_goal_ahead(floor, goals, occupied, deltas[d], target)
                    if extra < 0:
                        continue  # the box can only go deeper, and no goal lies there
                    target += extra * deltas[d]
                    pushes += extra
                elif corridor_macros:
                    extra = through_corridor(floor, dead, goals, occupied, deltas, d, b, target)
                    target += extra * deltas[d]
                    pushes += extra
                player_after = target - deltas[d]
                code = d + 4 * (pushes - 1)
                if goal_macros:
                    if room[b] or room[target]:
                        continue  # packed boxes stay; only the macro enters the room
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
                if ok and learned:  # a deadlock pattern proven earlier in the search
                    ok = not pattern_lost(patterns, occupied, player_after, target)
                normalized = 0
                told = NOT_TOLD
                moved = 0
                if ok:
                    moved = moved_child(
                        node_boxes[node],
                        assign[node],
                        i,
                        target,
                        child,
                        child_assign,
                        with_assignment,
                    )
                    if fess is None:
                        stamps[NORM_STAMP] += 1
                        walk = Walk(norm_mark, stamps[NORM_STAMP], queue)
                    else:  # the walk marks the region state_cell's connectivity skips
                        walk = player_walk(cell_inputs, queue)
                    told_player = -1
                    if told_regions:  # the regions pi_corral labelled may tell the child's
                        told = regions_after_move(regions, floor, occupied, deltas, b, target)
                        if told[0] >= 0:
                            told_player = smallest_after_move(
                                regions, told, b, target, occupied, player_after
                            )
                    if told_player >= 0:
                        normalized = told_player
                    elif pushes == 1 and code < GOAL_MACRO_STEP:
                        normalized = normalized_after_push(
                            floor,
                            occupied,
                            deltas,
                            Area(reach_mark, reach, key_player[node]),
                            Pushed(b, target, d),
                            walk,
                        )
                    else:
                        normalized = normalized_player(
                            floor, occupied, deltas, player_after, walk.mark, walk.stamp, queue
                        )
                g = g_of[node] + pushes
                moves = moves_of[node] + distance[behind] + pushes
                key_hash = np.uint64(0)
                slot = 0
                other = EMPTY
                if ok:
                    key_hash = (
                        hash_of[node] ^ zb[b] ^ zb[target] ^ zp[key_player[node]] ^ zp[normalized]
                    )
                    slot = find_slot(nodes, table, key_hash, child, normalized)
                    other = table[slot]
                h = 0
                child_cell = 0
                advice = 0
                if fess is None:  # A*: a stored state's h is the child's (boxes only)
                    if ok and other != EMPTY:
                        h = h_of[other]
                else:  # feature space: a stored state is only improved
                    if ok and other != EMPTY:
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
                if ok and other == EMPTY:  # a new state: match its boxes (from the parent's)
                    h, full = child_h(
                        heuristic, h_of[node], potential[node], b, target, moved, child_rows, work
                    )
                    if full:
                        spent += matching_update_work
                    ok = h < UNREACHABLE
                if fess is not None:  # noqa: SIM102 - numba drops a branch on "fess is None" alone
                    if ok:
                        walked = walk.mark[player_after] == walk.stamp
                        if told[0] >= 0:
                            child_cell = state_cell_told(
                                cell_inputs, space_state, occupied, child, regions, told, b
                            )
                        else:
                            child_cell = state_cell(
                                cell_inputs,
                                space_state,
                                floor,
                                occupied,
                                deltas,
                                child,
                                queue,
                                walked,
                            )
                        if advising:
                            advice = move_advice(
                                space_state,
                                floor,
                                dead,
                                occupied,
                                deltas,
                                child,
                                Area(reach_mark, reach, 0),
                                walk,
                                Pushed(b, target, d),
                                pushes if code < GOAL_MACRO_STEP else 0,
                                (parent_cell, child_cell),
                            )
                occupied[target] = False
                occupied[b] = True
                if not ok:
                    continue
                if fess is None:
                    if threshold != NO_THRESHOLD and g + h > threshold:
                        if counters[MIN_EXCEEDED] < 0 or g + h < counters[MIN_EXCEEDED]:
                            counters[MIN_EXCEEDED] = g + h
                        continue
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
                new = add_node(
                    nodes,
                    table,
                    counters,
                    slot,
                    child,
                    NodeFields(normalized, player_after, node, code, g, moves, h, key_hash),
                )
                if with_assignment:
                    copy_cells(assign[new], child_assign)
                    copy_cells(potential[new], child_potential)
                counters[GENERATED] += 1
                if all_on_goals(goals, child) and (
                    fess is not None
                    or (
                        goal_test != AT_EXPANSION
                        and (goal_test == AT_GENERATION or g <= g_of[node] + bound_h)
                    )
                ):
                    counters[SOLUTION] = new
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return SOLVED
                node_key = priority(g, h, moves, g_weight, h_weight)
                if fess is None:
                    candidate_ids[candidates] = new
                    candidate_keys[candidates] = node_key
                    candidates += 1
                else:
                    in_cell = cell_key(space, g, h, moves, node_key)
                    if advising:
                        hold_child(children, new, child_cell, in_cell, h, advice)
                    else:
                        heap_insert(space, child_cell, new, in_cell)
                    if alternate > 0:
                        frontier_push(frontier, counters, HEAP, node_key, new)
        if fess is None:
            clear_cells(occupied, parent_boxes)
            _push_candidates(frontier, counters, mode, candidate_ids, candidate_keys, candidates)
        else:
            if advising:
                insert_children(space, children, node)
            if pack_macros:
                solved_node = packing_macros(
                    tab,
                    room_tab,
                    params,
                    store,
                    scratch,
                    work,
                    fess,
                    ExpandedNode(node, parent_boxes, child_rows),
                )
                if solved_node >= 0:
                    counters[SOLUTION] = solved_node
                    clear_cells(occupied, parent_boxes)
                    counters[WORK] += spent
                    return SOLVED
            clear_cells(occupied, parent_boxes)
    counters[WORK] += spent
    return CONTINUE


@uncounted
def _fess_pop(space, frontier, counters):  # pragma: no cover - compiled
    """The feature-space search's next node and its cell: the best of the next non-empty cell,
    or of the whole frontier every ``ALTERNATE``-th turn (and when the cells are empty; its cell
    then -1, not looked up); node -1 when none."""
    state = space.state
    state[TURN] += 1
    if state[ALTERNATE] > 0 and state[TURN] % state[ALTERNATE] == 0:
        return frontier_pop(frontier, counters, HEAP), -1
    cell = next_cell(space)
    if cell < 0:
        return frontier_pop(frontier, counters, HEAP), -1
    return heap_pop(space, cell), cell


@counted
def _push_candidates(frontier, counters, mode, ids, keys, count):  # pragma: no cover
    """Frontier insertion; on a stack the best candidate goes on top."""
    if mode == LIFO:
        order = np.argsort(keys[:count])
        for k in range(count - 1, -1, -1):
            frontier_push(frontier, counters, mode, keys[order[k]], ids[order[k]])
    else:
        for k in range(count):
            frontier_push(frontier, counters, mode, keys[k], ids[k])
