"""The generational loop: DEAP's toolbox and hall of fame, our own loop around them.

Public entry: :func:`evolve_level`. One generation:

1. parents are selected from the population (``ga.selection``);
2. they are cloned and varied (crossover with ``ga.crossover.probability``, mutation with
   ``ga.mutation.probability``, growth while shorter than ``ga.grow_while_under``);
3. changed children are evaluated: by the fitness cache, else by the evaluator's ``map``;
   each genome is cut after the genes that matter (its solution; its best point with
   ``fitness.trim_to_best``; for move genomes, the stop before a deadlocking push);
4. survivors form the next population (elites kept, duplicates by final state avoided);
5. the hall of fame is updated, statistics streamed, a checkpoint written every
   ``output.checkpoint_every`` generations.

The loop stops when a genome solves the level, a budget of ``run.budget`` is spent, or
``should_stop()`` returns true (then it writes a checkpoint and reports ``"interrupted"``).
After ``ga.stagnation_restart`` generations without a better best individual the population is
re-seeded at random; the hall of fame is kept.

Selection and survival rank individuals by their fitness, adjusted by aging (``ga.age_patience``:
a position that has stayed in the population ranks one step farther from solved per
``age_patience`` generations; with ``ga.age_memory`` its age outlives its stay, see
:mod:`evosoko.evolve.aging`), by ``ga.length_pressure``, and for push genomes by the lost
search (``fitness.lost_search_nodes``: after each generation, the best position that has stayed
``fitness.lost_search_age`` generations is searched, and once proven lost it ranks behind every
other position, see :mod:`evosoko.evolve.lost_search`). Move genomes may also get a push
macro (``ga.mutation.push_macro``, :mod:`evosoko.evolve.macros`).

Determinism: every random choice comes from one ``random.Random`` seeded with the run's seed;
fitness is deterministic; so a run is a function of (level, configuration, seed), and a run
resumed from a checkpoint continues exactly as the uninterrupted run (wall-clock seconds
aside).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from deap import base, creator, tools

from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve import operators, selection
from evosoko.evolve.aging import AgeMemory
from evosoko.evolve.checkpoint import ISLANDS_CHECKPOINT_KIND, Checkpoint, Member, restored_rng
from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.fitness import FITNESS_WEIGHTS, Evaluation, FitnessCache
from evosoko.evolve.genomes import decode, gene_range, random_genes
from evosoko.evolve.lost_search import lost_position_search
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.solutions import verify_solution

log = logging.getLogger(__name__)

if not hasattr(creator, "EvosokoFitness"):
    creator.create("EvosokoFitness", base.Fitness, weights=FITNESS_WEIGHTS)
if not hasattr(creator, "EvosokoGenome"):
    creator.create("EvosokoGenome", list, fitness=creator.EvosokoFitness, evaluation=None, age=0)

STOP_REASONS = ("solved", "generations", "evaluations", "seconds", "interrupted")


@dataclass
class GenerationStats:
    """Statistics of one generation, streamed to ``on_generation`` (generation 0: the start).

    ``best_distance`` / ``mean_distance`` / ``std_distance``: the primary objective over the
    population (0 = solved); ``best_length``: genes of the best individual; ``diversity``:
    distinct scored positions per individual; ``cache_hits``: evaluations answered by the
    fitness cache so far (the cache is not checkpointed, so this count restarts on resume);
    ``seconds``: wall-clock time since the level started. Neither of the last two is part of
    determinism.
    """

    generation: int
    evaluations: int
    best_distance: float
    mean_distance: float
    std_distance: float
    best_length: int
    solved: bool
    diversity: float
    restarts: int
    cache_hits: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """Plain dict, e.g. for a CSV row."""
        return asdict(self)


@dataclass
class HallOfFameEntry:
    """A hall-of-fame genome as plain data."""

    genes: list[int]
    solved: bool
    distance: int
    length: int


@dataclass
class BestIndividual:
    """What the best individual of a level plays, replay-verified: ``lurd`` up to the point its
    fitness scores (the solution when ``solved``; else its best prefix, which reaches the
    position of ``distance``, the distance objective), with its ``moves`` and ``pushes``."""

    lurd: str
    distance: int
    moves: int
    pushes: int
    solved: bool

    def as_dict(self) -> dict[str, Any]:
        """``{"lurd", "distance", "moves", "pushes", "solved"}``, as summaries store it."""
        return asdict(self)


@dataclass
class LevelOutcome:
    """What evolving one level produced.

    ``solution_lurd`` is verified by :func:`evosoko.sokoban.solutions.verify_solution` (None
    when unsolved); ``moves`` and ``pushes`` count it. ``best_fitness`` is the best
    individual's ``(solved, distance, gap, length)``; ``best`` what it plays (its solution, or
    its best prefix), and ``best_lurd`` that LURD.
    """

    level: str
    solved: bool
    generations: int
    evaluations: int
    seconds: float
    stop_reason: str
    solution_lurd: str | None
    moves: int | None
    pushes: int | None
    best_fitness: tuple[float, ...]
    best_genes: list[int]
    best_lurd: str
    restarts: int
    hall_of_fame: list[HallOfFameEntry] = field(default_factory=list)
    best: BestIndividual | None = None


GenerationCallback = Callable[[GenerationStats], None]
CheckpointCallback = Callable[[dict[str, Any]], None]
Improver = Callable[[list[int]], "list[int] | None"]


class Engine:
    """The loop over one level; construct it, then call :meth:`run` once.

    ``initial_genomes`` (gene prefixes from hybrid search) start ``hybrid.fraction`` of the
    first population, each followed by random genes; ``improve`` (the memetic step) may return a
    better genome for the best individual every ``hybrid.memetic_every`` generations.
    """

    def __init__(
        self,
        level: Level,
        config: Config,
        evaluator: Evaluator,
        *,
        seed: int | None = None,
        initial_genomes: Sequence[Sequence[int]] = (),
        improve: Improver | None = None,
        on_generation: GenerationCallback | None = None,
        on_checkpoint: CheckpointCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
        resume_state: dict[str, Any] | None = None,
    ) -> None:
        self.level = level
        self.config = config
        self.ga = config.ga
        self.evaluator = evaluator
        self.encoding = config.ga.encoding
        self.gene_range = gene_range(self.encoding)
        self.initial_genomes = [list(g) for g in initial_genomes]
        self.improve = improve
        self.on_generation = on_generation
        self.on_checkpoint = on_checkpoint
        self.should_stop = should_stop
        self.cache = FitnessCache(config.fitness.cache_size)
        self.identity = (
            (lambda individual: individual.evaluation.state_hash)
            if config.fitness.eliminate_duplicates
            else None
        )
        self.lost_positions: set[int] = set()  # state hashes proven lost (checkpointed)
        self.searches_lost = (
            config.fitness.lost_search_nodes > 0
            and self.encoding == "pushes"
            and config.ga.selection != "nsga2"
        )
        self.rank = _rank_key(
            config.ga.age_patience,
            config.ga.length_pressure,
            self.lost_positions if self.searches_lost else None,
        )
        self.age_memory = AgeMemory() if config.ga.age_patience and config.ga.age_memory else None
        self.hall_of_fame = tools.HallOfFame(config.ga.hall_of_fame)
        self.statistics = tools.Statistics(key=lambda individual: individual.fitness.values[1])
        self.statistics.register("min", np.min)
        self.statistics.register("mean", np.mean)
        self.statistics.register("std", np.std)
        self.logbook = tools.Logbook()
        self.population: list = []
        self.generation = 0
        self.evaluations = 0
        self.restarts = 0
        self.stagnant = 0
        self.best_values: tuple[float, ...] | None = None
        self.last_stats: GenerationStats | None = None  # of the last generation run here
        self._seconds_before = 0.0
        self._started = time.perf_counter()
        if resume_state is not None:
            self._restore(Checkpoint.from_dict(resume_state))
            self._resumed = True
        else:
            self.rng = random.Random(config.run.seed if seed is None else seed)
            self._resumed = False
        self.toolbox = self._toolbox()

    # ---- set-up ---------------------------------------------------------------------------------
    def _toolbox(self) -> base.Toolbox:
        ga, rng = self.ga, self.rng
        toolbox = base.Toolbox()
        toolbox.register("clone", _clone)
        toolbox.register(
            "mutate",
            operators.mutate,
            rng=rng,
            config=ga.mutation,
            gene_range=self.gene_range,
            min_length=ga.min_length,
            max_length=ga.max_length,
            tail_length=ga.mutation.tail_genes or ga.initial_length,
        )
        toolbox.register(
            "grow",
            operators.grow,
            rng=rng,
            gene_range=self.gene_range,
            under=ga.grow_while_under,
            by=ga.grow_by,
            max_length=ga.max_length,
        )
        if self.encoding == "moves" and ga.mutation.push_macro > 0:
            from evosoko.evolve.macros import mut_append_push
            from evosoko.evolve.push_replay import push_tables

            toolbox.register(
                "push_macro",
                mut_append_push,
                rng=rng,
                level=self.level,
                tables=push_tables(self.level),
                max_length=ga.max_length,
            )
        kind = ga.crossover.kind
        if kind == "block":
            toolbox.register(
                "mate", operators.cx_block, rng=rng, block_size=ga.crossover.block_size
            )
        elif kind == "one_point":
            toolbox.register("mate", operators.cx_one_point, rng=rng)
        elif kind == "two_point":
            toolbox.register("mate", operators.cx_two_point, rng=rng)
        else:
            toolbox.register(
                "mate",
                operators.cx_messy,
                rng=rng,
                min_length=ga.min_length,
                max_length=ga.max_length,
            )
        name = ga.selection
        if name == "tournament":
            toolbox.register(
                "select", selection.sel_tournament, rng=rng, size=ga.tournament_size, key=self.rank
            )
        elif name == "truncation":
            toolbox.register(
                "select", selection.sel_truncation, rng=rng, fraction=ga.truncation, key=self.rank
            )
        elif name == "nsga2":
            toolbox.register(
                "select", selection.sel_pareto_tournament, rng=rng, size=ga.tournament_size
            )
        else:
            toolbox.register("select", selection.sel_random, rng=rng)
        return toolbox

    def _restore(self, checkpoint: Checkpoint) -> None:
        if checkpoint.encoding != self.encoding:
            raise EvosokoError(
                f"the checkpoint uses {checkpoint.encoding} genomes; "
                f"the configuration {self.encoding}"
            )
        if checkpoint.level != self.level.name:
            raise EvosokoError(
                f"the checkpoint is of level {checkpoint.level!r}, not {self.level.name!r}"
            )
        self.rng = restored_rng(checkpoint.rng_state)
        self.generation = checkpoint.generation
        self.evaluations = checkpoint.evaluations
        self._seconds_before = checkpoint.seconds
        self.restarts = checkpoint.restarts
        self.stagnant = checkpoint.stagnant
        self.best_values = None if checkpoint.best_values is None else tuple(checkpoint.best_values)
        self.population = [self._individual(m.genes, m.evaluation) for m in checkpoint.population]
        for individual, member in zip(self.population, checkpoint.population):
            individual.age = member.age
        if self.age_memory is not None:
            if checkpoint.age_memory is None:
                raise EvosokoError("the checkpoint has no age memory; the configuration uses one")
            self.age_memory = AgeMemory.from_json(checkpoint.age_memory)
        self.lost_positions.update(checkpoint.lost_positions)  # in place: the rank key holds it
        items = [self._individual(m.genes, m.evaluation) for m in checkpoint.hall_of_fame]
        self.hall_of_fame.items = items
        self.hall_of_fame.keys = [item.fitness for item in reversed(items)]

    def _individual(self, genes: Sequence[int], evaluation: Evaluation | None = None):
        individual = creator.EvosokoGenome(genes)
        if evaluation is not None:
            self._assign(individual, evaluation)
        return individual

    def _assign(self, individual, evaluation: Evaluation) -> None:
        individual.evaluation = evaluation
        individual.fitness.values = evaluation.fitness_values(
            self.config.fitness.length_objective, gap_objective=self.ga.selection != "nsga2"
        )

    # ---- the loop -------------------------------------------------------------------------------
    @property
    def seconds(self) -> float:
        """Wall-clock seconds spent on this level, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    def run(self) -> LevelOutcome:
        """Evolve until solved, out of budget or stopped; return the outcome."""
        if not self._resumed:
            self.population = self._new_population(self.initial_genomes)
            self._after_generation()
        while True:
            reason = self._stop_reason()
            if reason is not None:
                break
            if self.should_stop is not None and self.should_stop():
                reason = "interrupted"
                self._checkpoint()
                break
            self._generation()
        log.info(
            "level %s: %s after %d generations, %d evaluations",
            self.level.name,
            reason,
            self.generation,
            self.evaluations,
        )
        return self._outcome(reason)

    def _generation(self) -> None:
        ga = self.ga
        self.generation += 1
        parents = self.toolbox.select(self.population, ga.offspring)
        offspring = self._vary(parents)
        self._evaluate(offspring)
        self.population = self._survivors(offspring)
        if self.searches_lost:
            self._search_best_position()
        if (
            self.improve is not None
            and self.config.hybrid.memetic_every
            and (self.generation % self.config.hybrid.memetic_every == 0)
        ):
            self._memetic_step()
        if ga.stagnation_restart is not None and self.stagnant >= ga.stagnation_restart:
            log.info(
                "level %s: restart after %d stagnant generations", self.level.name, self.stagnant
            )
            self.restarts += 1
            self.stagnant = 0
            self.population = self._new_population(())
        self._after_generation()
        every = self.config.output.checkpoint_every
        if every and self.generation % every == 0:
            self._checkpoint()

    def _new_population(self, prefixes: Sequence[Sequence[int]]) -> list:
        """Random genomes; with ``prefixes`` (hybrid seeds), ``hybrid.fraction`` of them (at
        least one per prefix) start with a prefix, taken in turn: the first copy of each is the
        prefix alone (so that it is scored where the search left it, also when genomes are
        scored at their end), the others are followed by random genes."""
        ga = self.ga
        seeded = 0
        if prefixes:
            seeded = max(len(prefixes), round(self.config.hybrid.fraction * ga.population))
            seeded = min(seeded, ga.population)
        genomes = []
        for index in range(seeded):
            prefix = list(prefixes[index % len(prefixes)])[: ga.max_length]
            tail_length = min(ga.initial_length, ga.max_length - len(prefix))
            if index < len(prefixes) and len(prefix) >= ga.min_length:
                tail_length = 0
            genomes.append(prefix + random_genes(self.rng, tail_length, self.encoding))
        while len(genomes) < ga.population:
            genomes.append(random_genes(self.rng, ga.initial_length, self.encoding))
        population = [self._individual(g) for g in genomes]
        self._evaluate(population)
        if self.age_memory is not None:
            self.age_memory.assign(population)
        return population

    def _vary(self, parents: Sequence) -> list:
        """Clone the parents, then cross pairs and mutate (DEAP's varAnd, with our rng)."""
        ga, rng, toolbox = self.ga, self.rng, self.toolbox
        offspring = [toolbox.clone(p) for p in parents]
        for i in range(1, len(offspring), 2):
            if rng.random() < ga.crossover.probability:
                toolbox.mate(offspring[i - 1], offspring[i])
                _invalidate(offspring[i - 1])
                _invalidate(offspring[i])
        for child in offspring:
            if rng.random() < ga.mutation.probability:
                toolbox.mutate(child)
                _invalidate(child)
            if hasattr(toolbox, "push_macro") and rng.random() < ga.mutation.push_macro:
                toolbox.push_macro(child)
                _invalidate(child)
            if ga.grow_while_under and len(child) < ga.grow_while_under:
                toolbox.grow(child)
                _invalidate(child)
        return offspring

    def _evaluate(self, individuals: Sequence) -> None:
        """Give every individual without a valid fitness one (cache first, then the evaluator)."""
        todo = [ind for ind in individuals if not ind.fitness.valid]
        keys = [tuple(ind) for ind in todo]
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
            evaluation = cached if cached is not None else missing[key]
            if evaluation.keep < len(individual):  # genes that are never scored
                del individual[max(evaluation.keep, self.ga.min_length) :]
                self.cache.put(tuple(individual), evaluation)
            self._assign(individual, evaluation)
        self.evaluations += len(todo)

    def _survivors(self, offspring: list) -> list:
        ga, identity = self.ga, self.identity
        name = ga.selection
        if name == "nsga2":
            return selection.sel_nsga2(self.population + offspring, ga.population, identity)
        rank = self.rank
        if self.age_memory is not None:
            if ga.age_visits:
                self.age_memory.visit(offspring)
            self.age_memory.assign(offspring)
        elif ga.age_patience:
            _share_ages(self.population + offspring)
        if name == "mu_plus_lambda":
            chosen = selection.best_distinct(
                self.population + offspring, ga.population, identity, key=rank
            )
        else:
            kept_count = ga.elitism
            if name == "truncation":
                kept_count = max(ga.elitism, round(ga.truncation * ga.population))
            kept = selection.best_distinct(
                self.population, min(kept_count, ga.population), identity, key=rank
            )
            taken = {identity(ind) for ind in kept} if identity else set()
            children = selection.best_distinct(
                offspring, ga.population - len(kept), identity, taken, key=rank
            )
            chosen = kept + children
            if len(chosen) < ga.population:  # too few children: fill with the best of the rest
                chosen_ids = {id(ind) for ind in chosen}
                others = [ind for ind in self.population if id(ind) not in chosen_ids]
                chosen += selection.best_distinct(
                    others, ga.population - len(chosen), identity, key=rank
                )
        if self.age_memory is not None:
            self.age_memory.advance(chosen)
        else:
            for individual in chosen:
                individual.age += 1
        return chosen

    def _search_best_position(self) -> None:
        """Search the best position of the population once it has stayed
        ``fitness.lost_search_age`` generations; when proven lost, it ranks behind all others."""
        best = max(self.population, key=self.rank)
        evaluation = best.evaluation
        position = evaluation.state_hash
        fitness = self.config.fitness
        if (
            evaluation.solved
            or best.age < fitness.lost_search_age
            or position in self.lost_positions
        ):
            return
        search = lost_position_search(
            self.level, fitness.lost_search_nodes, fitness.objective, fitness.stop_on_deadlock
        )
        if search.is_lost_position(position, best, evaluation.length):
            self.lost_positions.add(position)
            log.debug("level %s: position %x proven lost", self.level.name, position)

    def _memetic_step(self) -> None:
        best = selection.sel_best(self.population, 1)[0]
        improved = self.improve(list(best)) if self.improve else None
        if not improved or list(improved) == list(best):
            return
        candidate = self._individual(improved[: self.ga.max_length])
        self._evaluate([candidate])
        if candidate.fitness > best.fitness:
            index = next(i for i, ind in enumerate(self.population) if ind is best)
            self.population[index] = candidate
            log.debug("level %s: memetic step improved the best individual", self.level.name)

    def _after_generation(self) -> None:
        self.hall_of_fame.update(self.population)
        best = self.hall_of_fame[0]
        if self.best_values is None or best.fitness.wvalues > _weighted(self.best_values):
            self.best_values = best.fitness.values
            self.stagnant = 0
        else:
            self.stagnant += 1
        record = self.statistics.compile(self.population)
        current = selection.sel_best(self.population, 1)[0]
        stats = GenerationStats(
            generation=self.generation,
            evaluations=self.evaluations,
            best_distance=float(record["min"]),
            mean_distance=float(record["mean"]),
            std_distance=float(record["std"]),
            best_length=len(current),
            solved=bool(best.evaluation.solved),
            diversity=len({ind.evaluation.state_hash for ind in self.population})
            / len(self.population),
            restarts=self.restarts,
            cache_hits=self.cache.hits,
            seconds=self.seconds,
        )
        self.logbook.record(**stats.as_dict())
        self.last_stats = stats
        if self.on_generation is not None:
            self.on_generation(stats)

    def _stop_reason(self) -> str | None:
        budget = self.config.run.budget
        if self.hall_of_fame[0].evaluation.solved:
            return "solved"
        if budget.generations is not None and self.generation >= budget.generations:
            return "generations"
        if budget.evaluations is not None and self.evaluations >= budget.evaluations:
            return "evaluations"
        if budget.seconds is not None and self.seconds >= budget.seconds:
            return "seconds"
        return None

    # ---- results --------------------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any]:
        """The engine's state as JSON-able plain data (see :mod:`evosoko.evolve.checkpoint`)."""
        return Checkpoint(
            level=self.level.name,
            encoding=self.encoding,
            generation=self.generation,
            evaluations=self.evaluations,
            seconds=self.seconds,
            restarts=self.restarts,
            stagnant=self.stagnant,
            best_values=None if self.best_values is None else list(self.best_values),
            rng_state=self.rng.getstate(),
            population=[Member(list(ind), ind.evaluation, ind.age) for ind in self.population],
            hall_of_fame=[Member(list(ind), ind.evaluation) for ind in self.hall_of_fame],
            age_memory=None if self.age_memory is None else self.age_memory.to_json(),
            lost_positions=sorted(self.lost_positions),
        ).to_dict()

    def _checkpoint(self) -> None:
        if self.on_checkpoint is not None:
            self.on_checkpoint(self.checkpoint())

    def _outcome(self, reason: str) -> LevelOutcome:
        best = self.hall_of_fame[0]
        fitness = self.config.fitness
        scored = list(best)[: best.evaluation.keep]  # the genes its fitness counts
        decoded = decode(
            self.level,
            self.encoding,
            scored,
            objective=fitness.objective,
            stop_on_deadlock=fitness.stop_on_deadlock,
        )
        verification = verify_solution(self.level, decoded.lurd)
        if not verification.valid:
            raise RuntimeError(
                f"level {self.level.name}: the best genome decodes to an illegal move sequence "
                f"({verification.error})"
            )
        solution = moves = pushes = None
        if best.evaluation.solved:
            if not verification.solved:
                raise RuntimeError(
                    f"level {self.level.name}: the solving genome decodes to a move sequence "
                    "that does not solve it"
                )
            solution, moves, pushes = verification.lurd, verification.moves, verification.pushes
        return LevelOutcome(
            level=self.level.name,
            solved=solution is not None,
            generations=self.generation,
            evaluations=self.evaluations,
            # the time of the last generation's statistics (as metrics.csv has it)
            seconds=self.seconds if self.last_stats is None else self.last_stats.seconds,
            stop_reason=reason,
            solution_lurd=solution,
            moves=moves,
            pushes=pushes,
            best_fitness=tuple(best.fitness.values),
            best_genes=list(best),
            best_lurd=verification.lurd,
            restarts=self.restarts,
            hall_of_fame=[
                HallOfFameEntry(
                    list(ind), ind.evaluation.solved, ind.evaluation.distance, ind.evaluation.length
                )
                for ind in self.hall_of_fame
            ],
            best=BestIndividual(
                lurd=verification.lurd,
                distance=int(best.evaluation.distance),
                moves=verification.moves,
                pushes=verification.pushes,
                solved=solution is not None,
            ),
        )


def _clone(individual):
    """A fast copy of an individual: genes, fitness and evaluation (no deepcopy)."""
    twin = creator.EvosokoGenome(individual)
    if individual.fitness.valid:
        twin.fitness.values = individual.fitness.values
    twin.evaluation = individual.evaluation
    twin.age = individual.age
    return twin


def _invalidate(individual) -> None:
    if individual.fitness.valid:
        del individual.fitness.values
    individual.evaluation = None
    individual.age = 0


def _fitness(individual):
    return individual.fitness


def _aged_rank(patience: int) -> Callable:
    """Ranking key: the weighted fitness with the distance worsened by one per ``patience``
    generations that the individual's position has spent in the population."""
    return _rank_key(patience, 0.0)


def _rank_key(patience: int | None, pressure: float, lost: set[int] | None = None) -> Callable:
    """Ranking key of selection: the weighted fitness with the distance worsened by one per
    ``patience`` generations of the position's age (aging), by ``pressure`` per gene of the
    scored length (length pressure) and, for positions in ``lost`` (None: not searched), by
    more than any distance; the plain fitness when all are off."""
    if not patience and not pressure and lost is None:
        return _fitness

    def rank(individual) -> tuple[float, ...]:
        solved, distance, gap, length = individual.fitness.wvalues
        if patience:
            distance -= individual.age // patience
        if pressure:
            distance -= pressure * individual.evaluation.length
        if lost and individual.evaluation.state_hash in lost:
            distance -= UNREACHABLE
        return (solved, distance, gap, length)

    return rank


def _share_ages(individuals: Sequence) -> None:
    """Give every individual the largest age among those that reach the same position, so a
    child does not make an old position young again."""
    oldest: dict[int, int] = {}
    for individual in individuals:
        key = individual.evaluation.state_hash
        oldest[key] = max(oldest.get(key, 0), individual.age)
    for individual in individuals:
        individual.age = oldest[individual.evaluation.state_hash]


def _weighted(values: Sequence[float]) -> tuple[float, ...]:
    return tuple(v * w for v, w in zip(values, FITNESS_WEIGHTS))


def evolve_level(
    level: Level,
    config: Config,
    *,
    evaluator: Evaluator,
    seed: int | None = None,
    on_generation: GenerationCallback | None = None,
    on_checkpoint: CheckpointCallback | None = None,
    resume_state: dict[str, Any] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> LevelOutcome:
    """Evolve genomes for ``level`` as ``config`` says; the runner's entry point.

    ``evaluator``: from :func:`evosoko.evolve.evaluation.make_evaluator` for this level.
    ``seed``: the seed of this level's generator (default ``config.run.seed``).
    ``on_generation(stats)``: called after every generation (and for the start, generation 0).
    ``on_checkpoint(data)``: receives JSON-able plain data every ``output.checkpoint_every``
    generations and when stopped by ``should_stop``; pass it back as ``resume_state`` to
    continue exactly where it was taken. With ``hybrid.enabled`` the first population is
    seeded by a bounded search (not when resuming). With ``output.optimize_seconds`` a solution
    is shortened (:mod:`evosoko.optimize`, moves first) before it is returned.
    """
    initial: list[list[int]] = []
    improve = None
    if config.hybrid.enabled:
        from evosoko.evolve.hybrid import memetic_improver, search_seeds

        if resume_state is None:
            initial = search_seeds(level, config)
        if config.hybrid.memetic_every and config.ga.islands.count == 1:
            improve = memetic_improver(level, config)  # islands make their own
    held_islands = resume_state is not None and resume_state.get("kind") == ISLANDS_CHECKPOINT_KIND
    if resume_state is not None and held_islands != (config.ga.islands.count > 1):
        held = (
            f"{len(resume_state.get('islands', []))} islands"
            if "islands" in resume_state
            else "one population"
        )
        raise EvosokoError(
            f"the checkpoint holds {held}; "
            f"the configuration has {config.ga.islands.count} island(s)"
        )
    common = dict(
        seed=seed,
        initial_genomes=initial,
        on_generation=on_generation,
        on_checkpoint=on_checkpoint,
        should_stop=should_stop,
        resume_state=resume_state,
    )
    if config.ga.islands.count > 1:
        from evosoko.evolve.islands import IslandModel

        outcome = IslandModel(level, config, evaluator, **common).run()
    else:
        outcome = Engine(level, config, evaluator, improve=improve, **common).run()
    if config.output.optimize_seconds and outcome.solved:
        from evosoko.evolve.shortening import shortened

        outcome = shortened(level, outcome, config.output.optimize_seconds)
    return outcome
