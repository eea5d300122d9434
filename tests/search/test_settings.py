"""The searches' settings (:mod:`evosoko.search.settings`): one model per family, handed to the
search, recorded in its result, and the only place a knob is read from."""

from __future__ import annotations

import tomllib

import pytest
from pydantic import ValidationError
from tiny_levels import ROOM, microban, quiet_level, search_signature

from evosoko.config_loading import dump_config, parse_override
from evosoko.errors import ConfigError
from evosoko.search import (
    BidirectionalSettings,
    FessSettings,
    MctsSettings,
    PushSettings,
    SearchSettings,
    solve,
)
from evosoko.search.settings import (
    PlainSearchSettings,
    changed_settings,
    family_of,
    settings_for,
    settings_text,
)
from evosoko.sokoban.solutions import verify_solution


def test_each_algorithm_reads_its_family_of_the_search_table():
    settings = SearchSettings()
    assert family_of("bfs") is None and settings.family("astar") is None
    for name in ("push-bfs", "push-astar", "push-wastar", "push-greedy", "push-idastar"):
        assert settings.family(name) is settings.push
    assert settings.family("push-learned") is settings.push
    assert settings.family("push-fess") is settings.fess
    assert settings.family("push-fess-bi") is settings.fess_bi
    assert settings.family("mcts") is settings.mcts


def test_a_family_model_of_another_search_is_refused():
    with pytest.raises(ConfigError, match="FessSettings does not set push-astar"):
        settings_for("push-astar", FessSettings())
    with pytest.raises(ConfigError, match="bfs: it has no settings"):
        settings_for("bfs", PushSettings())


def test_the_weight_replaces_the_settings_weight_and_is_checked():
    assert settings_for("push-fess", FessSettings(cluster_limit=10), weight=5).weight == 5
    assert settings_for("push-fess", FessSettings(cluster_limit=10), weight=5).cluster_limit == 10
    with pytest.raises(ConfigError, match="weight: Input should be greater than or equal to 1"):
        settings_for("push-wastar", None, weight=0.5)


def test_settings_are_frozen_and_strict():
    settings = FessSettings()
    with pytest.raises(ValidationError):
        settings.alternate = 4  # type: ignore[misc]
    with pytest.raises(ValidationError):
        FessSettings(alternate="3")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="extra"):
        FessSettings(cluster_limt=3)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="room_views"):
        FessSettings(room_links=1, room_views=(2,))
    with pytest.raises(ValidationError, match="pull weight"):
        BidirectionalSettings(pull_weights=("own", 0.5))


def test_a_family_that_changes_a_default_keeps_the_bounds_of_the_field():
    for model, base in ((FessSettings, PushSettings), (BidirectionalSettings, FessSettings)):
        for name, field in model.model_fields.items():
            if name in base.model_fields:
                assert field.metadata == base.model_fields[name].metadata, (model, name)
    with pytest.raises(ValidationError, match="less than or equal to 64"):
        BidirectionalSettings(advice_weight=65)
    with pytest.raises(ValidationError, match="less than or equal to 4194304"):
        BidirectionalSettings(deadlock_patterns=1 << 23)


def test_toml_arrays_and_none_words_read_as_the_model_holds_them():
    settings = SearchSettings.model_validate(
        {"fess": {"cell_weights": [1, 3], "cluster_width": "none", "room_views": [0, 1]}}
    )
    assert settings.fess.cell_weights == (1, 3)
    assert settings.fess.cluster_width is None
    assert settings.fess.room_views == (0, 1)


def test_changed_settings_name_the_keys_that_differ_from_the_defaults():
    settings = SearchSettings.model_validate({"fess": {"cluster_limit": 3000}, "mcts": {}})
    assert changed_settings(settings) == {"fess.cluster_limit": 3000}
    assert settings_text(settings) == "fess.cluster_limit=3000"
    assert settings_text(settings.fess, "fess.") == "fess.cluster_limit=3000"
    assert settings_text(SearchSettings()) == "-"
    base = SearchSettings.model_validate({"fess": {"cluster_limit": 3000}})
    assert changed_settings(SearchSettings(), base=base) == {"fess.cluster_limit": 6000}


def test_plain_searches_read_as_tables_and_write_back_as_one_override():
    table = {"plain_searches": [{"room_links": 0, "cell_weights": [1, 3], "nodes": 5}]}
    settings = SearchSettings.model_validate({"fess_bi": table})
    (side,) = settings.fess_bi.plain_searches
    assert side == PlainSearchSettings(room_links=0, cell_weights=(1, 3), nodes=5)
    text = settings_text(settings)
    assert text == "fess_bi.plain_searches=[{room_links = 0, cell_weights = [1, 3], nodes = 5}]"
    key, value = parse_override(text)
    assert key == ("fess_bi", "plain_searches")
    assert SearchSettings.model_validate({"fess_bi": {"plain_searches": value}}) == settings
    assert SearchSettings.model_validate(tomllib.loads(dump_config(settings))) == settings
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        BidirectionalSettings.model_validate({"plain_searches": [{"nodes": 0}]})
    with pytest.raises(ValidationError, match="Extra inputs"):
        BidirectionalSettings.model_validate({"plain_searches": [{"ball_nodes": 3}]})
    for key, value in (("deadlock_patterns", 8), ("on_full", "stop"), ("restarts", 0)):
        with pytest.raises(ValidationError, match=f"{key}: a plain search keeps"):
            BidirectionalSettings.model_validate({"plain_searches": [{key: value}]})


def test_a_result_records_the_settings_it_ran_with():
    level = quiet_level(ROOM)
    result = solve(level, "push-fess", settings=FessSettings(alternate=2), node_limit=5_000)
    assert result.settings == FessSettings(alternate=2)
    assert result.as_dict()["settings"]["alternate"] == 2
    assert result.as_result(level).details["settings"]["alternate"] == 2
    assert solve(level, "bfs", node_limit=10).settings is None
    assert solve(level, "mcts", node_limit=10).settings == MctsSettings()


def test_the_whole_table_and_the_family_model_run_the_same_search():
    (level,) = microban("3")  # the corral tests change its search
    fess_only = FessSettings(corral_deadlocks=0)
    whole = SearchSettings(fess=fess_only)
    assert search_signature(solve(level, "push-fess", node_limit=5_000, settings=whole)) == (
        search_signature(solve(level, "push-fess", node_limit=5_000, settings=fess_only))
    )
    assert search_signature(solve(level, "push-fess", node_limit=5_000)) != (
        search_signature(solve(level, "push-fess", node_limit=5_000, settings=fess_only))
    )


@pytest.mark.parametrize(
    "change",
    [
        {"alternate": 2},
        {"room_links": 0},
        {"corral_deadlocks": 0},
        {"pack_macros": 2},
        {"cluster_deadlocks": 1 << 10},
        {"connectivity_limit": 4},
        {"cell_weights": (1, 3)},
        {"weight": 5.0},
        {"corridor_macros": True},
        {"room_links": 2, "room_views": (1, 2)},
        {"room_cuts": False},
        {"hotspots": 2},
        {"deadlock_patterns": 4096},
        {"cluster_deadlocks": 1 << 10, "deadlock_patterns": 4096},
        {"cluster_deadlocks": 1 << 10, "cluster_limit": 500, "cluster_width": None},
        {"out_of_plan": "sealed"},
        {"out_of_plan": "both"},
    ],
)
def test_other_settings_still_solve_and_verify(change):
    level = quiet_level(ROOM)
    result = solve(level, "push-fess", settings=FessSettings(**change), node_limit=50_000)
    assert result.solved
    assert verify_solution(level, result.solution).solved


def test_settings_change_the_search_on_a_real_level():
    level = microban("144")[0]
    shipped = solve(level, "push-fess", node_limit=20_000)
    other = solve(
        level,
        "push-fess",
        node_limit=20_000,
        settings=FessSettings(alternate=2, cell_weights=(1, 3)),
    )
    assert search_signature(shipped) != search_signature(other)


def test_mcts_settings_change_its_search():
    level = microban("5")[0]
    shipped = solve(level, "mcts", node_limit=300)
    other = solve(level, "mcts", node_limit=300, settings=MctsSettings(exploration=0.5))
    assert search_signature(shipped) != search_signature(other)
