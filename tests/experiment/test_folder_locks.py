"""One folder lock for run, compare and sweep folders (issue 55, item 2): two ``evosoko compare
CFG --out X`` at once both ran every job and ``journal.jsonl`` held each job twice (a sweep the
same); run folders were locked, these were not."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from report_folders import COMPARE, SEEDS, SWEEP

from evosoko.errors import EvosokoError
from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.folder_lock import FolderLock
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep

REPO = Path(__file__).resolve().parents[2]
BUSY = "another evosoko process .* is writing this folder"


def test_a_compare_folder_in_use_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "compare.toml"
    path.write_text(COMPARE)
    folder = tmp_path / "out"
    folder.mkdir()
    with FolderLock(folder), pytest.raises(EvosokoError, match=BUSY):
        run_compare(load_compare_config(path), folder)
    assert sorted(p.name for p in folder.iterdir()) == [".lock"]


def test_a_sweep_folder_in_use_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP)
    folder = tmp_path / "out"
    folder.mkdir()
    with FolderLock(folder), pytest.raises(EvosokoError, match=BUSY):
        run_sweep(load_sweep_config(path), folder)
    assert sorted(p.name for p in folder.iterdir()) == [".lock"]


def test_the_lock_is_released_when_the_experiment_ends(tmp_path):
    path = tmp_path / "compare.toml"
    path.write_text(COMPARE.replace('select = ["seed000-example", "seed000-case3"]', "first = 1"))
    folder = tmp_path / "out"
    assert run_compare(load_compare_config(path), folder, plots=False).complete
    with FolderLock(folder):  # free again: taken without a warning
        pass


def test_shared_locks_exclude_an_exclusive_one_and_not_each_other(tmp_path):
    with (
        FolderLock(tmp_path, shared=True),
        FolderLock(tmp_path, shared=True),
        pytest.raises(EvosokoError, match=BUSY),
    ):
        FolderLock(tmp_path).acquire()
    with FolderLock(tmp_path), pytest.raises(EvosokoError, match=BUSY):
        FolderLock(tmp_path, shared=True).acquire()


UNSOLVABLE = '"ga.max_length=4", "ga.initial_length=3"'  # too short to solve: every job runs
RACE = f"""
[compare]
levels = "{SEEDS}"
select = ["seed000-case3", "seed004-blog"]
seeds = [1]

[compare.budget]
seconds = 120.0

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20", {UNSOLVABLE}]
"""
LONG_SWEEP = (
    SWEEP.replace("evaluations = 300", "evaluations = 10000000")
    .replace("seconds = 30", "seconds = 120")
    .replace('select = ["seed000-example"]', 'select = ["seed004-blog"]')
    .replace('"ga.offspring=20"', f'"ga.offspring=20", {UNSOLVABLE}')
)


def _evosoko(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evosoko.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize(
    ("command", "text"),
    [("compare", RACE), pytest.param("sweep", LONG_SWEEP, marks=pytest.mark.slow)],
)
def test_a_second_process_on_a_folder_in_use_is_refused(tmp_path, command, text):
    path = tmp_path / f"{command}.toml"
    path.write_text(text)
    folder = tmp_path / "out"
    first = _evosoko(command, str(path), "--out", str(folder), "--quiet")
    lock = folder / ".lock"
    deadline = time.monotonic() + 120
    while not (lock.exists() and lock.read_text().strip()):
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.05)
    second = _evosoko(command, str(path), "--out", str(folder), "--quiet")
    _, refused = second.communicate(timeout=300)
    assert first.poll() is None  # still running its first job: the two overlapped
    first.send_signal(signal.SIGTERM)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 143, stderr
    assert second.returncode == 2
    assert refused.startswith("error: ") and "is writing this folder" in refused
    assert len(refused.strip().splitlines()) == 1
    journal = folder / "journal.jsonl"
    keys = (
        [json.loads(line)["key"] for line in journal.read_text().splitlines()]
        if (journal.exists())
        else []
    )
    assert len(keys) == len(set(keys))
