"""The immutable level (and, handed on from below, the separate game state).

Cells are indexed flat: ``cell = row * width + column``. Every per-cell array is a flat numpy
array of length ``width * height`` so numba kernels can use it directly. Directions are always
in the order ``u d l r`` (``DIRECTIONS``); ``Level.deltas`` gives their flat offsets.

The floor is the set of cells the player can reach from the start by flood fill, ignoring boxes;
cells outside the walls are not floor. A level is *closed*: no floor cell lies on the border of
its bounding rectangle, so ``cell + delta`` of a floor cell is always inside the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from evosoko.sokoban.holes.pairing import pairing_of
from evosoko.sokoban.state import Position, State
from evosoko.sokoban.symbols import (
    BOARD_CHARACTERS,
    BOX,
    BOX_ON_GOAL,
    DIRECTIONS,
    FLOOR,
    GOAL,
    PLAYER,
    PLAYER_ON_GOAL,
    UNREACHABLE,
    WALL,
)

__all__ = [
    "BOARD_CHARACTERS",
    "BOX",
    "BOX_ON_GOAL",
    "DIRECTIONS",
    "FLOOR",
    "GOAL",
    "PLAYER",
    "PLAYER_ON_GOAL",
    "UNREACHABLE",
    "WALL",
    "Level",
    "Origin",
    "Position",
    "State",
    "flood_fill",
    "neighbour_table",
]
"""The board's alphabet (:mod:`~evosoko.sokoban.symbols`) and the positions
(:mod:`~evosoko.sokoban.state`) sit below the level, so that what the level uses (its pairing,
tables and pictures) need not import it back; they are handed on from here."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a level came from: its file, the line of its first board row, its 1-based index."""

    path: str
    line: int
    index: int

    def row_line(self, row: int) -> int:
        """The file line of board row ``row`` (0-based) for formats with one row per line."""
        return self.line + row


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Level:
    """An immutable Sokoban level: board geometry, goals, start state and derived tables.

    Build one with :func:`level_from_rows` (parsers do); the derived tables (neighbours, push
    distances, dead squares) are computed once, on first use.
    """

    width: int
    height: int
    walls: np.ndarray  # bool[cells]
    goals: np.ndarray  # bool[cells]
    floor: np.ndarray  # bool[cells]: reachable by the player from the start, boxes ignored
    start: State
    title: str | None = None
    origin: Origin | None = None
    notes: tuple[tuple[str, str], ...] = field(default=())

    # ---- geometry -------------------------------------------------------------------------
    @property
    def cells(self) -> int:
        """Number of cells of the bounding rectangle."""
        return self.width * self.height

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        """Flat offsets of ``u d l r``."""
        return (-self.width, self.width, -1, 1)

    def cell(self, row: int, column: int) -> int:
        """Flat index of ``(row, column)``."""
        return row * self.width + column

    def position(self, cell: int) -> tuple[int, int]:
        """``(row, column)`` of a flat index."""
        return divmod(int(cell), self.width)

    @cached_property
    def goal_cells(self) -> np.ndarray:
        """Sorted flat indices of the goals (int32)."""
        return _frozen(np.flatnonzero(self.goals).astype(np.int32))

    @property
    def box_count(self) -> int:
        """Number of boxes (equal to the number of goals in a valid level)."""
        return len(self.start.boxes)

    @cached_property
    def neighbours(self) -> np.ndarray:
        """int32[cells, 4]: the neighbour in each direction ``u d l r``, or -1 off the board."""
        return _frozen(neighbour_table(self.width, self.height))

    # ---- analysis, computed once per level ---------------------------------------------------
    @cached_property
    def push_distance(self) -> np.ndarray:
        """int32[goals, cells]: fewest pushes moving a lone box from a cell to each goal.

        Computed by reverse pulls from every goal; ``UNREACHABLE`` where no push sequence exists.
        """
        from evosoko.sokoban.analysis import push_distances

        return _frozen(push_distances(self))

    @cached_property
    def nearest_goal_distance(self) -> np.ndarray:
        """int32[cells]: push distance from each cell to its nearest goal (``UNREACHABLE`` if
        none)."""
        return _frozen(self.push_distance.min(axis=0).astype(np.int32))

    @cached_property
    def dead_squares(self) -> np.ndarray:
        """bool[cells]: floor cells from which a box can reach no goal."""
        return _frozen(self.floor & (self.nearest_goal_distance >= UNREACHABLE))

    @cached_property
    def pairing(self):
        """The box-hole pairing of a given-holes level, read from its notes
        (:mod:`evosoko.sokoban.holes.pairing`), or None for a level
        played under the standard rules."""
        return pairing_of(self)

    # ---- text -----------------------------------------------------------------------------
    def rows(self, state: Position | None = None) -> list[str]:
        """Canonical XSB rows of the board in ``state`` (default: the start), trailing blanks
        cut."""
        position: Position = self.start if state is None else state
        grid = [WALL if w else FLOOR for w in self.walls.tolist()]
        for box in position.boxes:
            grid[box] = BOX_ON_GOAL if self.goals[box] else BOX
        for goal in self.goal_cells.tolist():
            if grid[goal] == FLOOR:
                grid[goal] = GOAL
        grid[position.player] = PLAYER_ON_GOAL if self.goals[position.player] else PLAYER
        return [
            "".join(grid[r * self.width : (r + 1) * self.width]).rstrip()
            for r in range(self.height)
        ]

    def __str__(self) -> str:
        return "\n".join(self.rows())

    def __repr__(self) -> str:
        """One line that names the level (its index and title, escaped) and its size, in
        place of the arrays a dataclass would print; ``str(level)`` is the board."""
        label = " ".join(
            part
            for part in (
                f"#{self.index}" if self.index else "",
                repr(self.title) if self.title else "",
            )
            if part
        )
        return (
            f"<Level {label or '(untitled)'}: {self.width}x{self.height}, {self.box_count} boxes>"
        )

    def key(self) -> tuple:
        """Value identity of the level (board and title), for equality and round-trip tests."""
        return (self.title, tuple(self.rows()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Level) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    @property
    def name(self) -> str:
        """The title, or the 1-based index when the level has none."""
        if self.title:
            return self.title
        return str(self.origin.index) if self.origin else "?"

    @property
    def index(self) -> int | None:
        """The 1-based position of the level in its file, when it came from one."""
        return self.origin.index if self.origin else None

    @property
    def json_label(self) -> str | int | None:
        """The ``"level"`` value of JSON output: the title, or the index when it has none."""
        return self.title if self.title else self.index

    def _repr_png_(self) -> bytes:
        """The board as a PNG: how a level shows itself in Jupyter."""
        from evosoko.sokoban.render import board_png

        return board_png(self)


def neighbour_table(width: int, height: int) -> np.ndarray:
    """int32[cells, 4] of neighbours in ``u d l r`` order, -1 where the move leaves the board."""
    cells = np.arange(width * height, dtype=np.int32)
    rows, columns = np.divmod(cells, width)
    table = np.full((width * height, 4), -1, dtype=np.int32)
    table[:, 0] = np.where(rows > 0, cells - width, -1)
    table[:, 1] = np.where(rows < height - 1, cells + width, -1)
    table[:, 2] = np.where(columns > 0, cells - 1, -1)
    table[:, 3] = np.where(columns < width - 1, cells + 1, -1)
    return table


def flood_fill(passable: np.ndarray, neighbours: np.ndarray, start: int) -> np.ndarray:
    """bool[cells]: cells reachable from ``start`` through ``passable`` cells (start included)."""
    reached = np.zeros(len(passable), dtype=bool)
    reached[start] = True
    stack = [start]
    while stack:
        cell = stack.pop()
        for neighbour in neighbours[cell]:
            if neighbour >= 0 and passable[neighbour] and not reached[neighbour]:
                reached[neighbour] = True
                stack.append(int(neighbour))
    return reached
