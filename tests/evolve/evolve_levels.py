"""Small levels for the evolve tests, built in code (no files needed)."""

from __future__ import annotations

import warnings

from evosoko.sokoban.build import level_from_rows

SMALL_ROWS = {
    # Microban 1 (David W. Skinner)
    "microban-1": [
        "####",
        "# .#",
        "#  ###",
        "#*@  #",
        "#  $ #",
        "#  ###",
        "####",
    ],
    "corridor": [
        "#######",
        "#@ $ .#",
        "#######",
    ],
    "two-boxes": [
        "#######",
        "#     #",
        "# $$  #",
        "#@ ..##",
        "#######",
    ],
}


SMALL_ISLANDS = [
    "ga.encoding=pushes",
    "ga.population=16",
    "ga.offspring=16",
    "ga.islands.count=3",
    "ga.islands.migration_every=3",
    "ga.islands.migrants=2",
    "run.seed=4",
    "parallel.batch_size=8",
]
"""Three small islands of push genomes (the island tests run them on Microban 65)."""


def small_level(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(SMALL_ROWS[name], title=name)


def run(level, overrides, **kwargs):
    """Evolve ``level`` with the default configuration and ``overrides``; (outcome, stats).
    A run with a generation or evaluation limit has no wall-clock limit unless ``overrides``
    set one: the default 60 s can end it early on a loaded machine that compiles kernels
    meanwhile."""
    from evosoko.config import load_config
    from evosoko.evolve import evolve_level, make_evaluator

    counted = any(
        o.startswith(("run.budget.generations", "run.budget.evaluations")) for o in overrides
    )
    config = load_config(None, (["run.budget.seconds=none"] if counted else []) + list(overrides))
    stats = []
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        outcome = evolve_level(
            level, config, evaluator=evaluator, on_generation=stats.append, **kwargs
        )
    return outcome, stats


def comparable(stats):
    """Generation statistics without the fields that are not deterministic."""
    return [
        {k: v for k, v in s.as_dict().items() if k not in ("seconds", "cache_hits")} for s in stats
    ]
