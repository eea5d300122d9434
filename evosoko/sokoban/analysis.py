"""Per-level tables computed once: push distances by reverse pulls, and what follows from them."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from evosoko.sokoban.level import UNREACHABLE

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level


def pull_distances_from(level: "Level", goal: int, floor: np.ndarray | None = None) -> np.ndarray:
    """int32[cells]: fewest pushes taking a lone box from each cell to ``goal``.

    Breadth-first search over box cells by reverse pulls: a box at ``b`` can be pulled in
    direction ``d`` when ``b+d`` (where the puller stands) and ``b+2d`` (where it steps back to)
    are floor (``floor``: the level's, or one with extra walls). Other boxes are ignored, so
    the distance is a lower bound.
    """
    distance = np.full(level.cells, UNREACHABLE, dtype=np.int32)
    floor = level.floor if floor is None else floor
    distance[goal] = 0
    queue = deque([goal])
    deltas = level.deltas
    while queue:
        box = queue.popleft()
        next_distance = distance[box] + 1
        for delta in deltas:
            pulled_to = box + delta
            player_to = pulled_to + delta
            if floor[pulled_to] and floor[player_to] and distance[pulled_to] == UNREACHABLE:
                distance[pulled_to] = next_distance
                queue.append(pulled_to)
    return distance


def push_distances(level: "Level") -> np.ndarray:
    """int32[goals, cells]: :func:`pull_distances_from` for every goal, in ``goal_cells`` order."""
    goal_cells = level.goal_cells
    table = np.full((len(goal_cells), level.cells), UNREACHABLE, dtype=np.int32)
    for row, goal in enumerate(goal_cells.tolist()):
        table[row] = pull_distances_from(level, goal)
    return table
