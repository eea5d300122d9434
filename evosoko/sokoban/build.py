"""Turning canonical XSB rows into a validated :class:`Level`.

Every parser converts its own format into rows of canonical XSB characters (``# .$*@+``, floor as
a space) plus the file line of each row, then calls :func:`level_from_rows`, which crops the
board, checks it and raises :class:`LevelFormatError` naming file, level and line.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

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
    flood_fill,
    neighbour_table,
)


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

    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char not in BOARD_CHARACTERS:
                raise fail(f"unknown character {char!r} in column {c + 1}", r)

    top, bottom, left, right = _bounding_box(rows)
    if top > bottom:
        raise fail("the board is empty")
    cropped = [row[left : right + 1] for row in rows[top : bottom + 1]]
    lines = lines[top : bottom + 1]
    height = len(cropped)
    width = max(len(row) for row in cropped)
    grid = "".join(row.ljust(width) for row in cropped)

    walls = np.array([ch == WALL for ch in grid], dtype=bool)
    goals = np.array([ch in (GOAL, BOX_ON_GOAL, PLAYER_ON_GOAL) for ch in grid], dtype=bool)
    boxes = [i for i, ch in enumerate(grid) if ch in (BOX, BOX_ON_GOAL)]
    players = [i for i, ch in enumerate(grid) if ch in (PLAYER, PLAYER_ON_GOAL)]
    row_of = lambda cell: cell // width  # noqa: E731 - local shorthand for messages

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
    neighbours = neighbour_table(width, height)
    floor = flood_fill(~walls, neighbours, player)
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


def _first_border_cell(floor: np.ndarray, width: int, height: int) -> int | None:
    """The first floor cell on the border of the rectangle (an open level), or None."""
    grid = floor.reshape(height, width)
    border = np.zeros_like(grid)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    hits = np.flatnonzero((grid & border).ravel())
    return int(hits[0]) if len(hits) else None
