"""Damaged run folders, two writers, full disks: a resume refuses cleanly or goes on exactly.

Reproductions of issue 17: a checkpoint that is a JSON list, a summary that is a list, a
summary level without ``level`` and a file where the checkpoints folder was gave tracebacks;
hand-edited checkpoints (generation -5 or 10**6, genes -1 or 10**9) were accepted; a deleted or
truncated metrics.csv lost rows silently; two resumes at once both wrote; a clean error left
the summary ``running``; a full disk was a traceback.
"""

from __future__ import annotations

import errno
import json
import shutil

import pytest
from experiment_helpers import deterministic_metrics, tiny_config

from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.experiment import atomic as atomic_module
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run.folder import RunFolder
from evosoko.experiment.run.progress import NoProgress
from evosoko.experiment.run.runner import resume_run, start_run

STOP_LEVEL, STOP_GENERATION = 2, 6


class _StopAt(NoProgress):
    def __init__(self, interrupts: GracefulInterrupts):
        self.interrupts = interrupts
        self.current = None

    def on_level_start(self, level):
        self.current = level.index

    def on_generation(self, generation):
        if self.current == STOP_LEVEL and generation.stats.generation == STOP_GENERATION:
            self.interrupts.request()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run, and a copy of the same run stopped at level 2, generation 6."""
    base = tmp_path_factory.mktemp("damaged")
    complete = start_run(tiny_config(base / "complete", "ga.encoding=moves"))
    interrupts = GracefulInterrupts()
    stopped = start_run(
        tiny_config(base / "stopped", "ga.encoding=moves"),
        progress=_StopAt(interrupts),
        interrupts=interrupts,
    )
    assert stopped.status == "interrupted" and len(stopped.results) == 1
    return complete, stopped.run_dir


@pytest.fixture
def stopped(reference, tmp_path):
    """A fresh copy of the stopped run folder, to damage."""
    copy = tmp_path / "run"
    shutil.copytree(reference[1], copy)
    return copy


def _checkpoint(run_dir):
    return run_dir / "checkpoints" / f"level-{STOP_LEVEL}.json"


def _edit_json(path, change):
    data = json.loads(path.read_text())
    data = change(data)
    path.write_text(json.dumps(data))


def _refused(run_dir, pattern):
    with pytest.raises(EvosokoError, match=pattern) as caught:
        resume_run(run_dir)
    return caught.value


def test_an_undamaged_copy_resumes_to_the_uninterrupted_result(reference, stopped):
    resumed = resume_run(stopped)
    assert resumed.status == "completed"
    assert deterministic_metrics(stopped) == deterministic_metrics(reference[0].run_dir)


def test_a_checkpoint_that_is_a_json_list_is_refused(stopped):
    _checkpoint(stopped).write_text("[1, 2, 3]\n")
    error = _refused(stopped, "JSON array, not an object")
    assert error.path == str(_checkpoint(stopped))


def test_a_summary_that_is_a_list_is_refused(stopped):
    (stopped / "summary.json").write_text("[]\n")
    _refused(stopped, "summary.json written by evosoko: it holds a JSON array")


def test_a_summary_level_without_its_name_is_refused(stopped):
    _edit_json(stopped / "summary.json", lambda s: {**s, "levels": [_without(s["levels"][0])]})
    _refused(stopped, r"levels\[0\] has no 'level'")


def _without(entry):
    return {key: value for key, value in entry.items() if key != "level"}


def test_a_file_where_the_checkpoints_folder_was_is_refused(stopped):
    shutil.rmtree(stopped / "checkpoints")
    (stopped / "checkpoints").write_text("not a folder\n")
    _refused(stopped, "checkpoints is a file where the run keeps a folder")


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (lambda c: {**c, "generation": -5}, "generation = -5 is out of range"),
        (lambda c: {**c, "generation": 10**6}, "generation = 1000000 is out of range"),
        (lambda c: _gene(c, -1), r"genes\[0\] = -1 is not a gene of moves genomes"),
        (lambda c: _gene(c, 10**9), r"genes\[0\] = 1000000000 is not a gene"),
        (lambda c: {**c, "generation": STOP_GENERATION - 1}, "one of them was edited"),
        (lambda c: {**c, "evaluations": c["evaluations"] + 1}, "one of them was edited"),
        (lambda c: _distance(c, 0), "population is at distance 0"),
        (lambda c: {**c, "rng_state": [3, [1, 2], None]}, "rng_state"),
        (lambda c: {**c, "population": c["population"][:-1]}, "population has 29"),
        (lambda c: {**c, "encoding": "pushes"}, "encoding is 'pushes'"),
    ],
    ids=[
        "generation-5",
        "generation-1e6",
        "gene-1",
        "gene-1e9",
        "generation-shifted",
        "evaluations",
        "distance",
        "rng",
        "population-size",
        "encoding",
    ],
)
def test_hand_edited_checkpoints_are_refused(stopped, change, pattern):
    _edit_json(_checkpoint(stopped), change)
    error = _refused(stopped, pattern)
    assert "delete level-2.json" in str(error) or "delete it" in str(error)
    summary = json.loads((stopped / "summary.json").read_text())
    assert (
        summary["status"] == "failed"
        and "a damaged checkpoint" in summary["error"]
        or ("one of them was edited" in summary["error"])
    )


def _gene(checkpoint, value):
    checkpoint["population"][0]["genes"][0] = value
    return checkpoint


def _distance(checkpoint, value):
    for member in checkpoint["population"]:
        member["evaluation"]["distance"] = value
    return checkpoint


def test_a_deleted_metrics_file_is_refused_not_continued_with_a_hole(stopped):
    (stopped / "metrics.csv").unlink()
    error = _refused(stopped, "no rows for the finished level 1")
    assert "restore metrics.csv" in str(error)
    assert not (stopped / "metrics.csv").exists()  # nothing written


@pytest.mark.parametrize("keep", [1, 2, 5])
def test_a_truncated_metrics_file_is_refused(stopped, keep):
    path = stopped / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:keep]))
    _refused(stopped, "restore metrics.csv")


def test_rows_cut_after_the_checkpoint_are_written_again(reference, stopped):
    path = stopped / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    generation = json.loads(_checkpoint(stopped).read_text())["generation"]
    last_needed = max(
        number
        for number, line in enumerate(lines)
        if line.startswith(f"{STOP_LEVEL},") and int(line.split(",")[2]) == generation
    )
    path.write_text("".join(lines[: last_needed + 1]))
    assert resume_run(stopped).status == "completed"
    assert deterministic_metrics(stopped) == deterministic_metrics(reference[0].run_dir)


def test_a_row_cut_short_at_the_end_is_dropped_as_a_crash_leaves_it(reference, stopped):
    path = stopped / "metrics.csv"
    path.write_text(path.read_text() + "2,seed000-case3,7,2")
    assert resume_run(stopped).status == "completed"
    assert deterministic_metrics(stopped) == deterministic_metrics(reference[0].run_dir)


def test_a_metrics_row_with_garbage_names_its_line(stopped):
    path = stopped / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[3].split(",")
    fields[3] = "many"  # evaluations
    lines[3] = ",".join(fields)
    path.write_text("".join(lines))
    error = _refused(stopped, "not a number")
    assert error.line == 4


def test_a_missing_metrics_file_with_nothing_to_keep_is_rebuilt(tmp_path):
    interrupts = GracefulInterrupts()
    interrupts.request()
    stopped = start_run(tiny_config(tmp_path, "ga.encoding=moves"), interrupts=interrupts)
    (stopped.run_dir / "metrics.csv").unlink()
    assert resume_run(stopped.run_dir).status == "completed"
    assert (stopped.run_dir / "metrics.csv").read_text().startswith("level_index,")


def test_two_writers_cannot_hold_one_folder(stopped):
    holder = RunFolder.open(stopped)
    try:
        error = _refused(stopped, "another evosoko process .* is writing this folder")
        assert error.path == str(stopped)
    finally:
        holder.unlock()
    assert resume_run(stopped).status == "completed"


def test_a_stale_lock_of_a_dead_process_is_taken_over(stopped):
    (stopped / ".lock").write_text(json.dumps({"pid": 999_999_999, "host": "gone"}) + "\n")
    with pytest.warns(EvosokoWarning, match="stale lock left by process 999999999"):
        report = resume_run(stopped)
    assert report.status == "completed"
    assert (stopped / ".lock").read_text() == ""  # released at the end


def test_a_summary_status_that_is_unknown_is_refused(stopped):
    _edit_json(stopped / "summary.json", lambda s: {**s, "status": "paused"})
    _refused(stopped, "unknown run status 'paused'")


def test_an_edited_finished_solution_is_refused(stopped):
    def change(summary):
        summary["levels"][0]["solution"] = "u" + summary["levels"][0]["solution"]
        return summary

    _edit_json(stopped / "summary.json", change)
    with pytest.warns(EvosokoWarning):
        _refused(stopped, "does not solve|moves and")


# ---- full disks ----------------------------------------------------------------------------------
def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_at_the_start_is_one_error_and_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr("evosoko.atomic._write_synced", _no_space)
    with pytest.raises(EvosokoError, match="No space left on device"):
        start_run(tiny_config(tmp_path / "runs", "ga.encoding=moves"))
    assert not any((tmp_path / "runs").iterdir())


def test_a_full_disk_in_the_middle_fails_cleanly_and_resumes_exactly(reference, tmp_path):
    from evosoko import atomic

    config = tiny_config(tmp_path / "runs", "ga.encoding=moves")
    disk = {"rows": 0, "full": False}
    opened, replace = atomic_module.LineAppender.__init__, atomic._write_synced

    class FillingFile:
        """A file that takes 20 metrics rows; then the disk is full (part of a row gets out)."""

        def __init__(self, file, counts_rows):
            self.file, self.counts_rows = file, counts_rows

        def write(self, text):
            if self.counts_rows:
                disk["rows"] += 1
                disk["full"] |= disk["rows"] > 20
            if disk["full"]:
                self.file.write(text[:5])
                self.file.flush()
                _no_space()
            return self.file.write(text)

        def __getattr__(self, name):
            return getattr(self.file, name)

    def open_filling(self, path):
        opened(self, path)
        self._file = FillingFile(self._file, path.name == "metrics.csv")

    def replace_until_full(file, data):
        if disk["full"]:
            _no_space()
        replace(file, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atomic_module.LineAppender, "__init__", open_filling)
        patch.setattr(atomic, "_write_synced", replace_until_full)
        report = start_run(config)
    assert disk["full"]
    assert report.status == "failed" and report.exit_code == 1
    assert "No space left on device" in report.message
    assert f"evosoko run --resume {report.run_dir}" in report.message
    assert json.loads((report.run_dir / "summary.json").read_text())["status"] == "running"
    resumed = resume_run(report.run_dir)  # space freed
    assert resumed.status == "completed"
    assert deterministic_metrics(report.run_dir) == deterministic_metrics(reference[0].run_dir)


# ---- titles --------------------------------------------------------------------------------------
def test_a_run_of_a_level_titled_with_markup_completes_in_a_terminal(tmp_path):
    import io

    from rich.console import Console

    from evosoko.experiment.run.progress import RichProgress

    levels = tmp_path / "levels.xsb"
    levels.write_text("; [/]\n#######\n#@ $ .#\n#######\n", encoding="utf-8")
    config = tiny_config(tmp_path / "runs", f"run.levels={levels}", "ga.encoding=moves")
    stream = io.StringIO()
    report = start_run(config, progress=RichProgress(Console(file=stream, force_terminal=True)))
    assert report.status == "completed", report.message
    assert json.loads((report.run_dir / "summary.json").read_text())["status"] == "completed"
    assert "level 1 [/]" in stream.getvalue()


# ---- a Dask scheduler that does not answer -------------------------------------------------------
def test_an_unreachable_dask_scheduler_is_found_before_the_folder_exists(tmp_path, monkeypatch):
    import socket

    pytest.importorskip("distributed")
    from evosoko.parallel import dask_cluster

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT", 2.0)
    config = tiny_config(
        tmp_path / "runs", "parallel.backend=dask", f'parallel.address="tcp://127.0.0.1:{port}"'
    )
    with pytest.raises(EvosokoError, match="cannot reach the Dask scheduler") as caught:
        start_run(config, config_source="cluster.toml")
    assert caught.value.path == "cluster.toml"
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_level_titled_with_control_characters_runs_and_its_solution_verifies(tmp_path):
    """The level writer refuses control characters in a title: solutions.sok writes the title
    escaped and keeps the file's positions, so ``verify --solutions`` still finds it."""
    from typer.testing import CliRunner

    from evosoko.cli import app

    levels = tmp_path / "levels.xsb"
    levels.write_text("; esc\x1b[2Jtitle\n#######\n#@ $ .#\n#######\n", encoding="utf-8")
    report = start_run(tiny_config(tmp_path / "runs", f"run.levels={levels}", "ga.encoding=moves"))
    assert report.status == "completed", report.message
    solutions = report.run_dir / "solutions.sok"
    assert "Title: esc\\x1b[2Jtitle" in solutions.read_text()
    result = CliRunner().invoke(app, ["verify", str(levels), "--solutions", str(solutions)])
    assert result.exit_code == 0 and result.stdout.startswith("OK")


@pytest.fixture(scope="module")
def islands_reference(tmp_path_factory):
    """An uninterrupted island run, and a copy of it stopped at level 2, generation 6."""
    base = tmp_path_factory.mktemp("islands")
    islands = ("ga.encoding=moves", "ga.islands.count=2", "ga.islands.migration_every=2")
    complete = start_run(tiny_config(base / "complete", *islands))
    interrupts = GracefulInterrupts()
    stopped = start_run(
        tiny_config(base / "stopped", *islands), progress=_StopAt(interrupts), interrupts=interrupts
    )
    assert stopped.status == "interrupted"
    return complete, stopped.run_dir


def _shift_checkpoint_row(run_dir, change):
    """Set the evaluations of the metrics row the checkpoint points at to the checkpoint's
    plus ``change``."""
    checkpoint = json.loads(_checkpoint(run_dir).read_text())
    generation, evaluations = str(checkpoint["generation"]), int(checkpoint["evaluations"])
    path = run_dir / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    header = lines[0].strip().split(",")
    at = {name: header.index(name) for name in ("level_index", "generation", "evaluations")}
    for number, line in enumerate(lines[1:], start=1):
        cells = line.rstrip("\n").split(",")
        if cells[at["level_index"]] == str(STOP_LEVEL) and cells[at["generation"]] == generation:
            cells[at["evaluations"]] = str(evaluations + change)
            lines[number] = ",".join(cells) + "\n"
    path.write_text("".join(lines))


def test_islands_ahead_of_the_last_row_resume_and_islands_behind_it_are_refused(
    islands_reference, tmp_path
):
    """Islands checkpoint after their last finished epoch, which on the processes backend can
    be past the last generation written to metrics.csv (Ctrl-C on XSokoban 8 with the pushes
    preset gave 45,041 evaluations against the row's 43,090): a row behind the checkpoint is
    accepted, one ahead of it refused. The row is edited to stand for that timing, so the
    manifest, which would see the edit itself, is taken away."""
    complete, stopped = islands_reference
    ahead, behind = tmp_path / "ahead", tmp_path / "behind"
    shutil.copytree(stopped, ahead)
    shutil.copytree(stopped, behind)
    for copy in (ahead, behind):
        (copy / "manifest.json").unlink()
    _shift_checkpoint_row(ahead, -100)
    assert resume_run(ahead).status == "completed"
    rows, expected = deterministic_metrics(ahead), deterministic_metrics(complete.run_dir)
    assert len(rows) == len(expected)
    assert sum(row != want for row, want in zip(rows, expected, strict=True)) == 1  # the edit
    _shift_checkpoint_row(behind, 1)
    _refused(behind, "one of them was edited")
