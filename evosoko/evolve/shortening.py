"""``output.optimize_seconds``: a solved level's solution, shortened before its result is built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.optimize.shorten import Candidate


def shortened(level: Level, solution: str, seconds: float) -> Candidate:
    """The shortest solution (moves first) found from ``solution`` in up to ``seconds``: its
    ``lurd``, ``moves`` and ``pushes``, verified by the optimizer. The GA's own counts stay in
    its statistics (generations, evaluations); only the solution changes.
    """
    from evosoko.optimize import optimize_solution

    return optimize_solution(level, solution, "moves", seconds).best
