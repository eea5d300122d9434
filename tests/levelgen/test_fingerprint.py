"""Short fixed-seed level runs, pinned: the levels, metrics and certificates of each must stay
byte for byte what the code wrote when the pins were taken (before the level loop moved onto
the GA's ask/tell protocol). A pin changes only when a run is meant to change; print the new
ones with ``PYTHONPATH=. python tests/levelgen/test_fingerprint.py``."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pytest

from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.run import start_levels_run

TIMES = ("seconds", "cpu_seconds")
"""Columns and certificate fields that hold measured time, left out of a fingerprint."""

RUNS: dict[str, dict[str, object]] = {
    "genome": {},
    "deepest": {"levels.start": "deepest", "levels.budget.generations": 4},
    "map-elites": {
        "levels.selection": "map_elites",
        "levels.max_boxes": 4,
        "levels.archive.bins": [3, 4],
        "levels.archive.ranges": [[1.5, 4.5], [5.0, 25.0]],
    },
    "nsga2": {
        "levels.selection": "nsga2",
        "levels.objective": [{"kind": "pushes"}, {"kind": "floor"}],
        "levels.budget.generations": 4,
    },
}

PINS = {
    "genome": "dca409fef440bf3c58bb03751ed392b5efbd5346fbaa253729a1cbf7fafa07f6",
    "deepest": "272b7c350fd42860820b90aae9b0a000c09a31fd59cc7befc878faeb6445c759",
    "map-elites": "8834160afb3560d0737d9215888efdc1b1ae82946de363b13150d4ad7e2fa9bc",
    "nsga2": "eecefdd6e2328b7f869fc6abbb64fffcc1aef20c93b82d626802497da4f6adca",
}


def run_config(parent: Path, changes: dict[str, object]) -> LevelsConfig:
    """A small 7x7 run of two boxes, six levels, six generations, serial, seed 0."""
    return LevelsConfig().set(
        {
            "levels.name": "pinned",
            "levels.size": "7x7",
            "levels.boxes": 2,
            "levels.population": 6,
            "levels.offspring": 6,
            "levels.budget.generations": 6,
            "output.dir": str(parent),
            "output.plots": False,
            **changes,
        }
    )


def fingerprint(folder: Path) -> str:
    """SHA-256 of a run folder's levels.xsb, metrics.csv and certificates.jsonl, times left
    out."""
    digest = hashlib.sha256()
    digest.update((folder / "levels.xsb").read_bytes())
    with open(folder / "metrics.csv", newline="") as stream:
        for row in csv.DictReader(stream):
            kept = {key: value for key, value in row.items() if key not in TIMES}
            digest.update(json.dumps(kept, sort_keys=True).encode())
    with open(folder / "certificates.jsonl") as stream:
        for line in stream:
            score = json.loads(line)
            score["certificate"].pop("cpu_seconds")
            digest.update(json.dumps(score, sort_keys=True).encode())
    return digest.hexdigest()


def run_fingerprint(name: str, parent: Path) -> str:
    """The fingerprint of run ``name`` of :data:`RUNS`, its folder made under ``parent``."""
    report = start_levels_run(run_config(parent, RUNS[name]))
    assert report.status == "completed"
    return fingerprint(report.run_dir)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_pinned_run_writes_what_it_wrote(tmp_path, name):
    assert run_fingerprint(name, tmp_path) == PINS[name]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as parent:
        for run in sorted(RUNS):
            print(f'    "{run}": "{run_fingerprint(run, Path(parent))}",', file=sys.stdout)
