"""A candidate level under construction: a rectangle of walls plus goals, boxes and the player.

Generators draw rooms and place pieces on a :class:`Sketch`; it becomes a validated
:class:`~evosoko.sokoban.level.Level` through the same ``level_from_rows`` every parser uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.level import (
    BOX,
    BOX_ON_GOAL,
    FLOOR,
    GOAL,
    PLAYER,
    PLAYER_ON_GOAL,
    WALL,
    Level,
    flood_fill,
    neighbour_table,
)
from evosoko.sokoban.rules import normalized_player


@dataclass(frozen=True)
class Sketch:
    """Walls (``bool[width*height]``, border included), goal and box cells and the player's cell."""

    width: int
    height: int
    walls: np.ndarray
    goals: tuple[int, ...]
    boxes: tuple[int, ...]
    player: int

    def rows(self) -> list[str]:
        """Canonical XSB rows (floor as a space, trailing blanks cut).

        Only walls that touch the floor (diagonals included) are drawn; the rest is outside.
        """
        outline = touching_floor(self.walls.reshape(self.height, self.width)).ravel()
        grid = [WALL if wall else FLOOR for wall in outline.tolist()]
        goals = set(self.goals)
        for goal in goals:
            grid[goal] = GOAL
        for box in self.boxes:
            grid[box] = BOX_ON_GOAL if box in goals else BOX
        grid[self.player] = PLAYER_ON_GOAL if self.player in goals else PLAYER
        width = self.width
        return ["".join(grid[r * width : (r + 1) * width]).rstrip() for r in range(self.height)]

    def is_solved(self) -> bool:
        """True when every box already stands on a goal (a trivial, rejected level)."""
        return set(self.boxes) <= set(self.goals)

    def to_level(self, title: str | None = None, notes: Sequence[tuple[str, str]] = ()) -> Level:
        """The validated level (raises ``LevelFormatError`` if the sketch is not a valid level)."""
        return level_from_rows(self.rows(), title=title, notes=notes)


def touching_floor(walls: np.ndarray) -> np.ndarray:
    """``bool[h, w]``: the walls with a floor cell among their eight neighbours."""
    floor = np.pad(~walls, 1)
    near = np.zeros_like(walls)
    height, width = walls.shape
    for row_shift in (0, 1, 2):
        for column_shift in (0, 1, 2):
            near |= floor[row_shift : row_shift + height, column_shift : column_shift + width]
    return walls & near


def bordered_room(width: int, height: int, interior_walls: np.ndarray | None = None) -> np.ndarray:
    """``bool[width*height]`` walls: the border ring, plus ``interior_walls`` (a (h-2, w-2)
    array)."""
    walls = np.ones((height, width), dtype=bool)
    walls[1:-1, 1:-1] = False if interior_walls is None else interior_walls
    return walls.ravel()


def interior_cells(width: int, height: int, margin: int = 1) -> list[int]:
    """Flat cells at least ``margin`` cells away from the outer edge, in row-major order."""
    return [
        row * width + column
        for row in range(margin, height - margin)
        for column in range(margin, width - margin)
    ]


def regions(width: int, height: int, passable: np.ndarray) -> list[np.ndarray]:
    """The connected components of ``passable`` cells, each a ``bool[cells]`` mask, by first
    cell."""
    neighbours = neighbour_table(width, height)
    seen = np.zeros(len(passable), dtype=bool)
    found = []
    for cell in np.flatnonzero(passable).tolist():
        if not seen[cell]:
            region = flood_fill(passable, neighbours, cell)
            seen |= region
            found.append(region)
    return found


def fingerprint(level: Level) -> tuple:
    """Identity of a puzzle regardless of title and of where in its region the player starts."""
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(level.start.boxes)] = True
    return (
        level.width,
        level.height,
        level.walls.tobytes(),
        level.goals.tobytes(),
        level.start.boxes,
        normalized_player(level, level.start.player, occupied),
    )
