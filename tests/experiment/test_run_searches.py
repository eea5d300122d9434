"""`evosoko run` with a population of searches ([searches] enabled = true): the run folder,
the same metrics serially and on workers, and Ctrl-C then resume equal to a whole run."""

from __future__ import annotations

import json

import pytest
from experiment_helpers import deterministic_metrics, read_csv, tiny_config
from test_run import StopAt

from evosoko.errors import ConfigError, EvosokoError
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run.runner import resume_run, start_run
from evosoko.search import FessSettings
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution

SEARCHES = (
    "searches.enabled=true",
    "searches.population=4",
    "searches.first_nodes=8",
    "run.budget.generations=6",
    "output.checkpoint_every=2",
)


@pytest.fixture(scope="module")
def searches_run(tmp_path_factory):
    config = tiny_config(tmp_path_factory.mktemp("runs"), *SEARCHES)
    return config, start_run(config)


def test_the_searches_solve_the_seed_levels_and_the_files_say_so(searches_run):
    config, report = searches_run
    assert report.status == "completed"
    levels = read_levels(config.run.levels)
    results = read_csv(report.run_dir / "results.csv")
    assert len(results) == len(levels)
    for result, level in zip(report.results, levels, strict=True):
        assert result.solved, result
        assert verify_solution(level, result.solution).solved
        # every knob of the best member's push-fess, as [search.fess] writes them
        settings = result.details["settings"]
        assert FessSettings.model_validate(settings).model_dump(mode="json") == settings
    rows = deterministic_metrics(report.run_dir)
    assert rows and all(int(row["evaluations"]) % 4 == 0 for row in rows)
    assert max(int(row["generation"]) for row in rows) >= 1  # some level took generations


def test_same_metrics_serially_and_on_two_workers(tmp_path, searches_run):
    _, serial = searches_run
    config = tiny_config(tmp_path, *SEARCHES, "parallel.backend=processes", "parallel.workers=2")
    parallel = start_run(config)
    assert deterministic_metrics(parallel.run_dir) == deterministic_metrics(serial.run_dir)
    assert [r.solution for r in parallel.results] == [r.solution for r in serial.results]


@pytest.mark.parametrize("abort", [False, True], ids=["graceful", "abort"])
def test_resume_equals_an_uninterrupted_run(tmp_path, searches_run, abort):
    _, reference = searches_run
    rows = deterministic_metrics(reference.run_dir)
    generation, level = max((int(r["generation"]), int(r["level_index"])) for r in rows)
    assert generation >= 2, "the test needs a level of several generations"
    config = tiny_config(tmp_path, *SEARCHES)
    interrupts = GracefulInterrupts()
    stopped = start_run(
        config,
        progress=StopAt(interrupts, level=level, generation=generation - 1, abort=abort),
        interrupts=interrupts,
    )
    summary = json.loads((stopped.run_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted"
    resumed = resume_run(stopped.run_dir)
    assert resumed.status == "completed"
    assert deterministic_metrics(resumed.run_dir) == rows
    assert (resumed.run_dir / "solutions.sok").read_text() == (
        reference.run_dir / "solutions.sok"
    ).read_text()


def test_searches_refuse_islands(tmp_path):
    with pytest.raises(ConfigError, match="islands"):
        tiny_config(tmp_path, *SEARCHES, "ga.islands.count=2")
    with pytest.raises(ConfigError, match="elitism"):
        tiny_config(tmp_path, *SEARCHES, "searches.elitism=4")


def test_a_searches_checkpoint_is_checked_against_the_configuration(tmp_path, searches_run):
    from evosoko.experiment.run.resume_checks import check_checkpoint

    config, report = searches_run
    path = next((report.run_dir / "checkpoints").glob("level-*.json"))
    data = json.loads(path.read_text())
    check_checkpoint(data, config, data["level"], str(path))  # as written: accepted
    genomes = tiny_config(tmp_path, "searches.enabled=false")
    with pytest.raises(EvosokoError, match="population of searches"):
        check_checkpoint(data, genomes, data["level"], str(path))
    data["members"][0]["genome"] = [99] * 8
    with pytest.raises(EvosokoError, match="damaged checkpoint"):
        check_checkpoint(data, config, data["level"], str(path))
