"""DEAP individuals of the engine: gene lists with a fitness, an evaluation and an age.

DEAP fitness classes carry their weights, so each set of named fitness values
(:class:`~evosoko.evolve.objectives.Objectives`) gets its own pair of ``creator`` classes, made
once per process (the default values keep the names ``EvosokoFitness`` / ``EvosokoGenome``).
Individuals never leave the process that made them: workers and checkpoints get plain genes.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Sequence

from deap import base, creator, tools

from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.objectives import WEIGHTS, Objectives

_DEFAULT_WEIGHTS = tuple(WEIGHTS.values())


def genome_class(weights: tuple[float, ...]) -> type:
    """The DEAP individual class whose fitness has ``weights`` (made on first use)."""
    suffix = ""
    if weights != _DEFAULT_WEIGHTS:
        suffix = "_" + hashlib.sha1(repr(weights).encode()).hexdigest()[:10]
    fitness, genome = f"EvosokoFitness{suffix}", f"EvosokoGenome{suffix}"
    if not hasattr(creator, fitness):
        creator.create(fitness, base.Fitness, weights=weights)
    if not hasattr(creator, genome):
        creator.create(genome, list, fitness=getattr(creator, fitness), evaluation=None, age=0)
    return getattr(creator, genome)


class Individuals:
    """Makes, scores, copies and resets individuals for one set of fitness values."""

    def __init__(self, objectives: Objectives) -> None:
        self.objectives = objectives
        self.genome = genome_class(objectives.weights)
        self._fitness = type(self.genome().fitness)

    def new(self, genes: Sequence[int], evaluation: Evaluation | None = None, age: int = 0):
        """An individual of ``genes`` (scored when ``evaluation`` is given)."""
        individual = self.genome(genes)
        individual.age = age
        if evaluation is not None:
            self.assign(individual, evaluation)
        return individual

    def assign(self, individual, evaluation: Evaluation) -> None:
        """Give ``individual`` its evaluation and the fitness values made from it."""
        individual.evaluation = evaluation
        individual.fitness.values = self.objectives.values(evaluation)

    def clone(self, individual):
        """A fast copy: genes, fitness, evaluation and age (no deepcopy). It bypasses DEAP's
        constructors, whose checks cost three times the copy: a fitness is its weighted values
        (an immutable tuple, empty when invalid), shared until either copy is scored anew."""
        twin = list.__new__(self.genome)
        list.extend(twin, individual)
        fitness = object.__new__(self._fitness)
        fitness.wvalues = individual.fitness.wvalues
        twin.fitness = fitness
        twin.evaluation = individual.evaluation
        twin.age = individual.age
        return twin


def invalidate(individual) -> None:
    """Forget the fitness, evaluation and age of a changed individual."""
    if individual.fitness.valid:
        del individual.fitness.values
    individual.evaluation = None
    individual.age = 0


class HallOfFame(tools.HallOfFame):
    """DEAP's hall of fame, keeping copies made by :meth:`Individuals.clone` rather than
    ``deepcopy`` (which took a hundred times longer per member)."""

    def __init__(self, maxsize: int, individuals: Individuals) -> None:
        super().__init__(maxsize)
        self._clone = individuals.clone

    def insert(self, item) -> None:
        """Insert a copy of ``item`` in fitness order (after equal ones), as DEAP does."""
        item = self._clone(item)
        position = bisect_right(self.keys, item.fitness)
        self.items.insert(len(self) - position, item)
        self.keys.insert(position, item.fitness)
