"""What the engine does after survival, in this order, when the configuration asks for it.

- :class:`LostSearch` (``fitness.lost_search_nodes``, push genomes): the best position of the
  population, once it has stayed ``fitness.lost_search_age`` generations, is searched; when
  proven lost it ranks behind every other (:mod:`evosoko.evolve.lost_search`).
- :class:`MemeticStep` (``hybrid.memetic_every``): a bounded search extends the best genome whose
  position it has not searched before; the result replaces it when its fitness is better. When
  the search proves the position lost instead, the position joins the lost search's proofs and
  the next best position is searched (at most :data:`MEMETIC_TRIES` positions per step).
- :class:`StagnationRestart` (``ga.stagnation_restart``): after that many generations without a
  better best individual the population is re-seeded at random (the hall of fame is kept).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from evosoko.evolve.lost_search import lost_position_search
from evosoko.evolve.selection import sel_best

if TYPE_CHECKING:
    from evosoko.evolve.engine import Engine
    from evosoko.evolve.hybrid import Improvement
    from evosoko.evolve.loop import Asking

log = logging.getLogger(__name__)

Step = Callable[["Engine"], Any]
"""A step: ``step(engine)`` returns None, or a generator of :mod:`evosoko.evolve.loop` when it
scores genomes (the engine asks for their evaluations)."""
Improver = Callable[[list[int]], "Improvement"]

MEMETIC_TRIES = 4
"""Most positions one memetic step searches: each search that proves its position lost (cheap
where the dead end is small) hands the step on to the next best position."""


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
    """Every ``every`` generations: ``improve`` the best genome whose position the step has not
    searched before (the engine keeps those positions); keep the result if better.

    When the engine ranks by lost positions, a search that proves the genome's position lost
    adds it to them (if it is the position the genome is scored at) and the next best position
    not known lost is searched, up to :data:`MEMETIC_TRIES` of them.
    """

    def __init__(self, improve: Improver, every: int) -> None:
        self.improve = improve
        self.every = every
        self.searches = self.proofs = self.improvements = 0

    def __call__(self, engine: Engine) -> Asking[None]:
        if engine.generation % self.every:
            return
        tries = MEMETIC_TRIES if engine.searches_lost else 1
        for best in _best_positions(engine, tries):
            outcome = self.improve(list(best))
            self.searches += 1
            position = best.evaluation.state_hash
            engine.memetic_searched.add(position)
            if outcome.lost and engine.searches_lost and outcome.position == position:
                engine.lost_positions.add(position)
                self.proofs += 1
                log.debug("level %s: memetic search proved a position lost", engine.level.name)
                continue
            if outcome.genes and list(outcome.genes) != list(best):
                self.improvements += yield from _keep_if_better(engine, best, outcome.genes)
            return

    def report(self) -> str:
        """What the step did in this run of the engine, for the log."""
        return (
            f"memetic step: {self.searches} searches, {self.proofs} positions proven lost, "
            f"{self.improvements} improvements"
        )


def _best_positions(engine: Engine, count: int) -> list:
    """The best individual of each of the ``count`` best positions neither proven lost nor
    searched by the step before (by fitness, best first): a search from a position gives the
    same result every time."""
    chosen, seen = [], engine.lost_positions | engine.memetic_searched
    for individual in sel_best(engine.population, len(engine.population)):
        position = individual.evaluation.state_hash
        if position not in seen:
            seen.add(position)
            chosen.append(individual)
            if len(chosen) == count:
                break
    return chosen


def _keep_if_better(engine: Engine, best, genes: list[int]) -> Asking[bool]:
    """Put the genome ``genes`` in ``best``'s place when its fitness is better (returns True
    if so; a generator that scores it)."""
    candidate = engine.individuals.new(genes[: engine.config.ga.max_length])
    yield from engine.score([candidate])
    if not candidate.fitness > best.fitness:
        return False
    index = next(i for i, ind in enumerate(engine.population) if ind is best)
    engine.population[index] = candidate
    log.debug("level %s: memetic step improved the best individual", engine.level.name)
    return True


class StagnationRestart:
    """A new random population after ``patience`` generations without improvement."""

    def __init__(self, patience: int) -> None:
        self.patience = patience

    def __call__(self, engine: Engine) -> Asking[None]:
        if engine.stagnant < self.patience:
            return
        log.info(
            "level %s: restart after %d stagnant generations", engine.level.name, engine.stagnant
        )
        engine.restarts += 1
        engine.stagnant = 0
        engine.population = yield from engine.new_population(())


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
