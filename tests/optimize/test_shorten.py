"""Shortening solutions: re-walking, loop cutting, window re-planning, the Pareto set, the CLI."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings

import pytest

from evosoko.errors import ConfigError, EvosokoWarning, SolutionError
from evosoko.optimize import Candidate, optimize_solution, pareto_front
from evosoko.optimize.shorten import push_sequence, walk_pushes
from evosoko.search import solve
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution
from evosoko.sokoban.writing import write_levels

# Microban 5: BFS needs 25 moves (8 pushes); the fewest pushes are 6 (27 moves).
CROSS = [" #######",
         " #     #",
         " # .$. #",
         "## $@$ #",
         "#  .$. #",
         "#      #",
         "########"]  # fmt: skip
LINE = ["#######",
        "#@ $ .#",
        "#######"]  # fmt: skip


def _level(rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows, title="t")


def test_detours_are_walked_off():
    level = _level(["########", "#      #", "#@ $ . #", "#      #", "########"])
    wasteful = "ud" * 3 + "urdl" + solve(level, "push-astar").solution
    assert verify_solution(level, wasteful).solved
    result = optimize_solution(level, wasteful, "moves", seconds=30)
    assert verify_solution(level, result.best.lurd).solved
    assert result.best.moves == solve(level, "bfs").moves
    assert result.best.moves < result.original.moves


def test_a_push_undone_later_is_cut_as_a_loop():
    level = _level(["#########", "#       #", "#@ $  . #", "#       #", "#########"])
    # push right, walk round, push it back left, walk back beside it, then solve
    lurd = "rR" + "urrd" + "L" + "dllu" + "RRR"
    check = verify_solution(level, lurd)
    assert check.solved and check.lurd == lurd and check.pushes == 5
    result = optimize_solution(level, lurd, "pushes", seconds=30)
    assert result.original.pushes == 5
    assert result.best.pushes == 3


def test_moves_first_reaches_the_bfs_optimum_and_pareto_keeps_both_trade_offs():
    level = _level(CROSS)
    greedy = solve(level, "push-greedy").solution
    moves_first = optimize_solution(level, greedy, "moves", seconds=60)
    assert moves_first.best.moves == solve(level, "bfs").moves == 25
    pareto = optimize_solution(level, greedy, "pareto", seconds=60)
    counts = [(c.moves, c.pushes) for c in pareto.pareto]
    assert (25, 8) in counts and min(p for _, p in counts) == solve(level, "push-astar").pushes
    for candidate in pareto.pareto:
        check = verify_solution(level, candidate.lurd)
        assert check.solved and (check.moves, check.pushes) == (candidate.moves, candidate.pushes)


def test_walk_pushes_replays_the_push_sequence_with_shortest_walks():
    level = _level(LINE)
    lurd = "rRR"
    assert push_sequence(level, lurd) == [(level.cell(1, 3), 3), (level.cell(1, 4), 3)]
    assert walk_pushes(level, push_sequence(level, lurd)) == "rRR"


def test_pareto_front_keeps_the_non_dominated_counts():
    front = pareto_front(
        [Candidate("a", 10, 5), Candidate("b", 12, 4), Candidate("c", 12, 6), Candidate("d", 9, 7)]
    )
    assert [(c.moves, c.pushes) for c in front] == [(9, 7), (10, 5), (12, 4)]


def test_bad_solutions_and_arguments_are_refused():
    level = _level(LINE)
    with pytest.raises(SolutionError):
        optimize_solution(level, "r", "moves")
    with pytest.raises(SolutionError):
        optimize_solution(level, "l", "moves")
    with pytest.raises(ConfigError):
        optimize_solution(level, "rRR", "shortest")
    with pytest.raises(ConfigError):
        optimize_solution(level, "rRR", "moves", seconds=0)


def test_the_optimize_command_writes_verified_shorter_solutions(tmp_path):
    level = dataclasses.replace(_level(CROSS), title="cross")
    levels_path = tmp_path / "levels.xsb"
    write_levels([level], levels_path)
    greedy = solve(level, "push-greedy").solution
    solutions = tmp_path / "solutions.sok"
    write_levels([dataclasses.replace(level, notes=(("Solution", greedy),))], solutions)
    out = tmp_path / "optimized.sok"
    command = [sys.executable, "-m", "evosoko.cli", "optimize", str(levels_path)]
    run = subprocess.run(
        [*command, "--solutions", str(solutions), "--out", str(out), "--json", "--seconds", "60"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    optimized = read_levels(out)[0]
    lurd = dict(optimized.notes)["Solution"]
    assert verify_solution(level, lurd).moves == 25
    bad = subprocess.run(
        [*command, "--solutions", str(tmp_path / "missing.sok")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
    assert "Traceback" not in bad.stderr


def test_a_given_holes_level_is_refused_with_its_rules_named():
    from tests.sokoban.given_holes_levels import SWAP_SOLUTION, swap

    with pytest.raises(ConfigError, match="plays the given-holes rules, which optimize"):
        optimize_solution(swap(), SWAP_SOLUTION, seconds=1.0)
