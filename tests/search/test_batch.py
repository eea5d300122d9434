"""solve_file: the levels of a file, chosen by index or title, with the CLI's JSON keys."""

from __future__ import annotations

import pytest
from tiny_levels import BUNDLED_SEEDS

from evosoko.errors import ConfigError, EvosokoError
from evosoko.search.batch import JSON_KEYS, solve_file


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
