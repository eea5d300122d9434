"""SIGTERM stops every long command as Ctrl-C does (issue 55, item 7): ``compare`` and
``sweep`` died on it with no message and no resume command, and their journal was then all
that told what had finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from report_folders import SEEDS

from evosoko.experiment.interrupts import (
    Terminated,
    interrupt_exit_code,
    terminate_as_interrupt,
)

REPO = Path(__file__).resolve().parents[2]

COMPARE = f"""
[compare]
levels = "{SEEDS}"
select = ["seed000-case3", "seed004-blog"]
seeds = [1, 2, 3, 4]

[compare.budget]
seconds = 2.0

[parallel]
backend = "processes"
workers = 2

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20"]
"""

SWEEP = f"""
[sweep]
name = "terminated"
method = "grid"
levels = "{SEEDS}"
select = ["seed000-case3"]
seeds = [1]
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20"]

[sweep.budget]
seconds = 2.0

[parallel]
backend = "processes"
workers = 2

[parameters]
"ga.tournament_size" = [2, 3, 4, 5, 6, 7, 8, 9]
"""


def test_sigterm_raises_terminated_inside_the_block_only():
    before = signal.getsignal(signal.SIGTERM)
    with terminate_as_interrupt():
        with pytest.raises(Terminated) as caught:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs at the next bytecode
        assert isinstance(caught.value, KeyboardInterrupt)
        assert interrupt_exit_code(caught.value) == 143
    assert signal.getsignal(signal.SIGTERM) is before
    assert interrupt_exit_code(KeyboardInterrupt()) == 130


class _SignalledOnCollection:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.5)  # the handler runs here, inside the finalizer


def test_sigterm_in_a_finalizer_is_not_lost():
    # raised in __del__, Terminated cannot leave it: Python would print it and carry on
    hook = sys.unraisablehook
    with terminate_as_interrupt(), pytest.raises(Terminated):
        doomed = _SignalledOnCollection()
        del doomed
        time.sleep(5)  # the SIGTERM sent again lands here
    assert sys.unraisablehook is hook


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evosoko.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def _journal_keys(folder: Path) -> list[str]:
    journal = folder / "journal.jsonl"
    if not journal.exists():
        return []
    return [json.loads(line)["key"] for line in journal.read_text().splitlines()]


@pytest.mark.parametrize(("command", "text", "what", "jobs"), [
    ("compare", COMPARE, "jobs", 8),
    pytest.param("sweep", SWEEP, "trials", 8, marks=pytest.mark.slow),  # compare checks it
])  # fmt: skip
def test_sigterm_keeps_finished_jobs_and_prints_the_resume_command(
    tmp_path, command, text, what, jobs
):
    path = tmp_path / f"{command}.toml"
    path.write_text(text)
    folder = tmp_path / "out"
    child = _start(command, str(path), "--out", str(folder), "--quiet")
    deadline = time.monotonic() + 180
    while not _journal_keys(folder):
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.05)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert stderr.splitlines()[-1] == (
        f"terminated; finished {what} are kept; continue with: evosoko {command} --resume {folder}"
    )
    kept = _journal_keys(folder)
    assert 1 <= len(kept) < jobs and len(set(kept)) == len(kept)
    resumed = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", command, "--resume", str(folder), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    keys = _journal_keys(folder)
    assert keys[: len(kept)] == kept and len(keys) == len(set(keys)) == jobs


def test_sigterm_ends_a_search_with_143_and_no_traceback(tmp_path):
    from evosoko.generate.stress import lattice_rows

    path = tmp_path / "lattice.xsb"
    path.write_text("\n".join(lattice_rows(60)) + "\n")
    child = _start("solve", str(path), "--algo", "push-astar", "--time-limit", "120")
    time.sleep(8)  # started, maybe searching
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 143
    assert "Traceback" not in stderr
