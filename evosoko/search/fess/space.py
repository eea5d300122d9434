"""The feature space of ``push-fess``: its cells, a pairing heap of states per cell, the features.

A stored state is projected onto a cell of *packing* (boxes on goals filled in the retrograde
packing order) times *out-of-plan* (boxes on goals filled too early, or boxes in areas about
to be sealed, or both: see :func:`plan_feature`) times *hotspots* (boxes that cut other boxes
off from every goal, see :func:`hotspot_count`; off by default) times *room connectivity*
(links between rooms that boxes cut, see :func:`state_cell`) times *connectivity* (separate
regions of free floor). Each cell's queue is a pairing heap threaded through the node ids
(``child``/``sibling`` arrays grown with the store), so the cells need no storage of their own.
The search that cycles through the cells is :mod:`evosoko.search.fess.kernel`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.search.fess.sealed import sealed_count
from evosoko.search.settings import FessSettings
from evosoko.search.store import (
    EMPTY,
    WEIGHT_SCALE,
    priority,
)
from evosoko.sokoban.free_regions import LABELS_PAST_OTHERS, child_label
from evosoko.sokoban.reach import Walk, explore
from evosoko.sokoban.rooms import blocked_links

(
    VIEW,
    IN_HEAPS,
    CONNECTIVITY_CAP,
    LAYERS,
    ALTERNATE,
    TURN,
    PACK_MACROS,
    CELL_G,
    CELL_H,
    CORRIDOR_MACROS,
    ROOM_VALUES,
    VIEWS,
    HOT_VALUES,
    ADVICE,
    ADVISORS,
    ADVICE_ONCE,
    ADVISED_NODE,
    ADVISED_USED,
    ADVICE_BEST,
    OPENER_BOX,
    OPENER_BLOCKED,
    OUT_OF_PLAN,
) = range(22)
"""Slots of the int64 ``state`` array of the feature space (then, from ``VIEW_SLOTS`` on, the
cursor and room cap of each view). ``VIEW``: the view whose turn is next (see
:func:`next_cell`). ``ALTERNATE`` = k > 0: every k-th
expansion takes the best state of the whole frontier instead of the next cell's.
``PACK_MACROS`` = k > 0: each expansion also carries, for every empty goal of the first
unfinished packing layer, each of the k boxes nearest to it there in one step (a box path).
``CELL_G``, ``CELL_H``: the weights of ``g`` and ``h`` in the key of a state within its cell
(-1: those of the search's priority). ``CORRIDOR_MACROS``: a box pushed into a one-wide
corridor (walls on both sides of the box and of the player behind it) is pushed on through it in
the same step, up to a goal, a turn or an obstacle (see :func:`_through_corridor`).
``ROOM_VALUES`` = k > 1: the room-connectivity coordinate takes k values (see
:func:`state_cell`); 1: no such coordinate. ``VIEWS``: how many views the cycle takes turns
with. ``HOT_VALUES`` = k > 1: the hotspot coordinate takes k values; 1: no such coordinate.
``ADVICE`` = w > 0: a move no advisor proposes adds w to ``f`` in the key within the cell;
``ADVISORS``: the advisors' bits; ``ADVICE_ONCE``: each proposes at most one move per expansion
(``ADVISED_NODE``, ``ADVISED_USED``: the expansion and the advisors that proposed one; see
:mod:`evosoko.search.fess.advisors`); ``ADVICE_BEST``: each proposes its child of least ``h``
instead of the first it finds; ``OPENER_BOX``, ``OPENER_BLOCKED``: the expanded state's box
that hinders the most others (-1: none) and whether it has no push (the opener's).
``OUT_OF_PLAN``: the bits (``OUT_OF_PLAN_BITS``) of what the out-of-plan coordinate counts."""

VIEW_SLOTS = 22
"""Slot of the first view's cursor in ``state``; its room cap follows, then the next view's."""

ADVISOR_BITS = {
    "packing": 1,
    "connectivity": 2,
    "rooms": 4,
    "hotspots": 8,
    "explorer": 16,
    "opener": 32,
}
"""The bit of each advisor in the ``ADVISORS`` slot (:mod:`evosoko.search.fess.advisors`)."""

OUT_OF_PLAN_LIMIT = 4
"""Out-of-plan values at or above ``OUT_OF_PLAN_LIMIT - 1`` share one cell."""

LAYERS_BIT = 1
"""The out-of-plan coordinate counts the boxes on goals filled too early."""
SEALED_BIT = 2
"""The out-of-plan coordinate counts the boxes in areas about to be sealed."""
OUT_OF_PLAN_BITS = {"layers": LAYERS_BIT, "sealed": SEALED_BIT, "both": LAYERS_BIT | SEALED_BIT}
"""The ``OUT_OF_PLAN`` slot of each value of ``FessSettings.out_of_plan``."""


class FeatureSpace(NamedTuple):
    """The cells of the feature space and the pairing heap of states in each."""

    key: np.ndarray
    """int64[capacity]: each node's key within its cell (smaller first)."""
    child: np.ndarray
    """int32[capacity]: each node's first child in its cell's heap (EMPTY: none)."""
    sibling: np.ndarray
    """int32[capacity]: each node's next sibling in its cell's heap (EMPTY: none)."""
    root: np.ndarray
    """int64[cells]: each cell's best node (EMPTY: none)."""
    size: np.ndarray
    """int64[cells]: how many nodes each cell's heap holds."""
    state: np.ndarray
    """int64[VIEW_SLOTS + 2 * views]: the knobs and cursors (``VIEW`` .. ``VIEWS``)."""
    pairs: np.ndarray
    """int64[capacity]: scratch of :func:`heap_pop`."""
    advice: np.ndarray
    """int32[capacity], or no entries with the advisors off: each node's count of moves no
    advisor proposed on its path (:mod:`evosoko.search.fess.advisors`)."""


def make_feature_space(
    capacity: int,
    box_count: int,
    layers: int,
    settings: FessSettings,
    corridor_macros: bool | None = None,
) -> FeatureSpace:
    """The :class:`FeatureSpace` for ``capacity`` nodes of a level with ``box_count`` boxes and
    ``layers`` packing layers, laid out as ``settings`` say (their ``corridor_macros`` unless
    given: a search that ran out of states with them goes on without)."""
    room_values = settings.room_links + 1
    hot_values = settings.hotspots + 1
    connectivity = settings.connectivity_limit
    cells = (box_count + 1) * OUT_OF_PLAN_LIMIT * hot_values * room_values * connectivity
    views = (settings.room_links,) if settings.room_views is None else settings.room_views
    state = np.zeros(VIEW_SLOTS + 2 * len(views), dtype=np.int64)
    state[ROOM_VALUES] = room_values
    state[HOT_VALUES] = hot_values
    state[VIEWS] = len(views)
    state[VIEW_SLOTS::2] = -1  # each view's cursor, before the first cell
    state[VIEW_SLOTS + 1 :: 2] = views
    state[ALTERNATE] = settings.alternate
    state[PACK_MACROS] = settings.pack_macros
    state[CELL_G], state[CELL_H] = settings.cell_weights
    state[CORRIDOR_MACROS] = (
        settings.corridor_macros if corridor_macros is None else corridor_macros
    )
    state[CONNECTIVITY_CAP] = connectivity
    state[LAYERS] = layers
    cell_g = settings.cell_weights[0]
    state[ADVICE] = settings.advice_weight * (WEIGHT_SCALE if cell_g < 0 else max(cell_g, 1))
    state[ADVISORS] = sum(ADVISOR_BITS[name] for name in set(settings.advisors))
    state[ADVICE_ONCE] = settings.advice_once
    state[ADVICE_BEST] = settings.advice_best
    state[ADVISED_NODE] = -1
    state[OPENER_BOX] = -1
    state[OUT_OF_PLAN] = OUT_OF_PLAN_BITS[settings.out_of_plan]
    return FeatureSpace(
        key=np.zeros(capacity, dtype=np.int64),
        child=np.full(capacity, EMPTY, dtype=np.int32),
        sibling=np.full(capacity, EMPTY, dtype=np.int32),
        root=np.full(cells, EMPTY, dtype=np.int64),
        size=np.zeros(cells, dtype=np.int64),
        state=state,
        pairs=np.zeros(capacity, dtype=np.int64),
        advice=np.zeros(capacity if settings.advice_weight > 0 else 0, dtype=np.int32),
    )


def grown_feature_space(space: FeatureSpace, capacity: int) -> FeatureSpace:
    """``space`` with its per-node arrays grown to ``capacity``."""

    def grow(array, fill):
        bigger = np.full(capacity, fill, dtype=array.dtype)
        bigger[: len(array)] = array
        return bigger

    return space._replace(
        key=grow(space.key, 0),
        child=grow(space.child, EMPTY),
        sibling=grow(space.sibling, EMPTY),
        pairs=np.zeros(capacity, dtype=np.int64),
        advice=grow(space.advice, 0) if len(space.advice) else space.advice,
    )


# ---- pairing heaps, one per cell -------------------------------------------------------------
@uncounted
def _meld(key, child, sibling, a, b):  # pragma: no cover - compiled
    if a < 0:
        return b
    if b < 0:
        return a
    if key[b] < key[a]:
        a, b = b, a
    sibling[b] = child[a]
    child[a] = b
    return a


@uncounted
def heap_insert(space, cell, node, node_key):  # pragma: no cover - compiled
    """Put ``node`` with ``node_key`` into the heap of ``cell``."""
    key, child, sibling = space.key, space.child, space.sibling
    root, size, state = space.root, space.size, space.state
    key[node] = node_key
    child[node] = EMPTY
    sibling[node] = EMPTY
    root[cell] = _meld(key, child, sibling, root[cell], node)
    size[cell] += 1
    state[IN_HEAPS] += 1


@uncounted
def heap_pop(space, cell):  # pragma: no cover - compiled
    """Remove and return the best node of ``cell`` (two-pass pairing)."""
    key, child, sibling = space.key, space.child, space.sibling
    root, size, state, pairs = space.root, space.size, space.state, space.pairs
    top = root[cell]
    count = 0
    current = child[top]
    while current >= 0:
        following = sibling[current]
        sibling[current] = EMPTY
        pairs[count] = current
        count += 1
        current = following
    merged = 0
    k = 0
    while k < count:
        if k + 1 < count:
            pairs[merged] = _meld(key, child, sibling, pairs[k], pairs[k + 1])
        else:
            pairs[merged] = pairs[k]
        merged += 1
        k += 2
    result = EMPTY
    for k in range(merged - 1, -1, -1):
        result = _meld(key, child, sibling, pairs[k], result)
    root[cell] = result
    child[top] = EMPTY
    size[cell] -= 1
    state[IN_HEAPS] -= 1
    return top


@uncounted
def next_cell(space):  # pragma: no cover - compiled
    """The cell to expand from next, or -1 when all are empty.

    The views take turns; each has a cursor and goes on cyclically from it to the next cell
    that holds states. A view with room cap ``m`` sees the room coordinate's values at or above
    ``m`` as one: it steps over the cells of higher values, and at a cell of value ``m`` takes
    the best state among it and those cells (its cursor stays on the cell of value ``m``). One
    view whose cap is the highest value sees the cells as they are; one with cap ``m`` alone
    cycles as a space of ``m + 1`` room values would.
    """
    key, root, state = space.key, space.root, space.state
    view = state[VIEW]
    state[VIEW] = (view + 1) % state[VIEWS]
    slot = VIEW_SLOTS + 2 * view
    cap = state[slot + 1]
    values = state[ROOM_VALUES]
    width = state[CONNECTIVITY_CAP]
    cells = root.shape[0]
    start = state[slot]
    for step in range(1, cells + 1):
        cell = (start + step) % cells
        room_value = (cell // width) % values
        if room_value > cap:
            continue
        best = root[cell]
        chosen = cell
        if room_value == cap:
            for higher in range(1, values - cap):
                other = cell + higher * width
                top = root[other]
                if top >= 0 and (best < 0 or key[top] < key[best]):
                    best = top
                    chosen = other
        if best >= 0:
            state[slot] = cell
            return chosen
    return -1


# ---- features --------------------------------------------------------------------------------
@uncounted
def packing_walk(layer, goals_per_layer, ends, boxes, counts):  # pragma: no cover - compiled
    """``(packing, open layer, early)`` of the state with ``boxes``, in one walk over the
    layers: the boxes on goals filled in order, goal area by goal area (``ends``: where each
    layer's area ends, see :mod:`evosoko.search.packing_order`), the first layer with an empty
    goal (the layer count when none) and the boxes on goals of the layers after the first open
    one of their area (goals filled too early). ``counts``: scratch, one entry per layer."""
    layers = goals_per_layer.shape[0]
    for k in range(layers):
        counts[k] = 0
    on_goals = 0
    for b in boxes:
        if layer[b] >= 0:
            counts[layer[b]] += 1
            on_goals += 1
    packing = 0
    first_open = layers
    k = 0
    while k < layers:
        packing += counts[k]
        if counts[k] < goals_per_layer[k]:
            first_open = min(first_open, k)
            k = ends[k]
        else:
            k += 1
    return packing, first_open, on_goals - packing


@uncounted
def plan_feature(layer, goals_per_layer, ends, boxes, counts, sealed, bits):  # pragma: no cover
    """The plan coordinate of a state's cell: ``packing * OUT_OF_PLAN_LIMIT + out_of_plan``.

    *Out-of-plan* counts, as ``bits`` (``OUT_OF_PLAN_BITS``) say, the boxes standing on goals
    of a layer after the first one not yet filled (``LAYERS_BIT``): goals filled too early,
    which wall off the goals behind them and must be emptied again; and the boxes in areas
    about to be sealed (``SEALED_BIT``, FESS's own definition: ``sealed``, see
    :mod:`evosoko.search.fess.sealed`), which must leave before the plan's next step closes
    them in. Capped at ``OUT_OF_PLAN_LIMIT - 1``. Packing alone puts such states among those
    that merely have fewer boxes home; kept apart, the states that follow the plan get their
    own turns. Measured on XSokoban and the development set: see docs/xsokoban.md.
    """
    packing, step, early = packing_walk(layer, goals_per_layer, ends, boxes, counts)
    out_of_plan = early if bits & LAYERS_BIT else 0
    if bits & SEALED_BIT and step < goals_per_layer.shape[0]:  # else nothing left to seal
        out_of_plan += sealed_count(sealed, step, boxes)
    return packing * OUT_OF_PLAN_LIMIT + min(out_of_plan, OUT_OF_PLAN_LIMIT - 1)


@uncounted
def connectivity(floor, cells, occupied, deltas, mark, stamp, queue, marked):  # pragma: no cover
    """Number of connected regions of free floor (floor without boxes; ``cells``: the floor
    cells, or any cells that hold them). Region ``r`` is marked ``stamp + r`` in ``mark`` (so
    the next call's ``stamp`` must be at least ``stamp + regions``); the first ``marked``
    regions (0 or 1) are marked so already."""
    regions = marked
    for cell in cells:
        if not floor[cell] or occupied[cell] or mark[cell] >= stamp:
            continue
        explore(floor, occupied, deltas, cell, mark, stamp + regions, queue, queue[:0])
        regions += 1
    return regions


@uncounted
def cell_of(plan, regions, cap):  # pragma: no cover - compiled
    """The feature-space cell of a state (``plan``: see :func:`plan_feature`, times the room
    values plus the room coordinate when there is one)."""
    return plan * cap + min(regions, cap) - 1


class RoomLinks(NamedTuple):
    """The links between rooms that the room-connectivity feature counts
    (:func:`evosoko.sokoban.rooms.blocked_links`)."""

    link: np.ndarray
    """int64[cells]: the link each cell belongs to (-1: none)."""
    seen: np.ndarray
    """int64[links or 1]: scratch, one slot per link."""
    ends: np.ndarray
    """int64[links, 2]: the cells at each link's ends (no rows: every blocked link counts)."""


class Hotspots(NamedTuple):
    """Which boxes hinder which (:func:`hotspot_table`), read by :func:`hotspot_count`."""

    row: np.ndarray
    """int64[cells]: the row of each floor cell (-1: a wall, or no table)."""
    hinders: np.ndarray
    """bool[rows, rows]: ``hinders[i, j]``: a lone box on the cell of row ``j`` reaches a goal,
    but not with a wall on the cell of row ``i`` (where another box stands)."""


HOTSPOT_ROWS_LIMIT = 4096
"""Most floor cells of a hotspot table (16 MiB of booleans); a level with more has none, and
its hotspot coordinate is 0."""


def no_hotspots(cells: int) -> Hotspots:
    """The :class:`Hotspots` of no table: every count is 0."""
    return Hotspots(np.full(cells, -1, dtype=np.int64), np.zeros((0, 0), dtype=np.bool_))


def hotspot_table(floor: np.ndarray, deltas, goal_cells) -> Hotspots:
    """The :class:`Hotspots` of a closed level's ``floor`` (flat, ``deltas`` ``u d l r``) with
    goals ``goal_cells``: for every two floor cells, whether a box standing on the first, taken
    as a wall, cuts a lone box on the second off from every goal it reaches otherwise. Other
    boxes are ignored, as in the push distances. A level of more than ``HOTSPOT_ROWS_LIMIT``
    floor cells gets no table (:func:`no_hotspots`: every count 0)."""
    open_cells = np.array(floor, dtype=np.bool_)
    cells = np.flatnonzero(open_cells)
    if len(cells) > HOTSPOT_ROWS_LIMIT:
        return no_hotspots(open_cells.shape[0])
    deltas = np.asarray(deltas, dtype=np.int64)
    goals = np.asarray(goal_cells, dtype=np.int64)
    reach = np.zeros(open_cells.shape[0], dtype=np.int64)
    queue = np.zeros(open_cells.shape[0], dtype=np.int64)
    _goal_reach(open_cells, deltas, goals, reach, 1, queue)
    live = reach[cells] == 1
    index = np.full(open_cells.shape[0], -1, dtype=np.int64)
    index[cells] = np.arange(len(cells))
    hinders = np.zeros((len(cells), len(cells)), dtype=np.bool_)
    _fill_hinders(open_cells, deltas, goals, cells, live, hinders, reach, queue)
    return Hotspots(index, hinders)


@numba.njit(cache=True)
def _goal_reach(open_cells, deltas, goals, reach, stamp, queue):  # pragma: no cover - compiled
    """Mark ``stamp`` in ``reach`` on every cell from which a lone box reaches one of the open
    ``goals`` (reverse pulls over ``open_cells``)."""
    tail = 0
    for goal in goals:
        if open_cells[goal] and reach[goal] != stamp:
            reach[goal] = stamp
            queue[tail] = goal
            tail += 1
    head = 0
    while head < tail:
        box = queue[head]
        head += 1
        for k in range(4):
            pulled_to = box + deltas[k]
            player_to = pulled_to + deltas[k]
            if open_cells[pulled_to] and open_cells[player_to] and reach[pulled_to] != stamp:
                reach[pulled_to] = stamp
                queue[tail] = pulled_to
                tail += 1


@numba.njit(cache=True)
def _fill_hinders(
    open_cells, deltas, goals, cells, live, hinders, reach, queue
):  # pragma: no cover
    """Fill ``hinders`` (see :class:`Hotspots`) for the floor ``cells`` (``live``: a lone box
    there reaches a goal): one goal reach per cell made a wall."""
    stamp = 1
    for i in range(cells.shape[0]):
        stamp += 1
        open_cells[cells[i]] = False
        _goal_reach(open_cells, deltas, goals, reach, stamp, queue)
        open_cells[cells[i]] = True
        for j in range(cells.shape[0]):
            hinders[i, j] = j != i and live[j] and reach[cells[j]] != stamp


@uncounted
def hotspot_count(hotspots, boxes):  # pragma: no cover - compiled
    """*Hotspots* (after FESS's feature of that name): the boxes that hinder at least one other
    box of ``boxes`` (see :class:`Hotspots`), boxes that stand in the way of the plan and must
    be moved aside before the boxes behind them can go home. Measured with push-fess-bi on
    XSokoban and the development set: see docs/guide/search.md."""
    row, hinders = hotspots.row, hotspots.hinders
    if hinders.shape[0] == 0:
        return 0
    count = 0
    for a in boxes:
        i = row[a]
        if i < 0:
            continue
        for b in boxes:
            j = row[b]
            if j >= 0 and hinders[i, j]:
                count += 1
                break
    return count


class CellFeatures(NamedTuple):
    """What :func:`state_cell` reads, the same fields in
    :class:`evosoko.search.fess.kernel.Features`: the kernels pass these alone for each child,
    not the features' scratch of macros and deadlock tests."""

    layer: np.ndarray
    """int64[cells]: the packing layer of each goal (-1 off goals)."""
    goals_per_layer: np.ndarray
    """int64[layers]: how many goals each layer has."""
    area_ends: np.ndarray
    """int64[layers]: the first layer of each layer's next goal area (the layer count: none)."""
    counts: np.ndarray
    """int64[layers or 1]: scratch, boxes on the goals of each layer."""
    stamp: np.ndarray
    """int64[1]: the running stamp of ``mark``."""
    mark: np.ndarray
    """int64[cells]: the regions of free floor counted by the connectivity feature."""
    links: RoomLinks
    """The room links (all -1: none)."""
    hotspots: Hotspots
    """Which boxes hinder which (no table: none)."""
    sealed: np.ndarray
    """int64[cells], or no entries: the packing step that seals each cell
    (:func:`evosoko.search.fess.sealed.sealed_steps`)."""
    floor_cells: np.ndarray
    """int64[floor cells]: the cells the connectivity looks at (all cells when not known)."""


@numba.njit(cache=True, inline="always")
def cell_features(features):  # pragma: no cover - compiled
    """The :class:`CellFeatures` of ``features``
    (:class:`evosoko.search.fess.kernel.Features`)."""
    return CellFeatures(
        features.layer,
        features.goals_per_layer,
        features.area_ends,
        features.counts,
        features.stamp,
        features.mark,
        features.links,
        features.hotspots,
        features.sealed,
        features.floor_cells,
    )


@uncounted
def state_cell(
    features, space_state, floor, occupied, deltas, boxes, queue, walked
):  # pragma: no cover - compiled
    """The cell of the state with ``boxes`` (also marked in ``occupied``); ``features``: a
    :class:`CellFeatures`, or the :class:`evosoko.search.fess.kernel.Features` holding them.
    ``walked``: the player's region is marked already, by the walk of :func:`player_walk`
    that normalized the player, and the connectivity walk skips it.

    Its coordinates: the plan (:func:`plan_feature`, out of plan counting what ``OUT_OF_PLAN``
    says); with ``HOT_VALUES`` = k > 1, the hotspots (:func:`hotspot_count`, values at or
    above k - 1 share one); with ``ROOM_VALUES`` = k > 1, *room connectivity*, Festival's fourth
    feature: the links between rooms that boxes block
    (:func:`evosoko.sokoban.rooms.blocked_links`, values at or above k - 1 share one); and the
    connectivity (:func:`connectivity`). Measured on XSokoban 1-30 at 200,000 expanded states:
    see docs/xsokoban.md.
    """
    stamp = features.stamp
    base = stamp[0] if walked else stamp[0] + 1
    marked = 1 if walked else 0
    regions = connectivity(
        floor, features.floor_cells, occupied, deltas, features.mark, base, queue, marked
    )
    stamp[0] = base + regions
    return _cell_with(features, space_state, occupied, boxes, regions)


@uncounted
def state_cell_told(
    features, space_state, occupied, boxes, parent, told, source
):  # pragma: no cover - compiled
    """:func:`state_cell` of a child that moved one box from ``source``, whose regions the
    parent's told without a walk: ``told``, what
    :func:`evosoko.sokoban.free_regions.regions_after_move` returned on the parent's ``parent``
    (:class:`evosoko.sokoban.free_regions.ParentRegions`). The cell is the same."""
    stamp, mark, links = features.stamp, features.mark, features.links
    if space_state[ROOM_VALUES] > 1 and links.ends.shape[0] > 0:
        base = stamp[0] + 1  # the regions at the ends of the links with a box, as walked
        for b in boxes:
            k = links.link[b]
            if k >= 0:
                for end in (links.ends[k, 0], links.ends[k, 1]):
                    mark[end] = base + child_label(parent, told, source, occupied, end)
        stamp[0] = base + parent.others + LABELS_PAST_OTHERS  # past every label given
    return _cell_with(features, space_state, occupied, boxes, told[0])


@numba.njit(cache=True, inline="always")
def _cell_with(features, space_state, occupied, boxes, regions):  # pragma: no cover - compiled
    """The cell of the state with ``boxes`` and ``regions`` regions of free floor, each
    region's cells marked with a stamp of its own in ``features.mark`` (those at the ends of the
    links with a box at least)."""
    layer, goals_per_layer, counts = features.layer, features.goals_per_layer, features.counts
    links = features.links
    bits = space_state[OUT_OF_PLAN]
    ends = features.area_ends
    plan = plan_feature(layer, goals_per_layer, ends, boxes, counts, features.sealed, bits)
    hot_values = space_state[HOT_VALUES]
    if hot_values > 1:
        hot = hotspot_count(features.hotspots, boxes)
        plan = plan * hot_values + min(hot, hot_values - 1)
    values = space_state[ROOM_VALUES]
    if values > 1:
        blocked = blocked_links(links.link, boxes, links.seen, links.ends, occupied, features.mark)
        plan = plan * values + min(blocked, values - 1)
    return cell_of(plan, regions, space_state[CONNECTIVITY_CAP])


@numba.njit(cache=True, inline="always")
def player_walk(features, queue):  # pragma: no cover - compiled
    """The :class:`evosoko.sokoban.reach.Walk` to normalize a child's player with: a new
    stamp of the connectivity's ``mark`` (``features``: a :class:`CellFeatures`), so that
    :func:`state_cell` finds the player's region marked when the normalization walked it."""
    features.stamp[0] += 1
    return Walk(features.mark, features.stamp[0], queue)


@uncounted
def cell_key(space, g, h, moves, node_key):  # pragma: no cover - compiled
    """The key of a state within its cell: ``node_key`` (the search's priority) unless the
    ``CELL_G``/``CELL_H`` weights are set."""
    state = space.state
    if state[CELL_G] < 0:
        return node_key
    return priority(g, h, moves, state[CELL_G], state[CELL_H])
