"""Per-level tables computed once: push distances by reverse pulls, and what follows from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from evosoko.sokoban.symbols import UNREACHABLE

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
    pull_distances(open_cells, _read_only_deltas(level), int(goal), row, queue)
    return row.astype(np.int32)


def push_distances(level: Level) -> np.ndarray:
    """int32[goals, cells]: :func:`pull_distances_from` for every goal, in ``goal_cells`` order.

    Raises :class:`LevelFormatError` (naming the level) when the table would have more than
    :data:`MAX_DISTANCE_ENTRIES` entries, before allocating it.
    """
    goal_cells = level.goal_cells
    entries = len(goal_cells) * level.cells
    if entries > MAX_DISTANCE_ENTRIES:
        raise _too_large(level, entries)
    table = np.empty((len(goal_cells), level.cells), dtype=np.int32)
    open_cells = np.array(level.floor, dtype=np.bool_)
    deltas = _read_only_deltas(level)
    row = np.empty(level.cells, dtype=np.int64)  # one row of scratch: no goals x cells int64
    queue = np.empty(level.cells, dtype=np.int64)
    for index, goal in enumerate(goal_cells.tolist()):
        pull_distances(open_cells, deltas, goal, row, queue)
        table[index] = row
    return table


def _read_only_deltas(level: Level) -> np.ndarray:
    deltas = np.array(level.deltas, dtype=np.int64)
    deltas.setflags(write=False)  # as in the level's arrays: the kernel compiles once
    return deltas


MAX_DISTANCE_ENTRIES = 1 << 28
"""Most entries (goals x cells) of a level's push-distance table: 1 GiB of int32. A level with
more goals on a larger board cannot be analysed (searched or evolved); reading and showing it
still work."""


def _too_large(level: Level, entries: int):
    from evosoko.errors import LevelFormatError

    origin = level.origin
    label = f"level {level.name}"
    return LevelFormatError(
        f"{label}: {level.box_count:,} goals on {level.cells:,} cells need a push-distance table "
        f"of {entries:,} entries, more than the {MAX_DISTANCE_ENTRIES:,} evosoko allows",
        origin.path if origin else None,
        origin.line if origin else None,
    )


@numba.njit(cache=True)
def pull_distances(open_cells, deltas, goal, row, queue):  # pragma: no cover - compiled
    """Fewest pushes taking a lone box from each cell to ``goal`` (reverse pulls over
    ``open_cells``), written into ``row`` (``UNREACHABLE`` where there is none); ``queue`` is
    scratch of the board's size. The one pull-distance kernel (the GA's push rules call it)."""
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
