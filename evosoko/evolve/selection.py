"""Parent selection and survivor selection, with an explicit random generator.

Individuals are DEAP individuals whose ``fitness`` compares lexicographically on weighted
values (solved, then distance, then length). Every function returns references into its input
list (the engine clones what it varies) and never uses the global ``random`` module.

Survivor selection eliminates duplicates when asked: individuals are ranked best first and
those whose ``state_hash`` repeats a better one's go to the back of the line, so they survive
only when there are not enough distinct ones.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from operator import attrgetter

from deap import tools

_fitness = attrgetter("fitness")


def sel_tournament(
    individuals: Sequence, count: int, rng: random.Random, size: int, key: Callable = _fitness
) -> list:
    """``count`` winners of tournaments among ``size`` individuals drawn with replacement
    (``key``: what is compared, the fitness by default; the first drawn wins a tie).

    Each individual's key is computed once, not once per draw; the draws are those of
    ``rng.choice(individuals)``."""
    keys = [key(individual) for individual in individuals]
    positions = range(len(individuals))
    winners = []
    for _ in range(count):
        best = rng.choice(positions)
        for _ in range(size - 1):
            drawn = rng.choice(positions)
            if keys[drawn] > keys[best]:
                best = drawn
        winners.append(individuals[best])
    return winners


def sel_sampled_tournament(
    individuals: Sequence, count: int, rng: random.Random, size: int, key: Callable = _fitness
) -> list:
    """``count`` winners of tournaments among ``size`` distinct individuals (drawn without
    replacement, ``rng.sample``; the first drawn wins a tie)."""
    winners = []
    for _ in range(count):
        contestants = rng.sample(list(individuals), min(size, len(individuals)))
        best = contestants[0]
        for contestant in contestants[1:]:
            if key(contestant) > key(best):
                best = contestant
        winners.append(best)
    return winners


def sel_random(individuals: Sequence, count: int, rng: random.Random) -> list:
    """``count`` individuals drawn uniformly with replacement."""
    return [rng.choice(individuals) for _ in range(count)]


def sel_best(individuals: Sequence, count: int, key: Callable = _fitness) -> list:
    """The ``count`` best individuals, best first (stable: earlier wins ties)."""
    return sorted(individuals, key=key, reverse=True)[:count]


def sel_truncation(
    individuals: Sequence, count: int, rng: random.Random, fraction: float, key: Callable = _fitness
) -> list:
    """``count`` parents drawn uniformly from the best ``fraction`` of the individuals."""
    kept = max(1, round(fraction * len(individuals)))
    return sel_random(sel_best(individuals, kept, key), count, rng)


def best_distinct(
    individuals: Sequence,
    count: int,
    identity: Callable[[object], int] | None,
    taken: set[int] | frozenset[int] = frozenset(),
    key: Callable = _fitness,
) -> list:
    """The ``count`` best individuals, preferring ``identity`` values that are distinct and not
    ``taken`` already (``identity`` None: plain truncation)."""
    ranked = sorted(individuals, key=key, reverse=True)
    if identity is None:
        return ranked[:count]
    seen: set[int] = set(taken)
    distinct: list = []
    repeats: list = []
    for individual in ranked:
        found = identity(individual)
        (repeats if found in seen else distinct).append(individual)
        seen.add(found)
    return (distinct + repeats)[:count]


def sel_nsga2(individuals: Sequence, count: int, identity: Callable[[object], int] | None) -> list:
    """NSGA-II survivors (DEAP's ``selNSGA2``: Pareto rank, then crowding distance).

    With ``identity``, duplicates are left out unless there are too few distinct individuals.
    """
    if identity is None:
        return tools.selNSGA2(list(individuals), count)
    seen: set[int] = set()
    distinct: list = []
    repeats: list = []
    for individual in individuals:
        key = identity(individual)
        (repeats if key in seen else distinct).append(individual)
        seen.add(key)
    if len(distinct) >= count:
        return tools.selNSGA2(distinct, count)
    tools.selNSGA2(distinct, len(distinct))  # assigns crowding distances
    return distinct + sel_best(repeats, count - len(distinct))


def sel_pareto_tournament(individuals: Sequence, count: int, rng: random.Random, size: int) -> list:
    """Tournaments won by the lower Pareto front, then the larger crowding distance.

    Ranks and crowding distances are computed here from the individuals alone, so the result
    does not depend on attributes left over from earlier selections.
    """
    quality: dict[int, tuple[int, float]] = {}
    for level, front in enumerate(tools.sortNondominated(list(individuals), len(individuals))):
        tools.emo.assignCrowdingDist(front)
        for individual in front:
            quality[id(individual)] = (-level, individual.fitness.crowding_dist)

    def key(individual) -> tuple[int, float]:
        return quality[id(individual)]

    return [max((rng.choice(individuals) for _ in range(size)), key=key) for _ in range(count)]
