"""MAP-Elites (ga.selection = "map_elites"): insertion into the archive, the archive as the
engine's population, determinism serial or parallel, resume."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from evolve_levels import comparable, run, small_level

from evosoko.config import load_config
from evosoko.errors import ConfigError, EvosokoError
from evosoko.evolve.archive import archive_elites
from evosoko.evolve.engine import Engine
from evosoko.evolve.evaluation import SerialEvaluator
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.parts import parts_of
from evosoko.evolve.registry import survivals
from evosoko.evolve.state import evaluation_from_json, evaluation_to_json

LEVEL = 129  # Microban 130: the archive grows from 1 cell to about 14 in 20 generations, unsolved
MAP_ELITES = [
    "ga.selection=map_elites",
    "ga.population=20",
    "ga.offspring=24",
    "run.seed=7",
]


def _member(name: str, cell: int, fitness: float):
    return SimpleNamespace(name=name, evaluation=SimpleNamespace(cell=cell), fitness=fitness)


def test_a_child_enters_an_empty_cell_or_replaces_a_worse_elite():
    archive = [_member("a", 3, 1.0), _member("b", 5, 2.0)]
    children = [
        _member("worse", 3, 0.5),
        _member("better", 5, 4.0),
        _member("new", 1, 0.1),
        _member("tie", 3, 1.0),
    ]
    chosen = archive_elites(archive, children, key=lambda m: m.fitness)
    assert [(m.name, m.evaluation.cell) for m in chosen] == [("new", 1), ("a", 3), ("better", 5)]


def test_the_first_of_equal_children_in_an_empty_cell_is_kept():
    chosen = archive_elites([], [_member("x", 2, 1.0), _member("y", 2, 1.0)], lambda m: m.fitness)
    assert [m.name for m in chosen] == ["x"]


def test_map_elites_is_a_registered_archive_survival_drawing_parents_uniformly():
    config = load_config(None, ["ga.selection=map_elites"])
    parts = parts_of(config)
    assert parts.archive and not parts.multi_objective
    assert parts.parents.name == "random" and parts.survival.name == "map_elites"
    assert survivals.get("map_elites").options["archive"]
    assert not parts_of(load_config(None)).archive
    assert config.fitness.fess_cells and not load_config(None).fitness.fess_cells


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ga.encoding=moves"], "needs push genomes"),
        (["ga.islands.count=2"], "one archive"),
    ],
)
def test_unsupported_settings_are_refused_with_a_reason(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, ["ga.selection=map_elites", *overrides])


def test_the_archive_survival_turns_cells_on_and_the_engine_refuses_it_without():
    config = load_config(None, ["ga.survival.kind=map_elites"])
    assert config.fitness.fess_cells
    without = config.model_copy(
        update={"fitness": config.fitness.model_copy(update={"fess_cells": False})}
    )
    level = small_level("two-boxes")
    with pytest.raises(EvosokoError, match="fess_cells"):
        Engine(level, without, SerialEvaluator(level, "pushes", without.fitness))


def test_a_checkpoint_keeps_the_cell():
    evaluation = Evaluation(False, 4, 3, 3, 99, 0, (), 17)
    assert evaluation_from_json(json.loads(json.dumps(evaluation_to_json(evaluation)))) == (
        evaluation
    )
    assert "cell" not in evaluation_to_json(evaluation._replace(cell=-1))


def _archive_run(level, overrides):
    checkpoints: list = []
    outcome, stats = run(level, overrides, on_checkpoint=checkpoints.append)
    return outcome, stats, checkpoints


def test_the_population_is_one_elite_per_cell_and_holds_the_best(microban):
    level = microban[LEVEL]
    overrides = [*MAP_ELITES, "run.budget.generations=12", "output.checkpoint_every=12"]
    _outcome, stats, checkpoints = _archive_run(level, overrides)
    population = checkpoints[-1]["population"]
    cells = [m["evaluation"]["cell"] for m in population]
    assert cells == sorted(set(cells)) and min(cells) >= 0
    assert len(cells) > 3  # partial plans of several kinds are kept
    best = checkpoints[-1]["hall_of_fame"][0]
    kept = [m for m in population if m["evaluation"]["cell"] == best["evaluation"]["cell"]]
    assert kept[0]["evaluation"]["distance"] == best["evaluation"]["distance"]
    assert stats[-1].best_distance == best["evaluation"]["distance"]


def test_same_seed_same_archive_serial_or_processes(microban):
    level = microban[LEVEL]
    overrides = [*MAP_ELITES, "run.budget.generations=10", "output.checkpoint_every=10"]
    serial = _archive_run(level, overrides)
    pooled = _archive_run(level, [*overrides, "parallel.backend=processes", "parallel.workers=2"])
    assert comparable(serial[1]) == comparable(pooled[1])
    assert serial[0].best.genes == pooled[0].best.genes
    assert serial[2][-1]["population"] == pooled[2][-1]["population"]
    other = _archive_run(level, [*overrides[:-2], "run.seed=8", *overrides[-1:]])
    assert other[2][-1]["population"] != serial[2][-1]["population"]


def test_resume_equals_uninterrupted(microban):
    level = microban[LEVEL]
    overrides = [*MAP_ELITES, "output.checkpoint_every=5"]
    whole, whole_stats, whole_checkpoints = _archive_run(
        level, [*overrides, "run.budget.generations=20"]
    )
    half, half_stats, checkpoints = _archive_run(level, [*overrides, "run.budget.generations=10"])
    assert half.exhausted == "generations"
    saved = json.loads(json.dumps(checkpoints[-1]))
    assert saved["generation"] == 10 and all("cell" in m["evaluation"] for m in saved["population"])
    resumed_checkpoints: list = []
    resumed, resumed_stats = run(
        level,
        [*overrides, "run.budget.generations=20"],
        resume_state=saved,
        on_checkpoint=resumed_checkpoints.append,
    )
    assert comparable(half_stats + resumed_stats) == comparable(whole_stats)
    assert resumed.best.genes == whole.best.genes
    assert resumed.evaluations == whole.evaluations
    assert resumed_checkpoints[-1]["population"] == whole_checkpoints[-1]["population"]
