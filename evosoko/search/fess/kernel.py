"""The feature-space search kernel: push-level states spread over cells of a feature space.

In the spirit of FESS (Shoham and Schaeffer 2020): every stored state is projected onto a
cell of a small feature space, here *packing* (boxes on goals filled in the retrograde
packing order, :mod:`evosoko.search.packing_order`) times *out-of-plan* (goals filled too
early, or boxes in areas about to be sealed, :mod:`evosoko.search.fess.sealed`) times *room
connectivity* (links between rooms that boxes cut, :mod:`evosoko.sokoban.rooms`) times
*connectivity* (the number of separate regions of free floor: 1 when the player can walk
everywhere). The search does not follow one priority queue; it cycles through the non-empty
cells and expands, in each, the state with the best key (``g * g_weight + h * h_weight`` on
the matching heuristic; with the advisors on, plus a weight per move on its path that no
advisor proposed, see :mod:`evosoko.search.fess.advisors`). States
that made progress of either kind are a small cell among many, and still get one expansion
per cycle: the search pursues many kinds of partial plans at once instead of the few that
one heuristic likes.

The cells, their heaps and the features are in :mod:`evosoko.search.fess.space`, the packing
macros in :mod:`evosoko.search.fess.macros`. The expansion is the push searches' own
(:func:`evosoko.search.push_kernel.expand_pushes`: dead squares, freeze, PI-corrals, dead-end
tunnel and goal-room macros, plus the corridor macros and corral deadlock tests here); the key
and path bookkeeping are the same too, so :func:`evosoko.search.paths.push_path` rebuilds
solutions unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.search.box_paths import BoxPathScratch, make_box_path_scratch
from evosoko.search.fess.space import (
    Hotspots,
    RoomLinks,
    heap_insert,
    no_hotspots,
    state_cell,
)
from evosoko.search.push_kernel import FessArrays, expand_pushes
from evosoko.search.store import priority
from evosoko.sokoban.corral_deadlock import CorralSearch, make_corral_scratch


class Features(NamedTuple):
    """What the feature-space kernels read and write to put a state in its cell, and the
    scratch of their macros and deadlock tests (:func:`make_features`)."""

    layer: np.ndarray
    """int64[cells]: the packing layer of each goal (-1 off goals)."""
    goals_per_layer: np.ndarray
    """int64[layers]: how many goals each layer has."""
    area_ends: np.ndarray
    """int64[layers]: the first layer of each layer's next goal area (the layer count: none)."""
    counts: np.ndarray
    """int64[layers or 1]: scratch, boxes on the goals of each layer."""
    states: np.ndarray
    """int8[layers or 1]: scratch, the state of each layer
    (:func:`evosoko.search.fess.macros.layer_states`)."""
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
    sealed: np.ndarray
    """int64[cells], or no entries: the packing step that seals each cell
    (:func:`evosoko.search.fess.sealed.sealed_steps`)."""
    floor_cells: np.ndarray
    """int64[floor cells]: the cells the connectivity looks at (all cells when not known)."""


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
    patterns: int = 0,
    sealed=None,
    lone_box=None,
    floor=None,
) -> Features:
    """The :class:`Features` of a level with packing ``order``; corral deadlock searches of up to
    ``corral_limit`` positions (0: none), with cluster deadlock tests as well when
    ``cluster_cache`` > 0 (the slots of their cache), of up to ``cluster_limit`` positions
    (None: ``corral_limit``) that give up when more than ``cluster_width`` positions wait (None:
    never); ``link``, ``ends``: see
    :func:`evosoko.sokoban.rooms.room_links` (None: no links; no ends: every blocked link
    counts, see :func:`evosoko.sokoban.rooms.blocked_links`); ``hotspots``: see
    :func:`evosoko.search.fess.space.hotspot_table` (None: none); ``patterns``: how many
    deadlock patterns the corral and cluster tests keep (:mod:`evosoko.sokoban.patterns`);
    ``sealed``: see :func:`evosoko.search.fess.sealed.sealed_steps` (None: none, no box is
    in an area about to be sealed); ``lone_box``: the tables of the lone-box matching test
    (:mod:`evosoko.sokoban.lone_box`; None: none); ``floor``: the level's floor, whose cells
    alone the connectivity looks at (None: every cell)."""
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
        area_ends=order.ends,
        counts=np.zeros(max(1, order.layers), dtype=np.int64),
        states=np.zeros(max(1, order.layers), dtype=np.int8),
        stamp=np.zeros(1, dtype=np.int64),
        mark=np.zeros(cells, dtype=np.int64),
        goal_index=goal_index,
        box_path=make_box_path_scratch(cells),
        corral=make_corral_scratch(
            cells, corral_limit, cluster_cache, cluster_limit, cluster_width, patterns, lone_box
        ),
        links=RoomLinks(link, np.zeros(max(1, int(link.max()) + 1), dtype=np.int64), ends),
        hotspots=no_hotspots(cells) if hotspots is None else hotspots,
        sealed=np.zeros(0, np.int64) if sealed is None else np.asarray(sealed, np.int64),
        floor_cells=np.arange(cells) if floor is None else np.flatnonzero(floor),
    )


def fess_root(features, space, floor, deltas, boxes, h, g_weight, h_weight) -> None:
    """Put the root (node 0, the start with ``boxes``) into the heap of its cell."""
    boxes = np.asarray(boxes, dtype=np.int64)
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    occupied[boxes] = True
    queue = np.zeros(floor.shape[0], dtype=np.int64)
    cell = state_cell(features, space.state, floor, occupied, deltas, boxes, queue, False)
    heap_insert(space, cell, 0, priority(0, h, 0, g_weight, h_weight))


@numba.njit(cache=True)
def fess_search(
    tab, room_tab, features, params, store, space, scratch, work
):  # pragma: no cover - compiled
    """Expand up to ``params[CHUNK]`` nodes of ``store``
    (:class:`evosoko.search.store.StoreArrays`), one per visited cell; returns CONTINUE,
    SOLVED, EXHAUSTED or NEED_SPACE.

    ``features``: see :func:`make_features`; ``space``: the cells
    (:class:`evosoko.search.fess.space.FeatureSpace`). The successor loop is the push
    searches' (:func:`evosoko.search.push_kernel.expand_pushes`).
    """
    return expand_pushes(tab, room_tab, params, store, scratch, work, FessArrays(features, space))
