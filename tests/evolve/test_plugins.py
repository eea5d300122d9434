"""Parts of your own: registries, plugins named in TOML, their checks, workers and resume.

The plugins live in ``plugin_parts.py`` beside this file (importable as ``plugin_parts``);
one test registers its own with a decorator.
"""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pytest
from evolve_levels import comparable

from evosoko.config import Config, load_config
from evosoko.errors import ConfigError
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.parts import parts_of, used_by
from evosoko.evolve.registry import (
    crossovers,
    fitness_terms,
    install,
    mutations,
    parent_selections,
    survivals,
)

HARD = "hard-04"  # a starter level the default GA does not solve in a few generations
SHORT = ["run.seed=3", "run.budget.generations=8", "ga.population=30", "ga.offspring=30"]
SWAP = ['ga.mutation.kind="plugin_parts:swap_genes"', "ga.mutation.swap_rate=0.2"]
TERM = ['fitness.terms=[{kind = "plugin_parts:boxes_on_walls", after = "distance"}]']


@pytest.fixture(scope="module")
def hard_level():
    from evosoko.sokoban.formats import read_levels, select_levels

    levels = Path(__file__).resolve().parents[2] / "levels" / "starter.xsb"
    return select_levels(read_levels(levels), [HARD])[0]


def evolve(level, overrides, **kwargs):
    config = load_config(None, SHORT + list(overrides))
    stats = []
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        result = evolve_level(
            level, config, evaluator=evaluator, on_generation=stats.append, **kwargs
        )
    return result, stats


# ---- the registries --------------------------------------------------------------------------
def test_the_built_in_parts_are_registered_by_the_names_configurations_use():
    assert mutations.names() == ["standard", "one_gene"]
    assert crossovers.names()[:4] == ["messy", "block", "one_point", "two_point"]
    assert {"tournament", "truncation", "random", "pareto_tournament"} <= set(
        parent_selections.names()
    )
    assert {"generational", "truncation", "plus", "nsga2"} <= set(survivals.names())
    assert survivals.get("nsga2").options["multi_objective"]
    assert fitness_terms.get("boxes_on_goals").options["maximize"]


@pytest.mark.parametrize(
    "overrides",
    [
        ['ga.mutation.kind="one_gene"'],
        ['ga.crossover.kind="uniform"'],
        ['ga.parents.kind="sampled_tournament"', "ga.parents.tournament_size=3"],
    ],
)
def test_the_parts_a_population_of_searches_breeds_with_run_in_the_ga(hard_level, overrides):
    outcome, stats = evolve(hard_level, [*overrides, "run.budget.generations=3"])
    assert [s.generation for s in stats] == [0, 1, 2, 3] and outcome.evaluations > 0


def test_every_selection_scheme_is_a_parent_selection_with_a_survival():
    expected = {
        "tournament": ("tournament", "generational"),
        "truncation": ("truncation", "truncation"),
        "mu_plus_lambda": ("random", "plus"),
        "mu_comma_lambda": ("random", "generational"),
        "nsga2": ("pareto_tournament", "nsga2"),
    }
    for scheme, (parents, survival) in expected.items():
        parts = parts_of(load_config(None, [f"ga.selection={scheme}"]))
        assert (parts.parents.name, parts.survival.name) == (parents, survival)
        assert parts.multi_objective == (scheme == "nsga2")


def test_a_decorated_function_is_registered_and_used(hard_level):
    calls = []

    @mutations.register("test-reverse")
    def reverse_tail(genome, rng: random.Random, tail: int = 4):
        calls.append(len(genome))
        genome[-tail:] = genome[-tail:][::-1]
        return (genome,)

    assert "test-reverse" in mutations.names()
    assert mutations.get("test-reverse").params.model_fields["tail"].default == 4
    _standard, standard_stats = evolve(hard_level, [])
    _mine, mine_stats = evolve(
        hard_level, ['ga.mutation.kind="test-reverse"', "ga.mutation.tail=3"]
    )
    assert calls and comparable(mine_stats) != comparable(standard_stats)


# ---- plugins named in a configuration -------------------------------------------------------
def test_a_plugin_is_named_by_module_and_function_with_its_parameters():
    config = load_config(None, SWAP + ["ga.mutation.window=5"])
    assert config.ga.mutation.operator.function.__name__ == "swap_genes"
    assert config.ga.mutation.params == {"swap_rate": 0.2, "window": 5}
    again = Config.model_validate(__import__("tomllib").loads(config.to_toml()))
    assert again == config and again.ga.mutation.params == config.ga.mutation.params


def test_a_misspelled_plugin_parameter_is_refused_with_the_closest_key_and_its_line(tmp_path):
    path = tmp_path / "plugin.toml"
    path.write_text(
        '[ga.mutation]\nkind = "plugin_parts:swap_genes"\nprobability = 0.8\nswap_rat = 0.1\n'
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}:4: unknown key 'ga.mutation.swap_rat'; did you mean 'ga.mutation.swap_rate'?"
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ['ga.mutation.kind="plugin_parts:swap_genes"', 'ga.mutation.window="far"'],
            "ga.mutation.window: Input should be a valid integer (got 'far', a string)",
        ),
        (
            ['ga.crossover.kind="plugin_parts:no_such"'],
            "ga.crossover.kind: module 'plugin_parts' has no 'no_such'",
        ),
        (['ga.crossover.kind="nowhere.at.all:cx"'], "cannot import 'nowhere.at.all'"),
        (['ga.crossover.kind="blok"'], "unknown crossover 'blok'; registered: messy, block"),
        (
            ['fitness.terms=[{kind = "plugin_parts:boxes_on_walls", wieght = 2}]'],
            "unknown key 'fitness.terms.0.wieght'; did you mean 'fitness.terms.0.weight'?",
        ),
        (
            ['fitness.terms=[{kind = "boxes_on_goals", name = "distance"}]'],
            "fitness term name 'distance' is taken",
        ),
    ],
)
def test_bad_plugin_settings_are_config_errors(overrides, message):
    with pytest.raises(ConfigError, match=None) as error:
        load_config(None, overrides)
    assert message in str(error.value)


def test_config_set_checks_a_plugin_parameter_as_set_does():
    config = load_config(None, SWAP)
    assert config.set("ga.mutation.window", 7).ga.mutation.params["window"] == 7
    with pytest.raises(ConfigError) as by_set:
        config.set("ga.mutation.windw", 7)
    with pytest.raises(ConfigError) as by_override:
        load_config(None, [*SWAP, "ga.mutation.windw=7"])
    assert str(by_set.value) == str(by_override.value)


def test_parent_selection_survival_and_crossover_plugins_run(hard_level):
    _plain, plain_stats = evolve(hard_level, [])
    mine, mine_stats = evolve(
        hard_level,
        [
            'ga.parents.kind="plugin_parts:best_half"',
            'ga.survival.kind="plus"',
            'ga.crossover.kind="plugin_parts:uniform_crossover"',
            "ga.crossover.swap=0.3",
        ],
    )
    assert comparable(mine_stats) != comparable(plain_stats)
    assert mine.history == mine_stats


# ---- fitness terms --------------------------------------------------------------------------
def test_a_fitness_term_is_a_named_value_where_the_configuration_puts_it(hard_level):
    config = load_config(None, SHORT + TERM)
    objectives = Objectives.of(config)
    assert objectives.names == ("solved", "distance", "boxes_on_walls", "gap", "length")
    assert objectives.weights[2] == -1.0  # fewer is better, as the function says by default
    maximized = load_config(None, [TERM[0].replace("}]", ", maximize = true}]")])
    assert Objectives.of(maximized).weights[2] == 1.0
    result, _ = evolve(hard_level, TERM)
    assert set(result.fitness) == set(objectives.names)
    state = __import__("evosoko").verify(hard_level, result.best.lurd).final
    touching = sum(any(hard_level.walls[b + d] for d in hard_level.deltas) for b in state.boxes)
    assert result.fitness["boxes_on_walls"] == touching


def test_a_fitness_term_changes_the_run(hard_level):
    _, plain = evolve(hard_level, [])
    _, with_term = evolve(hard_level, TERM)
    assert comparable(plain) != comparable(with_term)


# ---- workers and resume ---------------------------------------------------------------------
def test_plugins_give_the_same_run_serial_and_processes(hard_level):
    serial, serial_stats = evolve(hard_level, SWAP + TERM)
    processes, processes_stats = evolve(
        hard_level, SWAP + TERM + ["parallel.backend=processes", "parallel.workers=2"]
    )
    assert comparable(serial_stats) == comparable(processes_stats)
    assert serial.best.genes == processes.best.genes


def test_plugin_islands_give_the_same_run_serial_and_processes(hard_level):
    islands = ["ga.islands.count=2", "ga.islands.migration_every=3", *SWAP, *TERM]
    serial, serial_stats = evolve(hard_level, islands)
    processes, processes_stats = evolve(hard_level, [*islands, "parallel.backend=processes"])
    assert comparable(serial_stats) == comparable(processes_stats)
    assert serial.best.genes == processes.best.genes


def test_a_configuration_with_plugins_travels_to_workers_that_never_imported_them():
    config = load_config(None, SWAP + TERM)
    parts = used_by(config)
    assert {part.name for part in parts} == {
        "plugin_parts:swap_genes",
        "plugin_parts:boxes_on_walls",
    }
    shipped = pickle.loads(pickle.dumps((config, parts)))
    install(shipped[1])
    assert shipped[0] == config
    assert shipped[0].ga.mutation.operator.function.__name__ == "swap_genes"


def test_a_run_with_plugins_resumes_exactly(hard_level):
    overrides = SWAP + TERM + ["output.checkpoint_every=4"]
    whole, whole_stats = evolve(hard_level, overrides + ["run.budget.generations=12"])
    checkpoints = []
    _, half_stats = evolve(
        hard_level, overrides + ["run.budget.generations=6"], on_checkpoint=checkpoints.append
    )
    saved = json.loads(json.dumps(checkpoints[-1]))
    assert saved["generation"] == 4 and saved["version"] == 3
    assert "terms" in saved["population"][0]["evaluation"]
    resumed, resumed_stats = evolve(
        hard_level, overrides + ["run.budget.generations=12"], resume_state=saved
    )
    assert comparable(half_stats[:5] + resumed_stats) == comparable(whole_stats)
    assert resumed.best.genes == whole.best.genes


def test_a_checkpoint_without_the_fitness_terms_is_refused(hard_level):
    checkpoints = []
    evolve(hard_level, ["output.checkpoint_every=2"], on_checkpoint=checkpoints.append)
    with pytest.raises(Exception, match="fitness terms cannot change on resume"):
        evolve(hard_level, TERM, resume_state=checkpoints[-1])


def test_a_registered_plugin_of_a_module_is_written_where_it_lives():
    import plugin_parts

    mutations.register("test-swap")(plugin_parts.swap_genes)
    config = load_config(None, ['ga.mutation.kind="test-swap"', "ga.mutation.window=4"])
    text = config.to_toml()
    assert 'kind = "plugin_parts:swap_genes"' in text  # loads where "test-swap" is unknown
    again = Config.model_validate(__import__("tomllib").loads(text))
    assert again.ga.mutation.operator.function is config.ga.mutation.operator.function
    assert again.ga.mutation.params == config.ga.mutation.params
    assert again.to_toml() == text


def test_a_sweep_tunes_a_plugin_parameter(tmp_path):
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.trials import plan_trials, trial_config

    levels = Path(__file__).resolve().parents[2] / "levels" / "starter.xsb"
    path = tmp_path / "sweep.toml"
    path.write_text(
        '[sweep]\nmethod = "grid"\nset = [\'ga.mutation.kind="plugin_parts:swap_genes"\']\n'
        f'levels = "{levels}"\nselect = ["{HARD}"]\nseeds = [1]\n'
        "[sweep.budget]\nevaluations = 300\n"
        '[parameters]\n"ga.mutation.swap_rate" = [0.1, 0.3]\n'
    )
    sweep = load_sweep_config(path)
    rates = [
        trial_config(sweep, t.params).ga.mutation.params["swap_rate"] for t in plan_trials(sweep)
    ]
    assert rates == [0.1, 0.3]
    path.write_text(path.read_text().replace("swap_rate", "swap_rat"))
    with pytest.raises(ConfigError, match="did you mean 'ga.mutation.swap_rate'"):
        [trial_config(sweep, t.params) for t in plan_trials(load_sweep_config(path))]


def test_a_built_in_part_cannot_be_replaced_by_registering_its_name():
    with pytest.raises(ValueError, match="'messy' is a built-in crossover"):
        crossovers.register("messy")(lambda first, second, rng: (first, second))
    assert crossovers.get("messy").builtin


def test_a_plugin_named_in_a_toml_file_resumes_exactly_from_the_command_line(tmp_path):
    """A run configured in TOML with a mutation and a fitness term given as module:function,
    interrupted (as Ctrl-C does) and resumed by ``evosoko run --resume`` in a new process,
    writes what the uninterrupted run writes."""
    import csv
    import os
    import subprocess
    import sys

    from evosoko.evolve.callbacks import Callback
    from evosoko.experiment.interrupts import GracefulInterrupts
    from evosoko.experiment.run.runner import start_run

    starter = Path(__file__).resolve().parents[2] / "levels" / "starter.xsb"
    path = tmp_path / "plugin.toml"
    path.write_text(
        f'[run]\nlevels = "{starter}"\nselect = ["{HARD}"]\nseed = 3\n'
        '[run.budget]\ngenerations = 12\nseconds = "none"\n'
        "[ga]\npopulation = 30\noffspring = 30\n"
        '[ga.mutation]\nkind = "plugin_parts:swap_genes"\nswap_rate = 0.2\n'
        '[[fitness.terms]]\nkind = "plugin_parts:boxes_on_walls"\nafter = "distance"\n'
        f'[output]\ndir = "{tmp_path}"\ncheckpoint_every = 4\nplots = false\n'
    )

    class InterruptAt(Callback):
        def __init__(self, interrupts: GracefulInterrupts) -> None:
            self.interrupts = interrupts

        def on_generation(self, generation) -> None:
            if generation.stats.generation == 6:
                self.interrupts.request()

    whole = start_run(load_config(path), config_source=str(path))
    interrupts = GracefulInterrupts()
    stopped = start_run(
        load_config(path),
        config_source=str(path),
        interrupts=interrupts,
        callbacks=[InterruptAt(interrupts)],
    )
    assert whole.status == "completed" and stopped.status == "interrupted"
    assert 'kind = "plugin_parts:swap_genes"' in (stopped.run_dir / "config.toml").read_text()
    assert len((stopped.run_dir / "metrics.csv").read_text().splitlines()) < 1 + 13
    plugins = str(Path(__file__).resolve().parent)  # where plugin_parts lives
    path_list = [plugins, *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    done = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", "run", "--resume", str(stopped.run_dir), "-q"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path_list if p)},
        check=False,
    )
    assert done.returncode == 0, done.stderr

    def metrics(run_dir: Path) -> list[dict[str, str]]:
        with open(run_dir / "metrics.csv", newline="") as stream:
            return [
                {k: v for k, v in row.items() if k not in ("seconds", "cache_hits")}
                for row in csv.DictReader(stream)
            ]

    assert len(metrics(whole.run_dir)) == 13
    assert metrics(stopped.run_dir) == metrics(whole.run_dir)
    assert (stopped.run_dir / "solutions.sok").read_text() == (
        whole.run_dir / "solutions.sok"
    ).read_text()
