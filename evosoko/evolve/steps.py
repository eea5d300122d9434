"""What the engine does after survival, in this order, when the configuration asks for it.

- :class:`LostSearch` (``fitness.lost_search_nodes``, push genomes): the best position of the
  population, once it has stayed ``fitness.lost_search_age`` generations, is searched; when
  proven lost it ranks behind every other (:mod:`evosoko.evolve.lost_search`).
- :class:`MemeticStep` (``hybrid.memetic_every``): a bounded search extends the best genome; the
  result replaces it when its fitness is better.
- :class:`StagnationRestart` (``ga.stagnation_restart``): after that many generations without a
  better best individual the population is re-seeded at random (the hall of fame is kept).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from evosoko.evolve.lost_search import lost_position_search
from evosoko.evolve.selection import sel_best

if TYPE_CHECKING:
    from evosoko.evolve.engine import Engine

log = logging.getLogger(__name__)

Step = Callable[["Engine"], None]
Improver = Callable[[list[int]], "list[int] | None"]


class LostSearch:
    """Proves the population's best position lost, or leaves it (see the module docstring)."""

    def __call__(self, engine: Engine) -> None:
        best = max(engine.population, key=engine.rank)
        evaluation = best.evaluation
        position = evaluation.state_hash
        fitness = engine.config.fitness
        if (
            evaluation.solved
            or best.age < fitness.lost_search_age
            or position in engine.lost_positions
        ):
            return
        search = lost_position_search(
            engine.level,
            fitness.lost_search_nodes,
            fitness.objective,
            fitness.stop_on_deadlock,
            fitness.pi_corrals,
        )
        if search.is_lost_position(position, best, evaluation.length):
            engine.lost_positions.add(position)
            log.debug("level %s: position %x proven lost", engine.level.name, position)


class MemeticStep:
    """Every ``every`` generations: ``improve`` the best genome; keep the result if better."""

    def __init__(self, improve: Improver, every: int) -> None:
        self.improve = improve
        self.every = every

    def __call__(self, engine: Engine) -> None:
        if engine.generation % self.every:
            return
        best = sel_best(engine.population, 1)[0]
        improved = self.improve(list(best))
        if not improved or list(improved) == list(best):
            return
        candidate = engine.individuals.new(improved[: engine.config.ga.max_length])
        engine.evaluate([candidate])
        if candidate.fitness > best.fitness:
            index = next(i for i, ind in enumerate(engine.population) if ind is best)
            engine.population[index] = candidate
            log.debug("level %s: memetic step improved the best individual", engine.level.name)


class StagnationRestart:
    """A new random population after ``patience`` generations without improvement."""

    def __init__(self, patience: int) -> None:
        self.patience = patience

    def __call__(self, engine: Engine) -> None:
        if engine.stagnant < self.patience:
            return
        log.info(
            "level %s: restart after %d stagnant generations", engine.level.name, engine.stagnant
        )
        engine.restarts += 1
        engine.stagnant = 0
        engine.population = engine.new_population(())


def engine_steps(engine: Engine, improve: Improver | None) -> list[Step]:
    """The steps ``engine``'s configuration asks for, in order."""
    config = engine.config
    steps: list[Step] = []
    if engine.searches_lost:
        steps.append(LostSearch())
    if improve is not None and config.hybrid.memetic_every:
        steps.append(MemeticStep(improve, config.hybrid.memetic_every))
    if config.ga.stagnation_restart is not None:
        steps.append(StagnationRestart(config.ga.stagnation_restart))
    return steps
