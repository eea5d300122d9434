"""XSB board rows, plain or run-length encoded, into canonical rows.

A line is a board row when its first non-blank character is a board character (``#@+$*.-_``,
an opening ``(``, or a count followed by one of those) and it holds no word of three or more
letters (``Author: X``, ``Copyright ...`` and ``- a remark`` are text). Inside a board row every
other character is an error naming its column. Leading blanks are outside the board.
"""

from __future__ import annotations

from evosoko.errors import LevelFormatError
from evosoko.sokoban.build import BoardSize
from evosoko.sokoban.collection import RawBoard, has_word
from evosoko.sokoban.rle import RLE_MARKERS, RunLengthError, is_run_length_encoded, rle_decode_rows

FLOOR_ALIASES = "-_"
"""Characters written for floor besides the space."""

CELL_CHARACTERS = frozenset("#@+$*. " + FLOOR_ALIASES)
ROW_CHARACTERS = CELL_CHARACTERS | RLE_MARKERS
_ROW_STARTS = frozenset("#@+$*.(" + FLOOR_ALIASES)
_TO_CANONICAL = str.maketrans(FLOOR_ALIASES, " " * len(FLOOR_ALIASES))


def is_board_line(line: str) -> bool:
    """Whether ``line`` is a row of an XSB board (plain or run-length encoded)."""
    text = line.lstrip()
    if not text:
        return False
    after_count = text.lstrip("0123456789")
    return after_count[:1] in _ROW_STARTS and after_count != "" and not has_word(text)


def board_rows(board: RawBoard, label: str, path: str) -> tuple[list[str], list[int]]:
    """Canonical rows (floor as space) and the file line of each row."""
    rows: list[str] = []
    row_lines: list[int] = []
    size = BoardSize()
    for number, line in board.lines:
        line = line.rstrip()
        if not ROW_CHARACTERS.issuperset(line):
            column, char = next((c, x) for c, x in enumerate(line, 1) if x not in ROW_CHARACTERS)
            raise LevelFormatError(
                f"{label}: unknown character {char!r} in column {column}", path, number
            )
        decoded = _decode(line, label, path, number) if is_run_length_encoded(line) else [line]
        too_large = size.add(max(map(len, decoded), default=0), len(decoded))
        if too_large:
            raise LevelFormatError(f"{label}: {too_large}", path, number)
        rows.extend(row.translate(_TO_CANONICAL) for row in decoded)
        row_lines.extend([number] * len(decoded))
    return rows, row_lines


def _decode(line: str, label: str, path: str, number: int) -> list[str]:
    try:
        return rle_decode_rows(line)
    except RunLengthError as error:
        raise LevelFormatError(
            f"{label}: bad run-length encoding in column {error.column}: {error}", path, number
        ) from None
