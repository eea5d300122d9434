"""Solving the levels of a file one after the other: what ``evosoko solve`` runs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from os import PathLike

from evosoko.search.algorithms import algorithm_named, heuristic_for
from evosoko.search.result import SearchResult
from evosoko.search.solver import solve
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level

JSON_KEYS = (
    "index",
    "level",
    "status",
    "moves",
    "pushes",
    "expanded",
    "generated",
    "duplicates",
    "seconds",
    "solution",
)
"""Keys of one JSON line of ``evosoko solve --json``, in order."""


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """One level of a file (1-based ``index`` in the file, ``name``) and its search result."""

    index: int
    name: str
    result: SearchResult

    def as_json(self) -> dict[str, object]:
        """The JSON object of ``evosoko solve --json`` for this level."""
        stats = self.result.as_dict()
        return {
            "index": self.index,
            "level": self.name,
            **{key: stats[key] for key in JSON_KEYS[2:]},
        }


def solve_file(
    path: str | PathLike[str],
    level_specs: Sequence[str | int] = (),
    algo: str = "push-astar",
    heuristic: str | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float = 3.0,
) -> Iterator[LevelOutcome]:
    """Solve the chosen levels of a file (all when ``level_specs`` is empty), lazily.

    Names are checked before the file is read, so a typo fails fast with
    :class:`evosoko.errors.ConfigError`; an unreadable file or unknown level raises the
    loader's :class:`evosoko.errors.EvosokoError`.
    """
    heuristic_for(algorithm_named(algo), heuristic)
    levels: list[Level] = read_levels(path)
    chosen = select_levels(levels, list(level_specs)) if level_specs else levels
    for level in chosen:
        result = solve(
            level, algo, heuristic, time_limit=time_limit, node_limit=node_limit, weight=weight
        )
        index = level.origin.index if level.origin else levels.index(level) + 1
        yield LevelOutcome(index=index, name=level.name, result=result)
