"""A child position's regions of free floor, from its parent's labels, without a walk.

A push search that expands a position has labelled its regions of free floor (floor without
boxes): the player's, which the expansion's walk marked, and every other, which
:func:`evosoko.sokoban.corrals.pi_corral` numbered. A child moves one box from ``source`` to
``target``. When taking ``target`` away cannot cut the region it lies in (its free neighbours
connect through its ring of eight cells, :func:`evosoko.sokoban.reach.walkable_around`), the
child's regions are the parent's with those around ``source`` merged into one (``source`` joins
them): their number, any cell's region and the smallest cell of the player's (the normalized
player) follow from the labels. Otherwise the caller walks. The push searches normalize a
child's player so (:mod:`evosoko.search.push_kernel`), and the feature space counts its regions
(:func:`evosoko.search.fess.space.state_cell_told`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.reach import walkable_around

NO_REGION = -1
"""The label of a cell in no region: a wall or a box."""
NOT_TOLD = (-1, (NO_REGION, NO_REGION, NO_REGION, NO_REGION))
"""What :func:`regions_after_move` returns when the labels cannot tell."""


class ParentRegions(NamedTuple):
    """The labelled regions of free floor of the expanded position."""

    reach_mark: np.ndarray
    """int64[cells]: ``reach`` on the player's region."""
    reach: int
    region: np.ndarray
    """int64[cells]: the number of each other region's cells (those marked ``region_stamp``)."""
    region_mark: np.ndarray
    region_stamp: int
    others: int
    """How many regions there are besides the player's (numbered 0 .. others - 1)."""
    smallest: np.ndarray
    """int64[others or more]: each other region's smallest cell."""
    player_smallest: int
    """The smallest cell of the player's region (the normalized player)."""


@numba.njit(cache=True, inline="always")
def parent_label(regions, cell):  # pragma: no cover - compiled
    """The region of ``cell`` in the parent: ``regions.others`` for the player's, a number
    below it for another, :data:`NO_REGION` for a wall or a box."""
    if regions.reach_mark[cell] == regions.reach:
        return regions.others
    if regions.region_mark[cell] == regions.region_stamp:
        return regions.region[cell]
    return NO_REGION


@uncounted
def regions_after_move(regions, floor, occupied, deltas, source, target):  # pragma: no cover
    """(regions of free floor of the child, the parent's labels merged at ``source``, four
    slots, :data:`NO_REGION` where unused); the count is -1 when taking ``target`` away may cut
    its region. ``occupied``: the child's boxes (``source`` free, ``target`` taken); ``target``
    has a free neighbour, where the player stands after moving the box there."""
    if not walkable_around(floor, occupied, target, deltas[1]):
        return NOT_TOLD
    merged = NOT_TOLD[1]
    found = 0
    for k in range(4):
        label = parent_label(regions, source + deltas[k])
        if label == NO_REGION or label in merged:
            continue
        merged = _with(merged, found, label)
        found += 1
    return regions.others + 1 - found + 1, merged  # ``source`` joins the regions it touches


@numba.njit(cache=True, inline="always")
def _with(labels, slot, label):  # pragma: no cover - compiled
    """``labels`` with ``label`` in ``slot``."""
    first, second, third, fourth = labels
    if slot == 0:
        return (label, second, third, fourth)
    if slot == 1:
        return (first, label, third, fourth)
    if slot == 2:
        return (first, second, label, fourth)
    return (first, second, third, label)


@numba.njit(cache=True, inline="always")
def merged_label(regions):  # pragma: no cover - compiled
    """The child's label of the region that ``source`` and the regions around it make."""
    return regions.others + 1


@numba.njit(cache=True, inline="always")
def child_label(regions, merged, source, occupied, cell):  # pragma: no cover - compiled
    """The region of ``cell`` in the child whose regions :func:`regions_after_move` counted
    (``merged``: the labels it merged): :func:`merged_label` for the merged region, a parent's
    label for the others, :data:`NO_REGION` for a wall or a box."""
    if occupied[cell]:
        return NO_REGION
    if cell == source:
        return merged_label(regions)
    label = parent_label(regions, cell)
    if label != NO_REGION and label in merged:
        return merged_label(regions)
    return label


@numba.njit(cache=True, inline="always")
def smallest_after_move(regions, merged, source, target, occupied, player):  # pragma: no cover
    """The smallest cell of the child's region that holds ``player`` (its normalized player),
    for a child whose regions :func:`regions_after_move` counted; -1 when ``target`` was the
    smallest cell of its region in the parent (a walk must tell)."""
    target_label = parent_label(regions, target)
    if target_label == NO_REGION or _smallest(regions, target_label) == target:
        return -1
    label = child_label(regions, merged, source, occupied, player)
    if label != merged_label(regions):
        return _smallest(regions, label)
    smallest = source
    for other in merged:
        if other != NO_REGION:
            smallest = min(smallest, _smallest(regions, other))
    return smallest


@numba.njit(cache=True, inline="always")
def _smallest(regions, label):  # pragma: no cover - compiled
    """The smallest cell of the parent's region ``label``."""
    if label == regions.others:
        return regions.player_smallest
    return regions.smallest[label]
