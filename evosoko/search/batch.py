"""Solving several levels one after the other: what ``evosoko solve`` runs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from os import PathLike

from evosoko.search.algorithms import algorithm_named, heuristic_for
from evosoko.search.result import SearchResult
from evosoko.search.solver import check_arguments, solve
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
    "best",
)
"""Keys of one JSON line of ``evosoko solve --json``, in order."""


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """One level and its search result."""

    level: Level
    result: SearchResult

    def as_json(self) -> dict[str, object]:
        """The JSON object of ``evosoko solve --json`` for this level."""
        stats = self.result.as_dict()
        return {
            "index": self.level.index,
            "level": self.level.json_label,
            **{key: stats[key] for key in JSON_KEYS[2:-1]},
            "best": self.result.best(),
        }


def solve_levels(
    levels: Sequence[Level],
    algo: str = "push-astar",
    heuristic: str | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float = 3.0,
    seed: int = 0,
) -> Iterator[LevelOutcome]:
    """Solve ``levels`` in order, yielding each outcome as soon as it is known; ``seed`` drives
    the stochastic searches (``random``, ``mcts``). An unfinished search keeps its best partial
    path (:meth:`~evosoko.search.result.SearchResult.best`).

    The algorithm, heuristic and budget are checked at once (before any search), so a typo
    raises :class:`evosoko.errors.ConfigError` from this call, not from the first iteration.
    """
    heuristic_for(algorithm_named(algo), heuristic)
    check_arguments(time_limit, node_limit, weight, 0)

    def outcomes() -> Iterator[LevelOutcome]:
        for level in levels:
            result = solve(
                level,
                algo,
                heuristic,
                time_limit=time_limit,
                node_limit=node_limit,
                weight=weight,
                seed=seed,
                partial=1,
            )
            yield LevelOutcome(level=level, result=result)

    return outcomes()


def solve_file(
    path: str | PathLike[str],
    level_specs: Sequence[str | int] = (),
    algo: str = "push-astar",
    heuristic: str | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float = 3.0,
    format: str | None = None,
    seed: int = 0,
) -> Iterator[LevelOutcome]:
    """:func:`solve_levels` on the chosen levels of a file (all when ``level_specs`` is empty)."""
    heuristic_for(algorithm_named(algo), heuristic)
    levels = read_levels(path, format)
    chosen = select_levels(levels, list(level_specs)) if level_specs else levels
    return solve_levels(chosen, algo, heuristic, time_limit, node_limit, weight, seed)
