"""Optimizing every solution of a solutions file, as ``evosoko optimize`` does."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from os import PathLike

from evosoko.optimize.shorten import OptimizeResult, optimize_solution
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.solution_files import match_solutions


def optimize_file(
    levels_path: str | PathLike[str],
    solutions_path: str | PathLike[str],
    level_specs: Sequence[str | int] = (),
    objective: str = "moves",
    seconds: float = 10.0,
    node_limit: int = 20_000,
    format: str | None = None,
) -> Iterator[OptimizeResult]:
    """Optimize the solutions of ``solutions_path`` (``Solution:`` notes) for their levels.

    Solutions are matched to levels by title, else by index
    (:func:`evosoko.sokoban.solution_files.match_solutions`); ``level_specs`` keeps only those
    levels. Each level gets ``seconds``. Yields one :class:`OptimizeResult` per solution.
    """
    levels = read_levels(levels_path, format)
    entries = match_solutions(levels, read_levels(solutions_path))
    if level_specs:
        wanted = {id(level) for level in select_levels(levels, list(level_specs))}
        entries = [entry for entry in entries if id(entry.level) in wanted]
    for entry in entries:
        yield optimize_solution(entry.level, entry.lurd, objective, seconds, node_limit)
