"""Room shapes: a random-walk carving, a Markov chain of walls and floor, and an open room.

Every room is a ``bool[width*height]`` wall array whose outer ring is wall.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from evosoko.generate.sketch import bordered_room, regions


def carved_room(width: int, height: int, floor_fraction: float, rng: random.Random) -> np.ndarray:
    """Walls of a room carved by a random walk over the interior.

    The walk starts on a random interior cell and turns every cell it steps on into floor until
    ``floor_fraction`` of the interior is floor, so the floor is always connected.
    """
    inner_width, inner_height = width - 2, height - 2
    target = max(1, round(floor_fraction * inner_width * inner_height))
    interior = np.ones((inner_height, inner_width), dtype=bool)
    row, column = rng.randrange(inner_height), rng.randrange(inner_width)
    interior[row, column] = False
    carved = 1
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    while carved < target:
        step_row, step_column = rng.choice(steps)
        row = min(max(row + step_row, 0), inner_height - 1)
        column = min(max(column + step_column, 0), inner_width - 1)
        if interior[row, column]:
            interior[row, column] = False
            carved += 1
    return bordered_room(width, height, interior)


@dataclass(frozen=True)
class MarkovTable:
    """Probability of a wall for the first interior cell and after a wall or a floor cell."""

    start_wall: float = 0.5
    wall_after_wall: float = 0.4
    wall_after_floor: float = 0.4


SOURCE_TABLE = MarkovTable()
"""The transition table of the source document: start 0.5/0.5, then 0.4 wall / 0.6 floor."""


def markov_room(
    width: int, height: int, rng: random.Random, table: MarkovTable = SOURCE_TABLE
) -> np.ndarray:
    """Walls drawn cell by cell over the interior in row-major order by a two-state Markov chain.

    The chain runs once through the whole interior: each cell's wall probability depends on the
    cell drawn just before it (the previous cell of the row, or the last cell of the row above).
    """
    inner = (width - 2) * (height - 2)
    interior = np.empty(inner, dtype=bool)
    wall = rng.random() < table.start_wall
    interior[0] = wall
    for index in range(1, inner):
        wall = rng.random() < (table.wall_after_wall if wall else table.wall_after_floor)
        interior[index] = wall
    return bordered_room(width, height, interior.reshape(height - 2, width - 2))


def open_room(width: int, height: int) -> np.ndarray:
    """Walls of an empty room: only the border ring."""
    return bordered_room(width, height)


def largest_region(width: int, height: int, walls: np.ndarray) -> np.ndarray:
    """``bool[cells]``: the largest connected floor region (the first one on ties)."""
    found = regions(width, height, ~walls)
    if not found:
        return np.zeros(len(walls), dtype=bool)
    return max(found, key=lambda region: int(region.sum()))
