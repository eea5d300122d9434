"""A first population's genomes, and the statistics of a population after a generation."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import numpy as np

from evosoko.config import GAConfig
from evosoko.evolve.genomes import random_genes
from evosoko.evolve.selection import sel_best
from evosoko.result import GenerationStats


def initial_genomes(
    rng: random.Random,
    ga: GAConfig,
    prefixes: Sequence[Sequence[int]] = (),
    fraction: float = 0.0,
) -> Iterator[list[int]]:
    """``ga.population`` random genomes of ``ga.initial_length`` genes, drawn one by one as they
    are taken; with ``prefixes`` (hybrid seeds), ``fraction`` of them (at least one per prefix)
    start with a prefix, taken in turn: the first copy of each is the prefix alone (so that it
    is scored where the search left it, also when genomes are scored at their end), the others
    are followed by random genes."""
    seeded = 0
    if prefixes:
        seeded = min(max(len(prefixes), round(fraction * ga.population)), ga.population)
    for index in range(seeded):
        prefix = list(prefixes[index % len(prefixes)])[: ga.max_length]
        tail_length = min(ga.initial_length, ga.max_length - len(prefix))
        if index < len(prefixes) and len(prefix) >= ga.min_length:
            tail_length = 0
        yield prefix + random_genes(rng, tail_length, ga.encoding)
    for _ in range(ga.population - seeded):
        yield random_genes(rng, ga.initial_length, ga.encoding)


def population_stats(
    population: Sequence,
    distance_at: int,
    *,
    generation: int,
    evaluations: int,
    solved: bool,
    restarts: int,
    cache_hits: int,
    seconds: float,
) -> GenerationStats:
    """The statistics of ``population`` (``distance_at``: where the distance is among the
    fitness values)."""
    distances = [individual.fitness.values[distance_at] for individual in population]
    current = sel_best(population, 1)[0]
    return GenerationStats(
        generation=generation,
        evaluations=evaluations,
        best_distance=float(np.min(distances)),
        mean_distance=float(np.mean(distances)),
        std_distance=float(np.std(distances)),
        best_length=len(current),
        solved=solved,
        diversity=len({individual.evaluation.state_hash for individual in population})
        / len(population),
        restarts=restarts,
        cache_hits=cache_hits,
        seconds=seconds,
    )
