"""The space of levels a run searches, and the level genome: one code per cell of a board.

A genome is a flat list of ``width * height`` cell codes, row-major like every board here:
:data:`FLOOR` (0), :data:`WALL`, or floor carrying :data:`GOAL`, :data:`BOX` and
:data:`PLAYER` flags (a box on a goal is ``GOAL | BOX``). A :class:`LevelSpace` says which
cells may be floor (the size's interior, or a mask) and how many boxes a level has; the
repair (:mod:`evosoko.levelgen.repair`) keeps every genome a legal level of its space, and
:meth:`LevelSpace.level` turns one into a :class:`~evosoko.sokoban.level.Level`.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from evosoko.errors import ConfigError
from evosoko.generate.sketch import Sketch
from evosoko.sokoban.level import Level, neighbour_table
from evosoko.sokoban.rules import normalized_player

FLOOR, WALL, GOAL, BOX, PLAYER = 0, 1, 2, 4, 8
"""Cell codes of a genome: a wall, or floor with any of the goal, box and player flags."""

MASK_WALL = "#"
"""In a mask's rows: a cell that is always wall (any other character may be floor)."""

Genes = list[int]


@dataclass(frozen=True)
class LevelSpace:
    """The boards a run searches: ``width`` x ``height`` cells (walls included), of which
    ``inside`` (sorted flat indices) may be floor, with ``min_boxes`` .. ``max_boxes`` boxes
    (and as many goals). Build one with :meth:`of`."""

    width: int
    height: int
    inside: tuple[int, ...]
    min_boxes: int
    max_boxes: int
    neighbours: np.ndarray = field(repr=False, compare=False, hash=False)

    @classmethod
    def of(
        cls,
        width: int,
        height: int,
        boxes: int,
        max_boxes: int | None = None,
        mask: Sequence[str] = (),
    ) -> LevelSpace:
        """The space of a size, its box count (or range) and an optional mask: ``height`` rows
        of ``width`` characters, ``#`` for a cell that is always wall (the border must be);
        without a mask every cell inside the border may be floor. ``ConfigError`` if the
        boxes cannot fit."""
        if mask:
            inside = _mask_cells(width, height, mask)
        else:
            inside = tuple(
                row * width + column
                for row in range(1, height - 1)
                for column in range(1, width - 1)
            )
        most = boxes if max_boxes is None else max_boxes
        if boxes < 1 or most < boxes:
            raise ConfigError(
                f"boxes must be at least 1 and at most max_boxes, got {boxes}..{most}"
            )
        if most + 1 > len(inside):
            raise ConfigError(
                f"{most} boxes and the player need {most + 1} cells; the space has "
                f"{len(inside)} that may be floor"
            )
        return cls(width, height, inside, boxes, most, neighbour_table(width, height))

    @property
    def cells(self) -> int:
        """Cells of the board, walls included."""
        return self.width * self.height

    @cached_property
    def inside_mask(self) -> np.ndarray:
        """``bool[cells]``: the cells that may be floor."""
        mask = np.zeros(self.cells, dtype=bool)
        mask[list(self.inside)] = True
        return mask

    def empty(self) -> Genes:
        """A genome of walls only (repair makes it a level)."""
        return [WALL] * self.cells

    def sketch(self, genes: Sequence[int]) -> Sketch:
        """The genome as a :class:`~evosoko.generate.sketch.Sketch` (it must be repaired)."""
        return board_sketch(genes, self.width, self.height)

    def level(
        self, genes: Sequence[int], title: str | None = None, notes: Sequence[tuple[str, str]] = ()
    ) -> Level:
        """The level of a repaired genome."""
        return self.sketch(genes).to_level(title=title, notes=notes)

    def rows(self, genes: Sequence[int]) -> list[str]:
        """The XSB rows of a repaired genome."""
        return self.sketch(genes).rows()

    def key(self, genes: Sequence[int]) -> str:
        """The identity of the puzzle a genome is (a hex digest): the same for two genomes
        whose boards differ only where the player starts within its region."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # every box on a goal: a board still, scored trivial
            return level_key(self.level(genes))

    def template_key(self, genes: Sequence[int]) -> str:
        """The identity of a genome's walls and goals (where its boxes start aside)."""
        codes = np.asarray(genes, dtype=np.int64)
        digest = hashlib.sha1(usedforsecurity=False)
        digest.update(f"template {self.width}x{self.height}:".encode())
        digest.update(np.packbits(codes & WALL).tobytes())
        digest.update(np.packbits(codes & GOAL).tobytes())
        return digest.hexdigest()[:20]

    def genes_of(self, level: Level) -> Genes:
        """The genome of ``level`` placed at the top left of this space's board; a
        ``ConfigError`` when it does not fit (a floor cell outside the cells that may be
        floor)."""
        if level.width > self.width or level.height > self.height:
            raise ConfigError(
                f"level {level.name} is {level.width}x{level.height}; the space is "
                f"{self.width}x{self.height}"
            )
        genes = self.empty()
        inside = self.inside_mask
        for cell in np.flatnonzero(level.floor).tolist():
            row, column = divmod(cell, level.width)
            target = row * self.width + column
            if not inside[target]:
                raise ConfigError(
                    f"level {level.name}: its floor at row {row + 1}, column {column + 1} is "
                    "outside the cells that may be floor"
                )
            genes[target] = FLOOR
            if level.goals[cell]:
                genes[target] |= GOAL
        for box in level.start.boxes:
            row, column = divmod(box, level.width)
            genes[row * self.width + column] |= BOX
        row, column = divmod(level.start.player, level.width)
        genes[row * self.width + column] |= PLAYER
        return genes


def board_sketch(genes: Sequence[int], width: int, height: int) -> Sketch:
    """A repaired genome of a ``width`` x ``height`` board as a
    :class:`~evosoko.generate.sketch.Sketch`."""
    codes = np.asarray(genes, dtype=np.int64)
    walls = (codes & WALL).astype(bool)
    goals = tuple(np.flatnonzero(codes & GOAL).tolist())
    boxes = tuple(np.flatnonzero(codes & BOX).tolist())
    players = np.flatnonzero(codes & PLAYER)
    if len(players) != 1:
        raise ValueError(f"a genome holds one player, this one {len(players)}")
    return Sketch(width, height, walls, goals, boxes, int(players[0]))


def level_key(level: Level) -> str:
    """A stable digest of a puzzle: walls, goals, boxes and the player's region (the same in
    every process, unlike Python's ``hash``), for caches and duplicate checks."""
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(level.start.boxes)] = True
    player = normalized_player(level, level.start.player, occupied)
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"{level.width}x{level.height}:{player}:".encode())
    digest.update(np.packbits(level.walls).tobytes())
    digest.update(np.packbits(level.goals).tobytes())
    digest.update(np.asarray(level.start.boxes, dtype=np.int32).tobytes())
    return digest.hexdigest()[:20]


def _mask_cells(width: int, height: int, mask: Sequence[str]) -> tuple[int, ...]:
    """The cells a mask lets be floor; ``ConfigError`` for a mask of the wrong shape or with
    an open border."""
    if len(mask) != height or any(len(row) != width for row in mask):
        raise ConfigError(f"the mask must be {height} rows of {width} characters")
    inside = []
    for row, text in enumerate(mask):
        for column, char in enumerate(text):
            if char == MASK_WALL:
                continue
            if row in (0, height - 1) or column in (0, width - 1):
                raise ConfigError(
                    f"mask row {row + 1}, column {column + 1}: the border must be '#' (wall)"
                )
            inside.append(row * width + column)
    if not inside:
        raise ConfigError("the mask lets no cell be floor")
    return tuple(inside)
