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

OBJECTIVES = ("matching", "nearest_goal", "manhattan")
"""Objective names, in the order of their integer codes in the kernels."""

MATCHING, NEAREST_GOAL, MANHATTAN = 0, 1, 2

_INFINITY = np.int64(1) << np.int64(60)


def objective_code(name: str) -> int:
    """The kernel code of an objective name."""
    return OBJECTIVES.index(name)


def manhattan_to_nearest_goal(level: Level) -> np.ndarray:
    """int64[cells]: Manhattan distance from each cell to its nearest goal."""
    rows, columns = np.divmod(np.arange(level.cells), level.width)
    goal_rows, goal_columns = np.divmod(level.goal_cells.astype(np.int64), level.width)
    distance = np.abs(rows[:, None] - goal_rows[None, :]) + np.abs(columns[:, None] - goal_columns[None, :])
    return distance.min(axis=1).astype(np.int64)


@numba.njit(cache=True)
def matching_kernel(push_distance, boxes):  # pragma: no cover - compiled
    """Minimum-cost perfect matching of ``boxes`` to goals (rows of ``push_distance``).

    Hungarian algorithm with potentials, O(n^3) for n boxes; ``UNREACHABLE`` when the best
    matching needs an impossible pair.
    """
    n = boxes.shape[0]
    u = np.zeros(n + 1, dtype=np.int64)
    v = np.zeros(n + 1, dtype=np.int64)
    owner = np.zeros(n + 1, dtype=np.int64)  # owner[goal column] = box row (1-based), 0 = free
    way = np.zeros(n + 1, dtype=np.int64)
    slack = np.empty(n + 1, dtype=np.int64)
    used = np.empty(n + 1, dtype=np.bool_)
    for row in range(1, n + 1):
        owner[0] = row
        column0 = 0
        slack[:] = _INFINITY
        used[:] = False
        while True:
            used[column0] = True
            row0 = owner[column0]
            delta = _INFINITY
            column1 = 0
            box = boxes[row0 - 1]
            for column in range(1, n + 1):
                if not used[column]:
                    reduced = push_distance[column - 1, box] - u[row0] - v[column]
                    if reduced < slack[column]:
                        slack[column] = reduced
                        way[column] = column0
                    if slack[column] < delta:
                        delta = slack[column]
                        column1 = column
            for column in range(n + 1):
                if used[column]:
                    u[owner[column]] += delta
                    v[column] -= delta
                else:
                    slack[column] -= delta
            column0 = column1
            if owner[column0] == 0:
                break
        while True:
            column1 = way[column0]
            owner[column0] = owner[column1]
            column0 = column1
            if column0 == 0:
                break
    total = 0
    for column in range(1, n + 1):
        cost = push_distance[column - 1, boxes[owner[column] - 1]]
        if cost >= UNREACHABLE:
            return UNREACHABLE
        total += cost
    return total


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
