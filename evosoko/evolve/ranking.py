"""How selection ranks individuals: the fitness, adjusted by aging, length pressure and the lost
search; and how ages change around survival.

:func:`rank_key` makes the key that parent selection and survival compare (larger is better):
the weighted fitness values with the ``distance`` value worsened by one per ``ga.age_patience``
generations of the individual's age (aging), by ``ga.length_pressure`` per gene of its scored
length and, for a position the lost search proved lost, by more than any distance. With none
of them it is the plain fitness. :class:`Aging` keeps the ages (see
:mod:`evosoko.evolve.aging` for aging with memory).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evosoko.config import GAConfig
from evosoko.evolve.aging import AgeMemory
from evosoko.evolve.objectives import Objectives
from evosoko.sokoban.level import UNREACHABLE


def _fitness(individual):
    return individual.fitness


def rank_key(
    objectives: Objectives, patience: int | None, pressure: float, lost: set[int] | None = None
) -> Callable:
    """The ranking key (see the module docstring); ``lost``: positions proven lost (None: the
    lost search is off)."""
    if not patience and not pressure and lost is None:
        return _fitness
    at = objectives.index("distance")

    def rank(individual) -> tuple[float, ...]:
        values = list(individual.fitness.wvalues)
        distance = values[at]
        if patience:
            distance -= individual.age // patience
        if pressure:
            distance -= pressure * individual.evaluation.length
        if lost and individual.evaluation.state_hash in lost:
            distance -= UNREACHABLE
        values[at] = distance
        return tuple(values)

    return rank


def share_ages(individuals: Sequence) -> None:
    """Give every individual the largest age among those that reach the same position, so a
    child does not make an old position young again."""
    oldest: dict[int, int] = {}
    for individual in individuals:
        key = individual.evaluation.state_hash
        oldest[key] = max(oldest.get(key, 0), individual.age)
    for individual in individuals:
        individual.age = oldest[individual.evaluation.state_hash]


class Aging:
    """The ages of individuals: remembered per position (``ga.age_memory``), shared between
    individuals at one position (plain aging) and advanced for every survivor; nothing when
    survival is multi-objective (``active`` False)."""

    def __init__(self, ga: GAConfig, active: bool = True) -> None:
        self.ga = ga
        self.active = active
        self.memory = AgeMemory() if ga.age_patience and ga.age_memory else None

    def started(self, population: Sequence) -> None:
        """A new population takes the ages its positions have in memory."""
        if self.memory is not None:
            self.memory.assign(population)

    def before_survival(self, population: Sequence, offspring: Sequence) -> None:
        """Children take their positions' ages before they compete."""
        if not self.active:
            return
        if self.memory is not None:
            if self.ga.age_visits:
                self.memory.visit(offspring)
            self.memory.assign(offspring)
        elif self.ga.age_patience:
            share_ages([*population, *offspring])

    def after_survival(self, survivors: Sequence) -> None:
        """Every survivor is one generation older."""
        if not self.active:
            return
        if self.memory is not None:
            self.memory.advance(survivors)
        else:
            for individual in survivors:
                individual.age += 1
