"""Scoring individuals: the fitness cache first, then evaluations asked for what is left.

Each genome is cut after the genes that matter (its solution; its best point with
``fitness.trim_to_best``; for move genomes, the stop before a deadlocking push), never below
``ga.min_length``; the cut genome is cached too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evosoko.evolve.fitness import Evaluation, FitnessCache
from evosoko.evolve.individuals import Individuals


@dataclass
class Asked:
    """Individuals to score: those that need it (``todo``), their genomes (``keys``), what the
    cache held for each (``found``), and the distinct genomes it did not (``genomes``, to
    evaluate)."""

    todo: list
    keys: list[tuple[int, ...]]
    found: list[Evaluation | None]
    genomes: list[tuple[int, ...]]


class Scorer:
    """Gives individuals without a valid fitness one; counts the evaluations."""

    def __init__(self, individuals: Individuals, cache_size: int, min_length: int) -> None:
        self.individuals = individuals
        self.cache = FitnessCache(cache_size)
        self.min_length = min_length

    def missing(self, individuals: Sequence) -> Asked:
        """What scoring ``individuals`` needs: the genomes the cache does not hold."""
        todo = [individual for individual in individuals if not individual.fitness.valid]
        keys = [tuple(individual) for individual in todo]
        missing: dict[tuple[int, ...], None] = {}
        found: list[Evaluation | None] = []
        for key in keys:
            cached = self.cache.get(key)
            found.append(cached)
            if cached is None:
                missing[key] = None
        return Asked(todo, keys, found, list(missing))

    def assign(self, asked: Asked, evaluations: Sequence[Evaluation]) -> int:
        """Score ``asked.todo`` with the cache and ``evaluations`` (of ``asked.genomes``, in
        order); returns how many were scored (cache hits included)."""
        new = dict(zip(asked.genomes, evaluations, strict=True))
        for key, evaluation in new.items():
            self.cache.put(key, evaluation)
        for individual, key, cached in zip(asked.todo, asked.keys, asked.found):
            scored = cached if cached is not None else new[key]
            if scored.keep < len(individual):  # genes that are never scored
                del individual[max(scored.keep, self.min_length) :]
                self.cache.put(tuple(individual), scored)
            self.individuals.assign(individual, scored)
        return len(asked.todo)
