"""output.optimize_seconds: a GA's solution is shortened, verified, before it is recorded."""

from __future__ import annotations

from evolve_levels import run, small_level

from evosoko.sokoban.solutions import verify_solution


def test_optimize_seconds_shortens_the_recorded_solution():
    level = small_level("two-boxes")
    overrides = ["ga.encoding=moves", "run.budget.generations=300", "run.seed=3"]
    plain, _ = run(level, overrides)
    shortened, _ = run(level, [*overrides, "output.optimize_seconds=30"])
    assert plain.solved and shortened.solved
    assert shortened.generations == plain.generations  # the same run, only the solution differs
    check = verify_solution(level, shortened.solution)
    assert check.solved and (check.moves, check.pushes) == (shortened.moves, shortened.pushes)
    assert shortened.moves <= plain.moves
    assert shortened.best.lurd == shortened.solution
    assert shortened.best is not None and shortened.best.lurd == shortened.solution
    assert (shortened.best.moves, shortened.best.pushes) == (check.moves, check.pushes)
