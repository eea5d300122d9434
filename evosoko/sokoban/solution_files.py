"""Solutions stored in level collections: matching ``Solution`` notes to the levels they solve.

A run's ``solutions.sok`` also stores, for a level it did not solve, the best prefix the GA
found as a ``Best`` note with its ``Distance`` (never as a ``Solution``); ``include_best``
matches those too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evosoko.errors import SolutionError
from evosoko.sokoban.level import Level

SOLUTION_NOTE = "Solution"
BEST_NOTE = "Best"
"""The best prefix of a level the GA did not solve (LURD)."""
DISTANCE_NOTE = "Distance"
"""The distance to solved of the position a ``Best`` prefix reaches (the GA's objective)."""


@dataclass(frozen=True)
class SolutionEntry:
    """A solution to check: the level it is for, its LURD text, and where that text came from.

    ``kind`` is ``"solution"``, or ``"best"`` for a best prefix (``distance``: its note)."""

    level: Level
    lurd: str
    path: str | None = None
    line: int | None = None
    kind: str = "solution"
    distance: int | None = None


def note(level: Level, key: str) -> str | None:
    """The value of the note ``key`` (case-insensitive) of a level, if it carries one."""
    for name, value in level.notes:
        if name.lower() == key.lower():
            return value
    return None


def solution_note(level: Level) -> str | None:
    """The ``Solution`` note of a level, if it carries one."""
    return note(level, SOLUTION_NOTE)


def stored_play(level: Level, include_best: bool = True) -> tuple[str, str, int | None] | None:
    """``(kind, lurd, distance)`` of the ``Solution`` note of a level, else of its ``Best`` note
    (with ``include_best``), else None."""
    solution = solution_note(level)
    if solution is not None:
        return "solution", solution, None
    best = note(level, BEST_NOTE) if include_best else None
    if best is None:
        return None
    distance = note(level, DISTANCE_NOTE)
    return "best", best, int(distance) if distance and distance.strip().isdigit() else None


def stored_entry(
    stored: Level, target: Level | None = None, include_best: bool = True
) -> SolutionEntry | None:
    """The ``Solution`` (else, with ``include_best``, ``Best``) note of ``stored`` as an entry
    for ``target`` (default: ``stored`` itself), located at ``stored``'s file and line; None
    when it carries neither."""
    found = stored_play(stored, include_best)
    if found is None:
        return None
    kind, lurd, distance = found
    where = stored.origin
    return SolutionEntry(
        stored if target is None else target,
        lurd,
        where.path if where else None,
        where.line if where else None,
        kind,
        distance,
    )


def match_solutions(
    levels: Sequence[Level], solved: Sequence[Level], *, include_best: bool = False
) -> list[SolutionEntry]:
    """Pair each level of ``solved`` that carries a solution (or, with ``include_best``, a
    best prefix) with a level of ``levels``.

    A solution belongs to the level with the same title; untitled entries (and titles the
    level file does not have) fall back to the same 1-based index. An entry that matches no
    level raises :class:`SolutionError` naming its file and line.
    """
    by_title = {level.title: level for level in reversed(levels) if level.title}
    by_index = {level.index: level for level in levels}
    entries = []
    for entry in solved:
        if stored_play(entry, include_best) is None:
            continue
        target = by_title.get(entry.title) if entry.title else None
        if target is None:
            target = by_index.get(entry.index)
        if target is None:
            where = entry.origin
            raise SolutionError(
                f"solution for level {entry.name!r} matches no level of the level file",
                where.path if where else None,
                where.line if where else None,
            )
        stored = stored_entry(entry, target, include_best)
        if stored is not None:  # always: the entry carries a note (checked above)
            entries.append(stored)
    return entries
