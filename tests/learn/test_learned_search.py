"""push-learned searches: complete, verified, budgets honoured, a model of one's own."""

from __future__ import annotations

import numpy as np
import pytest
from learn_levels import microban, quiet_level, seed_level

from evosoko.errors import ConfigError
from evosoko.learn.network import Architecture, LevelNet, save_model
from evosoko.search import learned, search_run, solve
from evosoko.search.learned import RULES
from evosoko.sokoban.solutions import verify_solution

LEARNED = ["push-learned", "push-learned-source"]


@pytest.mark.parametrize("algo", LEARNED)
def test_learned_searches_return_verified_solutions(algo):
    for level in [seed_level("seed000-case3"), *microban("1", "2", "5")]:
        result = solve(level, algo)
        assert result.status == "solved", level.name
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert result.expanded > 0


@pytest.mark.parametrize("algo", LEARNED)
def test_a_level_without_solution_is_exhausted_not_guessed(algo):
    stuck = quiet_level(["#######", "#@$$..#", "#######"])
    assert solve(stuck, algo).status == "unsolvable"


def test_node_and_time_limits_stop_the_search():
    level = microban("93")[0]
    result = solve(level, "push-learned", node_limit=7)
    assert (result.exhausted, result.expanded) == ("nodes", 7)
    assert solve(level, "push-learned", time_limit=0.01).status in ("budget", "solved")


def test_the_clock_is_read_between_batches_of_the_network(monkeypatch):
    # on a board of a million cells one call of the network on all the children of an
    # expansion ran for seconds past --time-limit 2
    level = microban("93")[0]
    monkeypatch.setattr(learned, "BATCH_CELLS", level.cells)  # one child per call
    calls = []
    probabilities = LevelNet.probabilities

    def counted(self, codes, *between):
        calls.append(len(codes))
        return probabilities(self, codes, *between)

    monkeypatch.setattr(LevelNet, "probabilities", counted)
    monkeypatch.setattr(search_run.SearchRun, "out_of_time", lambda run: len(calls) >= 3)
    result = solve(level, "push-learned", time_limit=100)
    assert result.exhausted == "seconds"
    assert calls == [1, 1, 1] and result.expanded == 1  # the root, then two of its children


def test_a_set_up_that_takes_the_time_ends_the_search_before_it_starts(monkeypatch):
    level = microban("93")[0]
    checks = []
    monkeypatch.setattr(
        search_run.SearchRun, "out_of_time", lambda run: checks.append(1) or len(checks) > 1
    )  # the first check is the store's preparation, the next ones in the network's tables
    result = solve(level, "push-learned", time_limit=100)
    assert (result.exhausted, result.expanded) == ("seconds", 0)


@pytest.mark.parametrize("algo", LEARNED)
def test_expansions_cut_short_by_the_work_limit_give_the_same_search(algo, monkeypatch):
    # a work limit of one unit makes the kernel stop after every successor and go on from
    # there on the next call: the guided search must see each expansion whole all the same
    level = microban("5")[0]
    whole = solve(level, algo)
    monkeypatch.setattr(search_run, "_FIRST_WORK_LIMIT", 1)
    sliced = solve(level, algo)
    assert sliced.status == whole.status == "solved"
    assert (sliced.solution, sliced.expanded, sliced.generated) == (
        whole.solution,
        whole.expanded,
        whole.generated,
    )


def test_a_model_that_calls_everything_dead_still_finds_the_solution(tmp_path):
    # all-zero weights but a large output bias: p = 1 everywhere, so the ordering is all
    # "likely dead" tier; completeness must not depend on the network being right
    architecture = Architecture(convolutions=((2, 1),), hidden=2)
    weights = {
        "conv0.weight": np.zeros((2, 5, 3, 3)),
        "conv0.bias": np.zeros(2),
        "hidden.weight": np.zeros((2, 4)),
        "hidden.bias": np.zeros(2),
        "out.weight": np.zeros((1, 2)),
        "out.bias": np.full(1, 30.0),
    }
    save_model(tmp_path / "dead.npz", architecture, weights)
    level = seed_level("seed000-case3")
    result = solve(level, "push-learned", model=str(tmp_path / "dead.npz"))
    assert result.status == "solved"
    assert verify_solution(level, result.solution).solved
    # the public API passes the model through: the same search, not the shipped model's
    from evosoko import api

    through_api = api.solve(level, "push-learned", model=tmp_path / "dead.npz")
    assert (through_api.cost, through_api.solution) == (result.expanded, result.solution)
    shipped = solve(level, "push-learned")
    assert (shipped.expanded, shipped.generated) != (result.expanded, result.generated)


def test_a_missing_model_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no model file"):
        solve(seed_level("seed000-case3"), "push-learned", model=str(tmp_path / "none.npz"))


def test_the_source_rule_puts_likely_dead_children_last_by_probability():
    rule = RULES["push-learned-source"]
    p = np.array([0.1, 0.9, 0.3, 0.05])
    h = np.array([9, 1, 1, 2])
    order = np.argsort(rule.keys(p, np.zeros(4), h), kind="stable").tolist()
    assert order == [3, 0, 2, 1]
