"""The generational loop: DEAP's toolbox and hall of fame, the loop of DEAP's ``eaSimple``.

The runner's entry point is :func:`evosoko.evolve.runner.evolve_level`. One generation of
:class:`Engine`:

1. parents are selected (the parent selection of ``ga.selection``, or ``[ga.parents]``);
2. they are cloned and varied (crossover, mutation, growth: :func:`evosoko.evolve.toolbox.vary`);
3. changed children are scored (the fitness cache, else the evaluator's ``map``:
   :class:`evosoko.evolve.scoring.Scorer`);
4. survivors form the next population (the survival of ``ga.selection``, or ``[ga.survival]``),
   ranked by :func:`evosoko.evolve.ranking.rank_key` with ages kept by
   :class:`evosoko.evolve.ranking.Aging` (with ``map_elites``, an archive
   of one elite per FESS cell, the first population included: :mod:`evosoko.evolve.archive`);
5. the steps the configuration asks for run (the lost search, the memetic step, a restart:
   :mod:`evosoko.evolve.steps`);
6. the hall of fame is updated, the statistics go to the callbacks, and a checkpoint to them
   every ``output.checkpoint_every`` generations.

Every part comes from the registry (:mod:`evosoko.evolve.registry`); the fitness is a set of
named values (:mod:`evosoko.evolve.objectives`). The loop stops when a genome solves the level,
the :class:`~evosoko.budget.Budget` is spent (status ``budget``, the resource in ``exhausted``), a
callback asks (``stopped``) or ``should_stop()`` returns true (then it writes a checkpoint and
reports ``interrupted``): the words of :mod:`evosoko.status`.

Determinism: every random choice comes from one ``random.Random`` seeded with the run's seed;
fitness is deterministic; so a run is a function of (level, configuration, seed), and a run
resumed from a checkpoint continues exactly as the uninterrupted run (wall-clock seconds aside).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.callbacks import BestGenome, Callback, Callbacks, Generation
from evosoko.evolve.checkpoint import (
    Checkpoint,
    engine_checkpoint,
    restore_engine,
)
from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.individuals import HallOfFame, Individuals
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.parts import parts_of
from evosoko.evolve.population import initial_genomes, population_stats
from evosoko.evolve.ranking import Aging, rank_key
from evosoko.evolve.scoring import Scorer
from evosoko.evolve.steps import Improver, engine_steps
from evosoko.evolve.toolbox import build_toolbox, vary
from evosoko.result import History, Result
from evosoko.sokoban.level import Level
from evosoko.status import Status, Stop

log = logging.getLogger(__name__)


class Engine:
    """The loop over one level; construct it, then call :meth:`run` once.

    ``budget``: the limits (default ``run.budget``); ``initial_genomes`` (gene prefixes from
    hybrid search) start ``hybrid.fraction`` of the first population; ``improve`` (the memetic
    step) may extend the best genome every ``hybrid.memetic_every`` generations;
    ``seconds_spent``: seconds the level took before the loop (the seeding search), counted
    against the budget's seconds and in the result.
    """

    def __init__(
        self,
        level: Level,
        config: Config,
        evaluator: Evaluator,
        *,
        seed: int | None = None,
        budget: Budget | None = None,
        initial_genomes: Sequence[Sequence[int]] = (),
        improve: Improver | None = None,
        callbacks: Iterable[Callback] = (),
        should_stop: Callable[[], bool] | None = None,
        resume_state: dict[str, Any] | None = None,
        seconds_spent: float = 0.0,
    ) -> None:
        self.level, self.config, self.ga = level, config, config.ga
        self.budget = budget or Budget.of(config.run.budget)
        self.initial_genomes = [list(g) for g in initial_genomes]
        self.callbacks = Callbacks(callbacks)
        self.should_stop = should_stop
        parts = parts_of(config)
        multi_objective = parts.multi_objective
        self.archive = parts.archive  # MAP-Elites: the population is one elite per cell
        if self.archive:
            _check_archive(level, config)
        self.objectives = Objectives.of(config)
        self.individuals = Individuals(self.objectives)
        self.lost_positions: set[int] = set()  # state hashes proven lost (checkpointed)
        self.memetic_searched: set[int] = set()  # searched by the memetic step (checkpointed)
        self.searches_lost = (
            config.fitness.lost_search_nodes > 0
            and self.ga.encoding == "pushes"
            and not multi_objective
        )
        lost = self.lost_positions if self.searches_lost else None
        self.rank = rank_key(self.objectives, self.ga.age_patience, self.ga.length_pressure, lost)
        self.aging = Aging(self.ga, active=not multi_objective)
        self.identity = _identity if config.fitness.eliminate_duplicates else None
        self.scorer = Scorer(
            evaluator, self.individuals, config.fitness.cache_size, self.ga.min_length
        )
        self.hall_of_fame = HallOfFame(self.ga.hall_of_fame, self.individuals)
        self.population: list = []
        self.generation = self.evaluations = self.restarts = self.stagnant = 0
        self.best_values: tuple[float, ...] | None = None
        self.history = History()
        self._seconds_before, self._started = seconds_spent, time.perf_counter()
        self.resumed = resume_state is not None
        if resume_state is not None:
            restore_engine(self, Checkpoint.from_dict(resume_state))
        else:
            self.rng = random.Random(config.run.seed if seed is None else seed)
        self.toolbox = build_toolbox(
            level, config, self.rng, self.individuals, self.rank, self.identity
        )
        self.steps = engine_steps(self, improve)

    @property
    def seconds(self) -> float:
        """Wall-clock seconds spent on this level, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    # ---- the loop -------------------------------------------------------------------------------
    def run(self) -> Result:
        """Evolve until solved, out of budget or stopped; return the level's result."""
        if not self.resumed:
            self.population = self.new_population(self.initial_genomes)
            self.record()
        while (stop := self.stop_reason()) is None:
            self.generation += 1
            parents = self.toolbox.select(self.population, self.ga.offspring)
            offspring = vary(parents, self.toolbox, self.rng, self.config)
            self.evaluate(offspring)
            self.population = self.survive(offspring)
            for step in self.steps:
                step(self)
            self.record()
            every = self.config.output.checkpoint_every
            if every and self.generation % every == 0:
                self.callbacks.on_checkpoint(self.level, self.checkpoint())
        log.info(
            "level %s: %s after %d generations, %d evaluations",
            self.level.name,
            stop,
            self.generation,
            self.evaluations,
        )
        if self.archive:
            log.info("level %s: archive of %d cells", self.level.name, len(self.population))
        for step in self.steps:
            if hasattr(step, "report"):
                log.info("level %s: %s", self.level.name, step.report())
        return self.result(stop)

    def stop_reason(self) -> Stop | None:
        """Why the loop ends now (solved, a budget limit, a callback, an interrupt), or None."""
        if self.hall_of_fame[0].evaluation.solved:
            return Stop(Status.SOLVED)
        spent = {"generations": self.generation, "evaluations": self.evaluations}
        exhausted = self.budget.exhausted(**spent, seconds=self.seconds)
        if exhausted is not None:
            return Stop.budget(exhausted)
        if self.callbacks.stop_requested:
            return Stop(Status.STOPPED)
        if self.should_stop is not None and self.should_stop():
            self.callbacks.on_checkpoint(self.level, self.checkpoint())
            return Stop(Status.INTERRUPTED)
        return None

    def new_population(self, prefixes: Sequence[Sequence[int]]) -> list:
        """A scored random population (see :func:`evosoko.evolve.population.initial_genomes`)."""
        fraction = self.config.hybrid.fraction
        genomes = initial_genomes(self.rng, self.ga, prefixes, fraction)
        population = [self.individuals.new(genes) for genes in genomes]
        self.evaluate(population)
        if self.archive:  # the first archive: one elite per cell of the random genomes
            population = self.toolbox.survive([], population, self.ga.population)
        self.aging.started(population)
        return population

    def evaluate(self, individuals: Sequence) -> None:
        """Score the individuals that need it (see :class:`~evosoko.evolve.scoring.Scorer`)."""
        self.evaluations += self.scorer(individuals)

    def survive(self, offspring: list) -> list:
        """The next population, chosen from the current one and ``offspring``."""
        self.aging.before_survival(self.population, offspring)
        chosen = self.toolbox.survive(self.population, offspring, self.ga.population)
        self.aging.after_survival(chosen)
        return chosen

    def record(self) -> None:
        """Update the hall of fame and stagnation count; stream the statistics."""
        self.hall_of_fame.update(self.population)
        best = self.hall_of_fame[0]
        weighted = self.objectives.weighted
        if self.best_values is None or best.fitness.wvalues > weighted(self.best_values):
            self.best_values, self.stagnant = best.fitness.values, 0
        else:
            self.stagnant += 1
        stats = population_stats(
            self.population,
            self.objectives.index("distance"),
            generation=self.generation,
            evaluations=self.evaluations,
            solved=bool(best.evaluation.solved),
            restarts=self.restarts,
            cache_hits=self.scorer.cache.hits,
            seconds=self.seconds,
        )
        self.history.append(stats)
        if self.archive:
            log.debug("generation %d: archive of %d cells", self.generation, len(self.population))
        best_genome = BestGenome(
            list(best), self.objectives.named(best.fitness.values), best.evaluation
        )
        self.callbacks.on_generation(Generation(self.level, stats, best_genome, self.population))

    # ---- state and result -------------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any]:
        """The engine's state as JSON-able plain data (see :mod:`evosoko.evolve.checkpoint`)."""
        return engine_checkpoint(self).to_dict()

    def result(self, stop: Stop) -> Result:
        """The level's result (see :func:`evosoko.evolve.ga_result.ga_result`)."""
        from evosoko.evolve.ga_result import ga_result

        last = self.history[-1] if self.history else None
        return ga_result(
            self.level,
            self.config,
            self.objectives,
            list(self.hall_of_fame),
            stop=stop,
            generations=self.generation,
            evaluations=self.evaluations,
            # the time of the last generation's statistics (as metrics.csv has it)
            seconds=self.seconds if last is None else last.seconds,
            restarts=self.restarts,
            history=self.history,
        )


def _check_archive(level: Level, config: Config) -> None:
    """A clear error when an archive survival (MAP-Elites) cannot get its cells."""
    if not config.fitness.fess_cells or config.ga.encoding != "pushes":
        raise EvosokoError(
            "an archive survival (map_elites) needs push genomes with fitness.fess_cells = true "
            '(ga.selection = "map_elites" sets it)'
        )
    if level.pairing is not None:
        raise EvosokoError(
            f"level {level.name!r} has given holes; map_elites needs the standard rules"
        )


def _identity(individual) -> int:
    """Duplicate identity: the position the individual's genome reaches."""
    return individual.evaluation.state_hash
