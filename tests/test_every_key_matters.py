"""No silent no-ops: every key a configuration accepts changes the run, and every key it would
not read is refused.

The walk (``key_walk.py``) runs a short, fixed-seed GA and compares what it decided (history,
best genome, hall of fame) with the run after one key changed. It walks every part of every
registry (the built-in ones and the test plugins of ``evolve/plugin_parts.py``) with each of
its parameters, and every preset with each key it reads; keys it does not read must be refused
with a message that names the key and the keys read instead.

Not walked, each for its reason: ``[run]`` (what to run and how long: the walk fixes it,
``run.seed`` aside), ``[output]`` and ``[tracking]`` (what is written and logged, not what is
run), ``[parallel]`` and
``fitness.cache_size`` (where and how fast: runs are identical whatever they are, as the
backend tests show), ``fitness.learned_model`` (another model is another trained network file;
the learned term itself is walked through ``fitness.learned_lost``), ``[search]`` (the knobs
of the searches a run may start, hybrid seeding, memetic steps, the population of searches,
and ``evosoko solve --config``: every knob changes its search, ``tests/search/test_settings.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import evosoko
from evosoko.config import Config
from evosoko.config_reads import read_keys, unread_keys
from evosoko.errors import ConfigError
from evosoko.evolve.registry import registry_of
from tests.key_walk import CONTEXT, other_values, small, trace, walk_level

sys.path.insert(0, str(Path(__file__).resolve().parent / "evolve"))  # plugin_parts

NOT_WALKED_TABLES = ("run", "output", "parallel", "search", "tracking")
NOT_WALKED = {("fitness", "cache_size"), ("fitness", "learned_model")}


@pytest.fixture(scope="module")
def level():
    return walk_level()


def changes_the_run(level, config: Config, key: tuple[str, ...]) -> list[str]:
    """What was tried when no other value of ``key`` changed the run (empty: one did)."""
    dotted = ".".join(key)
    context = CONTEXT.get(dotted, {})
    base = config.set(context) if context else config
    reference = trace(level, base)
    tried = []
    for value in other_values(base, key):
        try:
            changed = base.set(dotted, value)
        except ConfigError as error:
            tried.append(f"{value!r} refused: {error.message}")
            continue
        if trace(level, changed) != reference:
            return []
        tried.append(f"{value!r}: the same run")
    return tried or ["no other value to try"]


# ---- every part of every registry -------------------------------------------------------------
PARTS = [
    ("mutation", "standard"),
    ("mutation", "one_gene"),
    ("mutation", "plugin_parts:swap_genes"),
    ("crossover", "messy"),
    ("crossover", "block"),
    ("crossover", "one_point"),
    ("crossover", "two_point"),
    ("crossover", "uniform"),
    ("crossover", "plugin_parts:uniform_crossover"),
    ("parent_selection", "tournament"),
    ("parent_selection", "truncation"),
    ("parent_selection", "random"),
    ("parent_selection", "pareto_tournament"),
    ("parent_selection", "sampled_tournament"),
    ("parent_selection", "plugin_parts:best_half"),
    ("survival", "generational"),
    ("survival", "truncation"),
    ("survival", "plus"),
    ("survival", "nsga2"),
    ("survival", "map_elites"),
    ("fitness_term", "boxes_on_goals"),
    ("fitness_term", "box_regions"),
    ("fitness_term", "plugin_parts:boxes_on_walls"),
]
TABLES = {
    "mutation": "ga.mutation",
    "crossover": "ga.crossover",
    "parent_selection": "ga.parents",
    "survival": "ga.survival",
}


def test_the_walk_covers_every_registered_part():
    for kind in ("mutation", "crossover", "parent_selection", "survival", "fitness_term"):
        walked = {name for k, name in PARTS if k == kind}
        shipped = {n for n in registry_of(kind).names() if registry_of(kind).get(n).builtin}
        assert shipped <= walked, kind  # parts other tests register are not shipped parts


def part_config(kind: str, name: str) -> Config:
    config = small(evosoko.preset("default"))
    if kind == "fitness_term":
        return config.set("fitness.terms", [{"kind": name, "after": "distance"}])
    table = TABLES[kind]
    changes = {f"{table}.kind": name}
    operator = registry_of(kind).get(name)
    if operator.builtin:  # named in its own table, a built-in part takes its keys there
        for key, field in operator.params.model_fields.items():
            if field.is_required() and key in type(config.ga).model_fields:
                changes[f"{table}.{key}"] = getattr(config.ga, key)
    return config.set(changes)


def part_keys(config: Config, kind: str, name: str) -> list[tuple[str, ...]]:
    """The keys of the part: its table's keys that it reads; a fitness term's parameters."""
    if kind == "fitness_term":
        return [("fitness", "terms", "0", key) for key in config.fitness.terms[0].params]
    table = tuple(TABLES[kind].split("."))
    return [key for key in read_keys(config) if key[: len(table)] == table and key[-1] != "kind"]


@pytest.mark.parametrize(("kind", "name"), PARTS, ids=[f"{k}:{n}" for k, n in PARTS])
def test_every_key_of_every_part_changes_the_run(level, kind, name):
    config = part_config(kind, name)
    baseline = trace(level, small(evosoko.preset("default")))
    assert trace(level, config) != baseline or name in ("standard", "messy", "tournament",
                                                        "generational")  # fmt: skip
    silent = {}
    for key in part_keys(config, kind, name):
        if key[:2] == ("fitness", "terms"):
            value = config.fitness.terms[0].params[key[-1]]
            term = {"kind": name, "after": "distance", key[-1]: 0 if value else 3}
            if trace(level, config.set("fitness.terms", [term])) == trace(level, config):
                silent[key] = ["0 / 3: the same run"]
            continue
        tried = changes_the_run(level, config, key)
        if tried:
            silent[key] = tried
    assert not silent, f"{kind} {name}: keys that change nothing: {silent}"


def test_a_key_the_chosen_part_does_not_take_is_refused_where_it_is(tmp_path):
    """The issue's case: a plugin mutation and the built-in mutation's rates."""
    swap = "plugin_parts:swap_genes"
    config = Config().set("ga.mutation.kind", swap)
    with pytest.raises(ConfigError) as by_api:
        config.set("ga.mutation.replace_rate", 0.5)
    message = str(by_api.value)
    assert message.startswith("--set: ga.mutation.replace_rate = 0.5 is not read")
    assert f'the mutation "{swap}" (ga.mutation.kind) does not take it' in message
    assert "keys read in [ga.mutation]: kind, probability, box_macro, swap_rate, window" in message
    path = tmp_path / "swap.toml"
    path.write_text(f'[ga.mutation]\nkind = "{swap}"\nswap_rate = 0.2\nreplace_rate = 0.5\n')
    with pytest.raises(ConfigError) as in_file:
        evosoko.load_config(path)
    assert str(in_file.value).startswith(f"{path}:4: ga.mutation.replace_rate = 0.5 is not read")
    with pytest.raises(ConfigError, match="^--set: ga.mutation.replace_rate"):
        evosoko.load_config(None, [f"ga.mutation.kind={swap}", "ga.mutation.replace_rate=0.5"])
    # the written configuration holds what the part reads, nothing of the standard mutation
    written = config.to_toml().split("[ga.mutation]")[1].split("[")[0]
    assert "replace_rate" not in written and "swap_rate = 0.05" in written
    assert Config.model_validate(__import__("tomllib").loads(config.to_toml())) == config


def test_the_same_key_of_a_built_in_part_is_refused_too():
    with pytest.raises(ConfigError, match='block_size = 5 is not read: the crossover "messy"'):
        Config().set("ga.crossover.block_size", 5)
    with pytest.raises(ConfigError, match="ga.tournament_size = 5 is not read: the parent "):
        Config().set({"ga.selection": "truncation", "ga.tournament_size": 5})
    assert Config().set("ga.crossover.kind", "block").set("ga.crossover.block_size", 5)


def test_an_override_that_changes_the_part_drops_the_old_parts_values(tmp_path):
    path = tmp_path / "tuned.toml"
    path.write_text("[ga]\nselection = \"truncation\"\ntruncation = 0.3\n"
                    "[ga.mutation]\nreplace_rate = 0.2\n[hybrid]\nfraction = 0.5\n"
                    "enabled = true\n")  # fmt: skip
    config = evosoko.load_config(
        path,
        ["ga.mutation.kind=plugin_parts:swap_genes", "ga.selection=tournament",
         "hybrid.enabled=false"],
    )  # fmt: skip
    assert config.ga.mutation.params == {"swap_rate": 0.05, "window": 3}
    assert config.ga.truncation == 0.5 and config.hybrid.fraction == 0.25
    # Config.set is --set: the same
    again = evosoko.load_config(path).set(
        {"ga.mutation.kind": "plugin_parts:swap_genes", "ga.selection": "tournament",
         "hybrid.enabled": False}
    )  # fmt: skip
    assert again == config


def test_a_plugin_takes_its_own_default_for_a_key_it_shares_with_the_table():
    def shuffle_blocks(genome, rng, block_size: int = 7):
        return (genome,)

    from evosoko.evolve.registry import mutations

    evosoko.register_mutation("shuffle_blocks_test")(shuffle_blocks)
    try:
        config = Config().set("ga.mutation.kind", "shuffle_blocks_test")
        assert config.ga.mutation.params == {"block_size": 7}  # not the standard mutation's 4
        assert config.set("ga.mutation.block_size", 2).ga.mutation.params == {"block_size": 2}
        again = Config.model_validate(__import__("tomllib").loads(config.to_toml()))
        assert again.ga.mutation.params == {"block_size": 7}
    finally:
        mutations._entries.pop("shuffle_blocks_test")  # other tests list the registered names


def test_a_sweep_over_a_key_the_part_does_not_take_is_refused_before_it_runs(tmp_path):
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.trials import plan_trials, trial_config

    base = tmp_path / "base.toml"
    base.write_text('[ga.mutation]\nkind = "plugin_parts:swap_genes"\n')
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        f'[sweep]\nbase = "{base}"\n'
        f'levels = "{Path(__file__).parents[1] / "levels" / "seeds.xsb"}"\n'
        '[parameters]\n"ga.mutation.replace_rate" = [0.0, 0.5]\n'
    )
    config = load_sweep_config(sweep)
    with pytest.raises(ConfigError) as error:
        [trial_config(config, trial.params) for trial in plan_trials(config)]
    assert str(error.value).startswith(f"{sweep}:")
    assert "ga.mutation.replace_rate = 0.0 is not read" in str(error.value)


# ---- every preset -----------------------------------------------------------------------------
def walked_keys(config: Config) -> list[tuple[str, ...]]:
    """The keys a preset reads, less those not walked and the parts' names (the walk of every
    part shows each part changes the run)."""
    return [
        key
        for key in read_keys(config)
        if (key[0] not in NOT_WALKED_TABLES or key == ("run", "seed"))
        and key not in NOT_WALKED
        and not (key[-1] == "kind" and key[:-1] in PART_TABLES)
    ]


PART_TABLES = {tuple(table.split(".")) for table in TABLES.values()}


def check_preset(level, name: str) -> None:
    config = small(evosoko.preset(name))
    silent = {}
    for key in walked_keys(config):
        tried = changes_the_run(level, config, key)
        if tried:
            silent[".".join(key)] = tried
    assert not silent, f"preset {name}: keys that change nothing: {silent}"
    for unread in unread_keys(config):  # refused with the reason, whatever value it gets
        messages = []
        for value in other_values(config, unread.key):
            with pytest.raises(ConfigError) as error:
                config.set(unread.dotted, value)
            messages.append(error.value.message)
        assert any(f"{unread.dotted} = " in m and " is not read: " in m for m in messages), (
            unread.dotted,
            messages,
        )


def test_every_key_the_default_preset_reads_changes_the_run(level):
    check_preset(level, "default")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in evosoko.presets() if n != "default"])
def test_every_key_every_preset_reads_changes_the_run(level, name):
    check_preset(level, name)
