"""Per-level tables computed once: push distances by reverse pulls, and what follows from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from evosoko.sokoban.level import UNREACHABLE

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level


def pull_distances_from(level: Level, goal: int, floor: np.ndarray | None = None) -> np.ndarray:
    """int32[cells]: fewest pushes taking a lone box from each cell to ``goal``.

    Breadth-first search over box cells by reverse pulls: a box at ``b`` can be pulled in
    direction ``d`` when ``b+d`` (where the puller stands) and ``b+2d`` (where it steps back to)
    are floor (``floor``: the level's, or one with extra walls). Other boxes are ignored, so
    the distance is a lower bound.
    """
    open_cells = np.array(level.floor if floor is None else floor, dtype=np.bool_)
    row = np.empty(level.cells, dtype=np.int64)
    queue = np.empty(level.cells, dtype=np.int64)
    deltas = np.array(level.deltas, dtype=np.int64)
    deltas.setflags(write=False)  # as in the level's arrays: the kernel compiles once
    pull_distances(open_cells, deltas, int(goal), row, queue)
    return row.astype(np.int32)


def push_distances(level: Level) -> np.ndarray:
    """int32[goals, cells]: :func:`pull_distances_from` for every goal, in ``goal_cells`` order."""
    goal_cells = level.goal_cells
    table = np.full((len(goal_cells), level.cells), UNREACHABLE, dtype=np.int32)
    for row, goal in enumerate(goal_cells.tolist()):
        table[row] = pull_distances_from(level, goal)
    return table


@numba.njit(cache=True)
def pull_distances(open_cells, deltas, goal, row, queue):  # pragma: no cover - compiled
    """Fewest pushes taking a lone box from each cell to ``goal`` (reverse pulls over
    ``open_cells``), written into ``row`` (``UNREACHABLE`` where there is none)."""
    for cell in range(row.shape[0]):
        row[cell] = UNREACHABLE
    row[goal] = 0
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        box = queue[head]
        head += 1
        for k in range(4):
            pulled_to = box + deltas[k]
            player_to = pulled_to + deltas[k]
            if open_cells[pulled_to] and open_cells[player_to] and row[pulled_to] == UNREACHABLE:
                row[pulled_to] = row[box] + 1
                queue[tail] = pulled_to
                tail += 1
