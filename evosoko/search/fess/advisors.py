"""FESS's advisors: the moves that improve a feature come first within their cell.

In FESS (Shoham and Schaeffer 2020) advisors propose, at each expansion, moves that improve
their feature; an advised move weighs 0 and any other 1, and within a cell the state of least
accumulated weight goes first. Here a child's move is advised when the child's cell improves on
its parent's in the coordinate of an advisor that is on (see ``ADVISORS``): more boxes packed in
order (*packing*), fewer separate regions of free floor (*connectivity*), fewer blocked room
links (*rooms*, with the room coordinate) or fewer hotspots (*hotspots*, with that coordinate).
Two advisors read the move itself (:func:`move_advice`): the *explorer* (in the paper: it "opens
a path to a free square which enables a new push") proposes a push after which the player
reaches free floor it could not reach before, and from there pushes a box it could not push; the
*opener* (in the paper: it finds the hotspot that blocks the most boxes, which should be pushed
away, and opens the way to it when it is blocked) proposes a push of the expanded state's box
that hinders the most others (:class:`evosoko.search.fess.space.Hotspots`), or, when that box
has no push, of a box beside it, and only pushes that leave no more regions of free floor.
Each state carries the count of moves no advisor proposed on its path (``FeatureSpace.advice``),
and its key within its cell grows by ``ADVICE`` per such move. A packing macro is the packing
advisor's move. The knobs are ``advice_weight``, ``advisors``, ``advice_once`` and
``advice_best`` of :class:`~evosoko.search.settings.FessSettings` (on by default for
push-fess-bi only); measured with push-fess-bi on XSokoban and the development set: see
docs/guide/search.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.search.fess.space import (
    ADVICE,
    ADVICE_BEST,
    ADVICE_ONCE,
    ADVISED_NODE,
    ADVISED_USED,
    ADVISOR_BITS,
    ADVISORS,
    CONNECTIVITY_CAP,
    HOT_VALUES,
    OPENER_BLOCKED,
    OPENER_BOX,
    OUT_OF_PLAN_LIMIT,
    ROOM_VALUES,
    heap_insert,
    state_cell,
)
from evosoko.search.store import F_LIMIT, H_BITS, MOVES_BITS
from evosoko.sokoban.cell_sets import box_blocked

PACKING, CONNECTIVITY, ROOMS, HOTSPOTS, EXPLORER, OPENER = (
    ADVISOR_BITS[name]
    for name in ("packing", "connectivity", "rooms", "hotspots", "explorer", "opener")
)

F_SHIFT = H_BITS + MOVES_BITS
"""Where ``f`` starts in a heap key (:func:`evosoko.search.store.priority`)."""


@uncounted
def improved_features(space_state, parent_cell, child_cell):  # pragma: no cover - compiled
    """The advisor bits (``ADVISOR_BITS``) of the coordinates in which ``child_cell`` improves
    on ``parent_cell`` (cells as :func:`evosoko.search.fess.space.state_cell` lays them out)."""
    width = space_state[CONNECTIVITY_CAP]
    rooms = space_state[ROOM_VALUES]
    hots = space_state[HOT_VALUES]
    better = 0
    if child_cell % width < parent_cell % width:
        better |= CONNECTIVITY
    parent_rest, child_rest = parent_cell // width, child_cell // width
    if child_rest % rooms < parent_rest % rooms:
        better |= ROOMS
    parent_rest, child_rest = parent_rest // rooms, child_rest // rooms
    if child_rest % hots < parent_rest % hots:
        better |= HOTSPOTS
    parent_rest, child_rest = parent_rest // hots, child_rest // hots
    if child_rest // OUT_OF_PLAN_LIMIT > parent_rest // OUT_OF_PLAN_LIMIT:
        better |= PACKING
    return better


@uncounted
def advised_key(space, parent, parent_cell, child, child_cell, key):  # pragma: no cover
    """``key`` (the child's key within its cell) with the child's advice count added: its
    parent's, plus 1 unless an advisor proposes the move (the child's cell improves on
    ``parent_cell`` in that advisor's coordinate; ``parent_cell`` -1: a packing macro, the
    packing advisor's move), weighted by ``ADVICE`` in ``f``. With ``ADVICE_ONCE`` each advisor
    proposes at most one move per expansion, the first it finds. Advisors off: ``key``."""
    state = space.state
    if state[ADVICE] == 0:
        return key
    if parent_cell < 0:
        proposed = state[ADVISORS] & PACKING
    else:
        better = improved_features(state, parent_cell, child_cell) & state[ADVISORS]
        proposed = _first_once(state, parent, better)
    return _counted_key(space, parent, child, proposed != 0, key)


@uncounted
def _new_expansion(state, parent):  # pragma: no cover - compiled
    """Forget which advisors proposed a move when ``parent`` is not the expansion they did."""
    if state[ADVISED_NODE] != parent:
        state[ADVISED_NODE] = parent
        state[ADVISED_USED] = 0


@uncounted
def _first_once(state, parent, proposing):  # pragma: no cover - compiled
    """Which of the advisors ``proposing`` a move of ``parent``'s expansion propose it: all, or
    with ``ADVICE_ONCE`` the first (lowest bit) that has proposed none yet."""
    if state[ADVICE_ONCE] == 0:
        return proposing
    _new_expansion(state, parent)
    proposed = proposing & ~state[ADVISED_USED]
    proposed &= -proposed  # one advisor proposes it: the lowest bit
    state[ADVISED_USED] |= proposed
    return proposed


@uncounted
def _counted_key(space, parent, child, proposed, key):  # pragma: no cover - compiled
    """``key`` with ``child``'s advice count (its parent's, plus 1 unless ``proposed``) stored
    and added, times ``ADVICE``, to ``f`` (saturating at ``F_LIMIT``)."""
    advice = space.advice
    count = advice[parent] + (0 if proposed else 1)
    advice[child] = count
    f = min((key >> F_SHIFT) + count * space.state[ADVICE], F_LIMIT)
    return (f << F_SHIFT) | (key & ((1 << F_SHIFT) - 1))


class Children(NamedTuple):
    """The children of one expansion, held until all are known (:func:`insert_children`)."""

    node: np.ndarray
    """int64[4 * boxes]: each child's node."""
    cell: np.ndarray
    """int64[4 * boxes]: its cell."""
    key: np.ndarray
    """int64[4 * boxes]: its key within the cell, before advice."""
    h: np.ndarray
    """int64[4 * boxes]: its heuristic value."""
    bits: np.ndarray
    """int64[4 * boxes]: the advisors that would propose it (:func:`move_advice`)."""
    size: np.ndarray
    """int64[1]: how many are held."""
    proposed: np.ndarray
    """int64[4 * boxes]: scratch, the advisors that propose each child."""


@numba.njit(cache=True)
def held_children(box_count):  # pragma: no cover - compiled
    """Room for the children of one expansion of a level with ``box_count`` boxes."""
    n = 4 * box_count
    return Children(
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.zeros(1, np.int64),
        np.empty(n, np.int64),
    )


@uncounted
def hold_child(children, node, cell, key, h, bits):  # pragma: no cover - compiled
    """Hold ``node`` (in ``cell``, with ``key`` within it, ``h`` and advisor ``bits``)."""
    k = children.size[0]
    children.node[k] = node
    children.cell[k] = cell
    children.key[k] = key
    children.h[k] = h
    children.bits[k] = bits
    children.size[0] = k + 1


@uncounted
def insert_children(space, children, parent):  # pragma: no cover - compiled
    """Put the held children of ``parent`` into their cells' heaps, in the order held, each
    with its advice count (:func:`advised_key`): a child is proposed by the advisors in its
    bits, or with ``ADVICE_ONCE`` by the first of them that has proposed none yet in this
    expansion; with ``ADVICE_BEST`` as well, each advisor that has proposed none yet proposes
    its child of least ``h`` (the first of those). Empties ``children``."""
    state = space.state
    count = children.size[0]
    best = state[ADVICE_ONCE] != 0 and state[ADVICE_BEST] != 0
    proposed = children.proposed
    for k in range(count):
        proposed[k] = 0
    if best:
        _new_expansion(state, parent)
        advisor = 1
        while advisor <= OPENER:
            if state[ADVISED_USED] & advisor == 0:
                chosen = -1
                for k in range(count):
                    if children.bits[k] & advisor and (
                        chosen < 0 or children.h[k] < children.h[chosen]
                    ):
                        chosen = k
                if chosen >= 0:
                    proposed[chosen] |= advisor
                    state[ADVISED_USED] |= advisor
            advisor <<= 1
    for k in range(count):
        if not best:
            proposed[k] = _first_once(state, parent, children.bits[k])
        node = children.node[k]
        key = _counted_key(space, parent, node, proposed[k] != 0, children.key[k])
        heap_insert(space, children.cell[k], node, key)
    children.size[0] = 0


@uncounted
def parent_advice(
    features, space_state, floor, dead, occupied, deltas, boxes, region, queue, cell
):  # pragma: no cover - compiled
    """The cell of the expanded state (its ``boxes``, marked in ``occupied``; ``features``:
    :class:`evosoko.search.fess.space.CellFeatures`), which its children's are compared with:
    ``cell``, or when it is -1 (the state did not come from its cell's heap) the cell worked
    out here; with the opener on, it also notes the box that hinders the most others
    (``OPENER_BOX``, -1: none) and whether the player (``region``, a
    :class:`evosoko.sokoban.reach.Area`) has no push of it (``OPENER_BLOCKED``)."""
    if cell < 0:
        cell = state_cell(features, space_state, floor, occupied, deltas, boxes, queue, False)
    space_state[OPENER_BOX] = -1
    row, hinders = features.hotspots.row, features.hotspots.hinders
    if space_state[ADVISORS] & OPENER == 0 or hinders.shape[0] == 0:
        return cell
    most = 0
    for a in boxes:
        i = row[a]
        if i < 0:
            continue
        hindered = 0
        for b in boxes:
            j = row[b]
            if j >= 0 and hinders[i, j]:
                hindered += 1
        if hindered > most:
            most = hindered
            space_state[OPENER_BOX] = a
    hot = space_state[OPENER_BOX]
    if hot >= 0:
        blocked = 1
        for k in range(4):
            ahead = hot + deltas[k]
            if region.mark[hot - deltas[k]] == region.stamp and not box_blocked(
                floor, occupied, dead, ahead
            ):
                blocked = 0
        space_state[OPENER_BLOCKED] = blocked
    return cell


@uncounted
def move_advice(
    space_state, floor, dead, occupied, deltas, boxes, region, walk, pushed, pushes, cells
):  # pragma: no cover - compiled
    """The advisors (their bits, of those on) that would propose the push ``pushed`` (a
    :class:`evosoko.sokoban.reach.Pushed`, carried ``pushes`` cells along its direction; 0: not
    along a line, as a goal-room macro) to the child with ``boxes`` (marked in ``occupied``).

    ``cells``: (parent's cell, child's cell), compared by :func:`improved_features`.
    ``region`` (:class:`evosoko.sokoban.reach.Area`): the player's region before the push;
    ``walk`` (:class:`evosoko.sokoban.reach.Walk`): its mark and stamp hold the child's region
    when the normalization walked it (else the region is the old one, minus the box's new cell,
    plus its old one: nothing new). The explorer's: the player now reaches a free cell off the
    old region and off the box's track from which it pushes a box onto free, live floor. The
    opener's (see :func:`parent_advice`): a push of its box, or of a box beside it when its box
    has no push, that leaves no more regions of free floor.
    """
    parent_cell, child_cell = cells
    advisors = space_state[ADVISORS]
    bits = improved_features(space_state, parent_cell, child_cell) & advisors
    source, direction = pushed.source, pushed.direction
    if advisors & EXPLORER and pushes > 0:
        stepped = source + (pushes - 1) * deltas[direction]  # where the player stands now
        if walk.mark[stepped] == walk.stamp and _new_push(
            floor, dead, occupied, deltas, boxes, region, walk, pushed, pushes
        ):
            bits |= EXPLORER
    hot = space_state[OPENER_BOX]
    width = space_state[CONNECTIVITY_CAP]
    if hot >= 0 and child_cell % width <= parent_cell % width:
        beside = False
        if space_state[OPENER_BLOCKED] != 0:
            for k in range(4):
                beside = beside or source == hot + deltas[k]
        if source == hot or beside:
            bits |= OPENER
    return bits


@uncounted
def _new_push(
    floor, dead, occupied, deltas, boxes, region, walk, pushed, pushes
):  # pragma: no cover - compiled
    """Whether the player stands, in the child's region (``walk``), on a cell off the old
    ``region`` and off the box's track from which a box goes onto free floor that is not dead."""
    source, step = pushed.source, deltas[pushed.direction]
    for box in boxes:
        for k in range(4):
            behind = box - deltas[k]
            if walk.mark[behind] != walk.stamp or region.mark[behind] == region.stamp:
                continue
            track = False
            for m in range(pushes):
                track = track or behind == source + m * step
            ahead = box + deltas[k]
            if not track and not box_blocked(floor, occupied, dead, ahead):
                return True
    return False
