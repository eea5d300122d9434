"""Flat per-level arrays read by the search kernels, built once per level from ``sokoban/``.

Everything here is derived from the level's own tables (floor, goals, dead squares, push
distances) and from the replay kernel's Zobrist keys, so a search hash equals
:func:`evosoko.sokoban.kernels.state_hash` of the same position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from evosoko.sokoban.kernels import replay_tables
from evosoko.sokoban.level import UNREACHABLE, Level


@dataclass(frozen=True, eq=False)
class SearchTables:
    """Read-only flat arrays of one level, in the layout the kernels take (see :meth:`packed`)."""

    floor: np.ndarray  # bool[cells]
    blocked: np.ndarray  # bool[cells]: not floor (walls and the outside)
    dead: np.ndarray  # bool[cells]: dead squares
    goals: np.ndarray  # bool[cells]
    deltas: np.ndarray  # int64[4]: u d l r
    rows: np.ndarray  # int64[cells]: row of each cell
    columns: np.ndarray  # int64[cells]: column of each cell
    push_distance: np.ndarray  # int64[goals, cells]
    nearest_push: np.ndarray  # int64[cells]: push distance to the nearest goal
    nearest_manhattan: np.ndarray  # int64[cells]: Manhattan distance to the nearest goal
    zobrist_box: np.ndarray  # uint64[cells]
    zobrist_player: np.ndarray  # uint64[cells]
    dead_end_tunnel: np.ndarray  # bool[4, cells]: see :func:`dead_end_tunnels`

    def packed(self) -> tuple:
        """The tuple of arrays every kernel receives as ``tab``."""
        return (
            self.floor,
            self.blocked,
            self.dead,
            self.goals,
            self.deltas,
            self.rows,
            self.columns,
            self.push_distance,
            self.nearest_push,
            self.nearest_manhattan,
            self.zobrist_box,
            self.zobrist_player,
            self.dead_end_tunnel,
        )


def search_tables(level: Level) -> SearchTables:
    """The :class:`SearchTables` of ``level``."""
    replay = replay_tables(level)
    cells = level.cells
    rows, columns = np.divmod(np.arange(cells, dtype=np.int64), level.width)
    goal_cells = level.goal_cells.astype(np.int64)
    goal_rows, goal_columns = np.divmod(goal_cells, level.width)
    nearest = np.full(cells, UNREACHABLE, dtype=np.int64)
    for goal_row, goal_column in zip(goal_rows.tolist(), goal_columns.tolist()):  # memory: cells
        np.minimum(nearest, np.abs(rows - goal_row) + np.abs(columns - goal_column), out=nearest)
    nearest_manhattan = np.where(level.floor, nearest, UNREACHABLE)
    return SearchTables(
        floor=level.floor.astype(np.bool_),
        blocked=~level.floor,
        dead=level.dead_squares.astype(np.bool_),
        goals=level.goals.astype(np.bool_),
        deltas=np.array(level.deltas, dtype=np.int64),
        rows=rows,
        columns=columns,
        push_distance=level.push_distance.astype(np.int64),
        nearest_push=level.nearest_goal_distance.astype(np.int64),
        nearest_manhattan=nearest_manhattan.astype(np.int64),
        zobrist_box=np.asarray(replay.zobrist_box, dtype=np.uint64),
        zobrist_player=np.asarray(replay.zobrist_player, dtype=np.uint64),
        dead_end_tunnel=dead_end_tunnels(level),
    )


def dead_end_tunnels(level: Level) -> np.ndarray:
    """bool[4, cells]: ``[d, c]`` when a box on ``c`` lies in a dead-end tunnel along ``d``.

    That is: ``c`` and every floor cell after it in direction ``d`` have non-floor cells on
    both sides across ``d``, and the run ends at a non-floor cell. A box there can only move on
    in direction ``d`` (nobody can get past it to push it back), and it must end on the
    deepest free goal ahead of it (short of it that goal is sealed, past it the box stays off
    goal); so pushing it there at once loses nothing, and with no goal ahead it is lost.
    """
    floor = np.asarray(level.floor, dtype=np.bool_)
    deltas = level.deltas
    across = {0: (2, 3), 1: (2, 3), 2: (0, 1), 3: (0, 1)}
    table = np.zeros((4, level.cells), dtype=np.bool_)
    for direction in range(4):
        side_a, side_b = (deltas[k] for k in across[direction])
        _mark_dead_end_tunnels(floor, deltas[direction], side_a, side_b, table[direction])
    return table


@numba.njit(cache=True)
def _mark_dead_end_tunnels(floor, delta, side_a, side_b, marks):  # pragma: no cover - compiled
    """One direction of :func:`dead_end_tunnels` in one sweep against ``delta``: a tunnel cell
    ends blocked when the cell ahead is not floor, or is a tunnel cell that ends blocked."""
    cells = floor.shape[0]
    start, stop, step = (cells - 1, -1, -1) if delta > 0 else (0, cells, 1)
    for cell in range(start, stop, step):
        if not floor[cell] or floor[cell + side_a] or floor[cell + side_b]:
            continue  # not a tunnel cell (floor cells are never on the border)
        ahead = cell + delta
        if floor[ahead] and not floor[ahead + side_a] and not floor[ahead + side_b]:
            marks[cell] = marks[ahead]
        else:
            marks[cell] = not floor[ahead]
