"""Scoring individuals: the fitness cache first, then the evaluator for what is left.

Each genome is cut after the genes that matter (its solution; its best point with
``fitness.trim_to_best``; for move genomes, the stop before a deadlocking push), never below
``ga.min_length``; the cut genome is cached too.
"""

from __future__ import annotations

from collections.abc import Sequence

from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.fitness import Evaluation, FitnessCache
from evosoko.evolve.individuals import Individuals


class Scorer:
    """Gives individuals without a valid fitness one; counts the evaluations."""

    def __init__(
        self, evaluator: Evaluator, individuals: Individuals, cache_size: int, min_length: int
    ) -> None:
        self.evaluator = evaluator
        self.individuals = individuals
        self.cache = FitnessCache(cache_size)
        self.min_length = min_length

    def __call__(self, individuals: Sequence) -> int:
        """Score every individual that needs it; returns how many did (cache hits included)."""
        todo = [individual for individual in individuals if not individual.fitness.valid]
        keys = [tuple(individual) for individual in todo]
        missing: dict[tuple[int, ...], Evaluation | None] = {}
        found: list[Evaluation | None] = []
        for key in keys:
            cached = self.cache.get(key)
            found.append(cached)
            if cached is None:
                missing[key] = None
        if missing:
            genomes = list(missing)
            for key, evaluation in zip(genomes, self.evaluator.map(genomes)):
                missing[key] = evaluation
                self.cache.put(key, evaluation)
        for individual, key, cached in zip(todo, keys, found):
            scored = cached if cached is not None else missing[key]
            assert scored is not None
            if scored.keep < len(individual):  # genes that are never scored
                del individual[max(scored.keep, self.min_length) :]
                self.cache.put(tuple(individual), scored)
            self.individuals.assign(individual, scored)
        return len(todo)
