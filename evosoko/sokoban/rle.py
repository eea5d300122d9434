"""Run-length encoded boards: ``4#|#@$.#|4#``, nested groups such as ``2(3(#-)#)``.

A count repeats the next character or parenthesised group; ``|`` separates rows. Decoding only
expands the text: the board characters are left as they are (``-`` stays ``-``), so the caller
decides what they mean.
"""

from __future__ import annotations

from collections.abc import Sequence

RLE_MARKERS = frozenset("0123456789()|")
"""Characters that make a board line run-length encoded."""

ROW_SEPARATOR = "|"
MAX_EXPANDED_LENGTH = 1_000_000
"""Refuse to expand beyond this many characters (a typo like ``9999999#`` must not eat memory);
the board size limit of every format (:data:`evosoko.sokoban.build.MAX_BOARD_CELLS`)."""
MAX_COUNT_DIGITS = 7
"""A longer count is refused before it is converted (counts above the limit fail anyway)."""


class RunLengthError(ValueError):
    """Malformed run-length encoding; ``column`` is 1-based within the decoded text."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


def is_run_length_encoded(text: str) -> bool:
    """Whether ``text`` uses counts, groups or row separators."""
    return any(char in RLE_MARKERS for char in text)


def rle_decode(text: str) -> str:
    """Expand counts and groups of ``text``; row separators are kept. Raises RunLengthError."""
    stack: list[tuple[list[str], int, int]] = []  # (outer pieces, group count, column of '(')
    pieces: list[str] = []
    count_text, count_column = "", 0
    expanded_length = 0
    for column, char in enumerate(text, start=1):
        if "0" <= char <= "9":
            if not count_text:
                count_column = column
            count_text += char
            continue
        if count_text and char == ")":
            raise RunLengthError("the count before ')' has nothing to repeat", count_column)
        count = _count(count_text, count_column)
        count_text = ""
        if char == "(":
            stack.append((pieces, count, column))
            pieces = []
        elif char == ")":
            if not stack:
                raise RunLengthError("unbalanced ')': no group is open", column)
            outer, repeat, _ = stack.pop()
            group = "".join(pieces)
            expanded_length += len(group) * (repeat - 1)
            _check_length(expanded_length, column)
            outer.append(group * repeat)
            pieces = outer
        else:
            expanded_length += count
            _check_length(expanded_length, column)
            pieces.append(char * count)
    if count_text:
        message = f"the count {count_text} at the end has nothing to repeat"
        raise RunLengthError(message, count_column)
    if stack:
        raise RunLengthError("unbalanced '(': the group is never closed", stack[-1][2])
    return "".join(pieces)


def rle_decode_rows(text: str) -> list[str]:
    """The board rows of a run-length encoded text (a trailing ``|`` adds no row)."""
    rows = rle_decode(text).split(ROW_SEPARATOR)
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()
    return rows


def rle_encode_rows(rows: Sequence[str], floor: str = "-") -> str:
    """Run-length encode board rows on one line: runs become ``3#``, floor is written ``floor``.

    An empty row is written as one floor cell, so that a trailing one is not lost.
    """
    return ROW_SEPARATOR.join(_encode_row(row.replace(" ", floor) or floor) for row in rows)


def _encode_row(row: str) -> str:
    parts: list[str] = []
    start = 0
    while start < len(row):
        end = start
        while end < len(row) and row[end] == row[start]:
            end += 1
        run = end - start
        parts.append(f"{run}{row[start]}" if run > 1 else row[start])
        start = end
    return "".join(parts)


def _count(count_text: str, column: int) -> int:
    if not count_text:
        return 1
    if len(count_text.lstrip("0")) > MAX_COUNT_DIGITS:
        raise RunLengthError(
            f"the count {count_text[:12]}... has {len(count_text):,} digits: the board would "
            f"expand to more than {MAX_EXPANDED_LENGTH:,} cells",
            column,
        )
    count = int(count_text)
    if count == 0:
        raise RunLengthError("a count of 0 repeats nothing", column)
    return count


def _check_length(length: int, column: int) -> None:
    if length > MAX_EXPANDED_LENGTH:
        raise RunLengthError(
            f"the board is too large: it expands to more than {MAX_EXPANDED_LENGTH:,} cells",
            column,
        )
