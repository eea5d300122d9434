"""Slow hostile-input checks (``pytest -m slow``): big boards through every algorithm, damaged
run folders and concurrent writers through the command line, a real full disk.

The fast tests reproduce each failure of issue 17 in process; these run the command line in
subprocesses, as a user would, where a crash is an exit status other than 0, 1 or 2 (a
segfault is -11 or 139) or a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evosoko.generate.stress import lattice_rows, room_rows
from evosoko.search import ALGORITHMS
from tests.child_processes import start_interruptible
from tests.fuzz_inputs import DAMAGES

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "levels" / "seeds.xsb"


def cli(*args, timeout=900, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "evosoko.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
        **kwargs,
    )


def assert_clean(completed):
    assert completed.returncode in (0, 1, 2), completed.stderr[-2000:]
    assert "Traceback" not in completed.stderr, completed.stderr[-2000:]
    if completed.returncode == 2:  # one error line, maybe after warning lines
        errors = [line for line in completed.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, completed.stderr


BIG_BOARDS = {
    "push-beside": room_rows(500, 500, player=(498, 495), box=(498, 496), goal=(498, 497)),
    "walk-far": room_rows(500, 500, player=(2, 2), box=(250, 250), goal=(250, 253)),
}


@pytest.mark.parametrize("board", list(BIG_BOARDS))
@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_a_500x500_board_is_solved_or_cleanly_refused_by_every_algorithm(tmp_path, board, algo):
    path = tmp_path / "big.xsb"
    path.write_text("\n".join(BIG_BOARDS[board]) + "\n")
    completed = cli("solve", path, "--algo", algo, "--time-limit", "60", "--json")
    assert_clean(completed)
    record = json.loads(completed.stdout)
    assert record["status"] in ("solved", "budget", "memory-limit"), record
    if board == "push-beside":
        assert record["status"] == "solved"


@pytest.mark.parametrize("boxes", [200, 300])
def test_a_time_limit_stops_a_search_of_hundreds_of_boxes(tmp_path, boxes):
    path = tmp_path / "lattice.xsb"
    path.write_text("\n".join(lattice_rows(boxes)) + "\n")
    for algo in ("push-astar", "astar"):
        completed = cli("solve", path, "--algo", algo, "--time-limit", "2", "--json")
        assert_clean(completed)
        assert json.loads(completed.stdout)["exhausted"] == "seconds"


def test_a_board_of_a_million_cells_is_listed_and_a_larger_one_refused(tmp_path):
    path = tmp_path / "million.xsb"
    path.write_text("\n".join(room_rows(1000, 1000, (1, 1), (500, 500), (500, 501))) + "\n")
    completed = cli("levels", path, "--json")
    assert_clean(completed)
    assert json.loads(completed.stdout)["width"] == 1000
    path.write_text("\n".join(room_rows(1001, 1000, (1, 1), (500, 500), (500, 501))) + "\n")
    completed = cli("levels", path)
    assert completed.returncode == 2 and "the board is too large" in completed.stderr


# ---- run folders through the command line --------------------------------------------------------
def run_arguments(folder: Path, *settings: str) -> list:
    """``evosoko run`` of the moves preset on the seed levels into ``folder``, with ``--set``
    ``settings`` (no time budget)."""
    overrides = [f"run.levels={SEEDS}", f"output.dir={folder}", "run.budget.seconds=none"]
    sets = [part for item in (*overrides, *settings) for part in ("--set", item)]
    return ["run", REPO / "configs" / "moves.toml", *sets, "--quiet"]


def _stopped_run(folder: Path) -> Path:
    """A run stopped by SIGINT in the middle of its second level, as a user stops it."""
    process = start_interruptible(
        [
            sys.executable,
            "-m",
            "evosoko.cli",
            *run_arguments(
                folder,
                "run.budget.generations=400",
                "output.checkpoint_every=5",
                "parallel.backend=serial",
            ),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        checkpoints = list(folder.glob("*/checkpoints/level-2.json"))
        if checkpoints:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=120)
    (run_dir,) = folder.iterdir()
    return run_dir


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    return _stopped_run(tmp_path_factory.mktemp("stopped"))


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_folder_is_refused_by_resume_with_one_error_line(tmp_path, stopped_run, damage):
    copy = tmp_path / "run"
    shutil.copytree(stopped_run, copy)
    DAMAGES[damage](copy)
    completed = cli("run", "--resume", copy, "--quiet")
    assert_clean(completed)
    assert completed.returncode == 2, completed.stdout
    assert len(completed.stderr.strip().splitlines()) == 1
    summary = copy / "summary.json"
    if summary.is_file():
        try:
            status = json.loads(summary.read_text()).get("status")
        except (ValueError, AttributeError):
            status = None
        assert status != "running"


def test_two_resumes_at_once_one_writes_the_other_is_refused(tmp_path, stopped_run):
    copy = tmp_path / "run"
    shutil.copytree(stopped_run, copy)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "evosoko.cli", "run", "--resume", str(copy), "--quiet"]
    first = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (copy / ".lock").read_text().strip():
        time.sleep(0.05)
    second = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    first_error = first.communicate(timeout=900)[1]
    assert first.returncode == 0, first_error
    assert second.returncode == 2 and "is writing this folder" in second.stderr
    rows = (copy / "metrics.csv").read_text().splitlines()[1:]
    keys = [tuple(row.split(",")[:3]) for row in rows]
    assert len(keys) == len(set(keys))  # no generation written twice


def test_kill_9_of_a_run_leaves_no_workers_and_a_resumable_folder(tmp_path):
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evosoko.cli",
            *run_arguments(tmp_path, "run.budget.generations=200", "parallel.backend=processes"),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list(tmp_path.glob("*/checkpoints/*.json")):
        time.sleep(0.1)
    workers = _children(process.pid)
    assert workers
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)
    (run_dir,) = tmp_path.iterdir()
    completed = cli("run", "--resume", run_dir, "--quiet")
    assert completed.returncode == 0, completed.stderr
    assert "stale lock" in completed.stderr


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ---- a real full disk ---------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs (root only; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_real_full_disk_fails_cleanly_and_the_run_resumes_when_space_is_freed(small_disk):
    completed = cli(
        *run_arguments(
            small_disk,
            "run.budget.generations=300",
            "output.checkpoint_every=5",
            "parallel.backend=serial",
        )
    )
    assert_clean(completed)
    assert completed.returncode in (1, 2), completed.stdout
    assert "No space left on device" in completed.stderr
    folders = list(small_disk.iterdir())
    if completed.returncode == 2:  # full before the folder could be set up: nothing left
        assert folders == []
        return
    (run_dir,) = folders
    assert f"evosoko run --resume {run_dir}" in completed.stderr
    subprocess.run(["mount", "-o", "remount,size=32m", str(small_disk)], check=True)
    resumed = cli("run", "--resume", run_dir, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "completed"
