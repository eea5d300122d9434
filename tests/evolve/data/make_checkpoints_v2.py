"""How ``checkpoints_v2.json`` was made: checkpoints of evosoko at commit 13c294a (engine
checkpoints of version 2, islands and populations of searches as plain dicts, before the
engine's state became a validated model), with what the uninterrupted runs streamed after them.
``test_checkpoint_versions.py`` resumes them with today's engine.

Run with the old code on the path: ``PYTHONPATH=OLD_TREE python make_checkpoints_v2.py``. It
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
    # one population with aging memory, the lost search and restarts (push genomes)
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
    # NSGA-II with a fitness term
    "nsga2-term": [
        "ga.population=20",
        "ga.offspring=20",
        "ga.selection=nsga2",
        'fitness.terms=[{kind="boxes_on_goals", after="distance"}]',
    ],
    # MAP-Elites: the archive is the population
    "map-elites": ["ga.encoding=pushes", "ga.selection=map_elites", "ga.offspring=20"],
    # the memetic step (push genomes)
    "memetic": [
        "ga.encoding=pushes",
        "ga.population=16",
        "ga.offspring=16",
        "hybrid.enabled=true",
        "hybrid.memetic_every=3",
        "hybrid.node_budget=20",
        "hybrid.memetic_node_budget=15",
    ],
    # three islands, lag 1
    "islands": [
        "ga.encoding=pushes",
        "ga.population=12",
        "ga.offspring=12",
        "ga.islands.count=3",
        "ga.islands.migration_every=3",
        "ga.islands.migration_lag=1",
    ],
    # a population of searches
    "searches": [
        "searches.enabled=true",
        "searches.population=4",
        "searches.elitism=1",
        "searches.first_nodes=20",
        "searches.max_nodes=80",
    ],
}
COMMON = [
    "run.seed=7",
    "output.checkpoint_every=4",
    "parallel.backend=serial",
    "run.budget.seconds=none",
]
HALF, WHOLE = 8, 16
SEARCH_HALF, SEARCH_WHOLE = 2, 4


def level():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = HERE.parents[3] / ".." / "shared" / "levels" / "microban.txt"
        return select_levels(read_levels(path), ["#60"])[0]


def main() -> None:
    chosen = level()
    cases = {}
    for name, overrides in CASES.items():
        half, whole = (SEARCH_HALF, SEARCH_WHOLE) if name == "searches" else (HALF, WHOLE)
        base = COMMON + overrides + (["output.checkpoint_every=2"] if name == "searches" else [])
        config = load_config(None, base + [f"run.budget.generations={whole}"])
        stats, checkpoints = [], []

        def keep(data, checkpoints=checkpoints, half=half):
            if data["generation"] >= half and not checkpoints:
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
            "whole": whole,
            "checkpoint": checkpoints[0],
            "after": after,
            "best_genes": outcome.best.genes,
            "best_lurd": outcome.best.lurd,
            "solved": outcome.solved,
        }
        print(name, "checkpoint at", taken, "then", len(after), "generations", file=sys.stderr)
    (HERE / "checkpoints_v2.json").write_text(
        json.dumps({"rows": chosen.rows(), "title": chosen.title, **cases})
    )


if __name__ == "__main__":
    main()
