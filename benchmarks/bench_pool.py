"""Per-level cost of the process backend, as ``evosoko run`` pays it over a level set.

The GA of ``--config`` (default: the Microban preset, eight islands of 50 individuals) runs
``--generations`` generations on each of Microban levels 1..``--levels``, once with the
``serial`` backend and once with ``processes`` (``--workers`` workers), each in a fresh
process through ``evosoko.experiment.run.runner.start_run``, as the command line runs it (the numba
cache is warm: compile once before timing with a plain run). The work is identical in both
(same seeds, same generations; the outcomes are checked equal), so the difference is overhead
of the process backend: starting workers, handing them levels, shipping genomes.

Reported per backend: wall seconds of the whole run (start_run, pool start-up and level
set-up included), the seconds the levels report (what counts against their budgets), and the
per-level overhead of ``processes`` over ``serial``: ``(wall - serial wall) / levels``, and the
same for the reported seconds. Run it on two trees to compare them; before one pool served a
whole run, every level started a pool of its own, inside its budget:

    python benchmarks/bench_pool.py                          # this tree: 20 levels, 2 workers
    PYTHONPATH=/path/to/old/tree python benchmarks/bench_pool.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import machine, positive, report, require_shared_levels

RUN_ONE = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from evosoko.config import load_config
from evosoko.experiment.run.runner import start_run
config = load_config(sys.argv[1], json.loads(sys.argv[2]))
started = time.perf_counter()
report = start_run(config)
wall = time.perf_counter() - started
import evosoko
print(json.dumps({
    "evosoko": evosoko.__file__,
    "status": report.status,
    "wall": wall,
    "reported": sum(result.seconds for result in report.results),
    "outcomes": [[r.index, r.solved, r.generations, r.evaluations] for r in report.results],
}))
"""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_config = Path(__file__).resolve().parent.parent / "configs" / "microban.toml"
    parser.add_argument("--config", default=str(default_config), help="a run configuration")
    parser.add_argument("--levels", type=positive, default=20, help="Microban levels 1..N")
    parser.add_argument("--generations", type=positive, default=10, help="per level")
    parser.add_argument("--workers", type=positive, default=2, help="worker processes")
    return parser.parse_args()


def run(config: str, overrides: list[str], folder: str) -> dict:
    """One ``start_run`` in a fresh interpreter (the PYTHONPATH of this one), in ``folder``
    (so that the current directory does not decide which evosoko it imports)."""
    result = subprocess.run(
        [sys.executable, "-c", RUN_ONE, config, json.dumps(overrides)],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
    )
    if result.returncode != 0:
        print(result.stderr, file=sys.stderr)
        raise SystemExit(1)
    data = json.loads(result.stdout.strip().splitlines()[-1])
    if data["status"] != "completed":
        raise SystemExit(f"the run ended {data['status']}")
    return data


def main() -> None:
    args = parse_args()
    shared = require_shared_levels()
    with tempfile.TemporaryDirectory() as runs:
        base = [
            f"run.levels={shared / 'microban.txt'}",
            f"run.select={list(range(1, args.levels + 1))}",
            f"run.budget.generations={args.generations}",
            "run.budget.seconds=none",
            "run.budget.evaluations=none",
            f"parallel.workers={args.workers}",
            "output.checkpoint_every=0",
            "output.plots=false",
            f"output.dir={runs}",
        ]
        warm = [*base, "run.select=[1]", "parallel.backend=serial"]
        run(args.config, warm, runs)  # compile (or load) the kernels before timing
        results = {
            backend: run(args.config, [*base, f"parallel.backend={backend}"], runs)
            for backend in ("serial", "processes")
        }
    if results["serial"]["outcomes"] != results["processes"]["outcomes"]:
        raise SystemExit("the process backend changed the results")
    levels = args.levels
    serial = results["serial"]
    rows = []
    for backend, data in results.items():
        rows.append(
            {
                "backend": backend,
                "wall": round(data["wall"], 3),
                "reported": round(data["reported"], 3),
                "wall_overhead_per_level": round((data["wall"] - serial["wall"]) / levels, 3),
                "reported_overhead_per_level": round(
                    (data["reported"] - serial["reported"]) / levels, 3
                ),
            }
        )
    summary = {
        "benchmark": "pool",
        "evosoko": str(Path(serial["evosoko"]).resolve().parent.parent),
        "config": args.config,
        "levels": f"microban 1-{levels}",
        "generations": args.generations,
        "workers": args.workers,
        "machine": machine(),
        "backends": rows,
    }
    columns = [
        ("backend", "backend"),
        ("run wall s", "wall"),
        ("level seconds (sum)", "reported"),
        ("wall overhead per level (s)", "wall_overhead_per_level"),
        ("level-seconds overhead per level (s)", "reported_overhead_per_level"),
    ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
