"""Monte Carlo tree search under the given-holes rules (``--algo mcts`` on a level with a
``Pairs`` note): solutions that verify under the variant, never fewer pushes than push-A*, one
search per seed, boxes that stay in holes not their own, budgets and statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from tiny_levels import search_signature, shared
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.experiment.compare.config import CompareConfig
from evosoko.experiment.compare.jobs import comparison_levels, plan_jobs, run_job
from evosoko.search import solve
from evosoko.search.given_holes import paired_distance
from evosoko.search.mcts import run as mcts_module
from evosoko.sokoban.formats import parse_levels, read_levels
from evosoko.sokoban.holes.board import VANISHED, HolesBoard, with_pairing
from evosoko.sokoban.solutions import verify_solution
from tests.sokoban.given_holes_levels import given_holes_levels, swap

BUNDLED = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"
CORRIDOR = "########\n#@$ .$.#\n########\n"


def corridor(pairs: str):
    """Box 1 must cross hole 1 to reach hole 2: solvable only paired ``1-1 2-2``."""
    return parse_levels(f"{CORRIDOR}Rules: given-holes\nPairs: {pairs}\n", "corridor.xsb")[0]


def _hard_level():
    """xsokoban 24 with every box paired with the next box's goal: far beyond a tenth of a
    second or a hundred iterations."""
    level = shared("xsokoban.txt", "screen.24")[0]
    rows = [(k + 1) % level.box_count for k in range(level.box_count)]
    goals = level.goal_cells.tolist()
    assert all(box != goals[row] for box, row in zip(level.start.boxes, rows))
    return with_pairing(level, rows)


def test_the_bundled_levels_are_solved_and_verify_under_the_variant():
    for level in read_levels(BUNDLED):
        result = solve(level, "mcts", node_limit=100_000, seed=1)
        assert result.status == "solved", level.name
        check = verify_solution(level, result.solution)  # replays on a HolesBoard
        assert check.valid and check.solved, level.name
        assert (check.moves, check.pushes) == (result.moves, result.pushes)
        assert result.pushes >= solve(level, "push-astar").pushes
        assert result.heuristic == "paired-push-distance"
        assert result.expanded > 0 and result.generated > 0


def test_manhattan_measures_each_box_against_its_own_hole():
    level = swap()
    result = solve(level, "mcts", "manhattan", node_limit=100_000)
    assert result.solved and result.heuristic == "paired-manhattan"
    assert verify_solution(level, result.solution).solved


def test_a_box_pushed_into_a_hole_not_its_own_stays():
    # Paired 1-1 2-2, box 1 vanishes in the first hole and the player walks over it; paired
    # 1-2 2-1, box 1 stands in box 2's hole and blocks the corridor for good: a search that
    # let it vanish there would solve the level.
    straight = solve(corridor("1-1 2-2"), "mcts")
    assert (straight.status, straight.solution) == ("solved", "RRrR")
    crossed = solve(corridor("1-2 2-1"), "mcts")
    assert (crossed.status, crossed.solution) == ("unsolvable", None)


def test_solutions_that_cross_other_boxes_holes_keep_those_boxes():
    """Replayed push by push, a box that lands on another box's hole is still on the board;
    the bundled levels' mcts solutions do that at least once."""
    crossings = 0
    for level in read_levels(BUNDLED):
        solution = solve(level, "mcts", node_limit=100_000, seed=2).solution
        board = HolesBoard(level)
        holes = level.pairing.holes
        for letter in solution:
            before = list(board.by_box)
            assert board.step("udlr".index(letter.lower()))
            for number, (was, now) in enumerate(zip(before, board.by_box)):
                if was != now and now != VANISHED and now in holes:
                    assert holes[number] != now
                    crossings += 1
        assert board.is_solved()
    assert crossings > 0


def test_the_same_seed_gives_the_same_search_and_seeds_differ():
    level = read_levels(BUNDLED)[-1]  # takes hundreds of iterations
    first = solve(level, "mcts", node_limit=200, seed=5)
    again = solve(level, "mcts", node_limit=200, seed=5)
    assert search_signature(first) == search_signature(again)
    others = {search_signature(solve(level, "mcts", node_limit=200, seed=seed)) for seed in (6, 7)}
    assert len(others | {search_signature(first)}) > 1


def test_slicing_the_kernel_calls_does_not_change_the_search(monkeypatch):
    """Calls of one work unit cut every rollout after each push; the search is the same."""
    level = read_levels(BUNDLED)[-1]
    whole = solve(level, "mcts", node_limit=300, seed=2)
    monkeypatch.setattr(mcts_module, "_FIRST_WORK_LIMIT", 1)
    monkeypatch.setattr(mcts_module, "_CHUNK_SECONDS", 1e-12)
    sliced = solve(level, "mcts", node_limit=300, seed=2)
    assert search_signature(sliced) == search_signature(whole)


def test_a_node_limit_counts_whole_iterations_and_keeps_partial_paths():
    level = _hard_level()
    result = solve(level, "mcts", node_limit=100, partial=3)
    assert (result.exhausted, result.expanded, result.solution) == ("iterations", 100, None)
    start = paired_distance(level, level.start.boxes)
    assert 0 < len(result.partial) <= 3
    assert [path.h for path in result.partial] == sorted(path.h for path in result.partial)
    assert result.partial[0].h < start
    for path in result.partial:
        check = verify_solution(level, path.lurd)
        assert check.valid and check.pushes == path.pushes and check.final == path.state
        assert paired_distance(level, path.state.by_box) == path.h


def test_a_time_limit_ends_the_search_with_timeout():
    result = solve(_hard_level(), "mcts", time_limit=0.1)
    assert result.exhausted == "seconds"
    assert result.expanded > 0 and result.solution is None


def test_a_frozen_box_is_lost_even_on_a_hole():
    text = "######\n#*   #\n#  $ #\n#@  .#\n######\nRules: given-holes\nPairs: 1-2 2-1\n"
    level = parse_levels(text, "frozen.xsb")[0]
    result = solve(level, "mcts")
    assert (result.status, result.expanded) == ("unsolvable", 0)


@settings(max_examples=40, deadline=None)
@given(given_holes_levels(max_boxes=3))
def test_mcts_agrees_with_push_astar_on_tiny_levels(level):
    """Any solution verifies and needs at least push-A*'s optimum; a level push-A* proves
    unsolvable is never solved, and mcts proves it (its candidates lose no solution)."""
    optimum = solve(level, "push-astar")
    result = solve(level, "mcts", node_limit=20_000, seed=3)
    if optimum.status == "unsolvable":
        assert result.status == "unsolvable"
        return
    assert result.status == "solved"
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    assert result.pushes >= optimum.pushes


def test_the_cli_solves_given_holes_levels_with_mcts():
    arguments = ["solve", str(BUNDLED), "-l", "1", "--algo", "mcts", "--json", "--seed", "4"]
    runner = CliRunner()
    first, again = runner.invoke(app, arguments), runner.invoke(app, arguments)
    assert first.exit_code == 0, first.output
    record, repeat = json.loads(first.stdout), json.loads(again.stdout)
    record.pop("seconds"), repeat.pop("seconds")
    assert record == repeat and record["status"] == "solved"
    assert verify_solution(read_levels(BUNDLED)[0], record["solution"]).solved


def test_compare_runs_mcts_on_given_holes_levels():
    config = CompareConfig.model_validate(
        {
            "compare": {
                "name": "m",
                "levels": str(BUNDLED),
                "select": ["1"],
                "seeds": [1, 2],
                "budget": {"seconds": 5, "nodes": 10_000},
            },
            "solver": [{"kind": "search", "algorithm": "mcts"}],
        }
    )
    jobs = plan_jobs(config, comparison_levels(config.compare))
    assert [job.payload["seed"] for job in jobs] == [1, 2]
    for job in jobs:
        outcome = run_job(job.payload)
        assert outcome["solved"] and 0 < outcome["used"] <= 10_000
        assert verify_solution(read_levels(BUNDLED)[0], outcome["solution"]).solved


@pytest.mark.parametrize("algorithm", ["push-idastar", "push-fess", "astar"])
def test_the_searches_that_do_not_play_the_variant_name_mcts_among_those_that_do(algorithm):
    from evosoko.errors import ConfigError

    with pytest.raises(ConfigError, match="use one of: push-bfs.*, mcts$"):
        solve(swap(), algorithm)
