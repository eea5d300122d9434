"""The tidy results table (``evosoko.results``): one long table of GA and search rows from run,
comparison and sweep folders, their outcomes and results made in Python, with one status
vocabulary and a settings digest that is equal exactly when the solver's settings are."""

from __future__ import annotations

import csv

import pytest
from experiment_helpers import SEED_LEVELS
from report_folders import COMPARE, SWEEP, make_compare, make_run, make_sweep

import evosoko
from evosoko.budget import Budget
from evosoko.config import Config, load_config
from evosoko.errors import EvosokoError
from evosoko.experiment.results_table import COLUMNS, ResultsTable
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep
from evosoko.experiment.sweep.trials import plan_trials, trial_config
from evosoko.settings_digest import ga_settings_digest, search_settings_digest
from evosoko.sokoban.formats import read_levels
from evosoko.status import RESOURCES, STATUSES


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    parent = tmp_path_factory.mktemp("tidy")
    return {"compare": make_compare(parent), "run": make_run(parent), "sweep": make_sweep(parent)}


def _played(history) -> list[tuple]:
    """A history without its wall-clock and cache columns (not part of determinism)."""
    return [(s.generation, s.evaluations, s.best_distance, s.mean_distance) for s in history]


def _levels(*titles: str):
    by_title = {level.title: level for level in read_levels(SEED_LEVELS)}
    return [by_title[title] for title in titles]


def test_a_comparison_is_one_table_of_ga_and_search_rows_in_one_vocabulary(folders):
    table = evosoko.results(folders["compare"])
    with open(folders["compare"] / "results.csv", newline="", encoding="utf-8") as stream:
        written = list(csv.DictReader(stream))
    assert len(table) == len(written) == 8  # ga: 2 levels x 2 seeds; bfs, push-astar: 2 levels
    for row, raw in zip(table, written, strict=True):
        assert list(row) == list(COLUMNS)
        assert row["status"] in STATUSES
        assert row["exhausted"] is None or row["exhausted"] in RESOURCES
        assert (row["solver"], row["level_index"], row["level"]) == (
            raw["solver"],
            int(raw["level_index"]),
            raw["level"],
        )
        assert (row["cost"], row["moves"], row["seconds"]) == (
            int(raw["used"]),
            int(raw["moves"]) if raw["moves"] else None,
            float(raw["seconds"]),
        )
    ga = [row for row in table if row["kind"] == "ga"]
    search = [row for row in table if row["kind"] == "search"]
    assert {row["seed"] for row in ga} == {1, 2} and {row["seed"] for row in search} == {None}
    assert all(row["evaluations"] == row["cost"] and row["nodes"] is None for row in ga)
    assert all(row["nodes"] == row["cost"] and row["evaluations"] is None for row in search)
    for solver in ("ga-small", "bfs", "push-astar"):
        digests = {r["settings"] for r in table if r["solver"] == solver}
        assert len(digests) == 1 and None not in digests  # one per solver, whatever the level


def test_the_settings_digest_of_a_search_is_the_one_solve_gives(folders):
    table = evosoko.results(folders["compare"])
    (digest,) = {row["settings"] for row in table if row["solver"] == "push-astar"}
    level = _levels("seed000-example")[0]
    assert evosoko.solve(level, "push-astar", seconds=20, nodes=20000).settings == digest
    assert evosoko.solve(level, "push-astar", seconds=20, nodes=20001).settings != digest
    assert search_settings_digest("push-astar", seconds=20.0, nodes=20000) == digest
    unfrozen = {"push": {"freeze": False}}
    assert (
        evosoko.solve(level, "push-astar", seconds=20, nodes=20000, settings=unfrozen).settings
        != digest
    )
    on_cpu = evosoko.solve(level, "push-astar", seconds=20, nodes=20000, clock="cpu").settings
    assert on_cpu != digest  # 20 CPU seconds are another budget than 20 wall seconds
    assert search_settings_digest("push-astar", seconds=20.0, nodes=20000, clock="cpu") == on_cpu


def test_a_run_folder_has_its_seed_and_the_digest_evolve_gives_for_its_settings(folders):
    table = evosoko.results(folders["run"])
    config = load_config(folders["run"] / "config.toml")
    assert [(row["level"], row["solver"], row["kind"]) for row in table] == [
        ("seed000-example", "ga", "ga"),
        ("seed000-case3", "ga", "ga"),
    ]
    assert [row["status"] for row in table] == ["solved", "budget"]
    assert table.rows[1]["exhausted"] == "generations" and not table.rows[1]["solved"]
    assert {row["seed"] for row in table} == {config.run.seed}
    (digest,) = {row["settings"] for row in table}
    assert digest == ga_settings_digest(config)
    # what names the run, its levels and seed, where it writes and how it is parallel are not
    # its settings; its budget and GA are
    renamed = config.set("run.seed", 7).set("run.name", "other").set("output.plots", False)
    assert ga_settings_digest(renamed.set("parallel.backend", "serial")) == digest
    assert ga_settings_digest(config.set("ga.mutation.replace_rate", 0.2)) != digest
    assert ga_settings_digest(config.set("run.budget.generations", 3)) != digest
    cpu_budget = Budget.of(config.run.budget).replace(clock="cpu")
    assert ga_settings_digest(config, cpu_budget) != digest
    (level,) = _levels("seed000-example")
    (result,) = evosoko.evolve([level], config.set("parallel.backend", "serial"), seeds=[5])
    assert (result.seed, result.settings) == (5, digest)


def test_a_sweep_has_a_row_per_trial_job_with_the_trial_settings_digest(folders):
    table = evosoko.results(folders["sweep"])
    config = load_sweep_config(folders["sweep"] / "sweep.toml")
    trials = plan_trials(config)
    assert [row["solver"] for row in table] == [f"trial-{trial.number}" for trial in trials]
    assert [row["settings"] for row in table] == [
        ga_settings_digest(trial_config(config, trial.params)) for trial in trials
    ]
    assert len({row["settings"] for row in table}) == 4
    assert all(row["kind"] == "ga" and row["status"] in STATUSES for row in table)


def test_an_optuna_sweep_has_the_digests_of_its_studys_trials(tmp_path):
    optuna = pytest.importorskip("optuna")
    text = SWEEP.replace('method = "grid"', 'method = "optuna"\ntrials = 2').replace(
        '"ga.mutation.replace_rate" = [0.01, 0.1]',
        '"ga.mutation.replace_rate" = { low = 0.001, high = 0.2, log = true }',
    )
    (tmp_path / "sweep.toml").write_text(text)
    config = load_sweep_config(tmp_path / "sweep.toml")
    outcome = run_sweep(config, tmp_path / "out", plots=False)
    table = evosoko.results(outcome)
    assert len(table) == 2
    for row, trial in zip(table, outcome.trials, strict=True):
        assert row["solver"] == f"trial-{trial.number}"
        assert row["settings"] == ga_settings_digest(trial_config(config, trial.params))
    assert optuna.__version__  # the digests came from the study in optuna.journal


def test_outcomes_and_folders_give_the_same_table_and_lists_join(folders):
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.runner import run_compare

    config_path = folders["compare"].parent / "tiny.toml"
    assert config_path.read_text() == COMPARE
    outcome = run_compare(load_compare_config(config_path), folders["compare"], plots=False)
    assert outcome.resumed == 8  # every job is in the journal: nothing ran
    assert evosoko.results(outcome).rows == evosoko.results(folders["compare"]).rows
    frame = outcome.to_pandas()
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 8
    assert str(frame["seed"].dtype) == "Int64" and str(frame["nodes"].dtype) == "Int64"
    joined = evosoko.results([folders["compare"], str(folders["run"]), folders["sweep"]])
    assert len(joined) == 8 + 2 + 4
    assert {row["source"] for row in joined} == {
        folders["compare"].name,
        folders["run"].name,
        folders["sweep"].name,
    }
    assert evosoko.open_run(folders["run"]).to_pandas()["seed"].tolist() == [0, 0]


def test_evolve_runs_each_level_once_per_seed_and_histories_know_their_run():
    pandas = pytest.importorskip("pandas")
    levels = _levels("seed000-example", "seed000-case3")
    config = Config().set("parallel.backend", "serial").set("ga.population", 20)
    config = config.set("ga.offspring", 20)
    results = evosoko.evolve(levels, config, seeds=[3, 4], budget=Budget(evaluations=300))
    assert [(r.index, r.seed) for r in results] == [(1, 3), (1, 4), (2, 3), (2, 4)]
    assert _played(results[2].history) != _played(results[3].history)  # the seeds differ
    alone = evosoko.evolve(levels[1], config, seed=4, budget=Budget(evaluations=300))
    assert _played(alone.history) == _played(results[3].history) and alone.seed == 4
    histories = pandas.concat([r.history.to_pandas() for r in results], ignore_index=True)
    assert list(histories.columns[:4]) == ["solver", "level_index", "level", "seed"]
    assert set(histories["seed"]) == {3, 4}
    assert set(histories["level"]) == {"seed000-example", "seed000-case3"}
    assert len(histories) == sum(len(r.history) for r in results)
    table = evosoko.results(results)
    assert [row["source"] for row in table] == ["python"] * 4
    assert [(row["level_index"], row["seed"]) for row in table] == [
        (r.index, r.seed) for r in results
    ]
    assert len({row["settings"] for row in table}) == 1
    single = evosoko.evolve(levels[0], config, seeds=[3], budget=Budget(evaluations=300))
    assert isinstance(single, list) and _played(single[0].history) == _played(results[0].history)


def test_evolve_takes_seed_or_seeds_not_both():
    with pytest.raises(TypeError, match="seed or seeds"):
        evosoko.evolve(_levels("seed000-example"), seed=1, seeds=[1, 2])


def test_what_holds_no_results_is_refused(tmp_path):
    with pytest.raises(TypeError, match="no results in a int"):
        evosoko.results(42)
    with pytest.raises(EvosokoError, match="no such folder"):
        evosoko.results(tmp_path / "missing")
    with pytest.raises(EvosokoError, match="not a run, compare, sweep or level run folder"):
        evosoko.results(tmp_path)
    assert len(evosoko.results([])) == 0 and isinstance(evosoko.results([]), ResultsTable)


def test_a_compare_whose_ga_configuration_is_gone_keeps_its_rows(folders, tmp_path):
    import shutil

    copy = tmp_path / "compare"
    shutil.copytree(folders["compare"], copy)
    text = (copy / "compare.toml").read_text()
    missing = tmp_path / "gone.toml"
    (copy / "compare.toml").write_text(
        text.replace('kind = "ga"', f'kind = "ga"\nconfig = "{missing}"', 1)
    )
    table = evosoko.results(copy)
    assert len(table) == 8
    assert {row["settings"] for row in table if row["kind"] == "ga"} == {None}
    assert None not in {row["settings"] for row in table if row["kind"] == "search"}
