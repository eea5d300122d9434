"""How far a box configuration is from solved: the GA's distance objectives.

Three objectives (``FitnessConfig.objective``), each a lower-is-better integer that is 0 exactly
when every box is on a goal, measured by :func:`evosoko.sokoban.matching.goal_distance` (the
measure the search's heuristics take too) and capped at ``UNREACHABLE``:

- ``matching``: the minimum-cost perfect matching of boxes to goals on push distances
  (``Level.push_distance``), solved by the Hungarian algorithm; ``UNREACHABLE`` when no
  matching avoids an impossible pair (a bipartite deadlock). Same value as
  :func:`evosoko.sokoban.deadlocks.matching_cost`, computed without leaving numba.
- ``nearest_goal``: each box's push distance to its nearest goal, summed.
- ``manhattan``: each box's Manhattan distance to its nearest goal, summed (the source GA's).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.matching import MANHATTAN, MATCHING, PUSH_DISTANCE, goal_distance

OBJECTIVES = ("matching", "nearest_goal", "manhattan")
"""Objective names."""

_CODES = {"matching": MATCHING, "nearest_goal": PUSH_DISTANCE, "manhattan": MANHATTAN}


def objective_code(name: str) -> int:
    """The kernel code of an objective name (a measure of :func:`goal_distance`)."""
    if name not in _CODES:
        raise ValueError(f"unknown objective {name!r}; expected one of {OBJECTIVES}")
    return _CODES[name]


@numba.njit(cache=True)
def box_objective(objective, arrays, boxes, assignment, work):  # pragma: no cover - compiled
    """The ``objective`` (a code of :func:`objective_code`) of the box cells ``boxes`` on the
    level's arrays, capped at ``UNREACHABLE``; the matching leaves each box's goal in
    ``assignment`` (int16[boxes]; ``work`` is int64[6, boxes + 1] scratch)."""
    total = goal_distance(
        objective,
        arrays.nearest_manhattan,
        arrays.nearest_push,
        arrays.push_distance,
        boxes,
        assignment,
        work,
    )
    return min(total, UNREACHABLE)


def box_distance(level: Level, objective: str, boxes) -> int:
    """The ``objective`` of the box cells ``boxes`` on ``level`` (plain-Python entry point)."""
    cells = np.asarray(list(boxes), dtype=np.int64)
    assignment = np.zeros(len(cells), dtype=np.int16)
    work = np.zeros((6, len(cells) + 1), dtype=np.int64)
    return int(
        box_objective(objective_code(objective), level_arrays(level), cells, assignment, work)
    )
