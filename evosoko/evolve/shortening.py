"""``output.optimize_seconds``: a solved level's solution, shortened before it is recorded."""

from __future__ import annotations

import dataclasses

from evosoko.result import Result
from evosoko.sokoban.level import Level


def shortened(level: Level, result: Result, seconds: float) -> Result:
    """``result`` with its solution shortened (moves first) for up to ``seconds``.

    The optimizer verifies what it returns; the GA's own counts stay in the statistics
    (generations, evaluations), only the solution, its moves and pushes change.
    """
    from evosoko.optimize import optimize_solution

    if result.solution is None:
        raise ValueError("only a solved level's solution can be shortened")
    best = optimize_solution(level, result.solution, "moves", seconds).best
    played = result.best
    if played is not None:  # the contract: a solved level's best individual plays its solution
        played = dataclasses.replace(played, lurd=best.lurd, moves=best.moves, pushes=best.pushes)
    return dataclasses.replace(
        result, solution=best.lurd, moves=best.moves, pushes=best.pushes, best=played
    )
