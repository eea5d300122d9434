"""How far a box configuration is from solved: the distance objectives, as numba kernels.

Three objectives (``FitnessConfig.objective``), each a lower-is-better integer that is 0 exactly
when every box is on a goal:

- ``matching``: the minimum-cost perfect matching of boxes to goals on push distances
  (``Level.push_distance``), solved by the Hungarian algorithm; ``UNREACHABLE`` when no
  matching avoids an impossible pair (a bipartite deadlock). Same value as
  :func:`evosoko.sokoban.deadlocks.matching_cost`, computed without leaving numba.
- ``nearest_goal``: each box's push distance to its nearest goal, summed (capped at
  ``UNREACHABLE``).
- ``manhattan``: each box's Manhattan distance to its nearest goal, summed (the source GA's).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.matching import matching_kernel as assignment_kernel

OBJECTIVES = ("matching", "nearest_goal", "manhattan")
"""Objective names, in the order of their integer codes in the kernels."""

MATCHING, NEAREST_GOAL, MANHATTAN = 0, 1, 2


def objective_code(name: str) -> int:
    """The kernel code of an objective name."""
    return OBJECTIVES.index(name)


def manhattan_to_nearest_goal(level: Level) -> np.ndarray:
    """int64[cells]: Manhattan distance from each cell to its nearest goal."""
    rows, columns = np.divmod(np.arange(level.cells, dtype=np.int64), level.width)
    goal_rows, goal_columns = np.divmod(level.goal_cells.astype(np.int64), level.width)
    distance = np.full(level.cells, np.iinfo(np.int64).max, dtype=np.int64)
    for goal_row, goal_column in zip(goal_rows.tolist(), goal_columns.tolist()):  # memory: cells
        np.minimum(distance, np.abs(rows - goal_row) + np.abs(columns - goal_column), out=distance)
    return distance


@numba.njit(cache=True)
def matching_kernel(push_distance, boxes):  # pragma: no cover - compiled
    """Minimum-cost perfect matching of ``boxes`` to goals (rows of ``push_distance``), or
    ``UNREACHABLE`` when the best matching needs an impossible pair."""
    n = boxes.shape[0]
    assignment = np.empty(n, dtype=np.int16)
    work = np.empty((6, n + 1), dtype=np.int64)
    return min(assignment_kernel(push_distance, boxes, assignment, work), UNREACHABLE)


@numba.njit(cache=True)
def distance_kernel(objective, boxes, push_distance, nearest, manhattan):  # pragma: no cover
    """The ``objective`` (a code of :data:`OBJECTIVES`) of the box cells ``boxes``."""
    if objective == MATCHING:
        return matching_kernel(push_distance, boxes)
    total = 0
    table = nearest if objective == NEAREST_GOAL else manhattan
    for k in range(boxes.shape[0]):
        total += table[boxes[k]]
    return min(total, UNREACHABLE)


def box_distance(level: Level, objective: str, boxes) -> int:
    """The ``objective`` of the box cells ``boxes`` on ``level`` (plain-Python entry point)."""
    cells = np.asarray(list(boxes), dtype=np.int64)
    return int(
        distance_kernel(
            objective_code(objective),
            cells,
            level.push_distance.astype(np.int64),
            level.nearest_goal_distance.astype(np.int64),
            manhattan_to_nearest_goal(level),
        )
    )
