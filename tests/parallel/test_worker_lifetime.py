"""Workers end when their parent dies (issue 17: after kill -9 of a run's parent its worker
processes lived on, orphaned, 160 MB each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PARENT = textwrap.dedent(
    """
    import sys, time
    from evosoko.config import FitnessConfig, ParallelConfig
    from evosoko.evolve.evaluation import make_evaluator
    from evosoko.sokoban.build import level_from_rows

    level = level_from_rows(["#######", "#@ $ .#", "#######"])
    parallel = ParallelConfig(backend="processes", workers=2)
    with make_evaluator(level, parallel, "moves", FitnessConfig()) as evaluator:
        evaluator.map([[3, 3]] * 8)
        print(" ".join(str(pid) for pid in evaluator.pool._executor._processes), flush=True)
        time.sleep(600)
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_end_when_their_parent_is_killed():
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(map(_alive, workers))
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_alive, workers))
    finally:
        parent.kill()
        for pid in workers if "workers" in locals() else []:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_watchdog_alone_ends_an_orphan(tmp_path):
    """Without the kernel's signal (other systems), the watchdog thread notices the new parent."""
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from evosoko.parallel import worker_lifetime
        worker_lifetime._kernel_signal_on_parent_death = lambda: None
        if os.fork() == 0:  # the worker: its parent is the middle process
            worker_lifetime.exit_with_parent(poll_seconds=0.05)
            open({str(tmp_path / "worker.pid")!r}, "w").write(str(os.getpid()))
            time.sleep(600)
            os._exit(0)
        time.sleep(600)
        """
    )
    middle = subprocess.Popen(
        [sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    pid_file = tmp_path / "worker.pid"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    worker = int(pid_file.read_text())
    middle.kill()
    middle.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive
