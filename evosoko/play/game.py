"""The state of one game of ``evosoko play``: a board, undo and redo, counters and deadlocks.

:class:`Game` knows nothing of the terminal: the textual app (:mod:`evosoko.play.app`) turns
keys into its methods and draws what it reports, and tests drive it directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evosoko.sokoban.deadlocks import (
    frozen_boxes,
    frozen_goal_matching_cost,
    is_freeze_deadlock,
)
from evosoko.sokoban.holes.board import HolesBoard, HolesState, board_for, holes_deadlock
from evosoko.sokoban.level import DIRECTIONS, UNREACHABLE, Level, State
from evosoko.sokoban.solutions import to_lurd
from evosoko.sokoban.variants import level_rules


@dataclass(frozen=True)
class Deadlock:
    """Why a position is lost (``reason``, one line) and the box cells that show it."""

    reason: str
    cells: tuple[int, ...]


class Game:
    """One level being played: the position, the actions taken (undo) and undone (redo).

    An action is one step (a key) or several (a mouse walk or push: :meth:`take`); undo and
    redo take a whole action. A new action clears the redo list, as in every editor;
    :meth:`restart` undoes every action, so :meth:`redo` can walk back to where the player was.
    """

    def __init__(self, level: Level) -> None:
        self.level = level
        self.rules = level_rules(level)  # what counts toward solved, how the board plays
        self.board = board_for(level)
        self._starts: list[int] = []  # where each action taken begins in the board's history
        self._redo: list[tuple[int, ...]] = []  # actions undone, the next one to redo last
        self._deadlock_key: State | None = None
        self._deadlock: Deadlock | None = None

    # ---- position ------------------------------------------------------------------------------
    @property
    def moves(self) -> int:
        """Steps taken so far (pushes included)."""
        return len(self.board.history)

    @property
    def pushes(self) -> int:
        """Steps so far that pushed a box."""
        return sum(step.pushed for step in self.board.history)

    @property
    def solved(self) -> bool:
        """True when every box stands on a goal."""
        return self.board.is_solved()

    @property
    def boxes_on_goals(self) -> int:
        """How many boxes stand on goals (given holes: how many have vanished into theirs)."""
        if isinstance(self.board, HolesBoard):  # the board of a given-holes level
            return sum(1 for cell in self.board.state().by_box if cell < 0)
        return sum(1 for box in self.board.boxes() if self.level.goals[box])

    def state(self) -> State:
        """The current position."""
        return self.board.state()

    def lurd(self) -> str:
        """The steps taken, in LURD (pushes in upper case)."""
        history = self.board.history
        return to_lurd((s.direction for s in history), (s.pushed for s in history))

    @property
    def can_undo(self) -> bool:
        """True when there is an action to take back."""
        return bool(self._starts)

    @property
    def can_redo(self) -> bool:
        """True when there is an undone action to take again."""
        return bool(self._redo)

    # ---- actions ---------------------------------------------------------------------------------
    def step(self, direction: int) -> bool:
        """Move or push in ``direction`` (0-3 = ``u d l r``): one action; False and no change
        when illegal. A step that is exactly the next action to redo keeps the rest of the
        redo list."""
        return self.take((direction,))

    def take(self, directions: Sequence[int]) -> bool:
        """Take the steps ``directions`` as one action; False and no change when one of them
        is illegal (or there is none)."""
        start = len(self.board.history)
        for direction in directions:
            if not self.board.step(direction):
                self.board.undo_to(start)
                return False
        if start == len(self.board.history):
            return False
        self._starts.append(start)
        action = tuple(directions)
        if self._redo and self._redo[-1] == action:
            self._redo.pop()
        else:
            self._redo.clear()
        return True

    def undo(self) -> bool:
        """Take back the last action; False when there is none."""
        if not self._starts:
            return False
        start = self._starts.pop()
        action = tuple(step.direction for step in self.board.history[start:])
        self.board.undo_to(start)
        self._redo.append(action)
        return True

    def redo(self) -> bool:
        """Take the last undone action again; False when there is none."""
        if not self._redo:
            return False
        action = self._redo.pop()
        start = len(self.board.history)
        for direction in action:
            if not self.board.step(direction):  # cannot happen: the position is the one undone
                self.board.undo_to(start)
                self._redo.clear()
                return False
        self._starts.append(start)
        return True

    def restart(self) -> None:
        """Back to the start; every action taken becomes redoable."""
        while self.undo():
            pass

    def play(self, lurd: str) -> int:
        """Take the steps of ``lurd`` (case ignored) until one is illegal; returns how many."""
        taken = 0
        for letter in lurd:
            if not self.step(DIRECTIONS.index(letter.lower())):
                break
            taken += 1
        return taken

    # ---- analysis ------------------------------------------------------------------------------
    def deadlock(self) -> Deadlock | None:
        """Why the current position is lost, or None when no deadlock test finds it lost."""
        state = self.board.state()
        if state != self._deadlock_key:
            self._deadlock_key = state
            self._deadlock = find_deadlock(self.level, state)
        return self._deadlock


def find_deadlock(level: Level, state: State | HolesState) -> Deadlock | None:
    """The first sound deadlock test that finds ``state`` lost, with the boxes that show it.

    The same tests as :func:`evosoko.sokoban.deadlocks.is_deadlocked`, in the same order: a box
    on a dead square, boxes frozen off their goals, then no matching of boxes to goals (with
    the boxes frozen on goals as walls).
    """
    if level_rules(level).boxes_vanish:  # given holes: the tests that hold there
        if not isinstance(state, HolesState):
            raise TypeError("a position on a given-holes level is a HolesState")
        found = holes_deadlock(level, state)
        return Deadlock(*found) if found else None
    boxes = state.boxes
    dead = [box for box in boxes if level.dead_squares[box]]
    if dead:
        noun = "a box" if len(dead) == 1 else f"{len(dead)} boxes"
        return Deadlock(f"{noun} on a dead square: no goal can be reached", tuple(dead))
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(boxes)] = True
    for box in boxes:
        if not level.goals[box] and is_freeze_deadlock(level, occupied, box):
            group = frozen_boxes(level, occupied, box) or (box,)
            return Deadlock("a box frozen off its goal: it can never move", group)
    if frozen_goal_matching_cost(level, boxes) >= UNREACHABLE:
        off_goal = tuple(box for box in boxes if not level.goals[box])
        return Deadlock("the boxes can no longer all reach distinct goals", off_goal)
    return None
