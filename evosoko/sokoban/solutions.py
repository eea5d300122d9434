"""Solutions in LURD notation: parsing, run-length encoding, replay and verification.

A LURD string has one letter per step: ``u d l r`` for a move, ``U D L R`` for a push.
Community files also write them run-length encoded: a count repeats the next letter or
parenthesised group (``3r2(dL)`` = ``rrrdLdL``; groups nest), and wrap them over lines.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from evosoko.errors import EvosokoWarning, SolutionError
from evosoko.sokoban.holes.board import HolesBoard, HolesState, board_for
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import Board, direction_name, replay_steps

_STEP_TEXT = "udlrUDLR"
STEP_LETTERS = frozenset(_STEP_TEXT)
DIGITS = frozenset("0123456789")
MAX_LURD_LENGTH = 10_000_000
"""Longest expanded solution :func:`parse_lurd` accepts (guards against ``999999999(r)``)."""


# ---- parsing and writing -----------------------------------------------------------------------
def parse_lurd(text: str, *, path: str | None = None, line: int | None = None) -> str:
    """Expand a (possibly run-length encoded, wrapped) LURD string to plain letters.

    Whitespace is dropped anywhere; a count repeats the next letter or parenthesised group.
    ``path`` and ``line`` (of the text's first line) locate errors: a bad character, a count
    with nothing to repeat, an unbalanced parenthesis or an empty group raise
    :class:`SolutionError` naming the column.
    """
    if len(text) <= MAX_LURD_LENGTH and not text.strip(_STEP_TEXT):
        return text  # plain letters (what searches write): nothing to expand
    locate = _Locator(text, path, line)
    groups: list[tuple[list[str], int, int, int]] = []  # enclosing (pieces, length, count, "(" at)
    pieces: list[str] = []
    length = 0
    count, count_at = 0, -1
    for offset, char in enumerate(text):
        if char.isspace():
            continue
        if char in DIGITS:
            if count_at < 0:
                count_at = offset
            count = count * 10 + int(char)
            continue
        if count_at >= 0 and count == 0:
            raise locate.error("a repeat count must be at least 1", count_at)
        repeat = count if count_at >= 0 else 1
        if char in STEP_LETTERS:
            piece = char
        elif char == "(":
            groups.append((pieces, length, repeat, offset))
            pieces, length = [], 0
            count, count_at = 0, -1
            continue
        elif char == ")":
            if not groups:
                raise locate.error("')' without a matching '('", offset)
            if count_at >= 0:
                raise locate.error("a repeat count with no step or group after it", count_at)
            piece = "".join(pieces)
            pieces, length, repeat, opened_at = groups.pop()
            if not piece:
                raise locate.error("an empty group '()'", opened_at)
        else:
            raise locate.error(f"unexpected character {char!r} (LURD uses u d l r U D L R)", offset)
        length += len(piece) * repeat
        if length > MAX_LURD_LENGTH:
            raise locate.error(f"the solution expands beyond {MAX_LURD_LENGTH} steps", offset)
        pieces.append(piece * repeat)
        count, count_at = 0, -1
    if count_at >= 0:
        raise locate.error("a repeat count with no step or group after it", count_at)
    if groups:
        raise locate.error("'(' is never closed", groups[-1][3])
    return "".join(pieces)


def compress_lurd(lurd: str) -> str:
    """Run-length encode runs of one letter: ``rrrdLLL`` → ``3rd3L`` (:func:`parse_lurd`
    expands)."""
    out: list[str] = []
    i = 0
    while i < len(lurd):
        j = i
        while j < len(lurd) and lurd[j] == lurd[i]:
            j += 1
        out.append(f"{j - i}{lurd[i]}" if j - i > 1 else lurd[i])
        i = j
    return "".join(out)


def to_lurd(directions: Iterable[int], pushes: Iterable[bool]) -> str:
    """LURD letters for direction codes (0-3 = ``u d l r``), uppercase where a step pushed."""
    directions, pushes = list(directions), list(pushes)
    if len(directions) != len(pushes):
        raise ValueError(f"to_lurd: {len(directions)} directions but {len(pushes)} push flags")
    letters = (DIRECTIONS[d] for d in directions)
    return "".join(letter.upper() if pushed else letter for letter, pushed in zip(letters, pushes))


def lurd_directions(lurd: str) -> list[int]:
    """Direction codes (0-3 = ``u d l r``) of plain LURD letters, case ignored."""
    try:
        return [DIRECTIONS.index(letter) for letter in lurd.lower()]
    except ValueError:
        raise SolutionError(f"not a plain LURD string: {lurd[:40]!r}") from None


class _Locator:
    """Turns an offset into ``text`` into a line and column for error messages."""

    def __init__(self, text: str, path: str | None, line: int | None) -> None:
        self.text, self.path, self.line = text, path, line

    def error(self, message: str, offset: int) -> SolutionError:
        line_offset = self.text.count("\n", 0, offset)
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        if self.line is not None:
            return SolutionError(
                f"solution column {column}: {message}", self.path, self.line + line_offset
            )
        where = (
            f"line {line_offset + 1}, column {column}" if "\n" in self.text else f"column {column}"
        )
        return SolutionError(f"solution {where}: {message}", self.path, None)


# ---- replay ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verification:
    """The outcome of replaying a solution on its level.

    ``valid``: every step was legal. ``solved``: all boxes on goals after the last step replayed.
    ``moves`` / ``pushes``: legal steps replayed / those of them that pushed. ``error`` and
    ``failed_step`` (1-based) name the first illegal step. ``lurd``: the legal steps re-emitted
    with the correct case. ``case_mismatches``: letters whose case was wrong. ``solved_at``: the
    number of steps after which the level was first solved (None if never). ``final``: the state
    after the last legal step.
    """

    valid: bool
    solved: bool
    moves: int
    pushes: int
    error: str | None
    failed_step: int | None
    lurd: str
    case_mismatches: int
    solved_at: int | None
    final: State

    @property
    def extra_steps(self) -> int:
        """Steps replayed after the level was first solved (0 when never solved)."""
        return 0 if self.solved_at is None else self.moves - self.solved_at


def verify_solution(
    level: Level,
    lurd: str,
    *,
    path: str | None = None,
    line: int | None = None,
    start: State | HolesState | None = None,
) -> Verification:
    """Replay ``lurd`` (plain or run-length encoded) from the start of ``level`` (or from
    ``start``, a position reached by play; a :class:`HolesState` on a given-holes level).

    Stops at the first illegal step (``valid=False``). Steps after the level is solved are
    replayed like any other: ``solved`` is the state after the last step, ``solved_at`` tells
    when it was first solved, so a solution that pushes a box off its goal again is not solved.
    Letters with the wrong case count as ``case_mismatches`` and raise one
    :class:`EvosokoWarning`; malformed text raises :class:`SolutionError`.
    """
    steps = parse_lurd(lurd, path=path, line=line)
    board = board_for(level, start)
    if isinstance(board, HolesBoard):  # boxes vanish in their holes: step by step
        played, pushed, solved_at = _replay_on(board, steps)
    else:  # one compiled loop, and the board moved to where it ended
        replayed = replay_steps(board, _CODES[np.frombuffer(steps.encode("ascii"), np.uint8)])
        played, pushed, solved_at = replayed.played, replayed.pushed, replayed.solved_at
        boxes = tuple(np.flatnonzero(replayed.occupied).tolist())
        board = Board(level, State(replayed.player, boxes))
    error = failed_step = None
    if played < len(steps):
        failed_step = played + 1
        letter = steps[played]
        reason = illegal_step_reason(board, DIRECTIONS.index(letter.lower()))
        error = f"step {failed_step} {letter!r}: {reason}"
    letters = np.frombuffer(steps[:played].encode("ascii"), np.uint8)
    emitted = np.where(pushed, letters & ~np.uint8(_CASE_BIT), letters | np.uint8(_CASE_BIT))
    wrong = np.flatnonzero(pushed != ((letters & _CASE_BIT) == 0))
    if len(wrong):
        first = int(wrong[0])
        does = "pushes a box" if pushed[first] else "does not push"
        warnings.warn(
            EvosokoWarning(
                f"{len(wrong)} step(s) of the solution have the wrong case (first: "
                f"step {first + 1} {steps[first]!r} {does}); re-emitted with the correct case",
                path,
                line,
            ),
            stacklevel=2,
        )
    return Verification(
        valid=error is None,
        solved=board.is_solved(),
        moves=played,
        pushes=int(np.count_nonzero(pushed)),
        error=error,
        failed_step=failed_step,
        lurd=emitted.tobytes().decode("ascii"),
        case_mismatches=len(wrong),
        solved_at=solved_at,
        final=board.state(),
    )


_CODES = np.zeros(128, dtype=np.int64)
"""Direction code (0..3) of each LURD letter's ASCII code, either case."""
for _code, _letter in enumerate(DIRECTIONS):
    _CODES[ord(_letter)] = _CODES[ord(_letter.upper())] = _code
_CASE_BIT = 0x20
"""The ASCII bit that makes a letter lower case."""


def _replay_on(board: Board, steps: str) -> tuple[int, np.ndarray, int | None]:
    """Play the plain LURD ``steps`` on ``board`` up to the first illegal step, one
    :meth:`~evosoko.sokoban.rules.Board.step` at a time: (steps played, whether each pushed,
    steps after which the level was first solved or None)."""
    pushed: list[bool] = []
    solved_at = 0 if board.is_solved() else None
    for number, letter in enumerate(steps, start=1):
        if not board.step(DIRECTIONS.index(letter.lower())):
            break
        pushed.append(board.history[-1].pushed)
        if solved_at is None and board.is_solved():
            solved_at = number
    return len(pushed), np.array(pushed, dtype=np.bool_), solved_at


def replay_states(level: Level, lurd: str) -> list[State]:
    """The start state and the state after each step of ``lurd`` (case ignored), for animations.

    Raises :class:`SolutionError` at the first illegal step.
    """
    board = board_for(level)
    states = [board.state()]
    for number, letter in enumerate(parse_lurd(lurd), start=1):
        direction = DIRECTIONS.index(letter.lower())
        if not board.step(direction):
            raise SolutionError(
                f"step {number} {letter!r}: {illegal_step_reason(board, direction)}"
            )
        states.append(board.state())
    return states


def illegal_step_reason(board: Board, direction: int) -> str:
    """Why a step in ``direction`` is illegal on ``board`` (rows and columns 1-based).

    For example ``the box at row 3, column 5 cannot move left: wall``.
    """
    level = board.level
    delta = level.deltas[direction]
    target = board.player + delta
    mover, source = ("box", target) if board.occupied[target] else ("player", board.player)
    way, blocker = direction_name(direction), _blocker(level, board, source + delta)
    return f"the {mover} at {_where(level, source)} cannot move {way}: {blocker}"


def _blocker(level: Level, board: Board, cell: int) -> str:
    if board.occupied[cell]:
        return f"another box at {_where(level, cell)}"
    if level.walls[cell]:
        return "wall"
    if not level.floor[cell]:
        return "outside the level"
    return "nothing in the way"


def _where(level: Level, cell: int) -> str:
    row, column = level.position(cell)
    return f"row {row + 1}, column {column + 1}"
