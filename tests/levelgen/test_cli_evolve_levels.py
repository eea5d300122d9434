"""``evosoko evolve-levels``: bad input in one line, Ctrl-C and the printed resume command."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from evosoko.cli import app
from tests.child_processes import start_interruptible

REPO = Path(__file__).resolve().parents[2]


def config(tmp_path: Path, generations: int = 4) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(
        "[levels]\n"
        'name = "tiny"\nsize = "7x7"\nboxes = 2\npopulation = 6\noffspring = 6\n'
        f"[levels.budget]\ngenerations = {generations}\n"
        f'[output]\ndir = "{tmp_path / "runs"}"\n'
    )
    return path


def invoke(*args: str):
    return CliRunner().invoke(app, ["evolve-levels", *args])


def test_a_run_prints_its_folder_and_levels(tmp_path):
    result = invoke(str(config(tmp_path)))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("generation 0: pushes best") and len(lines) == 5 + 2
    assert lines[-2].startswith("completed: ") and lines[-1].startswith("wrote 6 levels to")
    quiet = invoke(str(config(tmp_path)), "--quiet", "--set", "levels.seed=1")
    assert Path(quiet.stdout.strip()).is_dir()
    data = json.loads(invoke(str(config(tmp_path)), "--json").stdout)
    assert data["status"] == "completed" and len(data["levels"]) == 6


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    result = invoke(str(config(tmp_path)), "--set", "levels.boxs=3")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "error: --set: unknown key 'levels.boxs'; did you mean 'levels.boxes'?"
    )
    result = invoke(str(tmp_path / "missing.toml"))
    assert result.exit_code == 2 and "configuration file not found" in result.stderr
    assert invoke().exit_code == 2
    assert invoke(str(config(tmp_path)), "--resume", str(tmp_path)).exit_code == 2
    result = invoke("--resume", str(tmp_path / "nothing"))
    assert result.exit_code == 2 and "no such run folder" in result.stderr
    assert not (tmp_path / "runs").exists()  # nothing half-written


def test_sigint_leaves_a_run_that_resume_finishes(tmp_path):
    code = "import sys; from evosoko.cli import app; sys.argv[0] = 'evosoko'; app()"
    process = start_interruptible(
        [sys.executable, "-c", code, "evolve-levels", str(config(tmp_path, 150))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    checkpoint = None
    deadline = time.monotonic() + 300
    while checkpoint is None and time.monotonic() < deadline and process.poll() is None:
        found = list((tmp_path / "runs").glob("*/checkpoint.json"))
        checkpoint = found[0] if found else None
        time.sleep(0.02)
    assert checkpoint is not None, process.communicate()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    run_dir = checkpoint.parent
    assert f"evosoko evolve-levels --resume {run_dir}" in stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["levels"]  # the best so far
    stopped_at = json.loads(checkpoint.read_text())["generation"]
    assert stopped_at < 150
    resumed = CliRunner().invoke(
        app, ["evolve-levels", "--resume", str(run_dir), "--set", "levels.seed=2"]
    )
    assert resumed.exit_code == 2  # a resume keeps its configuration
    resumed = CliRunner().invoke(app, ["evolve-levels", "--resume", str(run_dir), "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["totals"]["generations"] == 150
    rows = (run_dir / "metrics.csv").read_text().splitlines()[1:]
    assert [int(row.split(",")[0]) for row in rows] == list(range(151))
