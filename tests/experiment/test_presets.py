"""Tests of presets in configs/: they load, their keys are explained, seed004 is the source GA."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.sokoban.formats import read_levels, select_levels

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
RUN_PRESETS = (
    "default",
    "seed004",
    "moves",
    "pushes",
    "hybrid",
    "microban",
    "hybrid-fess",
    "map-elites",
    "box-macros",
    "searches",
)
BUNDLED = ("default", "seed004", "moves", "pushes", "hybrid")


@pytest.mark.parametrize("name", RUN_PRESETS)
def test_preset_loads_and_every_key_has_a_comment(name):
    path = CONFIGS / f"{name}.toml"
    config = load_config(path)
    assert config.run.name == name
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        if re.match(r"^[a-z_]+ = ", line):
            assert lines[number - 1].startswith("#"), f"{path.name}:{number + 1}: {line}"


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_presets_name_existing_levels(name):
    config = load_config(CONFIGS / f"{name}.toml")
    levels = read_levels(config.run.levels)
    assert select_levels(levels, config.run.select) if config.run.select else levels


def test_microban_preset_points_at_the_shared_microban():
    config = load_config(CONFIGS / "microban.toml")
    assert Path(config.run.levels).name == "microban.txt"
    if not Path(config.run.levels).is_file():
        pytest.skip("no shared level folder")
    assert len(read_levels(config.run.levels)) == 155 and config.run.select == []


def test_microban_preset_has_the_pushes_settings():
    """microban.toml promises our best push settings: all but [run] are those of pushes.toml."""
    microban, pushes = load_config(CONFIGS / "microban.toml"), load_config(CONFIGS / "pushes.toml")
    assert microban.model_dump(exclude={"run"}) == pushes.model_dump(exclude={"run"})
    assert microban.run.budget == pushes.run.budget


def test_seed004_is_the_source_ga():
    config = load_config(CONFIGS / "seed004.toml")
    ga, fitness = config.ga, config.fitness
    assert config.run.select == ["seed004-blog"] and config.run.budget.generations == 2000
    assert (ga.encoding, ga.population, ga.selection, ga.truncation) == (
        "moves",
        100,
        "truncation",
        0.5,
    )
    assert (ga.crossover.kind, ga.crossover.block_size, ga.crossover.probability) == (
        "block",
        3,
        1.0,
    )
    mutation = ga.mutation
    assert (mutation.replace_rate, mutation.insert_rate, mutation.delete_rate) == (0.05, 0.05, 0)
    assert mutation.duplication == mutation.inversion == mutation.tail_regrowth == 0
    assert (ga.grow_while_under, ga.grow_by) == (50, 10)
    assert ga.stagnation_restart is None and ga.age_patience is None and ga.length_pressure == 0
    assert fitness.objective == "manhattan"
    assert not (fitness.trim_to_best or fitness.stop_on_deadlock or fitness.length_objective)
    assert not config.hybrid.enabled


def test_hybrid_fess_preset_seeds_and_improves_with_the_feature_space_search():
    config = load_config(CONFIGS / "hybrid-fess.toml")
    assert config.hybrid.enabled and config.hybrid.algorithm == "push-fess"
    assert config.hybrid.memetic_every and config.output.optimize_seconds
    assert Path(config.run.levels).name == "xsokoban.txt"


def test_map_elites_preset_is_hybrid_fess_with_the_archive():
    """map-elites.toml promises hybrid-fess's settings with MAP-Elites selection only."""
    map_elites = load_config(CONFIGS / "map-elites.toml")
    hybrid_fess = load_config(CONFIGS / "hybrid-fess.toml")
    assert map_elites.ga.selection == "map_elites" and map_elites.fitness.fess_cells
    same = {"run": {"name"}, "ga": {"selection"}, "fitness": {"fess_cells"}}
    assert map_elites.model_dump(exclude=same) == hybrid_fess.model_dump(exclude=same)


def test_box_macros_preset_is_pushes_with_box_macros_on_xsokoban():
    """box-macros.toml promises the pushes preset's settings with the box macro on."""
    macros, pushes = load_config(CONFIGS / "box-macros.toml"), load_config(CONFIGS / "pushes.toml")
    assert macros.ga.mutation.box_macro > 0 and pushes.ga.mutation.box_macro == 0
    same = {"run": {"name", "levels"}, "ga": {"mutation": {"box_macro"}}}
    assert macros.model_dump(exclude=same) == pushes.model_dump(exclude=same)
    assert Path(macros.run.levels).name == "xsokoban.txt"


def test_hybrid_algorithm_must_be_a_push_search():
    from evosoko.errors import ConfigError

    with pytest.raises(ConfigError, match="push search"):
        load_config(CONFIGS / "hybrid.toml", ["hybrid.algorithm=astar"])


def test_compare_xsokoban_pits_the_ga_presets_against_the_searches():
    from evosoko.experiment.compare.config import load_compare_config

    compare = load_compare_config(CONFIGS / "compare-xsokoban.toml")
    names = {getattr(s, "name", None) or getattr(s, "algorithm", None) for s in compare.solver}
    assert {"ga-pushes", "ga-hybrid", "ga-hybrid-fess", "push-wastar", "push-fess"} <= names
    assert "push-fess-bi" in names
    assert "ga-map-elites" in names and "ga-box-macros" in names and "ga-searches" in names
    assert compare.compare.budget.seconds == 60.0 and compare.compare.first == 30


def test_compare_search_fails_gives_every_row_the_same_cpu_seconds():
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.jobs import comparison_levels, plan_jobs

    compare = load_compare_config(CONFIGS / "compare-search-fails.toml")
    assert compare.compare.budget.seconds == 60.0 and compare.compare.budget.clock == "cpu"
    if not Path(compare.compare.levels).is_file():
        pytest.skip("no shared levels")
    jobs = plan_jobs(compare, comparison_levels(compare.compare))
    assert {job.payload["solver"] for job in jobs} == {"push-fess-bi", "ga-searches", "hybrid-fess"}
    assert all(job.payload["clock"] == "cpu" for job in jobs)
    assert len(jobs) == 7 + 2 * 7 * 3  # the population and the hybrid run three seeds a screen
