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

import numba

from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import MANHATTAN, MATCHING, PUSH_DISTANCE
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
