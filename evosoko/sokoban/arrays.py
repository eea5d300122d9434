"""The flat arrays of a level that every compiled kernel reads, in one read-only structure.

:class:`LevelArrays` is a named tuple (numba takes named tuples as they are) built once per
level by :func:`level_arrays`: the search, the GA's replay kernels and the Python rules all read
their geometry, goals, dead squares, push distances and Zobrist keys from it, instead of each
building tables of its own and passing them on as long lists of arguments. The arrays are
read-only (but ``push_distance``, see :func:`_build`): numba compiles a kernel apart for
read-only and writable arrays, so each kernel compiles once for them.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.reach import normalized_player
from evosoko.sokoban.zobrist import boxes_hash, zobrist_keys


class LevelArrays(NamedTuple):
    """Read-only flat arrays of one level (``cells = width * height``)."""

    width: int
    floor_cells: int  # how many cells are floor
    deltas: np.ndarray  # int64[4]: flat offsets of u d l r
    floor: np.ndarray  # bool[cells]: reachable by the player from the start, boxes ignored
    goals: np.ndarray  # bool[cells]
    dead: np.ndarray  # bool[cells]: dead squares (floor cells from which no goal is reached)
    push_distance: np.ndarray  # int64[goals, cells]: pushes of a lone box to each goal
    nearest_push: np.ndarray  # int64[cells]: push distance to the nearest goal
    nearest_manhattan: np.ndarray  # int64[cells]: Manhattan distance to the nearest goal
    rows: np.ndarray  # int64[cells]: row of each cell
    columns: np.ndarray  # int64[cells]: column of each cell
    zobrist_box: np.ndarray  # uint64[cells]: hash key of a box on each cell
    zobrist_player: np.ndarray  # uint64[cells]: hash key of the normalized player on each cell
    dead_end_tunnel: np.ndarray  # bool[4, cells]: see :func:`dead_end_tunnels`

    @property
    def cells(self) -> int:
        """Cells of the board rectangle."""
        return len(self.floor)


_cache: dict[int, tuple[weakref.ref, LevelArrays]] = {}


def level_arrays(level: Level) -> LevelArrays:
    """The :class:`LevelArrays` of ``level``, built once and kept while the level lives."""
    entry = _cache.get(id(level))
    if entry is not None and entry[0]() is level:
        return entry[1]
    arrays = _build(level)
    key = id(level)
    _cache[key] = (weakref.ref(level), arrays)
    weakref.finalize(level, _cache.pop, key, None)
    return arrays


def _build(level: Level) -> LevelArrays:
    rows, columns = np.divmod(np.arange(level.cells, dtype=np.int64), level.width)
    box_keys, player_keys = zobrist_keys(level.cells)
    return LevelArrays(
        width=int(level.width),
        floor_cells=int(np.count_nonzero(level.floor)),
        deltas=_read_only(np.array(level.deltas, dtype=np.int64)),
        floor=_read_only(np.array(level.floor, dtype=np.bool_)),
        goals=_read_only(np.array(level.goals, dtype=np.bool_)),
        dead=_read_only(np.array(level.dead_squares, dtype=np.bool_)),
        # writable, unlike the others: the GA's matching over frozen-goal tables (scratch it
        # writes) then shares the matching kernel's compilation with this table's
        push_distance=np.array(level.push_distance, dtype=np.int64),
        nearest_push=_read_only(np.array(level.nearest_goal_distance, dtype=np.int64)),
        nearest_manhattan=_read_only(manhattan_to_nearest_goal(level)),
        rows=_read_only(rows),
        columns=_read_only(columns),
        zobrist_box=_read_only(box_keys),
        zobrist_player=_read_only(player_keys),
        dead_end_tunnel=_read_only(dead_end_tunnels(level)),
    )


def arrays_bytes(tables: tuple) -> int:
    """Bytes the arrays of ``tables`` (a NamedTuple of arrays, such as a deadlock pattern store)
    take: a search counts its tables against its memory limit."""
    return sum(int(array.nbytes) for array in tables)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def read_only_cells(values) -> np.ndarray:
    """int64 copy of ``values`` (box cells, a start position), read-only like the level's
    arrays so that kernels compile once for both."""
    return _read_only(np.array(values, dtype=np.int64))


def manhattan_to_nearest_goal(level: Level) -> np.ndarray:
    """int64[cells]: Manhattan distance from each floor cell to its nearest goal
    (``UNREACHABLE`` off the floor)."""
    rows, columns = np.divmod(np.arange(level.cells, dtype=np.int64), level.width)
    goal_rows, goal_columns = np.divmod(level.goal_cells.astype(np.int64), level.width)
    nearest = np.full(level.cells, UNREACHABLE, dtype=np.int64)
    for goal_row, goal_column in zip(goal_rows.tolist(), goal_columns.tolist()):  # memory: cells
        np.minimum(nearest, np.abs(rows - goal_row) + np.abs(columns - goal_column), out=nearest)
    return np.where(level.floor, nearest, UNREACHABLE).astype(np.int64)


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
    """One direction of :func:`dead_end_tunnels` in one sweep against ``delta`` (linear in the
    board): a tunnel cell ends blocked when the cell ahead is not floor, or is a tunnel cell
    that ends blocked."""
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


def state_hash(level, state) -> int:
    """The hash of ``state`` (a :class:`~evosoko.sokoban.level.State` of ``level``)."""
    arrays = level_arrays(level)
    boxes = np.array(state.boxes, dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    mark = np.zeros(level.cells, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    player = normalized_player(
        arrays.floor, occupied, arrays.deltas, int(state.player), mark, 1, queue
    )
    return int(boxes_hash(arrays.zobrist_box, boxes)) ^ int(arrays.zobrist_player[player])
