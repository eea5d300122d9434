"""Solutions that ``evosoko play`` replays and saves: notes of level collections.

A collection's level carries ``Solution: LURD`` when it is solved; a run's ``solutions.sok``
carries ``Best: LURD`` (and ``Distance: N``) for a level the GA did not solve: the best
individual's moves, which the player can watch and take over from. Entries are matched to the
levels being played by title, else by 1-based index (as ``evosoko verify --solutions`` does).
Saving writes a collection that ``evosoko verify LEVELS --solutions FILE`` checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evosoko.errors import SolutionError
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.holes.board import rules_notes
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import parse_lurd, verify_solution
from evosoko.sokoban.writing import write_levels

SOLUTION_KEY = "Solution"
BEST_KEY = "Best"
DISTANCE_KEY = "Distance"


@dataclass(frozen=True)
class StoredSolution:
    """A LURD to replay; ``solves`` is False for a GA's best prefix, whose ``distance`` (the
    boxes' matching distance at its end, when given) says how far from solved it stopped."""

    lurd: str
    solves: bool
    source: str
    distance: int | None = None

    def describe(self) -> str:
        """``solution from FILE`` or ``GA's best prefix (distance 3) from FILE``."""
        if self.solves:
            return f"solution from {self.source}"
        distance = "" if self.distance is None else f" (distance {self.distance})"
        return f"GA's best prefix{distance} from {self.source}"


def note(level: Level, key: str) -> str | None:
    """The value of ``level``'s note ``key`` (case ignored), or None."""
    for name, value in level.notes:
        if name.lower() == key.lower():
            return value
    return None


def stored_solution(level: Level, source: str) -> StoredSolution | None:
    """The ``Solution`` (else ``Best``) note of ``level``, expanded; None when it has neither."""
    for key, solves in ((SOLUTION_KEY, True), (BEST_KEY, False)):
        text = note(level, key)
        if text is None:
            continue
        line = level.origin.line if level.origin else None
        lurd = parse_lurd(text, path=level.origin.path if level.origin else source, line=line)
        distance = note(level, DISTANCE_KEY)
        return StoredSolution(
            lurd,
            solves,
            source,
            int(distance) if distance is not None and distance.strip().isdigit() else None,
        )
    return None


def match_entries(levels: Sequence[Level], entries: Sequence[Level]) -> dict[int, Level]:
    """Each entry of ``entries`` paired with a level of ``levels``: {position in levels: entry}.

    An entry goes to the level with its title, else (untitled, or a title the levels lack) to
    the level at its index; entries that match no level are left out.
    """
    by_title: dict[str, int] = {}
    for position, level in enumerate(levels):
        if level.title:
            by_title.setdefault(level.title, position)
    matched: dict[int, Level] = {}
    for entry in entries:
        target = by_title.get(entry.title) if entry.title else None
        if target is None and entry.index is not None and 1 <= entry.index <= len(levels):
            target = entry.index - 1
        if target is not None:
            matched.setdefault(target, entry)
    return matched


def read_stored_solutions(levels: Sequence[Level], path: str | Path) -> dict[int, StoredSolution]:
    """The solutions (or best prefixes) of ``path`` for ``levels``: {position in levels: it}.

    Raises :class:`LevelFormatError` / :class:`SolutionError` for a file that cannot be read.
    """
    found = {}
    for position, entry in match_entries(levels, read_levels(path)).items():
        stored = stored_solution(entry, str(path))
        if stored is not None:
            found[position] = stored
    return found


def save_solution(path: str | Path, levels: Sequence[Level], position: int, lurd: str) -> int:
    """Add the solution ``lurd`` of ``levels[position]`` to the collection at ``path``.

    The solution is verified first (:class:`SolutionError` unless it solves the level). The
    file keeps the solutions it already holds for the other levels (an existing file is read
    and matched like ``--solutions``) and replaces this level's; titled levels are written
    alone, untitled ones in their place among the levels before them, so that every entry
    matches its level. Returns the number of solutions in the file.
    """
    level = levels[position]
    check = verify_solution(level, lurd)
    if not (check.valid and check.solved):
        raise SolutionError(f"level {level.name}: the solution does not solve it", str(path))
    solutions: dict[int, str] = {}
    target = Path(path)
    if target.exists():
        for place, entry in match_entries(levels, read_levels(target)).items():
            text = note(entry, SOLUTION_KEY)
            if text is not None:
                solutions[place] = text
    solutions[position] = check.lurd
    write_levels(_collection(levels, solutions), target)
    return len(solutions)


def _collection(levels: Sequence[Level], solutions: dict[int, str]) -> list[Level]:
    if all(levels[position].title for position in solutions):
        places: Sequence[int] = sorted(solutions)
    else:
        places = range(max(solutions) + 1)
    collection = []
    for place in places:
        level = levels[place]
        solution: tuple[tuple[str, str], ...] = (
            ((SOLUTION_KEY, solutions[place]),) if place in solutions else ()
        )
        notes = rules_notes(level) + solution  # a given-holes level stays one
        collection.append(level_from_rows(level.rows(), title=level.title, notes=notes))
    return collection
