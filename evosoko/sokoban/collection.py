"""The layout of a level collection file: boards, their titles and their notes.

Format-neutral: a format supplies the test for "this line is a board row"; this module groups
consecutive board lines into boards and reads the text around them:

- the **title** of a board is the last ``;`` comment block before it (since the previous board's
  notes) when that block is a single line, or a ``Title:`` line after the board (which wins);
- ``Key: value`` lines after a board are its **notes**; a ``Solution`` line (optionally
  ``Solution (moves N, pushes M):``) may be followed by LURD lines up to a blank line;
- blank lines (also lines holding only spaces) and every other text are separators.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

NOTE_KEY = r"[A-Za-z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+){0,2}"
"""A note key: up to three words such as ``Author`` or ``Date Created``."""

_NOTE = re.compile(rf"(?P<key>{NOTE_KEY})\s*:\s*(?P<value>.*)")
_SOLUTION = re.compile(
    r"(?P<key>solution)(?:\s*\([^)]*\))?\s*(?::\s*(?P<value>.*))?", re.IGNORECASE
)
_LURD_LINE = re.compile(r"[0-9()\s]*[lurdLURD][lurdLURD0-9()\s]*")
_WORD = re.compile(r"[A-Za-z]{3,}")


@dataclass
class RawBoard:
    """A board as found in the text: its lines ``(line number, text)``, title and notes."""

    lines: list[tuple[int, str]]
    title: str | None = None
    notes: list[tuple[str, str]] = field(default_factory=list)
    note_lines: list[int] = field(default_factory=list)
    """The 1-based file line of each of ``notes``."""

    @property
    def first_line(self) -> int:
        """The 1-based file line of the first board row."""
        return self.lines[0][0]


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` for LF, CRLF and CR endings (a leading byte-order mark dropped)."""
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")


def has_word(line: str, letters_allowed: str = "") -> bool:
    """Whether ``line`` holds a word (three or more letters, not all in ``letters_allowed``)."""
    return any(set(word) - set(letters_allowed) for word in _WORD.findall(line))


def level_label(index: int, title: str | None) -> str:
    """``level 3 (Title)`` for messages, as the level builder writes it."""
    return f"level {index}" + (f" ({title})" if title else "")


def split_collection(text: str, is_board_line: Callable[[str], bool]) -> list[RawBoard]:
    """The boards of ``text`` in file order, each with its title and notes."""
    lines = text_lines(text)
    boards: list[RawBoard] = []
    comment_block: list[str] = []  # the latest block of consecutive ';' lines
    in_comment_block = False
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if is_board_line(line):
            start = index
            while index < len(lines) and is_board_line(lines[index]):
                index += 1
            title = comment_block[0] if len(comment_block) == 1 and comment_block[0] else None
            rows = [(number + 1, lines[number]) for number in range(start, index)]
            boards.append(RawBoard(rows, title))
            comment_block, in_comment_block = [], False
            continue
        index += 1
        if stripped.startswith(";"):
            if not in_comment_block:
                comment_block = []
            comment_block.append(stripped[1:].strip())
            in_comment_block = True
            continue
        in_comment_block = False
        if not boards or not stripped:
            continue
        solution = _SOLUTION.fullmatch(stripped)
        note = _NOTE.fullmatch(stripped)
        if solution:
            boards[-1].note_lines.append(index)
            value, index = _solution_value(solution["value"] or "", lines, index, is_board_line)
            boards[-1].notes.append((solution["key"], value))
        elif note and note["key"].lower() == "title":
            boards[-1].title = note["value"].strip() or boards[-1].title
        elif note:
            boards[-1].notes.append((note["key"], note["value"].strip()))
            boards[-1].note_lines.append(index)
        else:
            continue  # prose: neither board, title nor note
        comment_block = []  # comments before a note are not the next board's title
    return boards


def _solution_value(
    first: str, lines: list[str], index: int, is_board_line: Callable[[str], bool]
) -> tuple[str, int]:
    """The solution text: ``first`` plus the LURD lines from ``index`` up to a blank line."""
    parts = [first.strip()]
    while (
        index < len(lines)
        and _LURD_LINE.fullmatch(lines[index])
        and not is_board_line(lines[index])
    ):
        parts.append(lines[index].strip())
        index += 1
    return "".join(parts), index
