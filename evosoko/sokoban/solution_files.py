"""Solutions stored in level collections: matching ``Solution`` notes to the levels they solve."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evosoko.errors import SolutionError
from evosoko.sokoban.level import Level

SOLUTION_NOTE = "Solution"


@dataclass(frozen=True)
class SolutionEntry:
    """A solution to check: the level it is for, its LURD text, and where that text came from."""

    level: Level
    lurd: str
    path: str | None = None
    line: int | None = None


def solution_note(level: Level) -> str | None:
    """The ``Solution`` note of a level, if it carries one."""
    for key, value in level.notes:
        if key.lower() == SOLUTION_NOTE.lower():
            return value
    return None


def match_solutions(levels: Sequence[Level], solved: Sequence[Level]) -> list[SolutionEntry]:
    """Pair each level of ``solved`` that carries a solution with a level of ``levels``.

    A solution belongs to the level with the same title; untitled entries (and titles the
    level file does not have) fall back to the same 1-based index. An entry that matches no
    level raises :class:`SolutionError` naming its file and line.
    """
    by_title = {level.title: level for level in reversed(levels) if level.title}
    by_index = {level.index: level for level in levels}
    entries = []
    for entry in solved:
        lurd = solution_note(entry)
        if lurd is None:
            continue
        target = by_title.get(entry.title) if entry.title else None
        if target is None:
            target = by_index.get(entry.index)
        where = entry.origin
        if target is None:
            raise SolutionError(
                f"solution for level {entry.name!r} matches no level of the level file",
                where.path if where else None,
                where.line if where else None,
            )
        entries.append(
            SolutionEntry(
                target, lurd, where.path if where else None, where.line if where else None
            )
        )
    return entries
