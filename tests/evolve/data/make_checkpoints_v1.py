"""How ``checkpoints_v1.json`` was made: checkpoints of evosoko 0.1.0 at commit 24b76c3 (before
the engine used named fitness values and checkpoints of version 2), with what the uninterrupted
runs streamed after them. ``test_checkpoint_versions.py`` resumes them with today's engine.

Run with the old code on the path: ``PYTHONPATH=OLD_TREE python make_checkpoints_v1.py``. It
uses Microban 60 (David W. Skinner), whose rows the data file holds.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.sokoban.formats import read_levels, select_levels

HERE = Path(__file__).resolve().parent
CASES = {
    # one population with aging memory and the lost search (push genomes)
    "pushes-aging-lost": [
        "ga.encoding=pushes",
        "ga.population=24",
        "ga.offspring=24",
        "fitness.lost_search_nodes=300",
        "fitness.lost_search_age=2",
        "ga.stagnation_restart=4",
    ],
    # move genomes: the gap objective, push macros, tail regrowth
    "moves-gap": [
        "ga.encoding=moves",
        "ga.population=24",
        "ga.offspring=24",
        "ga.initial_length=30",
        "ga.mutation.push_macro=0.3",
        "ga.mutation.tail_genes=10",
    ],
    # NSGA-II
    "nsga2": ["ga.population=20", "ga.offspring=20", "ga.selection=nsga2"],
    # three islands
    "islands": [
        "ga.encoding=pushes",
        "ga.population=12",
        "ga.offspring=12",
        "ga.islands.count=3",
        "ga.islands.migration_every=3",
        "ga.islands.migration_lag=0",
    ],
}
COMMON = ["run.seed=7", "output.checkpoint_every=4", "parallel.backend=serial"]
HALF, WHOLE = 8, 16


def level():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = HERE.parents[3] / ".." / "shared" / "levels" / "microban.txt"
        return select_levels(read_levels(path), ["#60"])[0]


def main() -> None:
    chosen = level()
    cases = {}
    for name, overrides in CASES.items():
        base = COMMON + overrides
        config = load_config(None, base + [f"run.budget.generations={WHOLE}"])
        stats, checkpoints = [], []

        def keep(data, stats=stats, checkpoints=checkpoints):
            if data["generation"] >= HALF and not checkpoints:
                checkpoints.append(json.loads(json.dumps(data)))

        with make_evaluator(chosen, config.parallel, config.ga.encoding, config.fitness) as e:
            outcome = evolve_level(
                chosen, config, evaluator=e, on_generation=stats.append, on_checkpoint=keep
            )
        taken = checkpoints[0]["generation"]
        after = [s.as_dict() for s in stats if s.generation > taken]
        for record in after:
            record.pop("seconds")
            record.pop("cache_hits")
        cases[name] = {
            "overrides": base,
            "whole": WHOLE,
            "checkpoint": checkpoints[0],
            "after": after,
            "best_genes": outcome.best_genes,
            "best_lurd": outcome.best_lurd,
            "solved": outcome.solved,
        }
        print(name, "checkpoint at", taken, "then", len(after), "generations", file=sys.stderr)
    (HERE / "checkpoints_v1.json").write_text(
        json.dumps({"rows": chosen.rows(), "title": chosen.title, **cases})
    )


if __name__ == "__main__":
    main()
