"""The two foreign digit formats (see ``../shared/levels/README.md``) into canonical XSB rows.

- ``.grid``: one hex digit per cell, an OR of flags ``1`` floor, ``2`` goal, ``4`` box,
  ``8`` player; ``0`` is wall (``6`` box on goal, ``a`` player on goal). The outermost ring must
  be wall and a box cannot share a cell with the player.
- ``.num``: one digit per cell: ``0`` floor, ``1`` wall, ``2`` box, ``3`` goal, ``4`` player,
  ``5`` box on goal, ``6`` player on goal. Boards are padded with ``0``; the padding is floor
  outside the walls, which the level builder leaves out by flood fill.

A board row is a line whose first non-blank character is a decimal digit and that holds no word.
"""

from __future__ import annotations

from evosoko.errors import LevelFormatError
from evosoko.sokoban.build import BoardSize
from evosoko.sokoban.collection import RawBoard, has_word

GRID_GOAL, GRID_BOX, GRID_PLAYER = 2, 4, 8
_HEX_DIGITS = "0123456789abcdefABCDEF"
_NUM_CELLS = {"0": " ", "1": "#", "2": "$", "3": ".", "4": "@", "5": "*", "6": "+"}
_NUM_LEGEND = "0 floor, 1 wall, 2 box, 3 goal, 4 player, 5 box on goal, 6 player on goal"


def is_grid_line(line: str) -> bool:
    """Whether ``line`` is a row of a digit grid."""
    text = line.strip()
    return text[:1].isdecimal() and not has_word(text, letters_allowed="abcdefABCDEF")


def is_num_line(line: str) -> bool:
    """Whether ``line`` is a row of a numeric matrix."""
    text = line.strip()
    return text[:1].isdecimal() and not has_word(text)


def grid_board_rows(board: RawBoard, label: str, path: str) -> tuple[list[str], list[int]]:
    """Canonical rows of a digit grid, checking the wall ring and the flag combinations."""
    rows = []
    width = None
    last = len(board.lines) - 1
    size = BoardSize()
    for row, (number, line) in enumerate(board.lines):
        digits = _cells(line, _HEX_DIGITS, label, path, number)
        _check_size(size, len(digits), label, path, number)
        width = len(digits) if width is None else width
        if len(digits) != width:
            raise LevelFormatError(
                f"{label}: this row has {len(digits)} cells but the first has {width}; "
                "a digit grid is rectangular",
                path,
                number,
            )
        try:
            rows.append(_grid_row(digits, row in (0, last), _indent(line)))
        except ValueError as error:
            raise LevelFormatError(f"{label}: {error}", path, number) from None
    return rows, [number for number, _ in board.lines]


def num_board_rows(board: RawBoard, label: str, path: str) -> tuple[list[str], list[int]]:
    """Canonical rows of a numeric matrix (padding ``0`` becomes floor)."""
    rows = []
    size = BoardSize()
    for number, line in board.lines:
        digits = _cells(line, "0123456789", label, path, number)
        _check_size(size, _indent(line) + len(digits), label, path, number)
        for column, digit in enumerate(digits, start=_indent(line) + 1):
            if digit not in _NUM_CELLS:
                raise LevelFormatError(
                    f"{label}: unknown cell code {digit!r} in column {column} ({_NUM_LEGEND})",
                    path,
                    number,
                )
        rows.append("".join(_NUM_CELLS[digit] for digit in digits))
    return rows, [number for number, _ in board.lines]


def _check_size(size: BoardSize, row_length: int, label: str, path: str, number: int) -> None:
    too_large = size.add(row_length)
    if too_large:
        raise LevelFormatError(f"{label}: {too_large}", path, number)


def _cells(line: str, allowed: str, label: str, path: str, number: int) -> str:
    """The cell digits of a row (surrounding blanks dropped), rejecting other characters."""
    text = line.strip()
    if set(text) <= set(allowed):
        return text
    for column, char in enumerate(text, start=_indent(line) + 1):
        if char not in allowed:
            raise LevelFormatError(
                f"{label}: unknown character {char!r} in column {column}", path, number
            )
    return text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _grid_row(digits: str, ring_row: bool, indent: int) -> str:
    """Canonical characters of one grid row; ValueError names a bad cell."""
    return "".join(
        _grid_cell(digits[column], ring_row or column in (0, len(digits) - 1), indent + column + 1)
        for column in range(len(digits))
    )


def _grid_cell(digit: str, on_ring: bool, column: int) -> str:
    flags = int(digit, 16)
    where = f"column {column} ({digit!r})"
    if on_ring and flags:
        raise ValueError(f"the outermost ring of a digit grid must be wall (0), {where} is not")
    if flags & GRID_BOX and flags & GRID_PLAYER:
        raise ValueError(f"box and player on one cell at {where}")
    if flags == 0:
        return "#"
    goal = bool(flags & GRID_GOAL)
    if flags & GRID_PLAYER:
        return "+" if goal else "@"
    if flags & GRID_BOX:
        return "*" if goal else "$"
    return "." if goal else " "
