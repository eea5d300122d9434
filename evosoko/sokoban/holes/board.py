"""The "given holes" rules variant: each box belongs to one hole and vanishes in it.

A given-holes level is an ordinary XSB board (goals ``.`` are the holes) with two notes::

    #######
    #@$ $ #
    #. . ##
    #######
    Rules: given-holes
    Pairs: 1-2 2-1

``Pairs`` pairs box ``i`` with hole ``j``, both counted in reading order (row by row, left to
right, from 1; a ``*`` counts as a box and as a hole). A box pushed into *its own* hole
disappears, and the filled hole is floor from then on; a box pushed into another box's hole
just stands there (for that box the hole is floor). The level is solved when every box has
vanished. A box may not start in its own hole. ``Rules: standard`` (or no ``Rules`` note) is
plain Sokoban.

Since the notes are kept as written, a given-holes level is written back unchanged; levels
made here (the generators) get the canonical spelling of :func:`pairs_note`.

The pairing and its notation are read in :mod:`evosoko.sokoban.holes.pairing`, below
:class:`~evosoko.sokoban.level.Level` (which reads its own ``pairing`` from there); this module
builds on the level and the rules: checking a level just read, the board that plays the
variant and its deadlocks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evosoko.sokoban.holes.pairing import (
    GIVEN_HOLES,
    PAIRS_KEY,
    RULES,
    RULES_KEY,
    STANDARD,
    VANISHED,
    HolesState,
    Pairing,
    given_holes_notes,
    holes_rows,
    pairing_of,
    pairs_note,
    rules_notes,
    rules_of,
)
from evosoko.sokoban.level import Level, State
from evosoko.sokoban.rules import Board, Step
from evosoko.sokoban.variants import given_pairing, level_rules

__all__ = [
    "GIVEN_HOLES",
    "PAIRS_KEY",
    "RULES",
    "RULES_KEY",
    "SOLVED_WARNING",
    "STANDARD",
    "VANISHED",
    "HolesBoard",
    "HolesState",
    "Pairing",
    "board_for",
    "check_level",
    "given_holes_notes",
    "holes_deadlock",
    "holes_rows",
    "level_with_rules",
    "pairing_of",
    "pairs_note",
    "rules_notes",
    "rules_of",
    "start_state",
    "with_pairing",
]
"""The notation's names (:class:`Pairing`, :func:`pairing_of`, the notes, :class:`HolesState`)
live in :mod:`evosoko.sokoban.holes.pairing`, below the level; they are handed on from here."""


# ---- the notation ------------------------------------------------------------------------------
def check_level(level: Level, note_lines: Sequence[int] | None = None) -> None:
    """Validate the rules notes of a level just read (see :func:`pairing_of`)."""
    pairing_of(level, note_lines)


SOLVED_WARNING = "every box is already on a goal"
"""The builder's warning for a solved start: never true of a given-holes level (no box may
start in its own hole, and every box is still on the board)."""


def level_with_rules(rows, note_lines: Sequence[int] | None = None, **build) -> Level:
    """:func:`~evosoko.sokoban.build.level_from_rows` (``build``: its keyword arguments), then
    the rules notes checked (:func:`check_level`); the builder's "already solved" warning is
    passed on only for standard levels (boxes standing in other boxes' holes solve nothing)."""
    import warnings

    from evosoko.sokoban.build import level_from_rows

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        level = level_from_rows(rows, **build)
    try:
        check_level(level, note_lines)
    finally:
        given_holes = rules_of(level) == GIVEN_HOLES
        for warning in caught:
            if given_holes and SOLVED_WARNING in str(warning.message):
                continue
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return level


def with_pairing(level: Level, goal_rows: Sequence[int]) -> Level:
    """``level`` as a given-holes level whose box ``i`` belongs to hole ``goal_rows[i]``
    (other notes kept, any earlier rules notes replaced); validated."""
    from dataclasses import replace

    kept = tuple(
        (key, value)
        for key, value in level.notes
        if key.lower() not in (RULES_KEY.lower(), PAIRS_KEY.lower())
    )
    paired = replace(level, notes=given_holes_notes(goal_rows) + kept)
    paired.__dict__.pop("pairing", None)
    check_level(paired)
    return paired


# ---- positions and the rules -------------------------------------------------------------------
def start_state(level: Level) -> HolesState:
    """The start position of a given-holes level."""
    return HolesState(level.start.player, tuple(level.start.boxes))


class HolesBoard(Board):
    """A :class:`Board` under the given-holes rules: a box pushed into its own hole vanishes
    (and comes back on :meth:`undo`); every other cell behaves as in Sokoban, other boxes'
    holes included. ``occupied`` holds the boxes still on the board; ``owner[cell]`` is the
    number (reading order, from 0) of the box there, or -1."""

    def __init__(self, level: Level, state: HolesState | None = None) -> None:
        pairing = given_pairing(level)
        state = start_state(level) if state is None else state
        if len(state.by_box) != len(pairing.holes):
            raise ValueError(f"state: {len(state.by_box)} boxes for {len(pairing.holes)} holes")
        self.level = level
        self.pairing = pairing
        self.player = int(state.player)
        self.occupied = np.zeros(level.cells, dtype=bool)
        self.owner = np.full(level.cells, -1, dtype=np.int64)
        for number, cell in enumerate(state.by_box):
            if cell == VANISHED:
                continue
            if not level.floor[cell] or self.occupied[cell] or cell == self.player:
                raise ValueError(f"state: the box cell {cell} is not free floor")
            self.occupied[cell] = True
            self.owner[cell] = number
        self.by_box = list(state.by_box)
        self.history: list[Step] = []
        self.vanished_at: list[int] = []
        """Per step of ``history``: the number of the box that vanished in it, or -1."""
        self._floor = level.floor
        self._goals = level.goals
        self._deltas = level.deltas
        self._holes = pairing.holes
        self._vanishing = -1

    # A HolesState stands in for a State wherever a Board's position goes (it reads as one:
    # player, sorted boxes), as board_for's callers expect; the type system cannot say "a Board
    # whose state is a HolesState" without making every Board generic.
    def state(self) -> HolesState:  # type: ignore[override]
        """The current position (boxes by number, ``VANISHED`` ones included)."""
        return HolesState(self.player, tuple(self.by_box))

    def is_solved(self) -> bool:
        """True when every box has vanished into its hole."""
        return not self.occupied.any()

    def key(self) -> tuple[int, tuple[int, ...]]:
        """``(normalized player, cells by box)``: boxes are told apart under these rules."""
        return self.normalized_player(), tuple(self.by_box)

    def copy(self) -> HolesBoard:
        """An independent board in the same position, with an empty history."""
        return HolesBoard(self.level, self.state())

    def step(self, direction: int) -> bool:
        """Move or push one cell (see :meth:`Board.step`); a box pushed into its own hole
        vanishes."""
        self._vanishing = -1
        if not super().step(direction):
            return False
        self.vanished_at.append(self._vanishing)
        return True

    def undo(self) -> Step:
        """Take back the last step; a box that vanished in it comes back."""
        if not self.history:
            raise IndexError("undo: no step to take back")
        step = self.history.pop()
        vanished = self.vanished_at.pop()
        delta = self._deltas[step.direction]
        if step.pushed:
            pushed_to = self.player + delta
            number = vanished if vanished >= 0 else int(self.owner[pushed_to])
            if vanished < 0:
                self.occupied[pushed_to] = False
                self.owner[pushed_to] = -1
            self._place(number, self.player)
        self.player -= delta
        return step

    def _move_box(self, source: int, target: int) -> None:
        number = int(self.owner[source])
        self.occupied[source] = False
        self.owner[source] = -1
        if target == self._holes[number]:
            self.by_box[number] = VANISHED
            self._vanishing = number
        else:
            self._place(number, target)

    def _place(self, number: int, cell: int) -> None:
        self.occupied[cell] = True
        self.owner[cell] = number
        self.by_box[number] = cell


def board_for(level: Level, state: State | HolesState | None = None) -> Board:
    """The rules board of ``level``: a :class:`HolesBoard` for a given-holes level, else a
    :class:`Board`."""
    if level_rules(level).boxes_vanish:
        return HolesBoard(level, state)  # type: ignore[arg-type]
    return Board(level, state)  # type: ignore[arg-type]


def holes_deadlock(level: Level, state: HolesState) -> tuple[str, tuple[int, ...]] | None:
    """Why a given-holes position is lost (one line) and the boxes that show it, or None.

    The sound tests that still hold under these rules: a box on a cell from which it can reach
    *its own* hole by no push sequence, and a frozen box (on a hole or not: a box that never
    moves never vanishes). The standard rules' "frozen on a goal is fine" and the bipartite
    matching of boxes to goals do not apply (the pairing is given).
    """
    from evosoko.sokoban.deadlocks import frozen_boxes
    from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
    from evosoko.sokoban.level import UNREACHABLE
    from evosoko.sokoban.rules import delta_array

    pairing = given_pairing(level)
    stuck = [
        cell
        for number, cell in enumerate(state.by_box)
        if cell != VANISHED and level.push_distance[pairing.goal_rows[number], cell] >= UNREACHABLE
    ]
    if stuck:
        noun = "a box" if len(stuck) == 1 else f"{len(stuck)} boxes"
        return f"{noun} can no longer reach {'its' if len(stuck) == 1 else 'their'} hole", tuple(
            stuck
        )
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[list(state.boxes)] = True
    no_goals = np.zeros(level.cells, dtype=np.bool_)
    scratch = make_freeze_scratch(level.cells)
    for box in state.boxes:
        if freeze_deadlock(
            level.floor,
            level.dead_squares,
            no_goals,
            occupied,
            delta_array(level.width),
            box,
            scratch,
        ):
            group = frozen_boxes(level, occupied, box) or (box,)
            return "a box frozen for good: it can never reach its hole", group
    return None
