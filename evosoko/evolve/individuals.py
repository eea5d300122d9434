"""DEAP individuals of the engine: gene lists with a fitness, an evaluation and an age.

A DEAP individual is a container with a ``fitness`` attribute (DEAP's "Creating Types"):
:class:`Genome` is that class written out, a ``list`` of genes whose ``fitness`` is a
``deap.base.Fitness``. Each set of named fitness values
(:class:`~evosoko.evolve.objectives.Objectives`) has its weights, so it gets its own subclass
(:func:`genome_class`, made once per process; plain classes of this module, nothing is added to
``deap.creator``). A copy (:meth:`Genome.clone`, the toolbox's ``clone``, and
``copy.deepcopy``, as DEAP's ``HallOfFame`` makes them) is made through the constructors and
copies the genes, the evaluation, the age and the fitness's weighted values as DEAP's
``Fitness.__deepcopy__`` does. Individuals pickle as their
weights, genes, evaluation and age; workers and checkpoints get plain genes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from deap import base

from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.objectives import WEIGHTS, Objectives

__all__ = ["Genome", "Individuals", "genome_class", "invalidate"]


class Genome(list):
    """A DEAP individual: genes, a ``fitness`` (``deap.base.Fitness`` with the class's
    ``fitness_class`` weights), the :class:`~evosoko.evolve.fitness.Evaluation` it was scored
    with (None until scored) and its ``age`` in generations."""

    fitness_class: type[base.Fitness]

    def __init__(
        self, genes: Iterable[int] = (), evaluation: Evaluation | None = None, age: int = 0
    ) -> None:
        super().__init__(genes)
        self.fitness = self.fitness_class()
        self.evaluation = evaluation
        self.age = age

    def clone(self) -> Genome:
        """An independent copy (the engine's ``toolbox.clone``; ``copy.deepcopy`` gives the
        same without the copy module's bookkeeping)."""
        twin = self.__class__(self, self.evaluation, self.age)  # the evaluation is immutable
        twin.fitness.wvalues = self.fitness.wvalues  # as deap.base.Fitness.__deepcopy__ does
        return twin

    def __deepcopy__(self, memo: dict) -> Genome:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        values = self.fitness.values if self.fitness.valid else ()
        return (
            _rebuilt,
            (self.fitness_class.weights, list(self), self.evaluation, self.age, values),
        )


_CLASSES: dict[tuple[float, ...], type[Genome]] = {}


def genome_class(weights: tuple[float, ...] = tuple(WEIGHTS.values())) -> type[Genome]:
    """The :class:`Genome` class whose fitness has ``weights`` (made on first use)."""
    if weights not in _CLASSES:
        fitness = type("Fitness", (base.Fitness,), {"weights": weights})
        _CLASSES[weights] = type("Genome", (Genome,), {"fitness_class": fitness})
    return _CLASSES[weights]


def _rebuilt(
    weights: tuple[float, ...],
    genes: list[int],
    evaluation: Evaluation | None,
    age: int,
    values: tuple[float, ...],
) -> Genome:
    """An individual from what :meth:`Genome.__reduce__` pickles."""
    individual = genome_class(weights)(genes, evaluation, age)
    if values:
        individual.fitness.values = values
    return individual


class Individuals:
    """Makes and scores individuals for one set of fitness values."""

    def __init__(self, objectives: Objectives) -> None:
        self.objectives = objectives
        self.genome = genome_class(objectives.weights)

    def new(self, genes: Iterable[int], evaluation: Evaluation | None = None, age: int = 0):
        """An individual of ``genes`` (scored when ``evaluation`` is given)."""
        individual = self.genome(genes, age=age)
        if evaluation is not None:
            self.assign(individual, evaluation)
        return individual

    def assign(self, individual: Genome, evaluation: Evaluation) -> None:
        """Give ``individual`` its evaluation and the fitness values made from it."""
        individual.evaluation = evaluation
        individual.fitness.values = self.objectives.values(evaluation)


def invalidate(individual: Genome) -> None:
    """Forget the fitness, evaluation and age of a changed individual."""
    if individual.fitness.valid:
        del individual.fitness.values
    individual.evaluation = None
    individual.age = 0
