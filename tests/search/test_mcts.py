"""Monte Carlo tree search (``--algo mcts``): verified solutions, one search per seed however it
is sliced, budgets, statistics, and ``unsolvable`` only when proven."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from tiny_levels import (
    BLOCKED,
    BUNDLED_SEEDS,
    STUCK,
    microban,
    quiet_level,
    search_signature,
    seed_level,
    shared,
    tiny_levels,
)
from typer.testing import CliRunner

from evosoko import api
from evosoko.cli import app
from evosoko.evolve.hybrid import level_at
from evosoko.experiment.compare.config import CompareConfig
from evosoko.experiment.compare.jobs import plan_jobs
from evosoko.experiment.compare.runner import run_compare
from evosoko.search import ALGORITHMS, MctsSettings, PushSettings, solve
from evosoko.search.mcts import kernel as mcts_kernel
from evosoko.search.mcts import run as mcts_module
from evosoko.search.mcts.rules import start_objective
from evosoko.search.mcts.tree import (
    COUNTER_COUNT,
    EDGES,
    N_STATUS,
    NODES,
    PHASE,
    PLAYER,
    ROLLING_OUT,
    ROLLOUT_BEST_STEP,
    SOLVED,
)
from evosoko.search.search_run import table_bytes
from evosoko.sokoban.level import State
from evosoko.sokoban.solutions import replay_states, verify_solution

# Unsolvable, but no rule sees it at the start: the only proof is every position the candidate
# pushes reach (14 of them), each expanded.
EXHAUSTIBLE = ["######",
               "#    #",
               "# *# #",
               "#@ $*#",
               "#.   #",
               "######"]  # fmt: skip


def _run(level, **options):
    """An :class:`~evosoko.search.mcts.run.MctsRun` driven to its end: (run, status)."""
    arguments = {
        "heuristic": "matching",
        "time_limit": None,
        "node_limit": None,
        "settings": MctsSettings(),
        "seed": 0,
        "memory_limit": 2**31,
    }
    arguments.update(options)
    run = mcts_module.MctsRun(
        level,
        ALGORITHMS["mcts"],
        arguments["heuristic"],
        arguments["time_limit"],
        arguments["node_limit"],
        arguments["settings"],
        arguments["seed"],
        arguments["memory_limit"],
    )
    return run, run.search()


def test_mcts_is_registered_as_a_seeded_push_search_with_a_runner():
    algorithm = ALGORITHMS["mcts"]
    assert algorithm.level == "push" and algorithm.stochastic and algorithm.runner
    assert algorithm.default_heuristic == "matching"


def test_solutions_are_replay_verified_on_small_levels():
    levels = [seed_level("seed000-case3"), *microban("1", "2", "3", "4", "5")]
    for level in levels:
        result = solve(level, "mcts", node_limit=200_000, seed=1)
        assert result.status == "solved", level.name
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert (check.moves, check.pushes) == (result.moves, result.pushes)
        assert result.expanded > 0 and result.generated > 0


@pytest.mark.parametrize("heuristic", ["manhattan", "push-distance", "matching"])
def test_every_objective_solves(heuristic):
    level = microban("2")[0]
    result = solve(level, "mcts", heuristic, node_limit=200_000)
    assert result.solved and result.heuristic == heuristic
    assert verify_solution(level, result.solution).solved


def test_the_same_seed_gives_the_same_search_and_seeds_differ():
    level = shared("boxoban/medium/train-000.txt", "10")[0]  # takes thousands of iterations
    first = solve(level, "mcts", node_limit=3_000, seed=5)
    again = solve(level, "mcts", node_limit=3_000, seed=5)
    assert search_signature(first) == search_signature(again)
    neighbours = {
        search_signature(solve(level, "mcts", node_limit=3_000, seed=seed)) for seed in (6, 7)
    }
    assert len(neighbours | {search_signature(first)}) == 3  # neighbouring seeds, other searches


def test_neighbouring_seeds_draw_unrelated_numbers():
    def draws(seed):
        rng = np.array([mcts_module.seed_state(seed)], dtype=np.uint64)
        return [mcts_kernel.random_unit(rng) for _ in range(200)]

    streams = [draws(seed) for seed in (-1, 0, 1, 2, 3)]
    for k, stream in enumerate(streams):
        assert all(0.0 <= value < 1.0 for value in stream)
        for other in streams[k + 1 :]:
            assert not set(stream) & set(other)
    assert abs(np.mean(streams[1]) - 0.5) < 0.1


def test_slicing_the_kernel_calls_does_not_change_the_search(monkeypatch):
    """Calls of one work unit cut every rollout after each push; the search is the same."""
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    whole_run, whole = _run(level, node_limit=1_500, seed=2)
    monkeypatch.setattr(mcts_module, "_FIRST_WORK_LIMIT", 1)
    monkeypatch.setattr(mcts_module, "_CHUNK_SECONDS", 1e-12)
    calls = paused = 0
    original = mcts_module.MctsRun._call_kernel

    def counting(self):
        nonlocal calls, paused
        code = original(self)
        calls += 1
        paused += int(self.counters[PHASE] == ROLLING_OUT)
        return code

    monkeypatch.setattr(mcts_module.MctsRun, "_call_kernel", counting)
    sliced_run, sliced = _run(level, node_limit=1_500, seed=2)
    assert paused > 100 and calls > whole_run.counters[NODES]
    assert sliced == whole
    assert search_signature(sliced_run.result(sliced, 0)) == search_signature(
        whole_run.result(whole, 0)
    )
    kept = [k for k in range(COUNTER_COUNT) if not PLAYER <= k <= ROLLOUT_BEST_STEP]
    assert np.array_equal(sliced_run.counters[kept], whole_run.counters[kept])  # not the
    # saved state of a cut rollout
    nodes, edges = int(whole_run.counters[NODES]), int(whole_run.counters[EDGES])
    for name in ("nodes", "key", "boxes", "value"):
        assert np.array_equal(
            getattr(sliced_run.tree, name)[:nodes], getattr(whole_run.tree, name)[:nodes]
        )
    for name in ("edges", "prior"):
        assert np.array_equal(
            getattr(sliced_run.tree, name)[:edges], getattr(whole_run.tree, name)[:edges]
        )
    assert sliced_run.rng[0] == whole_run.rng[0]


def test_a_node_limit_counts_whole_iterations():
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    for limit in (1, 7, 250):
        result = solve(level, "mcts", node_limit=limit)
        assert result.exhausted == "iterations"
        assert result.expanded == limit
        assert result.solution is None


def test_a_time_limit_ends_the_search_with_timeout():
    level = shared("xsokoban.txt", "screen.24")[0]  # far beyond a tenth of a second
    result = solve(level, "mcts", time_limit=0.1)
    assert result.exhausted == "seconds"
    assert result.expanded > 0 and result.solution is None


@pytest.mark.parametrize("rows", [STUCK, BLOCKED])
def test_a_lost_start_is_proven_unsolvable(rows):
    result = solve(quiet_level(rows), "mcts")
    assert (result.status, result.solution) == ("unsolvable", None)


def test_a_level_is_proven_unsolvable_by_exhausting_its_positions():
    level = quiet_level(EXHAUSTIBLE)
    assert solve(level, "push-bfs").status == "unsolvable"
    run, status = _run(level, node_limit=100_000)
    assert status == "unsolvable"
    assert run.counters[NODES] > 10  # it had to look before it knew


def test_a_lost_position_of_microban_77_is_proven_unsolvable():
    """The walled-in box of the lost-search tests: every push sequence ends lost."""
    level = microban("77")[0]
    cell = lambda row, column: row * level.width + column
    boxes = [cell(1, 5), cell(1, 6), cell(1, 7), cell(3, 8)]
    start = level_at(level, State.of(cell(3, 7), boxes))
    assert solve(start, "mcts", node_limit=10_000).status == "unsolvable"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(tiny_levels())
def test_mcts_agrees_with_push_bfs_on_tiny_levels(level):
    """Never unsolvable when push-BFS solves a level, and on levels this small it always ends
    with a proof either way."""
    plain = PushSettings(freeze=False, corrals=False, tunnels=False)
    reference = solve(level, "push-bfs", settings=plain).status
    result = solve(level, "mcts", node_limit=50_000)
    assert result.status == reference


def test_a_budget_on_a_solvable_level_is_never_unsolvable():
    level = shared("boxoban/medium/train-000.txt", "42")[0]
    for seed in range(3):
        assert solve(level, "mcts", node_limit=300, seed=seed).exhausted == "iterations"


def test_transpositions_share_one_node_per_position():
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    run, _ = _run(level, node_limit=2_000)
    result = run.result("node-limit", 0)
    assert result.duplicates > 0 and result.generated == run.counters[NODES]
    count = int(run.counters[NODES])
    positions = {
        (int(run.tree.nodes[node, 0]), tuple(run.tree.boxes[node].tolist()))
        for node in range(count)
    }
    assert len(positions) == count
    assert not np.any(run.tree.nodes[:count, N_STATUS] == SOLVED)


def test_partial_paths_start_with_the_best_rollout_and_replay():
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    result = solve(level, "mcts", node_limit=300, partial=5)
    assert 0 < len(result.partial) <= 5
    assert [p.h for p in result.partial] == sorted(p.h for p in result.partial)
    assert len({p.state for p in result.partial}) == len(result.partial)
    for path in result.partial:
        check = verify_solution(level, path.lurd)
        assert check.valid
        assert replay_states(level, path.lurd)[-1] == path.state
    run, _ = _run(level, node_limit=300)
    best, pushes = run.best_rollout()
    assert result.partial[0].h == best and result.partial[0].pushes == len(pushes)


def test_a_tree_that_outgrows_its_arrays_grows(monkeypatch):
    monkeypatch.setattr(mcts_module, "_FIRST_CAPACITY", 4)
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    grown, status = _run(level, node_limit=2_000, seed=3)
    monkeypatch.undo()
    roomy, same = _run(level, node_limit=2_000, seed=3)
    assert grown.tree.capacity > 4 and status == same
    assert np.array_equal(grown.counters, roomy.counters)


def test_memory_limit_ends_the_search_without_a_claim(monkeypatch):
    monkeypatch.setattr(mcts_module, "_FIRST_CAPACITY", 4)
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    tables = table_bytes(level)
    run, status = _run(level, memory_limit=tables + 1)
    assert status == "memory-limit"
    assert run.tree.capacity == 4 and run.counters[NODES] == 4
    result = run.result(status, 3)
    assert result.status == "memory-limit" and result.partial  # it keeps what it reached


def test_tables_that_do_not_fit_are_not_built():
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    result = solve(level, "mcts", memory_limit=table_bytes(level), partial=2)
    assert (result.status, result.expanded, result.partial) == ("memory-limit", 0, ())


def test_the_cli_takes_a_seed_and_prints_the_usual_json():
    arguments = ["solve", str(BUNDLED_SEEDS), "-l", "seed000-case3", "--algo", "mcts", "--json"]
    runner = CliRunner()
    first = runner.invoke(app, [*arguments, "--seed", "4"])
    again = runner.invoke(app, [*arguments, "--seed", "4"])
    assert first.exit_code == 0, first.output
    record, repeat = json.loads(first.stdout), json.loads(again.stdout)
    record.pop("seconds"), repeat.pop("seconds")
    assert record == repeat and record["status"] == "solved"
    limited = runner.invoke(app, [*arguments, "--node-limit", "1", "--seed", "4"])
    assert limited.exit_code in (0, 1)
    assert json.loads(limited.stdout)["expanded"] == 1


def test_the_json_best_is_the_best_rollout_or_the_solution_or_nothing_when_proven():
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    best = api.solve(level, "mcts", nodes=300, seed=0).best.as_dict()
    run, _ = _run(level, node_limit=300)
    distance, pushes = run.best_rollout()
    assert (best["distance"], best["pushes"], best["solved"]) == (distance, len(pushes), False)
    assert 0 < best["distance"] < start_objective(level, "matching")
    check = verify_solution(level, best["lurd"])
    assert check.valid and not check.solved
    assert (check.moves, check.pushes) == (best["moves"], best["pushes"])
    solved = api.solve(seed_level("seed000-case3"), "mcts", seed=0)
    assert solved.best.as_dict() == {
        "lurd": solved.solution,
        "distance": 0,
        "moves": solved.moves,
        "pushes": solved.pushes,
        "solved": True,
    }
    lost = api.solve(quiet_level(STUCK), "mcts")
    assert lost.status == "unsolvable" and lost.best is None


def test_compare_runs_mcts_once_per_seed():
    config = CompareConfig.model_validate(
        {
            "compare": {
                "name": "m",
                "levels": str(BUNDLED_SEEDS),
                "select": ["seed000-case3"],
                "seeds": [1, 2, 3],
                "budget": {"seconds": 5, "evaluations": 10, "nodes": 500},
            },
            "solver": [
                {"kind": "search", "algorithm": "mcts"},
                {"kind": "search", "algorithm": "push-astar"},
            ],
        }
    )
    from evosoko.experiment.compare.jobs import comparison_levels, run_job

    jobs = plan_jobs(config, comparison_levels(config.compare))
    seeds = [job.payload["seed"] for job in jobs if job.payload["solver"] == "mcts"]
    assert seeds == [1, 2, 3]
    outcome = run_job(jobs[0].payload)
    assert outcome["solved"] and 0 < outcome["used"] <= 500


def test_compare_counts_mcts_in_iterations_not_expanded_nodes(tmp_path):
    config = CompareConfig.model_validate(
        {
            "compare": {
                "name": "m",
                "levels": str(BUNDLED_SEEDS),
                "first": 2,
                "seeds": [1],
                "budget": {"seconds": 5, "nodes": 100_000},
            },
            "parallel": {"backend": "serial"},
            "solver": [
                {"kind": "search", "algorithm": "mcts"},
                {"kind": "search", "algorithm": "push-astar"},
            ],
        }
    )
    outcome = run_compare(config, tmp_path / "out", plots=False)
    assert {(row["solver"], row["unit"]) for row in outcome.rows} == {
        ("mcts", "iterations"),
        ("push-astar", "nodes"),
    }
    assert {s.solver: s.unit for s in outcome.summaries} == {
        "mcts": "iterations",
        "push-astar": "nodes",
    }
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    measures = {test["measure"] for test in summary["paired_tests"]}
    assert measures == {"solved", "seconds"}  # no shared cost unit: the wall clock
    text = (tmp_path / "out" / "summary.md").read_text()
    assert "100,000 expanded nodes (search; mcts: iterations)" in text


def test_illegal_pushes_are_a_search_bug_not_a_solution():
    level = seed_level("seed000-case3")
    with pytest.raises(mcts_module.SearchBug):
        mcts_module.lurd_of_pushes(level, [0])


def test_the_kernel_reports_a_solved_start():
    level = quiet_level(["#####", "#@* #", "#####"])
    run, status = _run(level)
    assert status == "solved" and run.result(status, 0).solution == ""
    assert mcts_kernel.FOUND != mcts_kernel.CONTINUE


def test_hybrid_mode_seeds_from_mcts_rollouts():
    from pathlib import Path

    from evosoko.config import load_config
    from evosoko.evolve.hybrid import search_seeds

    configs = Path(__file__).resolve().parents[2] / "configs"
    config = load_config(
        configs / "hybrid.toml", ["hybrid.algorithm=mcts", "hybrid.node_budget=20"]
    )
    level = shared("boxoban/medium/train-000.txt", "10")[0]
    seeds = search_seeds(level, config)
    assert len(seeds) > 1 and all(seeds)
    assert seeds == search_seeds(level, config)  # a node budget keeps it reproducible
