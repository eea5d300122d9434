"""The resume command that an interrupted ``compare`` or ``sweep`` prints continues the same
experiment: interrupted with Ctrl-C (a real SIGINT), the printed command finishes it with the
settings it started with, ``--set`` overrides included.

The jobs run on seed000-case3, which this small GA does not solve within its budget, so every job
takes its full 1.5 s and the interrupt lands while jobs remain (an easy level finishes all jobs in
milliseconds, before the signal)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app
from tests.child_processes import start_interruptible

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"

COMPARE = f"""
[compare]
levels = "{SEEDS}"
select = ["seed000-case3", "seed004-blog"]
seeds = [1, 2, 3, 4, 5]

[compare.budget]
seconds = 1.5

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20"]
"""

SWEEP = f"""
[sweep]
levels = "{SEEDS}"
select = ["seed000-case3"]
seeds = [1, 2, 3, 4]
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20"]

[sweep.budget]
seconds = 1.5

[parameters]
"ga.tournament_size" = [2, 3]
"""


def _interrupt_after_first_job(args: list[str], journal: Path) -> str:
    """Run ``evosoko ARGS`` until one job is journaled, send SIGINT; its stderr."""
    child = start_interruptible(
        [sys.executable, "-m", "evosoko.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (journal.exists() and journal.read_text().count("\n") >= 1):
        assert child.poll() is None, child.communicate()[1]
        assert time.monotonic() < deadline, "no job finished"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    # as evosoko run says it: an interrupt is no error
    (line,) = [line for line in stderr.splitlines() if line.startswith("interrupted; ")]
    assert "continue with: evosoko " in line and "error" not in stderr
    return stderr


def _printed_command(stderr: str) -> list[str]:
    line = next(line for line in stderr.splitlines() if "continue with: evosoko" in line)
    return shlex.split(line.split("continue with: ", 1)[1])


def _journaled_keys(journal: Path) -> set[str]:
    return {json.loads(line)["key"] for line in journal.read_text().splitlines()}


@pytest.mark.slow  # test_compare.py resumes a stopped comparison in the default suite
def test_compare_resume_hint_continues_the_same_comparison(tmp_path):
    config = tmp_path / "cmp.toml"
    config.write_text(COMPARE)
    out = tmp_path / "cmp"
    journal = out / "journal.jsonl"
    stderr = _interrupt_after_first_job(
        ["compare", str(config), "--set", "compare.seeds=[1, 2]", "--out", str(out)], journal
    )
    command = _printed_command(stderr)
    assert command == ["evosoko", "compare", "--resume", str(out)]
    stored = (out / "compare.toml").read_text()
    assert "seeds = [\n    1,\n    2,\n]" in stored or "seeds = [1, 2]" in stored
    kept = _journaled_keys(journal)
    assert 1 <= len(kept) < 4

    result = CliRunner().invoke(app, command[1:] + ["--quiet"])
    assert result.exit_code == 0, result.output
    assert (out / "compare.toml").read_text() == stored
    finished = _journaled_keys(journal)
    assert len(finished) == 4 and kept <= finished  # 2 levels x the 2 seeds of --set
    summary = json.loads((out / "summary.json").read_text())
    assert summary["jobs"] == summary["finished"] == 4

    # the original command without its --set names another experiment: refused, not rewritten
    refused = CliRunner().invoke(app, ["compare", str(config), "--out", str(out), "--quiet"])
    assert refused.exit_code == 2
    assert "compare.seeds: [1, 2] in the folder, [1, 2, 3, 4, 5] here" in refused.output
    assert (out / "compare.toml").read_text() == stored


def test_sweep_resume_hint_continues_the_same_sweep(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    out = tmp_path / "sweep"
    journal = out / "journal.jsonl"
    stderr = _interrupt_after_first_job(
        ["sweep", str(config), "--set", "sweep.seeds=[1, 2]", "--out", str(out)], journal
    )
    command = _printed_command(stderr)
    assert command == ["evosoko", "sweep", "--resume", str(out)]
    stored = (out / "sweep.toml").read_text()
    kept = _journaled_keys(journal)
    assert 1 <= len(kept) < 4

    result = CliRunner().invoke(app, command[1:] + ["--quiet"])
    assert result.exit_code == 0, result.output
    assert (out / "sweep.toml").read_text() == stored
    finished = _journaled_keys(journal)
    assert len(finished) == 4 and kept <= finished  # 2 trials x the 2 seeds of --set
    index = (out / "index.csv").read_text().splitlines()
    assert len(index) == 3 and all(",complete," in row for row in index[1:])

    refused = CliRunner().invoke(app, ["sweep", str(config), "--out", str(out), "--quiet"])
    assert refused.exit_code == 2 and "sweep.seeds" in refused.output


def test_resume_takes_no_other_settings(tmp_path):
    result = CliRunner().invoke(
        app, ["compare", "--resume", str(tmp_path), "--set", "compare.first=1"]
    )
    assert result.exit_code == 2
    assert "give no CONFIG, --set or --out" in result.output
