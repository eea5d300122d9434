"""Small run, comparison and sweep folders for the report tests (made once per module)."""

from __future__ import annotations

import json
from pathlib import Path

from experiment_helpers import tiny_config

from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.run.runner import start_run
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
CASE3_BEST = "dRRRurruullDD"
"""A best prefix written into a run's summary as issue 16's GA run folders hold it."""

COMPARE = f"""
[compare]
name = "tiny"
levels = "{SEEDS}"
select = ["seed000-example", "seed000-case3"]
seeds = [1, 2]

[compare.budget]
seconds = 20
evaluations = 600
nodes = 20000

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-small"
set = ["ga.population=20", "ga.offspring=20"]

[[solver]]
kind = "search"
algorithm = "bfs"

[[solver]]
kind = "search"
algorithm = "push-astar"
"""

SWEEP = f"""
[sweep]
name = "mini"
method = "grid"
levels = "{SEEDS}"
select = ["seed000-example"]
seeds = [1]
set = ["ga.population=20", "ga.offspring=20"]

[sweep.budget]
evaluations = 300
seconds = 30

[parameters]
"ga.mutation.replace_rate" = [0.01, 0.1]
"ga.tournament_size" = [2, 4]
"""


def make_run(parent: Path) -> Path:
    """seed000-example (solved at once) and seed000-case3 (two generations: unsolved)."""
    config = tiny_config(
        parent, "run.budget.generations=2", 'run.select=["seed000-example", "seed000-case3"]'
    )
    report = start_run(config)
    assert [result.solved for result in report.results] == [True, False]
    return report.run_dir


def make_other_run(parent: Path, *titles: str) -> Path:
    """A run of the levels ``titles`` with other settings than :func:`make_run`'s: a
    population of 24, four generations."""
    select = ", ".join(f'"{title}"' for title in titles)
    config = tiny_config(
        parent, "run.budget.generations=4", f"run.select=[{select}]", "ga.population=24"
    )
    return start_run(config).run_dir


def give_best(run_dir: Path, lurd: str = CASE3_BEST, distance: int = 5) -> None:
    """Add issue 16's ``best`` to the unsolved level of ``run_dir``'s summary.json."""
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    for entry in summary["levels"]:
        if not entry["solved"]:
            entry["best"] = {
                "lurd": lurd,
                "distance": distance,
                "moves": len(lurd),
                "pushes": sum(c.isupper() for c in lurd),
                "solved": False,
            }
        else:
            entry["best"] = {
                "lurd": entry["solution"],
                "distance": 0,
                "moves": entry["moves"],
                "pushes": entry["pushes"],
                "solved": True,
            }
    path.write_text(json.dumps(summary))


def make_compare(parent: Path) -> Path:
    path = parent / "tiny.toml"
    path.write_text(COMPARE)
    run_compare(load_compare_config(path), parent / "compare", plots=False)
    return parent / "compare"


def make_sweep(parent: Path) -> Path:
    path = parent / "sweep.toml"
    path.write_text(SWEEP)
    run_sweep(load_sweep_config(path), parent / "sweep")
    return parent / "sweep"


def as_older_folder(run_dir: Path) -> None:
    """Make ``run_dir`` look like a run folder from before issue 16: no ``best`` in
    summary.json, and solutions.sok holding only the solved levels, with Solution notes."""
    from evosoko.sokoban.build import level_from_rows
    from evosoko.sokoban.formats import read_levels, write_levels

    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    for entry in summary["levels"]:
        entry.pop("best", None)
    path.write_text(json.dumps(summary))
    solved = [
        level_from_rows(level.rows(), title=level.title, notes=[(k, v)])
        for level in read_levels(run_dir / "solutions.sok")
        for k, v in level.notes
        if k == "Solution"
    ]
    write_levels(solved, run_dir / "solutions.sok")
