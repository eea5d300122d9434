"""The built-in parts of the GA, registered under the names configurations use.

Each is a thin adapter from the registry's contract (parameters named like the configuration
keys that hold them; context values by name, see :mod:`evosoko.evolve.registry`) to the
operators of :mod:`evosoko.evolve.operators`, the selections of :mod:`evosoko.evolve.selection`
and the survivals of :mod:`evosoko.evolve.survival`.

- mutations: ``standard`` (the ``[ga.mutation]`` rates and block operations), ``one_gene``
  (one gene changed to another of its values: a population of searches mutates so);
- crossovers: ``messy``, ``block``, ``one_point``, ``two_point``, ``uniform``;
- parent selections: ``tournament``, ``truncation``, ``random``, ``pareto_tournament``,
  ``sampled_tournament`` (contestants drawn without replacement);
- survivals: ``generational``, ``truncation``, ``plus``, ``nsga2``, ``map_elites`` (an
  archive of one elite per FESS cell, :mod:`evosoko.evolve.archive`);
- fitness terms: ``boxes_on_goals`` (more is better), ``box_regions`` (fewer is better: the
  areas of free floor the boxes cut the level into).

``ga.selection`` names a scheme, a parent selection with a survival (:data:`SCHEMES`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evosoko.evolve import archive, operators, selection, survival
from evosoko.evolve.registry import (
    Registry,
    crossovers,
    fitness_terms,
    mutations,
    parent_selections,
    survivals,
)

SCHEMES = {
    "tournament": ("tournament", "generational"),
    "truncation": ("truncation", "truncation"),
    "mu_plus_lambda": ("random", "plus"),
    "mu_comma_lambda": ("random", "generational"),
    "nsga2": ("pareto_tournament", "nsga2"),
    "map_elites": ("random", "map_elites"),
}
"""``ga.selection`` -> (parent selection, survival)."""


def _builtin(registry: Registry, name: str, **options: Any) -> Callable:
    def decorate(function: Callable) -> Callable:
        registry._entries[name] = registry.make(function, name, builtin=True, **options)
        return function

    return decorate


# ---- mutation ---------------------------------------------------------------------------------
@dataclass(slots=True)
class _MutationRates:
    """The parameters of the standard mutation, as :func:`operators.mutate` reads them."""

    replace_rate: float
    insert_rate: float
    delete_rate: float
    duplication: float
    inversion: float
    block_size: int
    tail_regrowth: float
    tail_genes: int | None


@_builtin(mutations, "standard")
def standard_mutation(
    genome: operators.Genome,
    rng: random.Random,
    gene_range: int,
    min_length: int,
    max_length: int,
    initial_length: int,
    replace_rate: float,
    insert_rate: float,
    delete_rate: float,
    duplication: float,
    inversion: float,
    block_size: int,
    tail_regrowth: float,
    tail_genes: int | None,
) -> tuple[operators.Genome]:
    """Tail regrowth, block duplication and inversion (each with its chance), then per-gene
    deletion, insertion and replacement (:func:`evosoko.evolve.operators.mutate`)."""
    rates = _MutationRates(
        replace_rate=replace_rate,
        insert_rate=insert_rate,
        delete_rate=delete_rate,
        duplication=duplication,
        inversion=inversion,
        block_size=block_size,
        tail_regrowth=tail_regrowth,
        tail_genes=tail_genes,
    )
    tail_length = tail_genes or initial_length
    return operators.mutate(genome, rng, rates, gene_range, min_length, max_length, tail_length)


@_builtin(mutations, "one_gene")
def one_gene_mutation(genome: operators.Genome, rng: random.Random, gene_choices):
    """One gene, at a uniform position, changed to another of its values."""
    return operators.mut_one_gene(genome, rng, gene_choices)


# ---- crossover --------------------------------------------------------------------------------
@_builtin(crossovers, "messy")
def messy_crossover(first, second, rng: random.Random, min_length: int, max_length: int):
    """One cut point chosen separately in each parent; tails swapped (lengths change)."""
    return operators.cx_messy(first, second, rng, min_length, max_length)


@_builtin(crossovers, "block")
def block_crossover(first, second, rng: random.Random, block_size: int):
    """Each block of ``block_size`` genes swapped with probability 1/2 (the source GA)."""
    return operators.cx_block(first, second, rng, block_size)


@_builtin(crossovers, "one_point")
def one_point_crossover(first, second, rng: random.Random):
    """The tails after one cut point, the same in both parents, swapped."""
    return operators.cx_one_point(first, second, rng)


@_builtin(crossovers, "two_point")
def two_point_crossover(first, second, rng: random.Random):
    """The genes between two cut points, the same in both parents, swapped."""
    return operators.cx_two_point(first, second, rng)


@_builtin(crossovers, "uniform")
def uniform_crossover(first, second, rng: random.Random, swap: float = 0.5):
    """Each position both parents have exchanged with probability ``swap``."""
    return operators.cx_uniform(first, second, rng, swap)


# ---- parent selection -------------------------------------------------------------------------
@_builtin(parent_selections, "tournament")
def tournament(individuals: Sequence, count: int, rng: random.Random, key, tournament_size: int):
    """Winners of tournaments among ``ga.tournament_size`` individuals."""
    return selection.sel_tournament(individuals, count, rng, tournament_size, key)


@_builtin(parent_selections, "truncation")
def truncation(individuals: Sequence, count: int, rng: random.Random, key, truncation: float):
    """Drawn uniformly from the best ``ga.truncation`` fraction."""
    return selection.sel_truncation(individuals, count, rng, truncation, key)


@_builtin(parent_selections, "random")
def uniform(individuals: Sequence, count: int, rng: random.Random):
    """Drawn uniformly with replacement."""
    return selection.sel_random(individuals, count, rng)


@_builtin(parent_selections, "sampled_tournament")
def sampled_tournament(
    individuals: Sequence, count: int, rng: random.Random, key, tournament_size: int
):
    """Winners of tournaments among ``tournament_size`` distinct individuals."""
    return selection.sel_sampled_tournament(individuals, count, rng, tournament_size, key)


@_builtin(parent_selections, "pareto_tournament")
def pareto_tournament(individuals: Sequence, count: int, rng: random.Random, tournament_size: int):
    """Tournaments won by the lower Pareto front, then the larger crowding distance."""
    return selection.sel_pareto_tournament(individuals, count, rng, tournament_size)


# ---- survival ---------------------------------------------------------------------------------
@_builtin(survivals, "generational")
def generational(population, offspring, count: int, key, identity, elitism: int):
    """The best ``ga.elitism`` parents, then the best children (see
    :func:`evosoko.evolve.survival.elites_and_children`)."""
    return survival.elites_and_children(population, offspring, count, elitism, key, identity)


@_builtin(survivals, "truncation")
def truncation_survival(
    population, offspring, count: int, key, identity, elitism: int, truncation: float
):
    """The best ``ga.truncation`` fraction of the parents (at least ``ga.elitism``), then the
    best children (the source GA)."""
    kept = max(elitism, round(truncation * count))
    return survival.elites_and_children(population, offspring, count, kept, key, identity)


@_builtin(survivals, "plus")
def plus(population, offspring, count: int, key, identity):
    """The best of parents and children together (mu + lambda)."""
    return survival.best_of_all(population, offspring, count, key, identity)


@_builtin(survivals, "nsga2", multi_objective=True)
def nsga2(population, offspring, count: int, identity):
    """NSGA-II: Pareto rank, then crowding distance, of parents and children together."""
    return selection.sel_nsga2(list(population) + list(offspring), count, identity)


@_builtin(survivals, "map_elites", archive=True)
def map_elites(population, offspring, count: int):
    """MAP-Elites: one elite per FESS feature cell of parents and children together, however
    many cells are filled (``count`` does not bound it; see :mod:`evosoko.evolve.archive`)."""
    return archive.archive_elites(population, offspring)


# ---- fitness terms ----------------------------------------------------------------------------
@_builtin(fitness_terms, "boxes_on_goals", maximize=True)
def boxes_on_goals(level, state) -> int:
    """Boxes standing on goals."""
    return sum(1 for box in state.boxes if level.goals[box])


@_builtin(fitness_terms, "box_regions")
def box_regions(level, state) -> int:
    """Separate areas of free floor (not walls, not boxes) the boxes cut the level into: the
    connectivity feature of FESS (fewer regions, fewer blocked corridors)."""
    import numpy as np
    from scipy import ndimage

    free = np.array(level.floor, dtype=bool)
    free[list(state.boxes)] = False
    _, regions = ndimage.label(free.reshape(level.height, level.width))
    return int(regions)
