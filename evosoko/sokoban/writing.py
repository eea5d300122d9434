"""Writing canonical XSB collections: board rows, then ``Title:`` and notes as ``Key: value``.

Everything written reads back equal (:func:`evosoko.sokoban.formats.parse_levels`), so titles
and notes that could not (line breaks, control characters, blanks at either end, keys that are
not note keys) are refused with :class:`LevelFormatError` instead of being altered.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from os import PathLike

from evosoko.atomic import write_text_atomic
from evosoko.errors import LevelFormatError
from evosoko.sokoban.collection import NOTE_KEY
from evosoko.sokoban.level import Level

_NOTE_KEY = re.compile(NOTE_KEY)
_FORBIDDEN_CATEGORIES = {"Cc", "Cs", "Zl", "Zp"}  # control, surrogate, line/paragraph separator
EMPTY_ROW = "-"
"""How a board row without any cell other than floor is written, so it does not end the board."""


def format_levels(levels: Iterable[Level], path: str | None = None) -> str:
    """A canonical XSB collection of ``levels`` (LF endings, blank line between levels)."""
    blocks = []
    for level in levels:
        lines = [row or EMPTY_ROW for row in level.rows()]
        if level.title is not None:
            lines.append(f"Title: {_checked_text('title', level.title, level, path, empty=False)}")
        for key, value in level.notes:
            lines.append(_note_line(key, value, level, path))
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def write_levels(levels: Iterable[Level], path: str | PathLike[str]) -> None:
    """Write ``levels`` to ``path`` atomically (a temporary file in the same folder, renamed)."""
    write_text_atomic(path, format_levels(levels, str(path)), LevelFormatError)


def _note_line(key: str, value: str, level: Level, path: str | None) -> str:
    if not isinstance(key, str) or not _NOTE_KEY.fullmatch(key) or key.lower() == "title":
        raise LevelFormatError(
            f"{_name(level)}: {key!r} cannot be written as a note key (one to three words of "
            "letters, digits, '-' or '_', starting with a letter; not 'Title')",
            path,
        )
    value = _checked_text(f"note {key!r}", value, level, path, empty=True)
    return f"{key}: {value}" if value else f"{key}:"


def _checked_text(kind: str, text: str, level: Level, path: str | None, *, empty: bool) -> str:
    problem = None
    if not isinstance(text, str):
        problem = "is not a string"
    elif not text and not empty:
        problem = "is empty"
    elif text != text.strip():
        problem = "has blanks at its start or end"
    elif any(unicodedata.category(char) in _FORBIDDEN_CATEGORIES for char in text):
        problem = "holds a line break or a control character"
    if problem:
        raise LevelFormatError(f"{_name(level)}: the {kind} {text!r} {problem}", path)
    return text


def _name(level: Level) -> str:
    return f"level {level.origin.index}" if level.origin else "a level"
