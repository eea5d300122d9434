"""Heuristic estimates of the remaining cost, compiled, and their names.

The box term is :func:`evosoko.sokoban.matching.goal_distance` (imported here as ``box_term``),
which the GA's fitness measures too.

Box terms (each a lower bound on the pushes left, and consistent: one push changes them by at
most one): ``manhattan`` (each box's Manhattan distance to its nearest goal), ``push-distance``
(each box's push distance to its nearest goal, other boxes ignored) and ``matching`` (minimum
cost perfect matching of boxes to goals on push distances; ``UNREACHABLE`` or more means a
bipartite deadlock). Move-level searches add a player term: the player's Manhattan distance to
the nearest box less one; ``manhattan-source`` is the source document's variant, Manhattan box
term plus the player term *without* the "less one" (not admissible, kept to reproduce its table).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sets import copy_cells
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import MANHATTAN, MATCHING, PUSH_DISTANCE, matching_update
from evosoko.sokoban.matching import goal_distance as box_term  # noqa: F401 - kernels use it

MANHATTAN_SOURCE = 3
"""The source document's variant: the Manhattan box term (:func:`box_term` reads it as
``MANHATTAN``) plus a player term without the "less one"."""
HEURISTICS = {
    "manhattan": MANHATTAN,
    "push-distance": PUSH_DISTANCE,
    "matching": MATCHING,
    "manhattan-source": MANHATTAN_SOURCE,
}
"""Heuristic names and their kernel codes."""

PUSH_HEURISTICS = ("manhattan", "push-distance", "matching")
"""Heuristics that push-level searches accept (no player term)."""


@numba.njit(cache=True)
def player_term(kind, rows, columns, goals, boxes, player):  # pragma: no cover - compiled
    """Player's Manhattan distance to the nearest box, less one unless ``manhattan-source``.

    Zero when every box is on a goal.
    """
    nearest = UNREACHABLE
    all_on_goals = True
    for b in boxes:
        if not goals[b]:
            all_on_goals = False
        distance = abs(rows[b] - rows[player]) + abs(columns[b] - columns[player])
        nearest = min(nearest, distance)
    if all_on_goals:
        return 0
    if kind == MANHATTAN_SOURCE:
        return nearest
    return nearest - 1


class ChildRows(NamedTuple):
    """The child being made by a push: its sorted boxes and, with the matching heuristic, each
    box's goal and the goals' potentials (the rows a new node gets)."""

    boxes: np.ndarray
    """The store's cell type [boxes]."""
    assign: np.ndarray
    """The store's cell type [boxes]: the goal of each box."""
    potential: np.ndarray
    """int32[boxes]: the goals' dual potentials."""


class HeuristicTables(NamedTuple):
    """What :func:`child_h` reads: the heuristic's kind (:mod:`evosoko.search.heuristics`) and
    its tables, taken from the level's arrays once per kernel call, so that the call made for
    each child passes these three arrays and not all of the level's."""

    kind: int
    nearest_manhattan: np.ndarray
    """int64[cells]: Manhattan distance to the nearest goal."""
    nearest_push: np.ndarray
    """int64[cells]: push distance to the nearest goal."""
    push_distance: np.ndarray
    """int64[goals, cells]: pushes of a lone box to each goal."""


@numba.njit(cache=True, inline="always")
def heuristic_tables(tab, kind):  # pragma: no cover - compiled
    """The :class:`HeuristicTables` of ``kind`` from the level's arrays ``tab``."""
    return HeuristicTables(kind, tab.nearest_manhattan, tab.nearest_push, tab.push_distance)


@uncounted
def child_h(
    heuristic, parent_h, parent_potential, source, target, moved, child, work
):  # pragma: no cover - compiled
    """Heuristic (:class:`HeuristicTables`) of the child of a node of ``parent_h`` after the
    box on ``source`` went to ``target`` (row ``moved`` of ``child.boxes``), and whether a
    matching was updated.

    Manhattan and push distance: the parent's sum with the moved box's term changed. Matching:
    ``child.assign`` holds the parent's assignment in the child's order
    (:func:`evosoko.sokoban.successors.moved_child`);
    :func:`evosoko.sokoban.matching.matching_update` re-matches the moved box in O(n^2) from the
    parent's potentials ``parent_potential``, filling ``child.assign`` and ``child.potential``: the
    same cost a full O(n^3) matching gives.
    """
    kind = heuristic.kind
    if kind == MANHATTAN:
        nearest = heuristic.nearest_manhattan
        return parent_h - nearest[source] + nearest[target], False
    if kind == PUSH_DISTANCE:
        nearest = heuristic.nearest_push
        return parent_h - nearest[source] + nearest[target], False
    copy_cells(child.potential, parent_potential)
    h = matching_update(
        heuristic.push_distance, child.boxes, child.assign, child.potential, moved, work
    )
    return h, True
