"""Reading level files in every supported format, and choosing levels from a collection.

Formats (``FORMATS``): ``xsb`` (XSB/SOK collections, plain or run-length encoded boards),
``grid`` (hex digit grid) and ``num`` (numeric matrix). The layout rules for titles and notes
are in :mod:`evosoko.sokoban.collection`; writing is in :mod:`evosoko.sokoban.writing`.

A collection with an invalid level (a typo in one board of a downloaded set) is read anyway:
the invalid level is left out with one :class:`EvosokoWarning` naming its file, line and
reason, and the others keep their 1-based indices. Selecting the invalid level raises its
error; ``strict=True`` raises at the first invalid level instead.

Selecting (:func:`select_levels`): ``#N`` is the N-th level, ``title:T`` the level titled T,
any other text a title; a number (``11`` or ``"11"``) is an index or a title, and an error when
it is one level's index and another level's title.
"""

from __future__ import annotations

import codecs
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from evosoko.errors import EvosokoError, EvosokoWarning, LevelFormatError
from evosoko.file_reading import read_bounded
from evosoko.sokoban import grids, xsb
from evosoko.sokoban.collection import RawBoard, level_label, split_collection, text_lines
from evosoko.sokoban.holes.board import level_with_rules
from evosoko.sokoban.level import Level, Origin
from evosoko.sokoban.writing import format_levels, write_levels

__all__ = [
    "FORMATS",
    "INDEX_PREFIX",
    "TITLE_PREFIX",
    "InvalidLevel",
    "LevelCollection",
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
INDEX_PREFIX = "#"
"""``#11`` selects the 11th level of a file, whatever the titles."""
TITLE_PREFIX = "title:"
"""``title:11`` selects the level titled ``11``, whatever the indices."""


@dataclass(frozen=True)
class InvalidLevel:
    """A level of a collection that could not be read: its 1-based index, its title (if one
    could be read), the error (file, line, reason) and its board's text as written."""

    index: int
    title: str | None
    error: LevelFormatError
    text: str = ""


class LevelCollection(list[Level]):
    """The valid levels of a file, in file order (a list), and the ``invalid`` ones left out."""

    def __init__(self, levels=(), invalid: Sequence[InvalidLevel] = ()) -> None:
        super().__init__(levels)
        self.invalid: list[InvalidLevel] = list(invalid)


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


def parse_levels(
    text: str, path: str = "<text>", format: str | None = None, *, strict: bool = False
) -> LevelCollection:
    """Every valid level of ``text``; ``format`` overrides detection.

    An invalid level is left out with a warning (see the module docstring) unless ``strict``;
    a text without any valid level raises the first level's error.
    """
    path = str(path)
    chosen = _check_format(format, path) if format is not None else detect_format(path, text)
    dialect = _DIALECTS[chosen]
    levels = LevelCollection()
    index = 0
    for board in split_collection(text, dialect.is_board_line):
        try:
            rows, row_lines = dialect.board_rows(board, level_label(index + 1, board.title), path)
        except LevelFormatError as error:
            index += 1
            if strict:
                raise
            levels.invalid.append(InvalidLevel(index, board.title, error, _board_text(board)))
            continue
        if not any(row.strip() for row in rows):
            continue  # a separator such as '-----', not a board
        index += 1
        origin = Origin(path, board.first_line, index)
        try:
            level = level_with_rules(  # level_from_rows, then the rules notes checked
                rows,
                board.note_lines,
                title=board.title,
                origin=origin,
                row_lines=row_lines,
                notes=board.notes,
            )
        except LevelFormatError as error:
            if strict:
                raise
            levels.invalid.append(InvalidLevel(index, board.title, error, _board_text(board)))
            continue
        levels.append(level)
    if not levels:
        if levels.invalid:
            raise levels.invalid[0].error
        raise LevelFormatError(f"no level found (read as {chosen!r} format)", path)
    for invalid in levels.invalid:
        warnings.warn(
            EvosokoWarning(
                f"{invalid.error.message} (this level is left out)",
                invalid.error.path,
                invalid.error.line,
            ),
            stacklevel=2,
        )
    return levels


def _board_text(board: RawBoard) -> str:
    """A board as written, its title before it (for a collection that must keep positions)."""
    title = [f"; {board.title}"] if board.title else []
    return "\n".join(title + [line for _, line in board.lines])


def read_levels(
    path: str | PathLike[str], format: str | None = None, *, strict: bool = False
) -> LevelCollection:
    """Every valid level of the file at ``path`` (see :func:`parse_levels`); unreadable files
    raise :class:`LevelFormatError`."""
    name = str(path)
    if Path(path).is_dir():
        raise LevelFormatError("is a directory, not a level file", name)
    data = read_bounded(path, MAX_FILE_BYTES, LevelFormatError, "split the collection")
    return parse_levels(_decode(data, name), name, format, strict=strict)


def select_levels(levels: Sequence[Level], specs: Sequence[str | int]) -> list[Level]:
    """The levels named by ``specs``, in the order of ``specs``.

    A spec is ``#N`` (the level with 1-based index N), ``title:T`` (the level titled T), a
    number (``11`` or ``"11"``: the index, or the title when no level has that index; an error
    when it is one level's index and another level's title) or any other text (a title).
    Unknown names, indices out of range, ambiguous numbers and levels that could not be read
    (``levels.invalid`` of a :class:`LevelCollection`) raise :class:`EvosokoError` naming the
    file.
    """
    return [_select_one(levels, spec) for spec in specs]


def _select_one(levels: Sequence[Level], spec: str | int) -> Level:
    invalid = getattr(levels, "invalid", [])
    text = str(spec).strip()
    if isinstance(spec, str) and text.startswith(INDEX_PREFIX):
        digits = text[len(INDEX_PREFIX) :].strip()
        if digits.isdigit():
            return _by_index(levels, invalid, int(digits), spec)
        raise _no_such_level(levels, spec, f"{INDEX_PREFIX!r} must be followed by a number")
    if isinstance(spec, str) and text.lower().startswith(TITLE_PREFIX):
        return _by_title(levels, invalid, text[len(TITLE_PREFIX) :].strip(), spec)
    if isinstance(spec, bool) or not (isinstance(spec, int) or text.isdigit()):
        return _by_title(levels, invalid, text, spec)
    number = int(text)
    indexed = _indexed(levels).get(number)
    titled = _titled(levels).get(text)
    broken_index = next((bad for bad in invalid if bad.index == number), None)
    broken_title = next((bad for bad in invalid if bad.title == text), None)
    by_index = indexed or broken_index
    by_title = titled or broken_title
    if by_index is not None and by_title is not None and by_index is not by_title:
        raise _ambiguous(levels, number, by_index, by_title)
    if by_index is not None:
        return _by_index(levels, invalid, number, spec)
    if by_title is not None:
        return _by_title(levels, invalid, text, spec)
    raise _no_such_level(levels, spec)


def _indexed(levels: Sequence[Level]) -> dict[int, Level]:
    """Levels by their 1-based index in their file (their position when they have none)."""
    found: dict[int, Level] = {}
    for position, level in enumerate(levels, start=1):
        found.setdefault(level.index if level.index is not None else position, level)
    return found


def _titled(levels: Sequence[Level]) -> dict[str, Level]:
    found: dict[str, Level] = {}
    for level in levels:
        if level.title is not None:
            found.setdefault(level.title, level)
    return found


def _by_index(
    levels: Sequence[Level], invalid: Sequence[InvalidLevel], number: int, spec: str | int
) -> Level:
    return _found(
        _indexed(levels).get(number), [b for b in invalid if b.index == number], levels, spec
    )


def _by_title(
    levels: Sequence[Level], invalid: Sequence[InvalidLevel], title: str, spec: str | int
) -> Level:
    return _found(
        _titled(levels).get(title), [b for b in invalid if b.title == title], levels, spec
    )


def _found(
    level: Level | None, invalid: Sequence[InvalidLevel], levels: Sequence[Level], spec: str | int
) -> Level:
    """``level``; else the error of the invalid level the spec names; else "no such level"."""
    if level is not None:
        return level
    if invalid:
        raise _unreadable(invalid[0])
    raise _no_such_level(levels, spec)


def _unreadable(bad: InvalidLevel) -> LevelFormatError:
    """The error of selecting a level that could not be read: its own, file and line."""
    return LevelFormatError(
        f"{bad.error.message} (this level cannot be selected)", bad.error.path, bad.error.line
    )


def _describe(candidate: Level | InvalidLevel) -> str:
    title = candidate.title
    return f"level #{candidate.index}" + (f" {title!r}" if title else " (untitled)")


def _ambiguous(
    levels: Sequence[Level],
    number: int,
    by_index: Level | InvalidLevel,
    by_title: Level | InvalidLevel,
) -> EvosokoError:
    return EvosokoError(
        f"level {number} is ambiguous: index {number} is {_describe(by_index)}, title "
        f"'{number}' is {_describe(by_title)}; write {INDEX_PREFIX}{number} for the index or "
        f"{TITLE_PREFIX}{number} for the title",
        _file_of(levels),
    )


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


def _file_of(levels: Sequence[Level]) -> str | None:
    return levels[0].origin.path if levels and levels[0].origin else None


def _no_such_level(
    levels: Sequence[Level], spec: str | int, reason: str | None = None
) -> EvosokoError:
    shown = repr(spec) if isinstance(spec, str) else str(spec)
    titles = [level.title for level in levels if level.title]
    count = f"{len(levels)} level" + ("" if len(levels) == 1 else "s")
    if reason is not None:
        context = reason
    elif not levels:
        context = "the file has no levels"
    elif titles:
        examples = ", ".join(repr(title) for title in titles[:2])
        more = ", ..." if len(titles) > 2 else ""
        context = f"the file has {count}; titles like {examples}{more}"
    else:
        context = f"the file has {count}, none with a title"
    return EvosokoError(f"no level {shown} ({context})", _file_of(levels))
