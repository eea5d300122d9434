"""Ceilings of the values that size what a run holds (issue 55, item 4): the configurations the
fault campaign ran with (``ga.population = 1000000000`` grew without bound while building its
first population; ``ga.islands.count = 100000`` ran on past its budget) are refused where they
are written, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from evosoko.ceilings import MAX_GENES, MAX_INDIVIDUALS, MAX_ISLANDS, MAX_WORKERS
from evosoko.config import load_config
from evosoko.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("override", "reason"),
    [
        ("ga.population=1000000000", "each individual is a genome with its fitness in memory"),
        ("ga.offspring=1000000000", "each individual is a genome with its fitness in memory"),
        ("ga.islands.count=100000", "each island is a whole population evolved every epoch"),
        ("ga.max_length=2000000", "genes of one genome"),
        ("ga.initial_length=2000000", "genes of one genome"),
        ("ga.mutation.tail_genes=2000000", "genes of one genome"),
        ("ga.hall_of_fame=2000000", "each individual is a genome with its fitness in memory"),
        ("ga.tournament_size=2000000", "each individual is a genome with its fitness in memory"),
        ("parallel.workers=100000", "each worker process loads its own copy"),
        ("fitness.cache_size=10000000", "each remembered fitness keeps its genome"),
    ],
)
def test_a_value_past_its_ceiling_is_refused_with_the_reason(override, reason):
    with pytest.raises(ConfigError) as caught:
        load_config(None, [override])
    key = override.split("=")[0]
    assert key in caught.value.message and "at most" in caught.value.message
    assert reason in caught.value.message


def test_a_ceiling_names_the_line_of_the_file(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("[run]\nseed = 1\n\n[ga]\npopulation = 1000000000\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.line == 5 and "ga.population" in caught.value.message


def test_the_individuals_of_all_islands_together_are_bounded():
    per_island = MAX_INDIVIDUALS // 4 + 1
    with pytest.raises(ConfigError, match="islands.count 4 x population") as caught:
        load_config(None, [f"ga.population={per_island}", "ga.islands.count=4"])
    assert "individuals at once" in caught.value.message
    load_config(None, [f"ga.population={per_island - 1}", "ga.islands.count=4"])


def test_the_genes_held_at_once_are_bounded():
    with pytest.raises(ConfigError, match="genes at most") as caught:
        load_config(None, ["ga.max_length=1000000", "ga.population=1000", "ga.offspring=1000"])
    assert f"{MAX_GENES:,}" in caught.value.message


@pytest.mark.parametrize(
    "overrides",
    [
        [f"ga.population={MAX_INDIVIDUALS}", f"ga.offspring={MAX_INDIVIDUALS}"],
        [f"ga.islands.count={MAX_ISLANDS}", "ga.population=100", "ga.offspring=100"],
        ["parallel.backend=processes", f"parallel.workers={MAX_WORKERS}"],
    ],
)
def test_values_at_their_ceilings_are_accepted(overrides):
    load_config(None, overrides)


RUN_CONFIGS = sorted(
    path
    for path in (REPO / "configs").glob("*.toml")
    if not path.name.startswith(("compare-", "sweep-", "tune-", "levels-"))  # not run configs
)


@pytest.mark.parametrize("path", RUN_CONFIGS, ids=lambda p: p.name)
def test_every_shipped_run_configuration_is_under_the_ceilings(path):
    load_config(path)


@pytest.mark.parametrize("name", ["compare-mcts.toml", "sweep-mutation.toml"])
def test_compare_and_sweep_workers_are_bounded(name):
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.sweep.config import load_sweep_config

    load = load_compare_config if name.startswith("compare") else load_sweep_config
    overrides = ["parallel.backend=processes", "parallel.workers=100000"]
    with pytest.raises(ConfigError, match="parallel.workers: at most 256"):
        load(REPO / "configs" / name, overrides)
