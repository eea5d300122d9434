"""Tests of ``evosoko run``: output, --json, --set, config errors, and Ctrl-C then --resume."""

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

REPO = Path(__file__).resolve().parents[1]
SEED_LEVELS = REPO / "levels" / "seeds.xsb"


def write_config(tmp_path: Path, body: str = "") -> Path:
    """A tiny run over the bundled seed levels, writing into tmp_path/runs."""
    path = tmp_path / "tiny.toml"
    path.write_text(
        f"""\
[run]
name = "tiny"
levels = "{SEED_LEVELS}"

[run.budget]
generations = 6
seconds = "none"

[ga]
population = 20
offspring = 20

[output]
dir = "{tmp_path / "runs"}"
checkpoint_every = 3
{body}"""
    )
    return path


def invoke(*args: str):
    return CliRunner().invoke(app, ["run", *args])


def only_run_dir(tmp_path: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def test_json_prints_the_summary(tmp_path):
    result = invoke(str(write_config(tmp_path)), "--json", "--set", "ga.encoding=moves")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["run_dir"] == str(only_run_dir(tmp_path))
    assert [level["level"] for level in data["levels"]] == [
        "seed000-example",
        "seed000-case3",
        "seed004-blog",
    ]
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
    }
    assert all(keys <= set(level) for level in data["levels"])
    assert data["levels"][0]["solved"] is True and data["levels"][0]["solution"]


def test_plain_output_names_each_level_and_the_run_folder(tmp_path):
    result = invoke(str(write_config(tmp_path)), "--set", 'run.select=["seed000-case3"]')
    assert result.exit_code == 0, result.output
    assert "level 2 seed000-case3:" in result.stdout
    assert str(only_run_dir(tmp_path)) in result.stdout


def test_quiet_prints_only_the_folder_it_wrote(tmp_path):
    result = invoke(str(write_config(tmp_path)), "--quiet", "--set", "run.select=[1]")
    assert result.exit_code == 0 and result.stdout == f"{only_run_dir(tmp_path)}\n"
    summary = json.loads((only_run_dir(tmp_path) / "summary.json").read_text())
    assert summary["status"] == "completed"


def test_set_overrides_reach_the_saved_config(tmp_path):
    result = invoke(
        str(write_config(tmp_path)),
        "--quiet",
        "--set",
        "run.seed=41",
        "--set",
        "run.select=[1]",
        "--set",
        "run.name=renamed",
    )
    assert result.exit_code == 0, result.output
    run_dir = only_run_dir(tmp_path)
    assert "_renamed_" in run_dir.name
    assert "seed = 41" in (run_dir / "config.toml").read_text()


def test_config_typo_is_rejected_with_a_suggestion(tmp_path):
    path = write_config(tmp_path, "\n[ga.mutation]\nreplace_rte = 0.1\n")
    result = invoke(str(path))
    assert result.exit_code == 2
    line = len(path.read_text().splitlines())
    assert f"error: {path}:{line}: unknown key 'ga.mutation.replace_rte'" in result.stderr
    assert "did you mean 'ga.mutation.replace_rate'?" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()


def test_bad_override_and_unknown_level_exit_2(tmp_path):
    path = str(write_config(tmp_path))
    result = invoke(path, "--set", "ga.populaton=3")
    assert result.exit_code == 2 and "did you mean 'ga.population'?" in result.stderr
    result = invoke(path, "--set", 'run.select=["no-such-level"]')
    assert result.exit_code == 2 and "no-such-level" in result.stderr
    result = invoke(str(tmp_path / "missing.toml"))
    assert result.exit_code == 2 and "missing.toml" in result.stderr


def test_config_and_resume_are_exclusive(tmp_path):
    assert invoke().exit_code == 2
    result = invoke(str(write_config(tmp_path)), "--resume", str(tmp_path))
    assert result.exit_code == 2
    result = invoke("--resume", str(tmp_path / "nothing"))
    assert result.exit_code == 2 and "no such run folder" in result.stderr


def run_command(*args: str, **kwargs) -> subprocess.Popen:
    code = "import sys; from evosoko.cli import app; sys.argv[0] = 'evosoko'; app()"
    return start_interruptible(
        [sys.executable, "-c", code, "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        **kwargs,
    )


def test_sigint_leaves_a_run_that_resume_finishes(tmp_path):
    # Move genomes do not solve seed000-case3 quickly: the run is still going when the first
    # checkpoint appears, and 400 generations take about a second once resumed.
    path = write_config(tmp_path).with_name("long.toml")
    path.write_text(
        write_config(tmp_path)
        .read_text()
        .replace("generations = 6", "generations = 400")
        .replace('name = "tiny"', 'name = "tiny"\nselect = ["seed000-case3"]')
    )
    process = run_command(str(path), "--set", "ga.encoding=moves")
    checkpoint = None
    deadline = time.monotonic() + 120
    while checkpoint is None and time.monotonic() < deadline and process.poll() is None:
        found = list((tmp_path / "runs").glob("*/checkpoints/level-2.json"))
        checkpoint = found[0] if found else None
        time.sleep(0.02)
    assert checkpoint is not None, process.communicate()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "stopping after the current generation" in stdout  # said at once
    run_dir = checkpoint.parents[1]
    assert f"evosoko run --resume {run_dir}" in stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["levels"] == []
    stopped_at = json.loads(checkpoint.read_text())["generation"]
    assert 0 < stopped_at < 400

    resumed = run_command("--resume", str(run_dir), "--json")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    data = json.loads(stdout)
    assert data["run_dir"] == str(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed"
    (level,) = summary["levels"]
    assert level["level"] == "seed000-case3"
    assert level["solved"] or level["generations"] == 400
    rows = (run_dir / "metrics.csv").read_text().splitlines()[1:]
    assert [int(row.split(",")[2]) for row in rows] == list(range(level["generations"] + 1))


def test_evosoko_verify_accepts_the_solutions_file(tmp_path):
    result = invoke(str(write_config(tmp_path)), "--quiet")
    assert result.exit_code == 0, result.output
    solutions = only_run_dir(tmp_path) / "solutions.sok"
    check = CliRunner().invoke(
        app, ["verify", str(SEED_LEVELS), "--solutions", str(solutions), "--json"]
    )
    assert check.exit_code == 0, check.output
    records = [json.loads(line) for line in check.stdout.splitlines()]
    assert len(records) == 3 and all(record["valid"] for record in records)
    assert all(record["solved"] == (record["kind"] == "solution") for record in records)
