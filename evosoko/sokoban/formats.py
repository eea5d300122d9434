"""Reading level files in every supported format, and choosing levels from a collection.

Formats (``FORMATS``): ``xsb`` (XSB/SOK collections, plain or run-length encoded boards),
``grid`` (hex digit grid) and ``num`` (numeric matrix). The layout rules for titles and notes
are in :mod:`evosoko.sokoban.collection`; writing is in :mod:`evosoko.sokoban.writing`.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from evosoko.errors import EvosokoError, LevelFormatError
from evosoko.sokoban import grids, xsb
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.collection import RawBoard, level_label, split_collection, text_lines
from evosoko.sokoban.level import Level, Origin
from evosoko.sokoban.writing import format_levels, write_levels

__all__ = [
    "FORMATS",
    "detect_format",
    "format_levels",
    "parse_levels",
    "read_levels",
    "select_levels",
    "write_levels",
]

FORMATS = ("xsb", "grid", "num")
EXTENSION_FORMATS = {".xsb": "xsb", ".sok": "xsb", ".grid": "grid", ".num": "num"}
"""Extensions that decide the format; others (``.txt`` too) are recognised by content."""


@dataclass(frozen=True)
class _Dialect:
    is_board_line: Callable[[str], bool]
    board_rows: Callable[[RawBoard, str, str], tuple[list[str], list[int]]]


_DIALECTS = {
    "xsb": _Dialect(xsb.is_board_line, xsb.board_rows),
    "grid": _Dialect(grids.is_grid_line, grids.grid_board_rows),
    "num": _Dialect(grids.is_num_line, grids.num_board_rows),
}
MAX_FILE_BYTES = 256 * 1024**2
"""The largest level file evosoko reads (every Boxoban file together is far smaller)."""
_GRID_ONLY_DIGITS = frozenset("789abcdefABCDEF")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def detect_format(path: str | PathLike[str], text: str) -> str:
    """The format of a file: from its extension, else from its content (``xsb`` by default)."""
    extension = Path(path).suffix.lower()
    if extension in EXTENSION_FORMATS:
        return EXTENSION_FORMATS[extension]
    digit_rows = []
    for line in text_lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if xsb.is_board_line(line):
            return "xsb"
        if set(stripped) <= _HEX_DIGITS:
            digit_rows.append(stripped)
    if not digit_rows:
        return "xsb"
    # A grid player is 8..b and wall is 0; the numeric matrix uses only 0..6.
    return "grid" if _GRID_ONLY_DIGITS & set("".join(digit_rows)) else "num"


def parse_levels(text: str, path: str = "<text>", format: str | None = None) -> list[Level]:
    """Every level of ``text``, validated; ``format`` overrides detection."""
    path = str(path)
    chosen = _check_format(format, path) if format is not None else detect_format(path, text)
    dialect = _DIALECTS[chosen]
    levels: list[Level] = []
    for board in split_collection(text, dialect.is_board_line):
        index = len(levels) + 1
        rows, row_lines = dialect.board_rows(board, level_label(index, board.title), path)
        if not any(row.strip() for row in rows):
            continue  # a separator such as '-----', not a board
        levels.append(
            level_from_rows(
                rows,
                title=board.title,
                origin=Origin(path, board.first_line, index),
                row_lines=row_lines,
                notes=board.notes,
            )
        )
    if not levels:
        raise LevelFormatError(f"no level found (read as {chosen!r} format)", path)
    return levels


def read_levels(path: str | PathLike[str], format: str | None = None) -> list[Level]:
    """Every level of the file at ``path``; unreadable files raise :class:`LevelFormatError`."""
    name = str(path)
    file = Path(path)
    if file.is_dir():
        raise LevelFormatError("is a directory, not a level file", name)
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise LevelFormatError(
                f"the file is too large: {size:,} bytes, more than the {MAX_FILE_BYTES:,} "
                "evosoko reads (split the collection)",
                name,
            )
        data = file.read_bytes()
    except FileNotFoundError:
        raise LevelFormatError("no such file", name) from None
    except OSError as error:
        raise LevelFormatError(f"cannot read the file: {error.strerror or error}", name) from None
    return parse_levels(_decode(data, name), name, format)


def select_levels(levels: Sequence[Level], specs: Sequence[str | int]) -> list[Level]:
    """The levels named by ``specs`` (1-based indices or titles), in the order of ``specs``.

    A string of digits is an index unless a level has exactly that title. Unknown names and
    indices out of range raise :class:`EvosokoError` naming the file.
    """
    by_title: dict[str, Level] = {}
    for level in levels:
        if level.title is not None:
            by_title.setdefault(level.title, level)
    chosen = []
    for spec in specs:
        text = str(spec).strip()
        if text in by_title and not isinstance(spec, int):
            chosen.append(by_title[text])
        elif text.isdigit() and 1 <= int(text) <= len(levels):
            chosen.append(levels[int(text) - 1])
        else:
            raise _no_such_level(levels, spec)
    return chosen


def _check_format(format: str, path: str) -> str:
    name = format.strip().lower()
    if name not in FORMATS:
        raise LevelFormatError(
            f"unknown level format {format!r}; choose one of {', '.join(FORMATS)}", path
        )
    return name


def _decode(data: bytes, path: str) -> str:
    """Text of a file: UTF-16 with a byte-order mark, else UTF-8, else Latin-1."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise LevelFormatError("undecodable UTF-16 text", path) from None
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise LevelFormatError("binary data (NUL bytes), not a level file", path, line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _no_such_level(levels: Sequence[Level], spec: str | int) -> EvosokoError:
    path = levels[0].origin.path if levels and levels[0].origin else None
    shown = repr(spec) if isinstance(spec, str) else str(spec)
    titles = [level.title for level in levels if level.title]
    count = f"{len(levels)} level" + ("" if len(levels) == 1 else "s")
    if not levels:
        context = "the file has no levels"
    elif titles:
        examples = ", ".join(repr(title) for title in titles[:2])
        more = ", ..." if len(titles) > 2 else ""
        context = f"the file has {count}; titles like {examples}{more}"
    else:
        context = f"the file has {count}, none with a title"
    return EvosokoError(f"no level {shown} ({context})", path)
