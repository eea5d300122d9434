"""Survivor selection: which of the parents and children form the next population.

Both rules rank by ``key`` (larger is better: the fitness adjusted by aging, length pressure
and the lost search, see :mod:`evosoko.evolve.ranking`) and, with an ``identity`` (the position
a genome reaches), keep one individual per position while there are enough distinct ones.
NSGA-II survival is :func:`evosoko.evolve.selection.sel_nsga2`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evosoko.evolve.selection import best_distinct


def elites_and_children(
    population: Sequence,
    offspring: Sequence,
    count: int,
    kept: int,
    key: Callable,
    identity: Callable | None,
) -> list:
    """The best ``kept`` parents, then the best children at positions not kept already; when
    there are too few children, the best of the other parents fill the population."""
    elites = best_distinct(population, min(kept, count), identity, key=key)
    taken = {identity(individual) for individual in elites} if identity else set()
    children = best_distinct(offspring, count - len(elites), identity, taken, key=key)
    chosen = elites + children
    if len(chosen) < count:
        chosen_ids = {id(individual) for individual in chosen}
        others = [individual for individual in population if id(individual) not in chosen_ids]
        chosen += best_distinct(others, count - len(chosen), identity, key=key)
    return chosen


def best_of_all(
    population: Sequence, offspring: Sequence, count: int, key: Callable, identity: Callable | None
) -> list:
    """The best ``count`` of parents and children together (mu + lambda)."""
    return best_distinct(list(population) + list(offspring), count, identity, key=key)
