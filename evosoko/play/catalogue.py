"""The level browser's contents, without the terminal: one row per level (number, title, size,
boxes, solved mark, bests from the progress file) and going to a level by number or title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evosoko.errors import EvosokoError
from evosoko.play.progress import Progress
from evosoko.sokoban.formats import select_levels
from evosoko.sokoban.level import Level
from evosoko.text import plain

SOLVED_MARK = "✓"


@dataclass(frozen=True)
class LevelRow:
    """What the browser shows of the level at ``position``: its 1-based ``number`` in its
    file, title, size, boxes, and for a solved level its fewest-moves and fewest-pushes
    solutions as ``moves/pushes``."""

    position: int
    number: int
    title: str
    size: str
    boxes: int
    solved: bool
    fewest_moves: str
    fewest_pushes: str

    def matches(self, text: str) -> bool:
        """Whether a filter ``text`` keeps this row: its number (``#N``: only the number), or
        a part of its title (case ignored); an empty filter keeps every row."""
        text = text.strip().lower()
        if text.startswith("#"):
            return text[1:].strip() in ("", str(self.number))
        return not text or text == str(self.number) or text in self.title.lower()


def level_number(level: Level, position: int) -> int:
    """The level's 1-based index in its file (its place in the list when it has none)."""
    return level.index if level.index is not None else position + 1


def level_rows(levels: Sequence[Level], progress: Progress | None) -> list[LevelRow]:
    """One row per level, in order; no solved marks without ``progress``."""
    rows = []
    for position, level in enumerate(levels):
        record = progress.of(level) if progress is not None else None
        rows.append(
            LevelRow(
                position,
                level_number(level, position),
                plain(level.title or ""),
                f"{level.width}×{level.height}",
                level.box_count,
                record is not None,
                record.fewest_moves.describe() if record else "",
                record.fewest_pushes.describe() if record else "",
            )
        )
    return rows


def find_level(levels: Sequence[Level], text: str) -> int:
    """The position in ``levels`` of the level ``text`` names: as ``--level`` does (a number
    is the index, else a title; ``#N``, ``title:T``), else the one level whose title contains
    ``text`` (case ignored). Raises :class:`EvosokoError` saying why none or several match."""
    text = text.strip()
    if not text:
        raise EvosokoError("type a level number or a title (or part of one)")
    try:
        (chosen,) = select_levels(levels, [text])
    except EvosokoError as error:
        wanted = text.lower()
        found = [n for n, level in enumerate(levels) if wanted in (level.title or "").lower()]
        if len(found) == 1:
            return found[0]
        if found:
            titles = ", ".join(plain(levels[n].title) for n in found[:3])
            more = ", ..." if len(found) > 3 else ""
            raise EvosokoError(
                f"{len(found)} titles contain {plain(text)!r} ({titles}{more}): "
                "pick one in the list"
            ) from None
        raise EvosokoError(error.message) from None
    return next(n for n, level in enumerate(levels) if level is chosen)
