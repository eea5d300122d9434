"""FESS's advisors: the moves that improve a feature come first within their cell.

In FESS (Shoham and Schaeffer 2020) advisors propose, at each expansion, moves that improve
their feature; an advised move weighs 0 and any other 1, and within a cell the state of least
accumulated weight goes first. Here a child's move is advised when the child's cell improves on
its parent's in the coordinate of an advisor that is on (see ``ADVISORS``): more boxes packed in
order (*packing*), fewer separate regions of free floor (*connectivity*), fewer blocked room
links (*rooms*, with the room coordinate) or fewer hotspots (*hotspots*, with that coordinate).
Each state carries the count of moves no advisor proposed on its path (``FeatureSpace.advice``),
and its key within its cell grows by ``ADVICE`` per such move. A packing macro is the packing
advisor's move. The knobs are ``advice_weight``, ``advisors`` and ``advice_once`` of
:class:`~evosoko.search.settings.FessSettings` (on by default for push-fess-bi only); measured
with push-fess-bi on XSokoban and the development set: see docs/guide/search.md.
"""

from __future__ import annotations

import numba

from evosoko.search.fess.space import (
    ADVICE,
    ADVICE_ONCE,
    ADVISED_NODE,
    ADVISED_USED,
    ADVISOR_BITS,
    ADVISORS,
    CONNECTIVITY_CAP,
    HOT_VALUES,
    OUT_OF_PLAN_LIMIT,
    ROOM_VALUES,
)
from evosoko.search.store import F_LIMIT, H_BITS, MOVES_BITS

PACKING, CONNECTIVITY, ROOMS, HOTSPOTS = (
    ADVISOR_BITS[name] for name in ("packing", "connectivity", "rooms", "hotspots")
)

F_SHIFT = H_BITS + MOVES_BITS
"""Where ``f`` starts in a heap key (:func:`evosoko.search.store.priority`)."""


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def advised_key(space, parent, parent_cell, child, child_cell, key):  # pragma: no cover
    """``key`` (the child's key within its cell) with the child's advice count added: its
    parent's, plus 1 unless an advisor proposes the move (the child's cell improves on
    ``parent_cell`` in that advisor's coordinate; ``parent_cell`` -1: a packing macro, the
    packing advisor's move), weighted by ``ADVICE`` in ``f``. With ``ADVICE_ONCE`` each advisor
    proposes at most one move per expansion, the first it finds. Advisors off: ``key``."""
    state, advice = space.state, space.advice
    weight = state[ADVICE]
    if weight == 0:
        return key
    if parent_cell < 0:
        proposed = state[ADVISORS] & PACKING
    else:
        proposed = improved_features(state, parent_cell, child_cell) & state[ADVISORS]
        if state[ADVICE_ONCE] != 0:
            if state[ADVISED_NODE] != parent:
                state[ADVISED_NODE] = parent
                state[ADVISED_USED] = 0
            proposed &= ~state[ADVISED_USED]
            proposed &= -proposed  # one advisor proposes it: the lowest bit
            state[ADVISED_USED] |= proposed
    count = advice[parent] + (0 if proposed != 0 else 1)
    advice[child] = count
    f = min((key >> F_SHIFT) + count * weight, F_LIMIT)
    return (f << F_SHIFT) | (key & ((1 << F_SHIFT) - 1))
