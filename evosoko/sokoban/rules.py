"""The rules of Sokoban: moves, pushes, undo and reachability on a mutable board.

A :class:`Board` is a mutable position on an immutable :class:`Level`: the player's cell and a
flat ``bool[cells]`` array of box cells. One *step* moves the player one cell in a direction
(``u d l r`` = 0 1 2 3); when a box is in the way it is pushed one cell further, provided the
cell beyond is free floor. Steps are recorded so that :meth:`Board.undo` restores the previous
position exactly.

Reachability, the normalized player position and shortest walks come from the one compiled
walk of :mod:`evosoko.sokoban.reach`; a level is closed, so ``cell + delta`` of a floor cell is
always on the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.reach import explore
from evosoko.sokoban.reach import normalized_player as compiled_normalized_player

OPPOSITE = (1, 0, 3, 2)
"""The reverse of each direction ``u d l r``."""


class Step(NamedTuple):
    """One recorded step: its direction and whether it pushed a box."""

    direction: int
    pushed: bool


class Board:
    """A mutable position on ``level``: player, boxes, and the history of steps taken.

    ``occupied`` is a ``bool[cells]`` array of box cells, updated in place by every step.
    """

    def __init__(self, level: Level, state: State | None = None) -> None:
        state = level.start if state is None else state
        _check_state(level, state)
        self.level = level
        self.player = int(state.player)
        self.occupied = np.zeros(level.cells, dtype=bool)
        self.occupied[list(state.boxes)] = True
        self.history: list[Step] = []
        self._floor = level.floor
        self._goals = level.goals
        self._deltas = level.deltas
        self._boxes_off_goal = sum(1 for box in state.boxes if not level.goals[box])

    # ---- position ---------------------------------------------------------------------------
    def state(self) -> State:
        """The current position as an immutable :class:`State` (boxes sorted)."""
        return State(self.player, tuple(np.flatnonzero(self.occupied).tolist()))

    def boxes(self) -> tuple[int, ...]:
        """The sorted box cells."""
        return tuple(np.flatnonzero(self.occupied).tolist())

    def is_solved(self) -> bool:
        """True when every box stands on a goal."""
        return self._boxes_off_goal == 0

    def key(self) -> tuple[int, tuple[int, ...]]:
        """``(normalized player, boxes)``: equal for positions that differ only by a walk."""
        return self.normalized_player(), self.boxes()

    def copy(self) -> Board:
        """An independent board in the same position, with an empty history."""
        return Board(self.level, self.state())

    # ---- steps --------------------------------------------------------------------------------
    def step(self, direction: int) -> bool:
        """Move (or push) one cell in ``direction``; False and no change when illegal."""
        delta = self._deltas[direction]
        target = self.player + delta
        if not self._floor[target]:
            return False
        pushed = bool(self.occupied[target])
        if pushed:
            beyond = target + delta
            if not self._floor[beyond] or self.occupied[beyond]:
                return False
            self._move_box(target, beyond)
        self.player = target
        self.history.append(Step(direction, pushed))
        return True

    def undo(self) -> Step:
        """Take back the last step exactly (pulling back a pushed box); returns that step.

        Raises ``IndexError`` when there is nothing to undo.
        """
        if not self.history:
            raise IndexError("undo: no step to take back")
        step = self.history.pop()
        delta = self._deltas[step.direction]
        if step.pushed:
            self._move_box(self.player + delta, self.player)
        self.player -= delta
        return step

    def undo_to(self, length: int) -> None:
        """Undo steps until the history has ``length`` entries (a mark taken earlier)."""
        if not 0 <= length <= len(self.history):
            raise ValueError(f"undo_to: history has {len(self.history)} steps, not {length}")
        while len(self.history) > length:
            self.undo()

    def can_step(self, direction: int) -> bool:
        """Whether :meth:`step` in ``direction`` would succeed (nothing changes)."""
        delta = self._deltas[direction]
        target = self.player + delta
        if not self._floor[target]:
            return False
        if not self.occupied[target]:
            return True
        beyond = target + delta
        return bool(self._floor[beyond] and not self.occupied[beyond])

    def legal_moves(self) -> list[int]:
        """Directions in which a step (move or push) is legal, in ``u d l r`` order."""
        return [direction for direction in range(4) if self.can_step(direction)]

    def _move_box(self, source: int, target: int) -> None:
        self.occupied[source] = False
        self.occupied[target] = True
        self._boxes_off_goal += int(not self._goals[target]) - int(not self._goals[source])

    # ---- push level ---------------------------------------------------------------------------
    def reachable(self) -> np.ndarray:
        """``bool[cells]``: cells the player can walk to without pushing."""
        return reachable_cells(self.level, self.player, self.occupied)

    def normalized_player(self) -> int:
        """The smallest cell the player can walk to: the canonical player for push search."""
        return normalized_player(self.level, self.player, self.occupied)

    def legal_pushes(self) -> list[tuple[int, int]]:
        """``(box, direction)`` pairs the player can walk to and push, sorted."""
        pairs = _legal_pushes(
            self._floor, _board(self.occupied), delta_array(self.level.width), self.player
        )
        return [(int(box), int(direction)) for box, direction in pairs]

    def push(self, box: int, direction: int) -> str:
        """Walk by a shortest path behind ``box``, push it one cell; returns the LURD taken.

        Raises ``ValueError`` when there is no box there, the target cell is not free floor,
        or the player cannot reach the cell behind the box. Nothing changes in that case.
        """
        if not (0 <= box < self.level.cells and self.occupied[box]):
            raise ValueError(f"push: no box at cell {box}")
        delta = self._deltas[direction]
        target = box + delta
        if not self._floor[target] or self.occupied[target]:
            raise ValueError(f"push: the box at cell {box} cannot move {_NAMES[direction]}")
        walk = walk_path(self.level, self.occupied, self.player, box - delta)
        if walk is None:
            raise ValueError(f"push: the player cannot reach the cell behind the box at {box}")
        for letter in walk:
            self.step(DIRECTIONS.index(letter))
        self.step(direction)
        return walk + DIRECTIONS[direction].upper()


_NAMES = ("up", "down", "left", "right")


def played_moves(board: Board, genome: Sequence[int]) -> list[str]:
    """Step ``board`` by the move genes of ``genome`` until it is solved; the LURD letters of
    the steps taken (a gene into a wall takes none)."""
    letters: list[str] = []
    for gene in genome:
        if board.is_solved():
            break
        if board.step(int(gene)):
            letter = DIRECTIONS[int(gene)]
            letters.append(letter.upper() if board.history[-1].pushed else letter)
    return letters


def direction_name(direction: int) -> str:
    """``up``, ``down``, ``left`` or ``right``."""
    return _NAMES[direction]


def _check_state(level: Level, state: State) -> None:
    """Raise ``ValueError`` unless ``state`` is a possible position on ``level``."""
    cells = level.cells
    if not 0 <= state.player < cells or not level.floor[state.player]:
        raise ValueError(f"state: the player cell {state.player} is not floor")
    boxes = state.boxes
    if len(set(boxes)) != len(boxes) or len(boxes) != len(level.goal_cells):
        raise ValueError(f"state: {len(boxes)} boxes for {len(level.goal_cells)} goals")
    for box in boxes:
        if not 0 <= box < cells or not level.floor[box]:
            raise ValueError(f"state: the box cell {box} is not floor")
    if state.player in boxes:
        raise ValueError(f"state: the player stands on the box at cell {state.player}")


# ---- module functions ------------------------------------------------------------------------
def reachable_cells(level: Level, player: int, occupied: np.ndarray) -> np.ndarray:
    """``bool[cells]``: cells the player can walk to from ``player`` around the boxes."""
    mark, queue = _scratch(level.cells)
    explore(
        level.floor,
        _board(occupied),
        delta_array(level.width),
        int(player),
        mark,
        1,
        queue,
        queue[:0],
    )
    return mark == 1


def normalized_player(level: Level, player: int, occupied: np.ndarray) -> int:
    """The smallest cell the player can walk to from ``player``."""
    mark, queue = _scratch(level.cells)
    return int(
        compiled_normalized_player(
            level.floor, _board(occupied), delta_array(level.width), int(player), mark, 1, queue
        )
    )


def walk_path(level: Level, occupied: np.ndarray, start: int, target: int) -> str | None:
    """A shortest walk (lowercase LURD, no pushes) from ``start`` to ``target``, or None.

    Ties are broken by trying directions in ``u d l r`` order; ``""`` when already there.
    """
    if not 0 <= target < level.cells:
        return None
    path = _walk(level.floor, _board(occupied), delta_array(level.width), int(start), int(target))
    if len(path) == 1 and path[0] < 0:
        return None
    return "".join(DIRECTIONS[d] for d in path.tolist())


@lru_cache(maxsize=64)
def delta_array(width: int) -> np.ndarray:
    """Read-only int64 array of the flat offsets of ``u d l r`` on a board ``width`` wide."""
    deltas = np.array((-width, width, -1, 1), dtype=np.int64)
    deltas.setflags(write=False)
    return deltas


def _scratch(cells: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(cells, dtype=np.int64), np.zeros(cells, dtype=np.int64)


class PlayedMoves(NamedTuple):
    """Where :func:`play_moves` ended: the player, the box cells (``bool[cells]``, a new
    array) and whether every box stood on a goal at some point (play stops there)."""

    player: int
    occupied: np.ndarray
    solved: bool


def play_moves(level: Level, genes, state: State | None = None) -> PlayedMoves:
    """Play direction codes ``genes`` (0..3 = ``u d l r``) from ``state`` (default: the start)
    as :meth:`Board.step` does, an illegal step changing nothing, up to the first position
    with every box on a goal; compiled, for callers that only need where the steps lead.
    Raises ``ValueError`` naming the first gene outside 0..3 that play reaches."""
    state = level.start if state is None else state
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[list(state.boxes)] = True
    codes = np.asarray(genes, dtype=np.int64)
    deltas = delta_array(level.width)
    played = _play(level.floor, level.goals, deltas, int(state.player), occupied, codes)
    player, solved, wrong = (int(value) for value in played)
    if wrong >= 0:
        raise ValueError(f"gene {wrong}: {int(codes[wrong])} is not a direction code (0..3)")
    return PlayedMoves(player, occupied, bool(solved))


class Replayed(NamedTuple):
    """What :func:`replay_steps` did: the legal steps played from the first (``played``),
    whether each pushed (``pushed``, ``bool[played]``), after how many of them every box first
    stood on a goal (``solved_at``: 0 at the start, None when never), and where they led."""

    played: int
    pushed: np.ndarray
    solved_at: int | None
    player: int
    occupied: np.ndarray


def replay_steps(board: Board, directions: np.ndarray) -> Replayed:
    """Play direction codes ``directions`` (0..3 = ``u d l r``) from ``board``'s position as
    :meth:`Board.step` does, up to the first illegal step, in one compiled loop over flat
    arrays (the board itself does not change): a 333,330-step solution replays in
    milliseconds, not the seconds of 333,330 :meth:`Board.step` calls."""
    occupied = board.occupied.copy()
    codes = np.ascontiguousarray(directions, dtype=np.int64)
    pushed = np.zeros(len(codes), dtype=np.bool_)
    level = board.level
    played, player, solved_at = _replay(
        level.floor, level.goals, delta_array(level.width), board.player, occupied, codes, pushed
    )
    return Replayed(
        int(played),
        pushed[:played],
        None if solved_at < 0 else int(solved_at),
        int(player),
        occupied,
    )


def _board(occupied: np.ndarray) -> np.ndarray:
    """``occupied`` as a writable bool array (the kernels' one signature)."""
    occupied = np.ascontiguousarray(occupied, dtype=np.bool_)
    return occupied if occupied.flags.writeable else occupied.copy()


# ---- kernels ---------------------------------------------------------------------------------
@numba.njit(cache=True)
def _walk(floor, occupied, deltas, start, target):  # pragma: no cover - compiled
    """Directions of a shortest walk; ``[-1]`` when the target cannot be reached.

    The walk of a breadth-first search that tries ``u d l r`` in turn: each cell is entered
    from the neighbour that the search took from its queue first (lowest ``order``).
    """
    if start == target:
        return np.empty(0, dtype=np.int64)
    cells = floor.shape[0]
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    distance = np.empty(cells, dtype=np.int64)
    count, _ = explore(floor, occupied, deltas, start, mark, np.int64(1), queue, distance)
    if not floor[target] or occupied[target] or mark[target] != 1:
        return np.full(1, -1, dtype=np.int64)
    order = np.empty(cells, dtype=np.int64)
    for i in range(count):
        order[queue[i]] = i
    path = np.empty(distance[target], dtype=np.int64)
    cell = target
    for step in range(distance[target] - 1, -1, -1):
        best = -1
        for k in range(4):
            previous = cell - deltas[k]
            if (
                mark[previous] == 1
                and distance[previous] == distance[cell] - 1
                and (best < 0 or order[previous] < order[cell - deltas[best]])
            ):
                best = k
        path[step] = best
        cell -= deltas[best]
    return path


@numba.njit(cache=True)
def _play(floor, goals, deltas, player, occupied, genes):  # pragma: no cover - compiled
    """Play ``genes`` on ``occupied`` in place; (player, solved, first bad gene or -1)."""
    off_goal = 0
    for cell in range(occupied.shape[0]):
        if occupied[cell] and not goals[cell]:
            off_goal += 1
    for j in range(genes.shape[0]):
        if off_goal == 0:
            return player, 1, -1
        gene = genes[j]
        if gene < 0 or gene > 3:
            return player, 0, j
        target = player + deltas[gene]
        if not floor[target]:
            continue
        if occupied[target]:
            beyond = target + deltas[gene]
            if not floor[beyond] or occupied[beyond]:
                continue
            occupied[target] = False
            occupied[beyond] = True
            off_goal += (0 if goals[target] else -1) + (0 if goals[beyond] else 1)
        player = target
    return player, 1 if off_goal == 0 else 0, -1


@numba.njit(cache=True)
def _replay(floor, goals, deltas, player, occupied, directions, pushed):  # pragma: no cover
    """Play ``directions`` on ``occupied`` in place up to the first illegal step, filling
    ``pushed``; (steps played, player, steps after which every box was first on a goal or -1)."""
    off_goal = 0
    for cell in range(occupied.shape[0]):
        if occupied[cell] and not goals[cell]:
            off_goal += 1
    solved_at = 0 if off_goal == 0 else -1
    for j in range(directions.shape[0]):
        delta = deltas[directions[j]]
        target = player + delta
        if not floor[target]:
            return j, player, solved_at
        if occupied[target]:
            beyond = target + delta
            if not floor[beyond] or occupied[beyond]:
                return j, player, solved_at
            occupied[target] = False
            occupied[beyond] = True
            off_goal += (0 if goals[target] else -1) + (0 if goals[beyond] else 1)
            pushed[j] = True
        player = target
        if solved_at < 0 and off_goal == 0:
            solved_at = j + 1
    return directions.shape[0], player, solved_at


@numba.njit(cache=True)
def _legal_pushes(floor, occupied, deltas, player):  # pragma: no cover - compiled
    cells = floor.shape[0]
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    explore(floor, occupied, deltas, player, mark, np.int64(1), queue, queue[:0])
    pairs = np.empty((4 * cells, 2), dtype=np.int64)
    count = 0
    for box in range(cells):
        if not occupied[box]:
            continue
        for k in range(4):
            target = box + deltas[k]
            if mark[box - deltas[k]] == 1 and floor[target] and not occupied[target]:
                pairs[count, 0] = box
                pairs[count, 1] = k
                count += 1
    return pairs[:count]
