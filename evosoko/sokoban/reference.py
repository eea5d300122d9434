"""Plain-Python twin of the replay kernel, written independently, for tests and benchmarks.

:func:`replay_batch_reference` follows the contract of :func:`evosoko.sokoban.kernels.replay_batch`
(see that module's docstring for the rules) with Python lists, sets and ``(row, column)``
coordinates instead of flat offsets, and it recomputes the score from scratch after every push
instead of updating it. It reads only the data of :class:`ReplayTables`, never the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import xor

import numpy as np

from evosoko.sokoban.kernels import ReplayResult, ReplayTables
from evosoko.sokoban.level import State

_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""(row, column) step of each direction u d l r."""


@dataclass
class _Outcome:
    solved: bool
    solved_at: int
    boxes_on_goals: int
    best_prefix: int
    best_score: int
    final_hash: int
    deadlocked: bool
    steps: int


class _Board:
    """The level as Python lists, with (row, column) access."""

    def __init__(self, tables: ReplayTables) -> None:
        self.width = tables.width
        self.height = tables.cells // tables.width
        self.floor = [bool(x) for x in tables.floor.tolist()]
        self.goal = [bool(x) for x in tables.goal.tolist()]
        self.nearest = tables.nearest.tolist()
        self.dead = [bool(x) for x in tables.dead.tolist()]
        self.zobrist_box = tables.zobrist_box.tolist()
        self.zobrist_player = tables.zobrist_player.tolist()

    def cell(self, row: int, column: int) -> int | None:
        """Flat index of (row, column), or None off the board."""
        if 0 <= row < self.height and 0 <= column < self.width:
            return row * self.width + column
        return None

    def step(self, cell: int, direction: int) -> int | None:
        """The neighbour of ``cell`` in ``direction``, or None off the board."""
        row, column = divmod(cell, self.width)
        step_row, step_column = _STEPS[direction]
        return self.cell(row + step_row, column + step_column)

    def is_open(self, cell: int | None, boxes: set[int]) -> bool:
        """Whether a player or box may enter ``cell``."""
        return cell is not None and self.floor[cell] and cell not in boxes

    def score(self, boxes: set[int]) -> int:
        return sum(self.nearest[box] for box in boxes)

    def is_solved(self, boxes: set[int]) -> bool:
        return all(self.goal[box] for box in boxes)

    def freezes(self, box: int, boxes: set[int]) -> bool:
        """Whether ``box`` lies in a 2x2 square of walls and boxes with a box off its goal."""
        row, column = divmod(box, self.width)
        for top in (row - 1, row):
            for left in (column - 1, column):
                square = [self.cell(top + r, left + c) for r in (0, 1) for c in (0, 1)]
                if any(self.is_open(cell, boxes) for cell in square):
                    continue
                if any(cell in boxes and not self.goal[cell] for cell in square):
                    return True
        return False

    def normalized_player(self, player: int, boxes: set[int]) -> int:
        """Smallest cell the player reaches without pushing (breadth-first search)."""
        seen = {player}
        frontier = [player]
        while frontier:
            following = []
            for cell in frontier:
                for direction in range(4):
                    neighbour = self.step(cell, direction)
                    if self.is_open(neighbour, boxes) and neighbour not in seen:
                        seen.add(neighbour)
                        following.append(neighbour)
            frontier = following
        return min(seen)

    def position_hash(self, player: int, boxes: set[int]) -> int:
        box_keys = reduce(xor, (self.zobrist_box[box] for box in boxes), 0)
        return box_keys ^ self.zobrist_player[self.normalized_player(player, boxes)]


def replay_batch_reference(
    tables: ReplayTables,
    genomes: np.ndarray,
    lengths: np.ndarray | None = None,
    stop_on_deadlock: bool = False,
    start: State | None = None,
) -> ReplayResult:
    """The contract and outputs of :func:`evosoko.sokoban.kernels.replay_batch`, in plain Python."""
    rows = np.asarray(genomes).tolist()
    if lengths is None:
        lengths = [len(row) for row in rows]
    else:
        lengths = np.asarray(lengths).tolist()
    board = _Board(tables)
    state = start if start is not None else State.of(tables.start_player, tables.start_boxes)
    outcomes = [
        _replay_one(board, state, row[:length], stop_on_deadlock)
        for row, length in zip(rows, lengths, strict=True)
    ]
    result = ReplayResult.empty(len(outcomes))
    for index, outcome in enumerate(outcomes):
        for name, value in vars(outcome).items():
            getattr(result, name)[index] = value
    return result


def _replay_one(board: _Board, start: State, genes: list[int], stop_on_deadlock: bool) -> _Outcome:
    player = start.player
    boxes = set(start.boxes)
    best_score = board.score(boxes)
    best_prefix = 0
    solved = board.is_solved(boxes)
    deadlocked = False
    consumed = 0
    for gene in genes if not solved else ():
        if gene not in (0, 1, 2, 3):
            raise ValueError("genes must be direction codes 0..3")
        consumed += 1
        target = board.step(player, gene)
        if target is None or not board.floor[target]:
            continue
        if target not in boxes:
            player = target
            continue
        beyond = board.step(target, gene)
        if not board.is_open(beyond, boxes):
            continue
        boxes.remove(target)
        boxes.add(beyond)
        player = target
        score = board.score(boxes)
        if score < best_score:
            best_score, best_prefix = score, consumed
        if board.is_solved(boxes):
            solved = True
            break
        if stop_on_deadlock and (board.dead[beyond] or board.freezes(beyond, boxes)):
            deadlocked = True
            break
    return _Outcome(
        solved=solved,
        solved_at=consumed if solved else -1,
        boxes_on_goals=sum(board.goal[box] for box in boxes),
        best_prefix=best_prefix,
        best_score=best_score,
        final_hash=board.position_hash(player, boxes),
        deadlocked=deadlocked,
        steps=consumed,
    )
