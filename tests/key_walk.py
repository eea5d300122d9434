"""The walk of ``test_every_key_matters.py``: a short run, a different value for a key, and
what a run is made of (so that two runs can be told apart).

A run is evolved on one starter level that the GA does not solve in its budget, so every
generation counts; its *trace* is everything the run decides: the history (wall-clock columns
left out), the best genome and the hall of fame.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.sokoban.formats import read_levels, select_levels

ROOT = Path(__file__).resolve().parents[1]
LEVEL = "hard-12"
"""A starter level the presets do not solve in :data:`EVALUATIONS` evaluations, where
positions deadlock, the lost search proves some lost and boxes fill goals out of the
packing order (so those keys show)."""
EVALUATIONS = 600
SMALL = {"ga.population": 24, "ga.offspring": 24, "parallel.backend": "serial", "run.seed": 1}
"""Settings of every walked run: a small population, evaluated in this process, and a seed
under which the lost search proves positions of :data:`LEVEL` lost."""

CLOCK_COLUMNS = ("seconds", "cache_hits")


def walk_level():
    """The level every walked run evolves on."""
    return select_levels(read_levels(ROOT / "levels" / "starter.xsb"), [LEVEL])[0]


def trace(level, config: Config) -> tuple:
    """What a run decided: its history without the clock, best genome and hall of fame."""
    budget = Budget(evaluations=EVALUATIONS, generations=40)
    if config.searches.enabled:
        budget = Budget(generations=2)
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        result = evolve_level(level, config, evaluator=evaluator, budget=budget)
    history = tuple(
        tuple(v for k, v in stats.as_dict().items() if k not in CLOCK_COLUMNS)
        for stats in result.history
    )
    best = tuple(result.best.genes) if result.best else ()
    fame = tuple((tuple(e.genes), e.distance, e.length) for e in result.hall_of_fame)
    return result.status, history, best, fame, result.cost


def small(config: Config) -> Config:
    """``config`` with the walk's small population on this process."""
    if config.searches.enabled:
        return config.set(
            {
                "parallel.backend": "serial",
                "searches.population": 4,
                "searches.first_nodes": 300,
                "run.seed": 1,
            }
        )
    changes: dict[str, Any] = dict(SMALL)
    if config.ga.elitism >= 24:
        changes["ga.elitism"] = 2
    if config.ga.islands.count > 2:  # two islands share the budget in enough generations
        changes["ga.islands.count"] = 2
    return config.set(changes)


def value_at(config: BaseModel, key: tuple[str, ...]) -> Any:
    """The value of a dotted ``key`` (a plugin's parameter included)."""
    node: Any = config
    for name in key[:-1]:
        node = getattr(node, name)
    if key[-1] in type(node).model_fields:
        return getattr(node, key[-1])
    return node.params[key[-1]]


def field_of(config: BaseModel, key: tuple[str, ...]):
    """The pydantic field of ``key`` (None for a plugin's parameter)."""
    node: Any = config
    for name in key[:-1]:
        node = getattr(node, name)
    return type(node).model_fields.get(key[-1])


SPECIAL: dict[str, list[Any]] = {
    "ga.max_length": [25],
    "ga.min_length": [5],
    "ga.initial_length": [8],
    "ga.stagnation_restart": [2],
    "ga.age_patience": [2, "none"],
    "ga.hall_of_fame": [3],
    "ga.grow_while_under": [60],
    "ga.grow_by": [30],
    "ga.islands.count": [3],
    "ga.islands.migration_every": [2],
    "ga.islands.migration_lag": [0, 2],
    "ga.islands.migrants": [6],
    "fitness.lost_search_nodes": [2000, 0],
    "fitness.lost_search_age": [0, 8],
    "fitness.learned_lost": ["penalty", "tiebreak"],
    "fitness.learned_lost_weight": [20.0],
    "fitness.learned_model": ["another-model.npz"],  # unread unless learned_lost is on
    "parallel.address": ["tcp://127.0.0.1:8786"],  # read by the dask backend only
    "hybrid.algorithm": ["push-greedy"],
    "ga.mutation.kind": ["plugin_parts:swap_genes"],  # tests/evolve/plugin_parts.py
    "fitness.plan_weight": [5],
    "hybrid.node_budget": [50],
    "hybrid.memetic_every": [1, "none"],
    "hybrid.memetic_node_budget": [30],
    "hybrid.fraction": [0.9],
    "searches.first_nodes": [120],
    "searches.max_nodes": [150],
    "searches.growth": [1.0],
    "searches.population": [6],
    "searches.elitism": [0],
    "searches.tournament_size": [3],
    "searches.crossover": [1.0],
    "ga.crossover.kind": ["block", "one_point", "two_point", "messy"],
    "ga.parents.kind": ["truncation", "tournament", "random"],
    "ga.survival.kind": ["plus", "generational", "truncation"],
    "fitness.terms": [[{"kind": "box_regions", "after": "distance"}]],
    "run.seed": [7],
    "ga.survival.elitism": [20],  # truncation survival keeps at least half the parents anyway
    "ga.elitism": [20, 5],
}
"""Values tried first for keys whose change shows only in some range (e.g. a stagnation
restart within the walk's few generations)."""


CONTEXT: dict[str, dict[str, Any]] = {
    "ga.age_memory": {"ga.age_patience": 2},
    "ga.age_visits": {"ga.age_patience": 2},
}
"""Settings under which a key's change shows within the walk's budget (applied to both runs
that are compared): aging remembered or by visits needs positions old within a few
generations."""


def other_values(config: Config, key: tuple[str, ...]) -> list[Any]:
    """Values for ``key`` other than its value in ``config``, the likeliest to matter first."""
    dotted = ".".join(key)
    value = value_at(config, key)
    field = field_of(config, key)
    choices: list[Any] = list(SPECIAL.get(dotted, []))
    annotation = field.annotation if field is not None else type(value)
    literal = [a for a in typing.get_args(annotation) if isinstance(a, str)]
    if typing.get_origin(annotation) is typing.Literal:
        choices += list(typing.get_args(annotation))
    elif isinstance(value, bool):
        choices.append(not value)
    elif isinstance(value, int):
        choices += [value // 2 if value >= 8 else value * 2 + 1, value + 1]
    elif isinstance(value, float):
        choices += [0.9 if value < 0.5 else 0.1, value * 2 + 1, value / 2]
    elif value is None:
        choices += [2, 0.5, True]
    elif literal:
        choices += literal
    return [c for c in choices if c != value and not (c == "none" and value is None)]
