"""solve(): the move-level baselines, push-level solvers, budgets, statuses and partial paths."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from tiny_levels import BLOCKED, STUCK, microban, quiet_level, seed_level, shared, tiny_levels

from evosoko.errors import ConfigError
from evosoko.search import ALGORITHMS, PushSettings, solve
from evosoko.sokoban.solutions import replay_states, verify_solution

MOVE_ALGORITHMS = [name for name, a in ALGORITHMS.items() if a.level == "move"]
PUSH_ALGORITHMS = [name for name, a in ALGORITHMS.items() if a.level == "push"]

OPEN_ROOM = ["#######",
             "#     #",
             "# $$. #",
             "#@  . #",
             "#######"]  # fmt: skip


def _assert_verified(level, result):
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    assert (check.moves, check.pushes) == (result.moves, result.pushes)


def test_bfs_finds_the_34_move_optimum_of_seed000_case3():
    level = seed_level("seed000-case3")
    result = solve(level, "bfs")
    assert result.status == "solved"
    assert result.moves == 34
    _assert_verified(level, result)


@pytest.mark.parametrize("heuristic", ["manhattan", "push-distance", "matching"])
def test_move_astar_matches_bfs_move_count(heuristic):
    for level in [seed_level("seed000-case3"), quiet_level(OPEN_ROOM)]:
        assert solve(level, "astar", heuristic).moves == solve(level, "bfs").moves


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_every_algorithm_returns_a_verified_solution(algo):
    level = seed_level("seed000-case3")
    result = solve(level, algo, seed=3)
    assert result.status == "solved"
    _assert_verified(level, result)
    assert result.expanded > 0 and result.generated > 0


@pytest.mark.parametrize("heuristic", ["manhattan", "push-distance", "matching"])
@pytest.mark.parametrize("algo", ["push-astar", "push-idastar"])
def test_push_optimal_searches_match_push_bfs(algo, heuristic):
    levels = microban("1", "2", "3", "6", "16", "35") + [seed_level("seed000-case3")]
    plain = PushSettings(freeze=False, corrals=False, tunnels=False)
    for level in levels:
        reference = solve(level, "push-bfs", settings=plain)
        result = solve(level, algo, heuristic)
        assert result.pushes == reference.pushes, level.name


@pytest.mark.parametrize("algo", ["bfs", "astar", "push-bfs", "push-astar", "push-idastar"])
@pytest.mark.parametrize("rows", [STUCK, BLOCKED])
def test_unsolvable_levels_are_reported_unsolvable(algo, rows):
    result = solve(quiet_level(rows), algo)
    assert result.status == "unsolvable"
    assert result.solution is None


def test_an_already_solved_level_needs_no_step():
    level = quiet_level(["#####", "#@* #", "#####"])
    result = solve(level, "push-astar")
    assert (result.status, result.solution, result.moves) == ("solved", "", 0)


@pytest.mark.parametrize("algo", ["bfs", "push-astar", "push-idastar"])
def test_node_limit_stops_the_search(algo):
    result = solve(seed_level("seed000-case3"), algo, node_limit=5)
    assert result.exhausted == "nodes"
    assert result.expanded == 5
    assert result.solution is None


def test_a_tiny_time_limit_times_out():
    level = shared("xsokoban.txt", "screen.01")[0]
    result = solve(level, "bfs", time_limit=0.05)
    assert result.exhausted == "seconds"
    assert result.expanded > 0


@pytest.mark.parametrize("algo", ["bfs", "greedy", "push-astar", "push-idastar"])
def test_partial_paths_are_valid_prefixes_ranked_by_h(algo):
    level = seed_level("seed000-case3")
    result = solve(level, algo, node_limit=20, partial=4)
    assert 0 < len(result.partial) <= 4
    assert [p.h for p in result.partial] == sorted(p.h for p in result.partial)
    for path in result.partial:
        check = verify_solution(level, path.lurd)
        assert check.valid
        assert replay_states(level, path.lurd)[-1] == path.state
        assert (check.moves, check.pushes) == (path.moves, path.pushes)


def test_random_order_depends_on_the_seed_only():
    level = seed_level("seed000-case3")
    first, again = solve(level, "random", seed=7), solve(level, "random", seed=7)
    assert first.solution == again.solution
    assert first.moves == 34


@pytest.mark.parametrize("algo", ["astar", "push-astar", "push-greedy", "push-fess"])
def test_progress_does_not_depend_on_how_the_calls_are_cut(algo, monkeypatch):
    from evosoko.search import search_run

    (level,) = microban("60")
    traces = []
    for cut in (None, lambda chunk, elapsed: 1, lambda chunk, elapsed: 7):
        if cut is not None:
            monkeypatch.setattr(search_run, "_next_chunk", cut)
        result = solve(level, algo)
        assert result.status == "solved"
        traces.append([(expanded, h) for expanded, _seconds, h in result.progress])
    assert traces[0] == traces[1] == traces[2]
    expansions, heuristics = zip(*traces[0], strict=True)
    assert expansions[0] == 0 and heuristics[-1] == 0
    assert list(expansions) == sorted(expansions)
    assert all(later < earlier for earlier, later in pairwise(heuristics))


def test_weighted_astar_weight_is_honoured():
    level = microban("36")[0]
    optimal = solve(level, "push-astar")
    weighted = solve(level, "push-wastar", weight=5)
    assert weighted.pushes >= optimal.pushes
    assert weighted.expanded < optimal.expanded


@pytest.mark.parametrize(
    "kwargs",
    [
        {"algo": "quantum"},
        {"algo": "push-astar", "heuristic": "manhattan-source"},
        {"algo": "astar", "heuristic": "psychic"},
        {"time_limit": 0},
        {"node_limit": 0},
        {"weight": 0.5},
        {"partial": -1},
    ],
)
def test_bad_arguments_raise_config_error(kwargs):
    with pytest.raises(ConfigError):
        solve(seed_level("seed000-case3"), **kwargs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels())
def test_push_astar_agrees_with_plain_push_bfs_on_random_tiny_levels(level):
    reference = solve(
        level, "push-bfs", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
    )
    result = solve(level, "push-astar")
    assert reference.status in ("solved", "unsolvable")
    assert result.status == reference.status
    assert result.pushes == reference.pushes
    if result.solved:
        _assert_verified(level, result)
