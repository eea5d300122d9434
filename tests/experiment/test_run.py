"""Tests of whole runs: the run folder's files, statuses, determinism and resuming."""

from __future__ import annotations

import json

import pytest
from experiment_helpers import SEED_LEVELS, StopAt, deterministic_metrics, read_csv, tiny_config

from evosoko.config import load_config
from evosoko.errors import ConfigError, EvosokoError
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run import runner as run_module
from evosoko.experiment.run.records import summary_entry
from evosoko.experiment.run.runner import resume_run, start_run
from evosoko.sokoban.formats import parse_levels, read_levels
from evosoko.sokoban.solutions import verify_solution

LEVEL_TITLES = ["seed000-example", "seed000-case3", "seed004-blog"]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """One completed run over the three seed levels (move genomes: one level stays unsolved)."""
    config = tiny_config(tmp_path_factory.mktemp("runs"), "ga.encoding=moves")
    return config, start_run(config)


def test_run_folder_holds_every_file(finished_run):
    _, report = finished_run
    folder = report.run_dir
    for name in (
        "config.toml",
        "metrics.csv",
        "events.jsonl",
        "results.csv",
        "solutions.sok",
        "summary.json",
        "run.log",
        "plots/fitness.png",
    ):
        assert (folder / name).is_file(), name
    assert (folder / "plots" / "fitness.png").read_bytes().startswith(b"\x89PNG")
    assert list((folder / "checkpoints").glob("level-*.json"))
    assert not list(folder.rglob("*.tmp"))
    assert "seed000-case3" in (folder / "run.log").read_text()


def test_folder_name_is_time_name_and_short_id(finished_run):
    _, report = finished_run
    stamp, name, short_id = report.run_dir.name.split("_")
    assert len(stamp) == 16 and stamp.endswith("Z") and stamp[8] == "T"
    assert name == "run"
    assert len(short_id) == 6 and int(short_id, 16) >= 0


def test_summary_and_results_agree(finished_run):
    _, report = finished_run
    summary = json.loads((report.run_dir / "summary.json").read_text())
    assert report.status == summary["status"] == "completed" and report.exit_code == 0
    assert [level["level"] for level in summary["levels"]] == LEVEL_TITLES
    rows = read_csv(report.run_dir / "results.csv")
    assert [row["level"] for row in rows] == LEVEL_TITLES
    assert [row["index"] for row in rows] == ["1", "2", "3"]
    for row, result in zip(rows, report.results):
        assert row["solved"] == ("1" if result.solved else "0")
        assert int(row["generations"]) == result.generations <= 12
        assert int(row["evaluations"]) == result.evaluations
        assert row["moves"] == ("" if result.moves is None else str(result.moves))
    totals = summary["totals"]
    assert totals["levels"] == totals["finished"] == 3
    assert totals["solved"] == sum(result.solved for result in report.results)
    assert summary["seed"] == 0 and "numpy" in summary["versions"]


def test_metrics_rows_cover_every_generation(finished_run):
    _, report = finished_run
    rows = deterministic_metrics(report.run_dir)
    for result in report.results:
        generations = [int(row["generation"]) for row in rows if row["level"] == result.level_name]
        assert generations == list(range(result.generations + 1))


def test_events_tell_the_story(finished_run):
    _, report = finished_run
    events = [
        json.loads(line) for line in (report.run_dir / "events.jsonl").read_text().splitlines()
    ]
    kinds = [event["event"] for event in events]
    assert kinds[0] == "run_started" and kinds[-1] == "completed"
    assert kinds.count("level_started") == kinds.count("level_finished") == 3
    assert "checkpoint" in kinds
    assert kinds.count("solved") == sum(result.solved for result in report.results)
    assert all(event["time"].endswith("Z") for event in events)


def test_solutions_file_holds_solutions_and_best_prefixes(finished_run):
    _, report = finished_run
    assert any(r.solved for r in report.results), "the tiny run should solve a seed level"
    assert not all(r.solved for r in report.results), "and leave one unsolved"
    written = parse_levels((report.run_dir / "solutions.sok").read_text(), "solutions.sok")
    originals = {level.title: level for level in read_levels(SEED_LEVELS)}
    assert [level.title for level in written] == [result.level_name for result in report.results]
    for level, result in zip(written, report.results):
        notes = dict(level.notes)
        if result.solved:
            assert notes == {"Solution": result.solution}
            check = verify_solution(originals[level.title], notes["Solution"])
            assert check.valid and check.solved and check.moves == result.moves
        else:
            assert "Solution" not in notes
            assert notes == {"Best": result.best.lurd, "Distance": str(result.best.distance)}


def test_every_level_reports_its_best_individual(finished_run):
    _, report = finished_run
    summary = json.loads((report.run_dir / "summary.json").read_text())
    rows = read_csv(report.run_dir / "results.csv")
    for entry, row, result in zip(summary["levels"], rows, report.results):
        best = entry["best"]
        assert set(best) == {"lurd", "distance", "moves", "pushes", "solved"}
        assert (
            best
            == result.best.as_dict()
            == report.json_summary()["levels"][result.index - 1]["best"]
        )
        assert best["solved"] == entry["solved"]
        assert (row["best_moves"], row["best_pushes"]) == (str(best["moves"]), str(best["pushes"]))
        assert row["best_distance"] == str(best["distance"])
        if entry["solved"]:
            assert best["lurd"] == entry["solution"] and best["distance"] == 0
            assert (best["moves"], best["pushes"]) == (entry["moves"], entry["pushes"])
        else:
            assert entry["solution"] is None and best["distance"] > 0


def test_verify_replays_an_unsolved_levels_best_prefix_to_its_distance(finished_run):
    from typer.testing import CliRunner

    from evosoko.cli import app
    from evosoko.evolve.distances import box_distance

    _, report = finished_run
    solutions = report.run_dir / "solutions.sok"
    result = CliRunner().invoke(
        app, ["verify", str(SEED_LEVELS), "--solutions", str(solutions), "--json"]
    )
    assert result.exit_code == 0, result.output
    checked = {record["index"]: record for record in map(json.loads, result.stdout.splitlines())}
    levels = read_levels(SEED_LEVELS)
    unsolved = [r for r in report.results if not r.solved]
    for entry in unsolved:
        record = checked[entry.index]
        assert record["kind"] == "best" and record["valid"] and not record["solved"]
        assert (record["moves"], record["pushes"]) == (entry.best.moves, entry.best.pushes)
        final = verify_solution(levels[entry.index - 1], entry.best.lurd).final
        # the run's objective (matching) of the position the prefix reaches (move genomes)
        assert box_distance(levels[entry.index - 1], "matching", final.boxes) == entry.best.distance


def test_saved_config_loads_back_equal(finished_run):
    config, report = finished_run
    assert load_config(report.run_dir / "config.toml") == config


def test_json_summary_keys(finished_run):
    _, report = finished_run
    data = json.loads(json.dumps(report.json_summary()))
    assert data["run_dir"] == str(report.run_dir)
    assert [entry["level"] for entry in data["levels"]] == LEVEL_TITLES
    keys = {
        "index",
        "level",
        "solved",
        "generations",
        "evaluations",
        "seconds",
        "moves",
        "pushes",
        "solution",
        "stop_reason",
        "exhausted",
        "best",
    }
    assert all(set(entry) == keys for entry in data["levels"])


def test_same_seed_same_metrics_serial_and_processes(tmp_path, finished_run):
    _, serial = finished_run
    config = tiny_config(
        tmp_path,
        "ga.encoding=moves",
        "parallel.backend=processes",
        "parallel.workers=2",
        "parallel.batch_size=7",
    )
    parallel = start_run(config)
    assert deterministic_metrics(parallel.run_dir) == deterministic_metrics(serial.run_dir)
    assert [r.solution for r in parallel.results] == [r.solution for r in serial.results]


def test_another_seed_gives_other_metrics(tmp_path, finished_run):
    _, first = finished_run
    other = start_run(tiny_config(tmp_path, "ga.encoding=moves", "run.seed=1"))
    assert deterministic_metrics(other.run_dir) != deterministic_metrics(first.run_dir)


@pytest.mark.parametrize("abort", [False, True], ids=["graceful", "abort"])
def test_resume_equals_an_uninterrupted_run(tmp_path, finished_run, abort):
    _, reference = finished_run
    config = tiny_config(tmp_path, "ga.encoding=moves")
    interrupts = GracefulInterrupts()
    stopped = start_run(
        config,
        progress=StopAt(interrupts, level=2, generation=6, abort=abort),
        interrupts=interrupts,
    )
    summary = json.loads((stopped.run_dir / "summary.json").read_text())
    assert stopped.status == summary["status"] == "interrupted"
    assert stopped.exit_code == 130
    assert f"evosoko run --resume {stopped.run_dir}" in stopped.message
    assert summary["resume"] == f"evosoko run --resume {stopped.run_dir}"
    assert [result.level_name for result in stopped.results] == LEVEL_TITLES[:1]

    resumed = resume_run(stopped.run_dir)
    assert resumed.status == "completed" and resumed.run_dir == stopped.run_dir
    assert deterministic_metrics(resumed.run_dir) == deterministic_metrics(reference.run_dir)
    assert _without_seconds(read_csv(resumed.run_dir / "results.csv")) == _without_seconds(
        read_csv(reference.run_dir / "results.csv")
    )
    assert (resumed.run_dir / "solutions.sok").read_text() == (
        reference.run_dir / "solutions.sok"
    ).read_text()
    kinds = [json.loads(line)["event"] for line in (resumed.run_dir / "events.jsonl").open()]
    assert "interrupted" in kinds and "run_resumed" in kinds and kinds[-1] == "completed"


def test_a_run_folder_of_the_words_before_the_vocabulary_resumes(tmp_path, finished_run):
    """A summary written before the status vocabulary (the exhausted limit as the stop
    reason, no ``exhausted``) resumes, and the run ends as an uninterrupted one in today's."""
    _, reference = finished_run
    config = tiny_config(tmp_path, "ga.encoding=moves")
    interrupts = GracefulInterrupts()
    stopped = start_run(
        config,
        progress=StopAt(interrupts, level=3, generation=2, abort=False),
        interrupts=interrupts,
    )
    path = stopped.run_dir / "summary.json"
    summary = json.loads(path.read_text())
    budget = [entry for entry in summary["levels"] if entry["exhausted"] is not None]
    assert budget, "a finished level of the tiny run runs out of generations"
    for entry in summary["levels"]:
        exhausted = entry.pop("exhausted")
        entry["stop_reason"] = exhausted or entry["stop_reason"]
    path.write_text(json.dumps(summary))
    (stopped.run_dir / "manifest.json").unlink()  # a folder of those days had none
    resumed = resume_run(stopped.run_dir)
    assert resumed.status == "completed"
    assert [r.stop for r in resumed.results] == [r.stop for r in reference.results]
    assert _without_seconds(read_csv(resumed.run_dir / "results.csv")) == _without_seconds(
        read_csv(reference.run_dir / "results.csv")
    )


def _without_seconds(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{key: value for key, value in row.items() if key != "seconds"} for row in rows]


def test_resuming_a_completed_run_changes_nothing(finished_run):
    _, report = finished_run
    before = (report.run_dir / "metrics.csv").read_text()
    again = resume_run(report.run_dir)
    assert again.status == "completed" and again.exit_code == 0
    assert [summary_entry(r) for r in again.results] == [summary_entry(r) for r in report.results]
    assert (report.run_dir / "metrics.csv").read_text() == before


def test_resume_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(EvosokoError, match="not a run folder"):
        resume_run(tmp_path)
    with pytest.raises(EvosokoError, match="no such run folder"):
        resume_run(tmp_path / "missing")


def test_resume_refuses_changed_levels(tmp_path):
    levels = tmp_path / "levels.xsb"
    levels.write_text(SEED_LEVELS.read_text())
    config = tiny_config(tmp_path, f"run.levels={levels}", "ga.encoding=moves")
    interrupts = GracefulInterrupts()
    interrupts.request()
    stopped = start_run(config, interrupts=interrupts)
    assert stopped.status == "interrupted" and stopped.results == []
    original = levels.read_text()
    for changed in (
        original.replace("; seed004-blog", "; renamed"),
        original.replace("#@-$..-#", "#-@$..-#"),
    ):  # seed000-case3's player moved
        assert changed != original
        levels.write_text(changed)
        with pytest.raises(EvosokoError, match="no longer match"):
            resume_run(stopped.run_dir)
    levels.write_text(original)
    assert resume_run(stopped.run_dir).status == "completed"


def test_a_crash_marks_the_run_failed(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(run_module, "evolve_level", broken)
    report = start_run(tiny_config(tmp_path))
    summary = json.loads((report.run_dir / "summary.json").read_text())
    assert report.status == summary["status"] == "failed"
    assert report.exit_code == 1 and "kaput" in report.message
    assert "kaput" in summary["error"]
    assert "kaput" in (report.run_dir / "run.log").read_text()


def test_bad_input_fails_before_a_folder_exists(tmp_path):
    with pytest.raises(ConfigError, match="run.levels is not set"):
        start_run(load_config(None, [f"output.dir={tmp_path}"]))
    with pytest.raises(EvosokoError, match="nope"):
        start_run(tiny_config(tmp_path, 'run.select=["nope"]'))
    assert not list(tmp_path.iterdir())


def test_select_runs_levels_in_the_order_given(tmp_path):
    report = start_run(tiny_config(tmp_path, 'run.select=[3, "seed000-example"]'))
    assert [(r.index, r.level_name) for r in report.results] == [
        (3, "seed004-blog"),
        (1, "seed000-example"),
    ]


def _logging_batch(*batch):
    """Stand-in for the worker task that logs from the worker process, then evaluates."""
    import logging
    import os

    logging.getLogger("evosoko.test.worker").warning("worker %d got a batch", os.getpid())
    return _original_batch(*batch)


_original_batch = None


def test_worker_log_records_reach_the_run_log(tmp_path, monkeypatch):
    import multiprocessing
    import os

    from evosoko.evolve import evaluation

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the stand-in task reaches workers only when they are forked")
    global _original_batch
    _original_batch = evaluation._evaluate_batch
    _logging_batch.__module__, _logging_batch.__qualname__ = evaluation.__name__, "_evaluate_batch"
    monkeypatch.setattr(evaluation, "_evaluate_batch", _logging_batch)
    config = tiny_config(
        tmp_path, "run.select=[1]", "parallel.backend=processes", "parallel.workers=2"
    )
    report = start_run(config)
    assert report.status == "completed", report.message
    log_text = (report.run_dir / "run.log").read_text()
    worker_lines = [line for line in log_text.splitlines() if "evosoko.test.worker" in line]
    assert worker_lines
    assert all(f"worker {os.getpid()} " not in line for line in worker_lines)


def test_show_animates_a_stored_solution_or_best_prefix(finished_run, tmp_path):
    from PIL import Image
    from typer.testing import CliRunner

    from evosoko.cli import app
    from evosoko.sokoban.render import gif_frame_steps

    _, report = finished_run
    solutions = report.run_dir / "solutions.sok"
    for result in report.results:
        gif = tmp_path / f"level-{result.index}.gif"
        shown = CliRunner().invoke(
            app,
            ["show", str(SEED_LEVELS), "-l", f"#{result.index}", "--solutions", str(solutions)]
            + ["--gif", str(gif)],
        )
        assert shown.exit_code == 0, shown.output
        with Image.open(gif) as image:  # one frame per step (sampled past 400)
            assert image.n_frames == len(gif_frame_steps(result.best.moves))
        expected = "solved" if result.solved else "not solved (the GA's best prefix, distance"
        assert f"{result.best.moves} moves, {result.best.pushes} pushes: {expected}" in (
            shown.stdout
        )
    # the solutions file itself: each level animates the note it carries
    own = CliRunner().invoke(
        app, ["show", str(solutions), "-l", "1", "--gif", str(tmp_path / "x.gif")]
    )
    assert own.exit_code == 0 and (tmp_path / "x.gif").is_file()
    nothing = CliRunner().invoke(app, ["show", str(SEED_LEVELS), "-l", "1", "--gif", "y.gif"])
    assert nothing.exit_code == 2 and "--gif needs something to animate" in nothing.stderr
