"""A child position's regions of free floor, from its parent's labels, without a walk.

A push search that expands a position has labelled its regions of free floor (floor without
boxes): the player's, which the expansion's walk marked and a depth-first search from its
smallest cell went through (:func:`evosoko.sokoban.cell_sides.search_region`), and every other,
which :func:`evosoko.sokoban.corrals.pi_corral` numbered. A child moves one box from ``source``
to ``target``. When taking ``target`` away cannot cut the region it lies in (its free
neighbours connect through its ring of eight cells,
:func:`evosoko.sokoban.reach.walkable_around`), or ``target`` lies in the player's region,
whose parts without it the search tells (:func:`evosoko.sokoban.cell_sides.part_of`), the
child's regions are the parent's, that one cut into its parts, with those around ``source``
merged into one (``source`` joins them): their number, any cell's region and the smallest cell
of the player's (the normalized player) follow from the labels. Otherwise the caller walks. The
push searches normalize a child's player so (:mod:`evosoko.search.push_kernel`), and the
feature space counts its regions (:func:`evosoko.search.fess.space.state_cell_told`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sides import SMALLEST, SideSearch, part_of
from evosoko.sokoban.reach import walkable_around

NO_REGION = -1
"""The label of a cell in no region: a wall or a box."""
NOT_TOLD = (-1, (NO_REGION, NO_REGION, NO_REGION, NO_REGION), -1)
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
    sides: SideSearch
    """The depth-first search of the player's region from ``player_smallest``."""
    deltas: np.ndarray
    """int64[4]: the level's steps, to read ``sides`` with."""


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
    """What the parent's labels tell of the child's regions of free floor, a *told* triple:
    (their number, the parent's labels merged at ``source`` in four slots, :data:`NO_REGION`
    where unused, ``target`` when it cuts the player's region into parts, else -1); the number
    is -1 when the labels cannot tell (``target`` may cut another region, or is the smallest
    cell of the player's). ``occupied``: the child's boxes (``source`` free, ``target`` taken);
    ``target`` has a free neighbour, where the player stands after moving the box there."""
    cut = -1
    parts = 1
    if not walkable_around(floor, occupied, target, deltas[1]):
        if parent_label(regions, target) != regions.others or target == regions.player_smallest:
            return NOT_TOLD
        cut = target
        parts = _parts(regions, occupied, target)
    merged = NOT_TOLD[1]
    found = 0
    for k in range(4):
        cell = source + deltas[k]
        label = NO_REGION if cell == cut else _label(regions, cut, cell)
        if label == NO_REGION or label in merged:
            continue
        merged = _with(merged, found, label)
        found += 1
    return regions.others + parts - found + 1, merged, cut  # ``source`` joins those it touches


@numba.njit(cache=True, inline="always")
def _parts(regions, occupied, cut):  # pragma: no cover - compiled
    """How many parts the player's region falls into without its cell ``cut``."""
    seen = 0  # a bit for the part above cut, one for each child heading a part of its own
    for k in range(4):
        cell = cut + regions.deltas[k]
        if not occupied[cell] and regions.reach_mark[cell] == regions.reach:
            seen |= 1 << (part_of(regions.sides, regions.deltas, cut, cell) + 1)
    parts = 0
    for bit in range(5):
        parts += (seen >> bit) & 1
    return parts


@numba.njit(cache=True, inline="always")
def _label(regions, cut, cell):  # pragma: no cover - compiled
    """The region of ``cell`` (not ``cut``) in the child before the merge at ``source``: the
    parent's label, or for a part of the player's region that ``cut`` leaves without the root,
    ``others + 2 +`` the direction of the child of ``cut`` heading it; :data:`NO_REGION` for a
    wall or a box of the parent."""
    label = parent_label(regions, cell)
    if cut >= 0 and label == regions.others:
        part = part_of(regions.sides, regions.deltas, cut, cell)
        if part >= 0:
            return regions.others + 2 + part
    return label


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


LABELS_PAST_OTHERS = 6
"""Labels of :func:`child_label` lie below ``others + LABELS_PAST_OTHERS``."""


@numba.njit(cache=True, inline="always")
def child_label(regions, told, source, occupied, cell):  # pragma: no cover - compiled
    """The region of ``cell`` in the child whose regions :func:`regions_after_move` counted
    (``told``: what it returned): :func:`merged_label` for the merged region, a parent's label
    or a part's (below ``others + LABELS_PAST_OTHERS``) for the others, :data:`NO_REGION` for
    a wall or a box."""
    _, merged, cut = told
    if occupied[cell]:
        return NO_REGION
    if cell == source:
        return merged_label(regions)
    label = _label(regions, cut, cell)
    if label != NO_REGION and label in merged:
        return merged_label(regions)
    return label


@numba.njit(cache=True, inline="always")
def smallest_after_move(regions, told, source, target, occupied, player):  # pragma: no cover
    """The smallest cell of the child's region that holds ``player`` (its normalized player),
    for a child whose regions :func:`regions_after_move` counted (``told``: what it returned);
    -1 when ``target`` was the smallest cell of its region in the parent (a walk must tell)."""
    cut = told[2]
    target_label = parent_label(regions, target)
    if target_label == NO_REGION or _smallest(regions, cut, target_label) == target:
        return -1
    label = child_label(regions, told, source, occupied, player)
    if label != merged_label(regions):
        return _smallest(regions, cut, label)
    smallest = source
    for other in told[1]:
        if other != NO_REGION:
            smallest = min(smallest, _smallest(regions, cut, other))
    return smallest


@numba.njit(cache=True, inline="always")
def _smallest(regions, cut, label):  # pragma: no cover - compiled
    """The smallest cell of the region ``label`` of :func:`_label`."""
    if label == regions.others:
        return regions.player_smallest  # with a cut, the part holding the search's root
    if label > regions.others:
        return regions.sides.tree[SMALLEST, cut + regions.deltas[label - regions.others - 2]]
    return regions.smallest[label]
