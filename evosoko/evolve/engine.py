"""The generational loop: DEAP's toolbox and hall of fame, the loop of DEAP's ``eaSimple``.

The runner's entry point is :func:`evosoko.evolve.runner.evolve_level`. :class:`Engine` speaks
the loop protocol of :mod:`evosoko.evolve.loop`: ``ask()`` gives the genomes to evaluate,
``tell(evaluations)`` their evaluations, ``run()`` does both with the engine's evaluator until
the loop stops, and between generations :attr:`Engine.state` is its validated state, the
checkpoint (:class:`~evosoko.evolve.state.EngineState`). One generation:

1. parents are selected (the parent selection of ``ga.selection``, or ``[ga.parents]``);
2. they are cloned and varied (crossover, mutation, growth: :func:`evosoko.evolve.toolbox.vary`);
3. changed children are scored (the fitness cache, else asked for:
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
the :class:`~evosoko.budget.Budget` is spent (status ``budget``, the resource in ``exhausted``;
its seconds on the budget's clock, :func:`evosoko.evolve.loop.loop_clock`), a callback asks
(``stopped``) or ``should_stop()`` returns true (then it writes a checkpoint and reports
``interrupted``): the words of :mod:`evosoko.status`.

Determinism: every random choice comes from one ``random.Random`` seeded with the run's seed;
fitness is deterministic; so a run is a function of (level, configuration, seed), and a run
resumed from a checkpoint continues exactly as the uninterrupted run (seconds aside), its
seconds counted on from the checkpoint's.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable, Sequence
from itertools import islice

from deap import tools

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.callbacks import BestGenome, Callback, Callbacks, Generation
from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.individuals import Individuals
from evosoko.evolve.loop import GENERATION_END, Asking, AskTellLoop, Generations, loop_clock
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.parts import parts_of
from evosoko.evolve.population import initial_genomes, population_stats
from evosoko.evolve.ranking import Aging, rank_key
from evosoko.evolve.scoring import Scorer
from evosoko.evolve.state import EngineState, Member, restored_rng
from evosoko.evolve.steps import Improver, MemeticStep, engine_steps
from evosoko.evolve.toolbox import build_toolbox, vary
from evosoko.result import History, Result
from evosoko.sokoban.level import Level
from evosoko.sokoban.variants import level_rules
from evosoko.status import Status, Stop

log = logging.getLogger(__name__)

FIRST_POPULATION_CHUNK = 10_000
"""Individuals of the first population made and scored at a time, the budget and a stop
request looked at in between: a population of this size or less is made in one piece."""


class Engine(AskTellLoop[tuple[int, ...], Evaluation]):
    """The loop over one level (see the module docstring); :meth:`run` it, or drive it with
    :meth:`ask` and :meth:`tell`.

    ``evaluator``: what :meth:`run` evaluates with (not needed when you ``ask``/``tell``);
    ``budget``: the limits (default ``run.budget``); ``initial_genomes`` (gene prefixes from
    hybrid search) start ``hybrid.fraction`` of the first population; ``improve`` (the memetic
    step) may extend the best genome every ``hybrid.memetic_every`` generations; ``state``: a
    checkpoint to continue from (:class:`~evosoko.evolve.state.EngineState`);
    ``seconds_spent``: seconds the level took before the loop (the seeding search), counted
    against the budget's seconds and in the result. :meth:`result` is the level's result, built
    once with its seed and settings digest and its solution shortened when
    ``output.optimize_seconds`` asks; ``final=False``: an island's epoch, whose result the
    island model turns into the level's (neither shortened nor given a settings digest).
    """

    def __init__(
        self,
        level: Level,
        config: Config,
        evaluator: Evaluator | None = None,
        *,
        seed: int | None = None,
        budget: Budget | None = None,
        initial_genomes: Sequence[Sequence[int]] = (),
        improve: Improver | None = None,
        callbacks: Iterable[Callback] = (),
        should_stop: Callable[[], bool] | None = None,
        state: EngineState | None = None,
        seconds_spent: float = 0.0,
        final: bool = True,
    ) -> None:
        super().__init__()
        self.level, self.config, self.ga = level, config, config.ga
        self.seed = config.run.seed if seed is None else seed
        self.final = final
        self.evaluator = evaluator
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
        self.scorer = Scorer(self.individuals, config.fitness.cache_size, self.ga.min_length)
        self.hall_of_fame = tools.HallOfFame(self.ga.hall_of_fame)
        self.population: list = []
        self.interrupted_early = False  # a stop request ended the first population
        self.generation = self.evaluations = self.restarts = self.stagnant = 0
        self.best_values: tuple[float, ...] | None = None
        self.history = History()
        self._clock = loop_clock(self.budget, evaluator)
        self._seconds_before, self._started = seconds_spent, self._clock()
        self.resumed = state is not None
        if state is not None:
            self._restore(state)
        else:
            self.rng = random.Random(self.seed)
        self.toolbox = build_toolbox(level, config, self.rng, self.rank, self.identity)
        self.steps = engine_steps(self, improve)

    @property
    def seconds(self) -> float:
        """Seconds spent on this level on the budget's clock, across resumes."""
        return self._seconds_before + self._clock() - self._started

    # ---- the loop -------------------------------------------------------------------------------
    def _generations(self) -> Generations:
        """Generation 0 (unless resumed), then generations until solved, out of budget or
        stopped (see :mod:`evosoko.evolve.loop`)."""
        if not self.resumed:
            self.population = yield from self.new_population(self.initial_genomes, first=True)
            self.record()
            if self.interrupted_early:  # no checkpoint: a resume makes the level's start again
                self._log_end(Stop(Status.INTERRUPTED))
                return Stop(Status.INTERRUPTED)
            yield GENERATION_END
        while (stop := self.stop_reason()) is None:
            self.generation += 1
            parents = self.toolbox.select(self.population, self.ga.offspring)
            offspring = vary(parents, self.toolbox, self.rng, self.config)
            yield from self.score(offspring)
            self.population = self.survive(offspring)
            for step in self.steps:
                work = step(self)
                if work is not None:  # a step that scores genomes
                    yield from work
            self.record()
            every = self.config.output.checkpoint_every
            if every and self.generation % every == 0:
                self.callbacks.on_checkpoint(self.level, self._snapshot().to_json())
            yield GENERATION_END
        self._log_end(stop)
        return stop

    def evaluate(self, genomes: list[tuple[int, ...]]) -> Sequence[Evaluation]:
        """The evaluator's evaluations of ``genomes`` (what :meth:`run` tells)."""
        if self.evaluator is None:
            raise RuntimeError("an engine without an evaluator is driven by ask() and tell()")
        return self.evaluator.map(genomes)

    def _log_end(self, stop: Stop) -> None:
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
            if isinstance(step, MemeticStep):
                log.info("level %s: %s", self.level.name, step.report())

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
            self.callbacks.on_checkpoint(self.level, self._snapshot().to_json())
            return Stop(Status.INTERRUPTED)
        return None

    def new_population(
        self, prefixes: Sequence[Sequence[int]], *, first: bool = False
    ) -> Asking[list]:
        """A scored random population (see :func:`evosoko.evolve.population.initial_genomes`),
        a generator of :mod:`evosoko.evolve.loop` that returns it, made and scored
        :data:`FIRST_POPULATION_CHUNK` individuals at a time. For the ``first`` population, the
        budget and a stop request are looked at after each piece, and the population ends where
        they say (:attr:`interrupted_early` when a stop request ended it); a restart's population
        is always whole, so that a checkpoint holds no part of one."""
        fraction = self.config.hybrid.fraction
        genomes = initial_genomes(self.rng, self.ga, prefixes, fraction)
        population: list = []
        while piece := [self.individuals.new(g) for g in islice(genomes, FIRST_POPULATION_CHUNK)]:
            yield from self.score(piece)
            population += piece
            if first and len(population) < self.ga.population and self._first_population_ends():
                log.warning(
                    "level %s: the first population ends at %d of %d individuals (%s)",
                    self.level.name,
                    len(population),
                    self.ga.population,
                    "interrupted" if self.interrupted_early else "out of budget",
                )
                break
        if self.archive:  # the first archive: one elite per cell of the random genomes
            population = self.toolbox.survive([], population, self.ga.population)
        self.aging.started(population)
        return population

    def _first_population_ends(self) -> bool:
        """Whether the budget is spent or a stop was asked while the first population is made."""
        spent = {"generations": self.generation, "evaluations": self.evaluations}
        if self.budget.exhausted(**spent, seconds=self.seconds) is not None:
            return True
        self.interrupted_early = self.should_stop is not None and self.should_stop()
        return self.interrupted_early

    def score(self, individuals: Sequence) -> Asking[None]:
        """Score the individuals that need it: the fitness cache, else asked for (see
        :class:`~evosoko.evolve.scoring.Scorer`)."""
        asked = self.scorer.missing(individuals)
        evaluations = (yield asked.genomes) if asked.genomes else ()
        self.evaluations += self.scorer.assign(asked, evaluations or ())

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

    # ---- state and result ------------------------------------------------------------------------
    @property
    def state(self) -> EngineState:
        """The engine's state after its last generation: the checkpoint (defined between
        generations, see :mod:`evosoko.evolve.loop`)."""
        if not self.between_generations or not self.population:
            raise RuntimeError("an engine's state is defined between generations")
        return self._snapshot()

    def _snapshot(self) -> EngineState:
        """:attr:`state`, taken by the loop itself at the end of a generation."""
        best = self.best_values
        memory = self.aging.memory
        return EngineState.model_construct(
            level=self.level.name,
            encoding=self.ga.encoding,
            generation=self.generation,
            evaluations=self.evaluations,
            seconds=self.seconds,
            restarts=self.restarts,
            stagnant=self.stagnant,
            best_fitness=None if best is None else self.objectives.named(best),
            rng_state=self.rng.getstate(),
            population=tuple(Member.of(ind, ind.evaluation, ind.age) for ind in self.population),
            hall_of_fame=tuple(Member.of(ind, ind.evaluation) for ind in self.hall_of_fame),
            age_memory=None if memory is None else memory.to_json(),
            lost_positions=tuple(sorted(self.lost_positions)),
            memetic_searched=tuple(sorted(self.memetic_searched)),
            kind="engine",
            version=3,
        )

    def _restore(self, state: EngineState) -> None:
        """Take up ``state`` (of this level and configuration: a clear :class:`EvosokoError`
        otherwise)."""
        from evosoko.evolve.aging import AgeMemory

        self._check_resumable(state)
        self.rng = restored_rng(state.rng_state)
        self.generation, self.evaluations = state.generation, state.evaluations
        self.restarts, self.stagnant = state.restarts, state.stagnant
        self._seconds_before = state.seconds
        if state.best_fitness is not None:
            self.best_values = self.objectives.from_named(state.best_fitness)
        new = self.individuals.new
        self.population = [new(m.genes, m.evaluation, m.age) for m in state.population]
        if self.aging.memory is not None:
            if state.age_memory is None:
                raise EvosokoError("the checkpoint has no age memory; the configuration uses one")
            self.aging.memory = AgeMemory.from_json(state.age_memory)
        self.lost_positions.update(state.lost_positions)  # in place: the rank key holds it
        self.memetic_searched.update(state.memetic_searched)
        for member in reversed(state.hall_of_fame):  # worst first: the saved order comes back
            self.hall_of_fame.insert(new(member.genes, member.evaluation))

    def _check_resumable(self, state: EngineState) -> None:
        encoding, objectives = self.ga.encoding, self.objectives
        if state.encoding != encoding:
            raise EvosokoError(
                f"the checkpoint uses {state.encoding} genomes; the configuration {encoding}"
            )
        if state.level != self.level.name:
            raise EvosokoError(
                f"the checkpoint is of level {state.level!r}, not {self.level.name!r}"
            )
        saved = list(state.best_fitness or objectives.names)
        terms = sum(1 for term in objectives.terms if term is not None)
        scored = [m.evaluation for m in state.population + state.hall_of_fame]
        if sorted(saved) != sorted(objectives.names) or any(len(e.terms) != terms for e in scored):
            raise EvosokoError(
                f"the checkpoint compares the fitness values {', '.join(saved)}; the "
                f"configuration {', '.join(objectives.names)} (fitness terms cannot change on "
                "resume)"
            )

    def result(self) -> Result:
        """The level's result once the loop has stopped (see
        :func:`evosoko.evolve.ga_result.ga_result`)."""
        from evosoko.evolve.ga_result import ga_result
        from evosoko.settings_digest import ga_settings_digest

        if self.stop is None:
            raise RuntimeError("the loop has not stopped yet")
        last = self.history[-1] if self.history else None
        return ga_result(
            self.level,
            self.config,
            self.objectives,
            list(self.hall_of_fame),
            stop=self.stop,
            generations=self.generation,
            evaluations=self.evaluations,
            # the time of the last generation's statistics (as metrics.csv has it)
            seconds=self.seconds if last is None else last.seconds,
            restarts=self.restarts,
            history=self.history,
            seed=self.seed,
            settings=ga_settings_digest(self.config, self.budget) if self.final else None,
            shorten=self.final,
        )


def _check_archive(level: Level, config: Config) -> None:
    """A clear error when an archive survival (MAP-Elites) cannot get its cells."""
    if not config.fitness.fess_cells or config.ga.encoding != "pushes":
        raise EvosokoError(
            "an archive survival (map_elites) needs push genomes with fitness.fess_cells = true "
            '(ga.selection = "map_elites" sets it)'
        )
    if level_rules(level).boxes_vanish:
        raise EvosokoError(
            f"level {level.name!r} has given holes; map_elites needs the standard rules"
        )


def _identity(individual) -> int:
    """Duplicate identity: the position the individual's genome reaches."""
    return individual.evaluation.state_hash
