"""Turning canonical XSB rows into a validated :class:`Level`.

Every parser converts its own format into rows of canonical XSB characters (``# .$*@+``, floor as
a space) plus the file line of each row, then calls :func:`level_from_rows`, which crops the
board, checks it and raises :class:`LevelFormatError` naming file, level and line.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from scipy import ndimage

from evosoko.errors import EvosokoWarning, LevelFormatError
from evosoko.sokoban.level import (
    BOARD_CHARACTERS,
    BOX,
    BOX_ON_GOAL,
    GOAL,
    PLAYER,
    PLAYER_ON_GOAL,
    WALL,
    Level,
    Origin,
    State,
)

MAX_BOARD_CELLS = 1_000_000
"""The largest board evosoko reads, in every format: width x height of the bounding rectangle
(a 1000x1000 board, or one row of a million cells). Checked row by row while a file is read,
before anything of that size is allocated; a larger board is one ``error:`` line."""


def check_board_size(width: int, height: int) -> str | None:
    """Why a ``width`` x ``height`` board is too large to read, or None when it is not."""
    if width * height <= MAX_BOARD_CELLS:
        return None
    return (
        f"the board is too large: {width:,} columns x {height:,} rows is more than the "
        f"{MAX_BOARD_CELLS:,} cells evosoko reads"
    )


class BoardSize:
    """Tracks the rectangle of the rows read so far, for :func:`check_board_size`."""

    def __init__(self) -> None:
        self.width = 0
        self.height = 0

    def add(self, row_length: int, rows: int = 1) -> str | None:
        """Count ``rows`` more rows of which the longest has ``row_length`` cells; the reason
        the board is now too large, or None."""
        self.width = max(self.width, row_length)
        self.height += rows
        return check_board_size(self.width, self.height)


def level_from_rows(
    rows: Sequence[str],
    *,
    title: str | None = None,
    origin: Origin | None = None,
    row_lines: Sequence[int] | None = None,
    notes: Sequence[tuple[str, str]] = (),
) -> Level:
    """Build and validate a level from canonical XSB rows.

    ``row_lines`` gives the file line of each row (default: ``origin.line + row``) so that
    errors point at the right line. Raises :class:`LevelFormatError` for an invalid board and
    warns (:class:`EvosokoWarning`) when the level is already solved.
    """
    path = origin.path if origin else "<board>"
    first_line = origin.line if origin else 1
    lines = list(row_lines) if row_lines is not None else [first_line + r for r in range(len(rows))]
    label = _label(title, origin)

    def fail(message: str, row: int | None = None) -> LevelFormatError:
        line = lines[row] if row is not None and row < len(lines) else first_line
        return LevelFormatError(f"{label}: {message}", path, line)

    too_large = check_board_size(max((len(row) for row in rows), default=0), len(rows))
    if too_large:
        raise fail(too_large)
    for r, row in enumerate(rows):
        if not BOARD_CHARACTERS.issuperset(row):
            c = next(c for c, char in enumerate(row) if char not in BOARD_CHARACTERS)
            raise fail(f"unknown character {row[c]!r} in column {c + 1}", r)

    top, bottom, left, right = _bounding_box(rows)
    if top > bottom:
        raise fail("the board is empty")
    cropped = [row[left : right + 1] for row in rows[top : bottom + 1]]
    lines = lines[top : bottom + 1]
    height = len(cropped)
    width = max(len(row) for row in cropped)
    grid = "".join(row.ljust(width) for row in cropped)

    codes = np.frombuffer(grid.encode("ascii"), dtype=np.uint8)
    walls = codes == ord(WALL)
    goals = np.isin(codes, [ord(GOAL), ord(BOX_ON_GOAL), ord(PLAYER_ON_GOAL)])
    boxes = np.flatnonzero(np.isin(codes, [ord(BOX), ord(BOX_ON_GOAL)])).tolist()
    players = np.flatnonzero(np.isin(codes, [ord(PLAYER), ord(PLAYER_ON_GOAL)])).tolist()

    def row_of(cell: int) -> int:
        return cell // width

    if not players:
        raise fail("no player ('@' or '+') on the board")
    if len(players) > 1:
        raise fail(
            f"{len(players)} players on the board; a level has exactly one", row_of(players[1])
        )
    if not boxes:
        raise fail("no box on the board")
    goal_count = int(goals.sum())
    if len(boxes) != goal_count:
        raise fail(f"{len(boxes)} boxes but {goal_count} goals; they must be equal in number")

    player = players[0]
    floor = _reachable(~walls, width, height, player)
    open_cell = _first_border_cell(floor, width, height)
    if open_cell is not None:
        r, c = divmod(open_cell, width)
        raise fail(
            f"the player can walk off the board at row {r + 1}, column {c + 1}: the level is not "
            "closed by walls",
            r,
        )
    # A box already on a goal that the player can never reach never moves: it is part of the
    # wall (Microban 155 decorates its walls this way).
    walled_in = {box for box in boxes if goals[box] and not floor[box]}
    if walled_in:
        walls[list(walled_in)] = True
        goals[list(walled_in)] = False
        boxes = [box for box in boxes if box not in walled_in]
        if not boxes:
            raise fail("no box the player can reach: every box is walled in on a goal")
    for box in boxes:
        if not floor[box]:
            r, c = divmod(box, width)
            raise fail(f"the box at row {r + 1}, column {c + 1} is out of the player's reach", r)
    for goal in np.flatnonzero(goals).tolist():
        if not floor[goal]:
            r, c = divmod(goal, width)
            raise fail(f"the goal at row {r + 1}, column {c + 1} is out of the player's reach", r)

    walls.setflags(write=False)
    goals.setflags(write=False)
    floor.setflags(write=False)
    level = Level(
        width=width,
        height=height,
        walls=walls,
        goals=goals,
        floor=floor,
        start=State.of(player, boxes),
        title=title,
        origin=origin,
        notes=tuple(notes),
    )
    if all(goals[b] for b in boxes):
        warnings.warn(
            EvosokoWarning(f"{label}: every box is already on a goal", path, first_line),
            stacklevel=2,
        )
    return level


def _label(title: str | None, origin: Origin | None) -> str:
    if origin is None:
        return f"level {title!r}" if title else "level"
    return f"level {origin.index}" + (f" ({title})" if title else "")


def _bounding_box(rows: Sequence[str]) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) of the non-blank cells; top > bottom when there are none."""
    used_rows = [r for r, row in enumerate(rows) if row.strip()]
    if not used_rows:
        return 1, 0, 0, 0
    left = min(len(rows[r]) - len(rows[r].lstrip()) for r in used_rows)
    right = max(len(rows[r].rstrip()) - 1 for r in used_rows)
    return used_rows[0], used_rows[-1], left, right


def _reachable(passable: np.ndarray, width: int, height: int, start: int) -> np.ndarray:
    """bool[cells]: the 4-connected region of ``passable`` cells around ``start`` (as
    :func:`evosoko.sokoban.level.flood_fill`, in C: a million cells take milliseconds)."""
    labels, _ = ndimage.label(passable.reshape(height, width))
    flat = labels.ravel()
    return flat == flat[start]


def _first_border_cell(floor: np.ndarray, width: int, height: int) -> int | None:
    """The first floor cell on the border of the rectangle (an open level), or None."""
    grid = floor.reshape(height, width)
    border = np.zeros_like(grid)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    hits = np.flatnonzero((grid & border).ravel())
    return int(hits[0]) if len(hits) else None
