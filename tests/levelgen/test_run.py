"""Level runs in run folders: certified levels out, resume equal to an uninterrupted run,
serial equal to processes, a report with the levels playable."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import evosoko
from evosoko.errors import EvosokoError
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.report.writer import report_data
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.progress import LevelsProgress
from evosoko.levelgen.run import resume_levels_run, start_levels_run
from evosoko.sokoban.formats import read_levels

REPO = Path(__file__).resolve().parents[2]
OLD_CHECKPOINT = Path(__file__).parent / "data" / "checkpoint-v1.json"


def tiny(tmp_path: Path, **changes) -> LevelsConfig:
    return LevelsConfig().set(
        {
            "levels.name": "tiny",
            "levels.size": "7x7",
            "levels.boxes": 2,
            "levels.population": 6,
            "levels.offspring": 6,
            "levels.budget.generations": 6,
            "output.dir": str(tmp_path / "runs"),
            **changes,
        }
    )


class StopAt(LevelsProgress):
    """Asks the run to stop (as a first Ctrl-C does) after generation ``generation``."""

    def __init__(self, interrupts: GracefulInterrupts, generation: int) -> None:
        self.interrupts, self.generation = interrupts, generation

    def on_generation(self, evolution) -> None:
        if evolution.generation == self.generation:
            self.interrupts.request()


class StopAfterChecks(GracefulInterrupts):
    """Says stop from its ``count``-th check on: the loop checks before each generation and
    the scorer after each certificate, so a count can fall in the middle of a generation."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def should_stop(self) -> bool:
        self.count -= 1
        if self.count <= 0:
            self.request()
        return self.requested


def comparable(folder: Path) -> dict:
    """What must be equal between two runs of one configuration: the levels, the metrics and
    the final state (CPU and wall seconds aside)."""
    with open(folder / "metrics.csv", newline="") as stream:
        metrics = [
            {k: v for k, v in row.items() if k not in ("seconds", "cpu_seconds")}
            for row in csv.DictReader(stream)
        ]
    checkpoint = json.loads((folder / "checkpoint.json").read_text())
    for member in checkpoint["population"] + [checkpoint["best"]]:
        member["score"]["certificate"].pop("cpu_seconds")
    checkpoint.pop("seconds"), checkpoint.pop("cpu_seconds")
    return {
        "levels": (folder / "levels.xsb").read_text(),
        "metrics": metrics,
        "checkpoint": checkpoint,
    }


def test_a_run_writes_certified_levels_that_verify(tmp_path):
    report = evosoko.evolve_levels(tiny(tmp_path))
    assert report.status == "completed" and report.exit_code == 0
    assert report.stop == "budget: generations"
    folder = report.run_dir
    for name in (
        "levels.toml",
        "metrics.csv",
        "events.jsonl",
        "certificates.jsonl",
        "checkpoint.json",
        "levels.xsb",
        "summary.json",
        "report.html",
        "plots/difficulty.png",
    ):
        assert (folder / name).is_file(), name
    levels = read_levels(folder / "levels.xsb")
    assert len(levels) == 6 == len(report.levels)
    for level in levels:  # a fresh solve agrees with the certificate
        notes = dict(level.notes)
        assert evosoko.verify(level, notes["Solution"]).solved
        assert evosoko.solve(level, "push-astar").pushes == int(notes["Pushes"])
    verify = subprocess.run(
        [
            sys.executable,
            "-m",
            "evosoko.cli",
            "verify",
            str(folder / "levels.xsb"),
            "--solutions",
            str(folder / "levels.xsb"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert verify.returncode == 0, verify.stderr
    assert all(json.loads(line)["solved"] for line in verify.stdout.splitlines())
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["exhausted"] == "generations"
    assert summary["totals"]["generations"] == 6 and summary["resume"] is None
    with open(folder / "metrics.csv", newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [int(row["generation"]) for row in rows] == list(range(7))
    pushes = [float(row["best_pushes"]) for row in rows]
    assert pushes == sorted(pushes)
    assert summary["levels"][0]["box_changes"] >= 0  # the objective's name, as in the notes
    drawn = evosoko.plot([folder], out=tmp_path / "again", fmt="svg")  # evosoko plot FOLDER
    assert [path.name for path in drawn] == ["difficulty.svg"]


@pytest.mark.parametrize("stop_at", [0, 3])
def test_resume_after_an_interrupt_equals_an_uninterrupted_run(tmp_path, stop_at):
    whole = start_levels_run(tiny(tmp_path / "whole"))
    interrupts = GracefulInterrupts()
    cut = start_levels_run(
        tiny(tmp_path / "cut"), progress=StopAt(interrupts, stop_at), interrupts=interrupts
    )
    assert cut.status == "interrupted" and cut.exit_code == 130
    assert f"evosoko evolve-levels --resume {cut.run_dir}" in cut.message
    summary = json.loads((cut.run_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["resume"]
    resumed = resume_levels_run(cut.run_dir)
    assert resumed.status == "completed"
    assert comparable(resumed.run_dir) == comparable(whole.run_dir)
    again = resume_levels_run(cut.run_dir)
    assert again.message == "nothing to resume: the run is completed"


def test_resume_in_the_middle_of_a_generation_certifies_nothing_twice(tmp_path):
    whole = start_levels_run(tiny(tmp_path / "whole"))
    cut = start_levels_run(tiny(tmp_path / "cut"), interrupts=StopAfterChecks(10))
    assert cut.status == "interrupted"
    journaled = (cut.run_dir / "certificates.jsonl").read_text().splitlines()
    checkpoint = json.loads((cut.run_dir / "checkpoint.json").read_text())
    assert checkpoint["generation"] == 0 and len(journaled) > checkpoint["certifications"]
    resumed = resume_levels_run(cut.run_dir)
    assert comparable(resumed.run_dir) == comparable(whole.run_dir)
    keys = [json.loads(line)["key"] for line in (cut.run_dir / "certificates.jsonl").open()]
    assert len(keys) == len(set(keys)) and keys[: len(journaled)] == [
        json.loads(line)["key"] for line in journaled
    ]
    final = json.loads((cut.run_dir / "checkpoint.json").read_text())
    assert (
        final["certifications"]
        == json.loads((whole.run_dir / "checkpoint.json").read_text())["certifications"]
        == len(keys)
    )


def test_a_run_cut_by_an_older_evosoko_resumes_as_if_never_cut(tmp_path):
    """The older checkpoint (tests/levelgen/data) was written by this run cut after generation
    3 before the level loop's state was a LevelsState; its certificates are journaled again by
    a cut of today's."""
    whole = start_levels_run(tiny(tmp_path / "whole"))
    interrupts = GracefulInterrupts()
    cut = start_levels_run(
        tiny(tmp_path / "cut"), progress=StopAt(interrupts, 3), interrupts=interrupts
    )
    shutil.copyfile(OLD_CHECKPOINT, cut.run_dir / "checkpoint.json")
    resumed = resume_levels_run(cut.run_dir)
    assert resumed.status == "completed"
    assert comparable(resumed.run_dir) == comparable(whole.run_dir)


def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path):
    interrupts = GracefulInterrupts()
    cut = start_levels_run(tiny(tmp_path), progress=StopAt(interrupts, 1), interrupts=interrupts)
    checkpoint = cut.run_dir / "checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["evaluations"] = -1
    checkpoint.write_text(json.dumps(data))
    with pytest.raises(EvosokoError, match="evaluations") as error:
        resume_levels_run(cut.run_dir)
    assert error.value.path == str(checkpoint)
    assert json.loads(checkpoint.read_text()) == data  # nothing written


def test_serial_and_processes_evolve_the_same_levels(tmp_path):
    serial = start_levels_run(tiny(tmp_path / "serial", **{"levels.start": "deepest"}))
    processes = start_levels_run(
        tiny(
            tmp_path / "processes",
            **{"levels.start": "deepest", "parallel.backend": "processes", "parallel.workers": 2},
        )
    )
    assert comparable(serial.run_dir) == comparable(processes.run_dir)


def test_a_map_elites_report_shows_the_archive(tmp_path):
    config = tiny(
        tmp_path,
        **{
            "levels.selection": "map_elites",
            "levels.max_boxes": 4,
            "levels.archive.bins": [3, 4],
            "levels.archive.ranges": [[1.5, 4.5], [5.0, 25.0]],
        },
    )
    report = start_levels_run(config)
    assert (report.run_dir / "plots" / "archive.png").is_file()
    data = report_data(report.run_dir)
    assert data["kind"] == "levels" and len(data["levels"]) == len(report.levels) > 3
    grid = data["archive"]["grid"]
    placed = sorted(position for row in grid for position in row if position is not None)
    assert placed == list(range(len(report.levels)))
    html = (report.run_dir / "report.html").read_text()
    assert 'id="archive-table"' in html and "levelsPage" in html
