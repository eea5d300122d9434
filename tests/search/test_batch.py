"""solve_file: the levels of a file, chosen by index or title, with the CLI's JSON keys."""

from __future__ import annotations

import pytest
from tiny_levels import BUNDLED_SEEDS

from evosoko.errors import ConfigError, EvosokoError
from evosoko.search.batch import JSON_KEYS, solve_file
from evosoko.search.result import BEST_KEYS
from evosoko.sokoban.solutions import verify_solution


def test_chosen_levels_are_solved_in_order_with_the_json_keys():
    outcomes = list(solve_file(BUNDLED_SEEDS, ["seed000-case3", 1], algo="bfs"))
    assert [(o.level.index, o.level.name) for o in outcomes] == [
        (2, "seed000-case3"),
        (1, "seed000-example"),
    ]
    record = outcomes[0].as_json()
    assert tuple(record) == JSON_KEYS
    assert (record["status"], record["moves"]) == ("solved", 34)


def test_names_are_checked_before_any_search():
    with pytest.raises(ConfigError):
        solve_file(BUNDLED_SEEDS, algo="bogus")
    with pytest.raises(ConfigError):
        solve_file(BUNDLED_SEEDS, time_limit=-1)
    with pytest.raises(EvosokoError):
        solve_file(BUNDLED_SEEDS, ["no-such-level"])


def test_an_unfinished_search_reports_its_best_open_state():
    (outcome,) = solve_file(BUNDLED_SEEDS, ["seed000-case3"], algo="push-astar", node_limit=2)
    assert outcome.result.status == "node-limit"
    best = outcome.as_json()["best"]
    assert tuple(best) == BEST_KEYS and best["solved"] is False
    path = outcome.result.partial[0]
    assert (best["lurd"], best["distance"]) == (path.lurd, path.h)
    check = verify_solution(outcome.level, best["lurd"])
    assert check.valid and not check.solved and check.pushes == best["pushes"]
