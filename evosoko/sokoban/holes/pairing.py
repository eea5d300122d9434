"""The given-holes variant's data, below :class:`~evosoko.sokoban.level.Level`: which hole each
box belongs to (:class:`Pairing`, read from the level's ``Rules`` and ``Pairs`` notes), the
notes that say it, and a position under those rules (:class:`HolesState`) with its text.

The notation and the rules themselves are described in :mod:`evosoko.sokoban.holes.board`,
which hands these names on. Nothing here imports the level: a level reads its own pairing
(:attr:`Level.pairing <evosoko.sokoban.level.Level.pairing>`) through :func:`pairing_of`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from evosoko.errors import LevelFormatError

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level

RULES_KEY = "Rules"
PAIRS_KEY = "Pairs"
GIVEN_HOLES = "given-holes"
STANDARD = "standard"
RULES = (STANDARD, GIVEN_HOLES)
VANISHED = -1
"""The cell of a box that has vanished into its hole."""

_PAIR = re.compile(r"(\d+)\s*-\s*(\d+)")


# ---- the notation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pairing:
    """Which hole each box belongs to.

    ``boxes``: the start cells of the boxes in reading order (box ``i`` is ``boxes[i]``).
    ``holes``: the cell of each box's hole, in the same order. ``goal_rows``: the row of each
    box's hole in the level's ``goal_cells`` (and its ``push_distance`` table).
    """

    boxes: tuple[int, ...]
    holes: tuple[int, ...]
    goal_rows: tuple[int, ...]

    @cached_property
    def hole_array(self) -> np.ndarray:
        """int64[boxes]: the hole cell of each box."""
        return np.array(self.holes, dtype=np.int64)


def rules_of(level: Level) -> str:
    """``"standard"`` or ``"given-holes"``, from the level's ``Rules`` note."""
    value = _note(level, RULES_KEY)
    return STANDARD if value is None else value[0].strip().lower()


def pairing_of(level: Level, note_lines: Sequence[int] | None = None) -> Pairing | None:
    """The level's pairing, or None for a standard level.

    Raises :class:`LevelFormatError` (at the note's line when ``note_lines``, the file line of
    each of ``level.notes``, is given) for an unknown ``Rules`` value, a missing or malformed
    ``Pairs`` note, a box or hole left without a partner or given two, or a box that starts in
    its own hole.
    """
    rules = _note(level, RULES_KEY)
    pairs = _note(level, PAIRS_KEY)
    line_of = _line_finder(level, note_lines)
    name = _label(level)

    def fail(message: str, key: str) -> LevelFormatError:
        path = level.origin.path if level.origin else None
        return LevelFormatError(f"{name}: {message}", path, line_of(key))

    given = None if rules is None else rules[0]
    kind = STANDARD if given is None else given.strip().lower()
    if kind not in RULES:
        raise fail(f"unknown rules {given!r}; choose {' or '.join(RULES)}", RULES_KEY)
    if kind == STANDARD:
        if pairs is not None:
            raise fail(
                f"a '{PAIRS_KEY}:' note needs '{RULES_KEY}: {GIVEN_HOLES}' (this level plays "
                "standard rules)",
                PAIRS_KEY,
            )
        return None
    boxes = level.start.boxes
    goals = level.goal_cells.tolist()
    if pairs is None:
        raise fail(
            f"a {GIVEN_HOLES} level needs a '{PAIRS_KEY}:' note pairing each box with its hole "
            f"(reading order, e.g. '{PAIRS_KEY}: {pairs_note(range(len(boxes)))}')",
            RULES_KEY,
        )
    hole_of: dict[int, int] = {}
    box_of: dict[int, int] = {}
    tokens = pairs[0].replace(",", " ").split()
    if not tokens:
        raise fail(f"the '{PAIRS_KEY}:' note is empty", PAIRS_KEY)
    for token in tokens:
        match = _PAIR.fullmatch(token)
        if match is None:
            raise fail(f"{PAIRS_KEY}: {token!r} is not BOX-HOLE (two numbers, e.g. 1-2)", PAIRS_KEY)
        box, hole = int(match[1]), int(match[2])
        if not 1 <= box <= len(boxes):
            raise fail(
                f"{PAIRS_KEY}: there is no box {box} (the board has {len(boxes)})", PAIRS_KEY
            )
        if not 1 <= hole <= len(goals):
            raise fail(
                f"{PAIRS_KEY}: there is no hole {hole} (the board has {len(goals)})", PAIRS_KEY
            )
        if box in hole_of:
            raise fail(
                f"{PAIRS_KEY}: box {box} is given two holes ({hole_of[box]} and {hole})", PAIRS_KEY
            )
        if hole in box_of:
            raise fail(
                f"{PAIRS_KEY}: hole {hole} is given to two boxes ({box_of[hole]} and {box})",
                PAIRS_KEY,
            )
        hole_of[box], box_of[hole] = hole, box
    missing = [box for box in range(1, len(boxes) + 1) if box not in hole_of]
    if missing:
        raise fail(f"{PAIRS_KEY}: box {missing[0]} has no hole", PAIRS_KEY)
    rows = tuple(hole_of[box] - 1 for box in range(1, len(boxes) + 1))
    holes = tuple(goals[row] for row in rows)
    for number, (box, hole) in enumerate(zip(boxes, holes), start=1):
        if box == hole:
            row, column = level.position(box)
            raise fail(
                f"box {number} starts in its own hole (row {row + 1}, column {column + 1}); "
                "it would have vanished",
                PAIRS_KEY,
            )
    return Pairing(tuple(boxes), holes, rows)


def pairs_note(goal_rows: Sequence[int]) -> str:
    """The canonical ``Pairs`` value for boxes paired with holes ``goal_rows`` (0-based)."""
    return " ".join(f"{box}-{row + 1}" for box, row in enumerate(goal_rows, start=1))


def given_holes_notes(goal_rows: Sequence[int]) -> tuple[tuple[str, str], ...]:
    """The two notes that make a level given-holes with this pairing."""
    return ((RULES_KEY, GIVEN_HOLES), (PAIRS_KEY, pairs_note(goal_rows)))


def rules_notes(level: Level) -> tuple[tuple[str, str], ...]:
    """The level's rules notes (``Rules``, ``Pairs``): what a copy of the level rebuilt from
    its rows needs to play by the same rules."""
    keys = (RULES_KEY.lower(), PAIRS_KEY.lower())
    return tuple((key, value) for key, value in level.notes if key.lower() in keys)


def _note(level: Level, key: str) -> tuple[str, int] | None:
    """The value of note ``key`` (case-insensitive) and its position among the notes."""
    for position, (name, value) in enumerate(level.notes):
        if name.lower() == key.lower():
            return value, position
    return None


def _line_finder(level: Level, note_lines: Sequence[int] | None):
    def line_of(key: str) -> int | None:
        found = _note(level, key)
        if found is not None and note_lines is not None and found[1] < len(note_lines):
            return note_lines[found[1]]
        return level.origin.line if level.origin else None

    return line_of


def _label(level: Level) -> str:
    if level.origin is None:
        return f"level {level.title!r}" if level.title else "level"
    return f"level {level.origin.index}" + (f" ({level.title})" if level.title else "")


# ---- a position and its text --------------------------------------------------------------------
@dataclass(frozen=True, slots=True, order=True)
class HolesState:
    """A given-holes position: the player and each box's cell (``VANISHED`` once in its hole),
    boxes in the level's reading order. ``boxes`` gives the cells of the boxes still on the
    board, sorted, so drawing and printing code written for :class:`State` works unchanged."""

    player: int
    by_box: tuple[int, ...]

    @property
    def boxes(self) -> tuple[int, ...]:
        """Sorted cells of the boxes still on the board."""
        return tuple(sorted(cell for cell in self.by_box if cell != VANISHED))

    @property
    def remaining(self) -> int:
        """Boxes not yet vanished."""
        return sum(1 for cell in self.by_box if cell != VANISHED)


def holes_rows(level: Level, state: HolesState) -> list[str]:
    """XSB rows of a given-holes position: like :meth:`Level.rows`, but a filled hole (its box
    vanished) is floor."""
    rows = [list(row.ljust(level.width)) for row in level.rows(state)]
    for number, cell in enumerate(state.by_box):
        if cell == VANISHED:
            row, column = level.position(level.pairing.holes[number])
            char = rows[row][column]
            rows[row][column] = {".": " ", "+": "@", "*": "$"}.get(char, char)
    return ["".join(row).rstrip() for row in rows]
