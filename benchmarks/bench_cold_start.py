"""The first hour on a fresh machine: ``evosoko run configs/default.toml`` and ``evosoko solve``
with an empty numba cache (every kernel compiled), then again with the cache they filled.

Each command runs in a fresh interpreter (``python -m evosoko.cli``, so the evosoko on
PYTHONPATH is the one timed) with ``NUMBA_CACHE_DIR`` pointing at a new folder. Reported per
command and state (cold, warm): the wall time of the whole command, and for the run the level's
own seconds (which must exclude compiling) and whether it solved ``seed000-case3``; for
``solve`` the search's seconds.

    python benchmarks/bench_cold_start.py
    PYTHONPATH=/path/to/old/tree python benchmarks/bench_cold_start.py   # the same for another
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, report

ROOT = Path(__file__).resolve().parent.parent


def timed(args: list[str], cache: str, cwd: str) -> tuple[float, str]:
    """Wall seconds and stdout of ``python -m evosoko.cli ARGS`` with the numba cache ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    wall = time.perf_counter() - started
    if result.returncode not in (0, 1):
        print(result.stderr, file=sys.stderr)
        raise SystemExit(1)
    return wall, result.stdout


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as work:
        cache = str(Path(work) / "numba-cache")
        run = [
            "run",
            str(ROOT / "configs" / "default.toml"),
            "--json",
            "--set",
            f"output.dir={Path(work) / 'runs'}",
        ]
        solve = ["solve", str(ROOT / "levels" / "seeds.xsb"), "-l", "seed000-case3", "--json"]
        for state in ("cold", "warm"):
            wall, out = timed(run, cache, work)
            (level,) = json.loads(out)["levels"]
            rows.append(
                {
                    "command": "run configs/default.toml",
                    "cache": state,
                    "wall": round(wall, 2),
                    "seconds": level["seconds"],
                    "solved": level["solved"],
                }
            )
        for state in ("cold", "warm"):
            if state == "cold":
                cache = str(Path(work) / "numba-cache-solve")
            wall, out = timed(solve, cache, work)
            record = json.loads(out.splitlines()[0])
            rows.append(
                {
                    "command": "solve seeds.xsb -l seed000-case3",
                    "cache": state,
                    "wall": round(wall, 2),
                    "seconds": round(record["seconds"], 3),
                    "solved": record["status"] == "solved",
                }
            )
    summary = {"benchmark": "cold_start", "machine": machine(), "os_load": os.getloadavg()}
    summary["rows"] = rows
    columns = [
        ("command", "command"),
        ("numba cache", "cache"),
        ("wall s", "wall"),
        ("level / search s", "seconds"),
        ("solved", "solved"),
    ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
