"""The island model: several populations evolved apart, trading their best individuals.

With ``ga.islands.count`` above 1, each island is an :class:`~evosoko.evolve.engine.Engine` of
``ga.population`` individuals with its own random generator. Islands advance in epochs of
``ga.islands.migration_every`` generations (epoch *k* ends at generation *k* times that, or at
the generation budget); an epoch of one island is one task on the evaluator's ``task_queue``,
so with the ``processes`` backend the islands evolve in the workers, selection and variation
included (a single population keeps those in the parent and can only spread its evaluations).

Migration is in a ring: after its epoch *k*, an island puts copies of its best
``ga.islands.migrants`` individuals (distinct positions, none it has proven lost) in its
outbox, and the next island takes them in when it starts epoch *k* + 1 +
``ga.islands.migration_lag``, replacing its worst individuals (a position it already holds or
has proven lost is not taken). An island starts an epoch as soon as its
own previous epoch and the neighbour's epoch it takes migrants from are done: with lag 0 it
waits for its neighbour's epoch to end, with lag 1 no island waits for another, and the workers
never sit idle while a slower island finishes (there is no barrier across all islands either
way).

Between epochs an island is only its engine's state (:class:`~evosoko.evolve.state.EngineState`) and
what it receives is fixed by the rule above, not by which task finishes first: a run is a
function of (level, configuration, seed) on either backend, and a run resumed from a checkpoint
continues exactly as the uninterrupted run. Checkpoints hold every island's last finished
epoch, the outboxes still to be delivered and the statistics not yet streamed.

Budgets: ``run.budget.generations`` counts the generations of each island;
``run.budget.evaluations`` is shared out among the islands; ``run.budget.seconds`` is the
level's wall-clock time. The level is solved in the first epoch in which an island solves it:
every island finishes that epoch (later epochs are discarded), and the outcome is that of the
island that solved at the earliest generation (the lowest-numbered on a tie). Statistics
stream as one combined record per generation once every island still running has passed it,
up to the generation that solved; the outcome's generations, evaluations and seconds are those
of the last record streamed (so results and metrics agree; work islands did past the solving
generation to finish their epoch is not counted).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.callbacks import BestGenome, Callback, Callbacks, Generation
from evosoko.evolve.engine import Engine
from evosoko.evolve.evaluation import Evaluator, SerialEvaluator, TaskQueue
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.shortening import shortened
from evosoko.evolve.state import (
    BestRecord,
    EngineState,
    IslandsState,
    IslandState,
    Member,
    StreamedRecord,
)
from evosoko.result import GenerationStats, History, Result
from evosoko.settings_digest import ga_settings_digest
from evosoko.sokoban.level import Level
from evosoko.status import Resource, Status, Stop


@dataclass(frozen=True)
class EpochTask:
    """What an island needs for one epoch: plain data, sent to a worker as it is."""

    seed: int
    state: EngineState | None
    budget: Budget
    initial_genomes: tuple[tuple[int, ...], ...] = ()
    deadline: float | None = None
    """When the level's seconds run out (``time.time()``): an epoch that starts late (its
    island waited for a worker) gets the seconds left then, not those left when it was sent."""


Streamed = tuple[GenerationStats, BestGenome | None]
"""A generation's statistics with the island's best individual after it."""


@dataclass
class EpochReport:
    """One island after an epoch: its state, the statistics of its generations, its result."""

    state: EngineState
    stats: list[Streamed]
    result: Result


class _Collector(Callback):
    def __init__(self) -> None:
        self.streamed: list[Streamed] = []

    def on_generation(self, generation: Generation) -> None:
        self.streamed.append((generation.stats, generation.best))


def run_epoch(
    level: Level, fitness_function: FitnessFunction, config: Config, task: EpochTask
) -> EpochReport:
    """Evolve one island from ``task.state`` (None: a new population) to its epoch's end."""
    improve = None
    if config.hybrid.enabled and config.hybrid.memetic_every:
        from evosoko.evolve.hybrid import memetic_improver

        improve = memetic_improver(level, config)
    collector = _Collector()
    budget = task.budget
    if task.deadline is not None:
        own = 0.0 if task.state is None else task.state.seconds
        budget = budget.replace(seconds=own + max(0.0, task.deadline - time.time()))
    engine = Engine(
        level,
        config,
        SerialEvaluator.around(fitness_function, config.parallel.batch_size),
        seed=task.seed,
        budget=budget,
        initial_genomes=task.initial_genomes,
        improve=improve,
        callbacks=[collector],
        state=task.state,
        final=False,  # the island model builds the level's result
    )
    result = engine.run()
    return EpochReport(engine.state, collector.streamed, result)


def island_seed(seed: int, island: int) -> int:
    """The seed of one island's generator, derived from the level's seed."""
    digest = hashlib.sha256(f"evosoko-island:{seed}:{island}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class Island:
    """One island as the scheduler sees it.

    ``state``: the engine's checkpoint after its last finished epoch (None: not started), before
    any migrants arrive; ``epochs``: epochs finished; ``finished``: out of budget or solved (not
    saved: found again from the state and the budget); ``outbox``: epoch -> copies of its best
    member records after that epoch, until the next island has taken them; ``counts``: epoch ->
    (evaluations, restarts) after it, for the epochs a solve may still be settled at;
    ``pending``: statistics not streamed yet; ``latest``: the last streamed.
    """

    state: EngineState | None = None
    epochs: int = 0
    finished: bool = False
    outbox: dict[int, list[Member]] = field(default_factory=dict)
    counts: dict[int, tuple[int, int]] = field(default_factory=dict)
    pending: list[Streamed] = field(default_factory=list)
    latest: Streamed | None = None
    running: bool = False
    result: Result | None = None  # of its last epoch run in this process (not saved)

    @property
    def generation(self) -> int:
        """The last generation it has run (-1: none)."""
        return -1 if self.state is None else self.state.generation

    def saved(self) -> IslandState:
        """What a checkpoint keeps of it (not what only this process needs)."""
        return IslandState.model_construct(
            state=self.state,
            epochs=self.epochs,
            outbox=tuple((epoch, tuple(members)) for epoch, members in sorted(self.outbox.items())),
            counts=tuple((epoch, *count) for epoch, count in sorted(self.counts.items())),
            pending=tuple(_record(s) for s in self.pending),
            latest=None if self.latest is None else _record(self.latest),
        )

    @classmethod
    def of(cls, saved: IslandState) -> Island:
        """The island a checkpoint kept."""
        return cls(
            state=saved.state,
            epochs=saved.epochs,
            outbox={epoch: list(members) for epoch, members in saved.outbox},
            counts={epoch: (e, r) for epoch, e, r in saved.counts},
            pending=[_streamed(s) for s in saved.pending],
            latest=None if saved.latest is None else _streamed(saved.latest),
        )


def _record(streamed: Streamed) -> StreamedRecord:
    stats, best = streamed
    record = None
    if best is not None:
        record = BestRecord.model_construct(
            genes=tuple(best.genes), fitness=dict(best.fitness), evaluation=best.evaluation
        )
    return StreamedRecord.model_construct(stats=stats, best=record)


def _streamed(record: StreamedRecord) -> Streamed:
    """A streamed record (checkpoints before named fitness values have no ``best``)."""
    best = record.best
    if best is None:
        return record.stats, None
    return record.stats, BestGenome(list(best.genes), dict(best.fitness), best.evaluation)


class IslandModel:
    """Evolves ``ga.islands.count`` islands of one level on ``evaluator.task_queue``: in this
    process, on the worker pool or on a Dask cluster."""

    def __init__(
        self,
        level: Level,
        config: Config,
        evaluator: Evaluator,
        *,
        seed: int | None = None,
        budget: Budget | None = None,
        initial_genomes: Sequence[Sequence[int]] = (),
        callbacks: Iterable[Callback] = (),
        should_stop: Callable[[], bool] | None = None,
        state: IslandsState | None = None,
        seconds_spent: float = 0.0,
    ) -> None:
        self.level = level
        self.config = config
        self.evaluator = evaluator
        self.budget = budget or Budget.of(config.run.budget)
        self.objectives = Objectives.of(config)
        self.count = config.ga.islands.count
        self.lag = config.ga.islands.migration_lag
        self.seed = config.run.seed if seed is None else seed
        self.seeds = [island_seed(self.seed, i) for i in range(self.count)]
        self.initial_genomes = tuple(tuple(g) for g in initial_genomes)
        self.callbacks = Callbacks(callbacks)
        self.should_stop = should_stop
        self.islands = [Island() for _ in range(self.count)]
        self.streamed = -1  # the last generation streamed
        self.last_streamed: GenerationStats | None = None  # its record
        self.history = History()
        self._seconds_before = seconds_spent
        self._last_checkpoint = 0
        self._stopping = False
        self._stopped_by_callback = False
        self._solve_epoch: int | None = None
        self._solves: list[tuple[int, int, Result]] = []  # (generation, island, result)
        if state is not None:
            self._restore(state)
        self._started = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Wall-clock seconds spent on this level, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    def run(self) -> Result:
        """Evolve until an island solves the level, every island is out of budget, a callback
        or ``should_stop`` says so (then the running epochs finish; an interrupt also takes a
        checkpoint)."""
        queue = self.evaluator.task_queue(run_epoch)
        self._launch(queue)
        while self._awaited():
            finished = queue.next_result()
            assert finished is not None  # without a timeout it waits for one
            key, report = finished
            index, epoch = cast(tuple[int, int], key)
            assert isinstance(report, EpochReport)
            self.islands[index].running = False
            if self._solve_epoch is not None and epoch > self._solve_epoch:
                continue  # past the epoch that solved: not part of this run
            self._accept(index, epoch, report)
            if not self._stopping and self.callbacks.stop_requested:
                self._stopping = self._stopped_by_callback = True
            if not self._stopping and self.should_stop is not None and self.should_stop():
                self._stopping = True
            if self._solve_epoch is None and not self._stopping:
                self._checkpoint_if_due()
            self._launch(queue)
        queue.cancel()
        if self._solve_epoch is not None:
            return self._solved()
        if self._stopping and not all(island.finished for island in self.islands):
            if self._stopped_by_callback:
                return self._outcome(Stop(Status.STOPPED))
            self._checkpoint()  # the statistics not streamed yet stay in the islands
            return self._outcome(Stop(Status.INTERRUPTED))
        self._stream(math.inf)
        return self._outcome(None)

    # ---- scheduling -----------------------------------------------------------------------------
    def _awaited(self) -> bool:
        """Whether a running epoch still matters (once solved: one up to the solving epoch)."""
        limit = math.inf if self._solve_epoch is None else self._solve_epoch
        return any(island.running and island.epochs < limit for island in self.islands)

    def _launch(self, queue: TaskQueue) -> None:
        """Start the next epoch of every island that may start one."""
        for index, island in enumerate(self.islands):
            if island.running or island.finished:
                continue
            epoch = island.epochs + 1
            if self._solve_epoch is not None:
                if epoch > self._solve_epoch:
                    continue
            elif self._stopping:
                continue
            sender, sent = self.islands[index - 1], epoch - 1 - self.lag
            if sent >= 1 and sender.epochs < sent and not sender.finished:
                continue  # its migrants are not ready yet
            incoming = sender.outbox.get(sent, [])
            queue.submit((index, epoch), self.config, self._task(index, island, incoming))
            island.running = True

    def _task(self, index: int, island: Island, incoming: list[Member]) -> EpochTask:
        step = self.config.ga.islands.migration_every
        until = island.epochs * step + step
        if self.budget.generations is not None:
            until = min(until, self.budget.generations)
        remaining = self.budget.seconds_left(self.seconds)
        own_seconds = 0.0 if island.state is None else island.state.seconds
        return EpochTask(
            seed=self.seeds[index],
            state=with_migrants(island.state, incoming, self._rank),
            budget=Budget(
                generations=until,
                evaluations=self._share(index).evaluations,
                seconds=None if remaining is None else own_seconds + remaining,
            ),
            initial_genomes=self.initial_genomes if island.state is None else (),
            deadline=None if remaining is None else time.time() + remaining,
        )

    def _accept(self, index: int, epoch: int, report: EpochReport) -> None:
        """Take in an island's finished epoch."""
        island = self.islands[index]
        island.state, island.epochs, island.result = report.state, epoch, report.result
        island.finished = (
            report.result.solved
            or report.result.exhausted == Resource.SECONDS
            or (self._out_of_budget(index, report.state))
        )
        island.counts[epoch] = (report.state.evaluations, report.state.restarts)
        island.pending.extend(report.stats)
        lost = set(report.state.lost_positions)
        sendable = [m for m in report.state.population if m.position not in lost]
        island.outbox[epoch] = best_distinct(sendable, self.config.ga.islands.migrants, self._rank)
        if report.result.solved:
            generations = report.result.generations
            if generations is None:  # an engine's result always counts its generations
                raise RuntimeError(f"island {index} reported a solve without its generation")
            self._solves.append((generations, index, report.result))
            self._solve_epoch = min(epoch, self._solve_epoch or epoch)
        self._forget_delivered()
        if self._solve_epoch is None:
            self._stream(
                min((i.generation for i in self.islands if not i.finished), default=math.inf)
            )

    def _forget_delivered(self) -> None:
        """Drop outboxes the next island has taken, and counts no solve can be settled at (a
        later solve comes from an epoch after the oldest unfinished island's; once a solve is
        waiting to be settled, every count is kept)."""
        oldest = min((i.epochs for i in self.islands if not i.finished), default=0)
        for index, island in enumerate(self.islands):
            receiver = self.islands[(index + 1) % self.count]
            needed = receiver.epochs - self.lag  # sent before the receiver's next epoch
            island.outbox = {e: m for e, m in island.outbox.items() if e >= needed}
            if self._solve_epoch is None:
                last = island.epochs
                island.counts = {e: c for e, c in island.counts.items() if e > oldest or e == last}

    def _share(self, island: int) -> Budget:
        """One island's budget: its share of the evaluations (see :meth:`Budget.share`)."""
        return self.budget.share(island, self.count)

    def _out_of_budget(self, index: int, state: EngineState) -> bool:
        """Whether an island has used its generations or its share of the evaluations."""
        limits = self._share(index).replace(seconds=None, nodes=None)
        spent = {"generations": state.generation, "evaluations": state.evaluations}
        return limits.exhausted(**spent) is not None

    def _rank(self, member: Member) -> tuple[float, ...]:
        """Sort key of a member, best first: its weighted fitness, negated."""
        values = self.objectives.values(member.evaluation)
        return tuple(-v for v in self.objectives.weighted(values))

    # ---- reporting ------------------------------------------------------------------------------
    def _stream(self, limit: float) -> None:
        """One combined statistics record per generation up to ``limit`` not streamed yet, each
        island at its latest record."""
        generations = sorted(
            {s.generation for i in self.islands for s, _ in i.pending if s.generation <= limit}
        )
        for generation in generations:
            for island in self.islands:
                if island.pending and island.pending[0][0].generation == generation:
                    island.latest = island.pending.pop(0)
            self.streamed = generation
            current = [i.latest for i in self.islands if i.latest is not None]
            self.last_streamed = combined_stats(generation, [s for s, _ in current], self.seconds)
            self.history.append(self.last_streamed)
            best = self._best_of([b for _, b in current if b is not None])
            self.callbacks.on_generation(Generation(self.level, self.last_streamed, best))

    def _best_of(self, bests: list[BestGenome]) -> BestGenome | None:
        """The best of the islands' best individuals (the first island's on a tie)."""
        if not bests:
            return None
        weighted = self.objectives.weighted
        return max(bests, key=lambda b: weighted(self.objectives.from_named(b.fitness)))

    def _checkpoint_if_due(self) -> None:
        every = self.config.output.checkpoint_every
        if every and self.streamed // every > self._last_checkpoint // every:
            self._checkpoint()

    def _checkpoint(self) -> None:
        self._last_checkpoint = self.streamed
        self.callbacks.on_checkpoint(self.level, self.state.to_json())

    @property
    def state(self) -> IslandsState:
        """Every island after its last finished epoch: the checkpoint; ``generation`` is the
        last generation streamed (later statistics are kept in the islands)."""
        states = [i.state for i in self.islands if i.state is not None]
        return IslandsState.model_construct(
            kind="islands",
            version=3,
            level=self.level.name,
            generation=max(self.streamed, 0),
            evaluations=sum(s.evaluations for s in states),
            restarts=sum(s.restarts for s in states),
            seconds=self.seconds,
            islands=tuple(island.saved() for island in self.islands),
        )

    def _restore(self, state: IslandsState) -> None:
        if len(state.islands) != self.count:
            raise EvosokoError(
                f"the checkpoint holds {len(state.islands)} islands; the configuration has "
                f"{self.count}"
            )
        if state.level != self.level.name:
            raise EvosokoError(
                f"the checkpoint is of level {state.level!r}, not {self.level.name!r}"
            )
        self.islands = [Island.of(saved) for saved in state.islands]
        for index, island in enumerate(self.islands):
            island.finished = island.state is not None and self._out_of_budget(index, island.state)
        self.streamed = state.generation
        self._seconds_before = state.seconds
        self._last_checkpoint = self.streamed

    # ---- results --------------------------------------------------------------------------------
    def _solved(self) -> Result:
        """The earliest solve of the solving epoch; its generation is the last one streamed, and
        the counts are those of all islands at that generation (as the last statistics record
        says; what islands ran beyond it to finish the epoch is not part of the run)."""
        epoch = self._solve_epoch
        assert epoch is not None
        # a solve of a later epoch (reported early) comes at a later generation: never chosen
        generation, _, chosen = min(self._solves, key=lambda s: s[:2])
        self._stream(generation)
        return self._level_result(chosen, Stop(Status.SOLVED))

    def _outcome(self, stop: Stop | None) -> Result:
        """The best island's result with ``stop`` (None: the limit that island ran out of),
        with all islands' counts at the last generation streamed."""
        self._final_results()
        results = [(n, i.result) for n, i in enumerate(self.islands) if i.result is not None]
        objectives = self.objectives
        index, best = max(
            results, key=lambda item: objectives.weighted(objectives.from_named(item[1].fitness))
        )
        return self._level_result(best, stop or self._exhausted(index, best))

    def _exhausted(self, index: int, result: Result) -> Stop:
        """The limit of the level's budget an island ran out of. Its last epoch's own result
        may name the generation where that epoch was to end, though the island stopped there
        because its share of the evaluations was spent too: the level's limits decide."""
        state = self.islands[index].state
        if result.exhausted == Resource.SECONDS or state is None:
            return result.stop
        limits = self._share(index).replace(seconds=None, nodes=None)
        spent = {"generations": state.generation, "evaluations": state.evaluations}
        exhausted = limits.exhausted(**spent)
        return result.stop if exhausted is None else Stop.budget(exhausted)

    def _level_result(self, island: Result, stop: Stop) -> Result:
        """The level's result, built from an island's: its best individual with ``stop``, the
        generation, evaluations, restarts and seconds of the last statistics record streamed
        (so that the results and the metrics agree), the history of the combined statistics,
        this process's level (a worker's copy has no file position), the level's seed and
        settings digest, and its solution shortened when ``output.optimize_seconds`` asks."""
        last = self.last_streamed
        if last is None:  # nothing streamed in this process (a resume that had nothing left)
            states = [i.state for i in self.islands if i.state is not None]
            counts = (
                max(self.streamed, 0),
                sum(s.evaluations for s in states),
                sum(s.restarts for s in states),
                self.seconds,
            )
        else:
            counts = (last.generation, last.evaluations, last.restarts, last.seconds)
        solution, moves, pushes, best = island.solution, island.moves, island.pushes, island.best
        optimize = self.config.output.optimize_seconds
        if optimize and solution is not None:
            short = shortened(self.level, solution, optimize)
            solution, moves, pushes = short.lurd, short.moves, short.pushes
            if best is not None:  # a solved level's best individual plays its solution
                best = replace(best, lurd=solution, moves=moves, pushes=pushes)
        return replace(
            island,
            status=stop.status,
            exhausted=stop.exhausted,
            solution=solution,
            moves=moves,
            pushes=pushes,
            best=best,
            generations=counts[0],
            cost=counts[1],
            restarts=counts[2],
            seconds=round(counts[3], 3),
            history=self.history,
            level=self.level,
            index=self.level.index,
            seed=self.seed,
            settings=ga_settings_digest(self.config, self.budget),
        )

    def _final_results(self) -> None:
        """Results of islands that finished before a resume: from their saved state, no work."""
        missing = [
            (n, i) for n, i in enumerate(self.islands) if i.result is None and i.state is not None
        ]
        if not missing:
            return
        tasks = [
            (
                self.config,
                EpochTask(  # the budget it ran out of is still out: the engine stops at once
                    seed=self.seeds[index],
                    state=island.state,
                    budget=Budget(
                        generations=self.budget.generations,
                        evaluations=self._share(index).evaluations,
                        seconds=island.state.seconds,  # type: ignore[union-attr]
                    ),
                ),
            )
            for index, island in missing
        ]
        for (_, island), report in zip(missing, self.evaluator.run_each(run_epoch, tasks)):
            island.result = report.result


def best_distinct(members: Sequence[Member], count: int, rank: Callable) -> list[Member]:
    """The best ``count`` members by ``rank``, one per position."""
    chosen: dict[int, Member] = {}
    for member in sorted(members, key=rank):
        if len(chosen) == count:
            break
        chosen.setdefault(member.position, member)
    return list(chosen.values())


def with_migrants(
    state: EngineState | None, incoming: Sequence[Member], rank: Callable
) -> EngineState | None:
    """``state`` with ``incoming`` members in place of its worst members (best first by
    ``rank``; members at positions the state has proven lost count as the worst); members of
    positions it already holds or has proven lost are not taken."""
    if state is None or not incoming:
        return state
    receiver = list(state.population)
    lost = set(state.lost_positions)
    held = {m.position for m in receiver} | lost
    arriving = [m for m in incoming if m.position not in held]
    worst_first = sorted(
        range(len(receiver)),
        key=lambda i: (receiver[i].position in lost, rank(receiver[i])),
        reverse=True,
    )
    for slot, member in zip(worst_first, arriving):
        receiver[slot] = member
    return state.with_population(receiver)


def combined_stats(
    generation: int, islands: Sequence[GenerationStats], seconds: float
) -> GenerationStats:
    """The statistics of all islands at one generation (each island's latest record)."""
    mean = sum(s.mean_distance for s in islands) / len(islands)  # islands are equally large
    variance = sum(s.std_distance**2 + (s.mean_distance - mean) ** 2 for s in islands)
    best = min(islands, key=lambda s: (not s.solved, s.best_distance, s.best_length))
    return GenerationStats(
        generation=generation,
        evaluations=sum(s.evaluations for s in islands),
        best_distance=best.best_distance,
        mean_distance=mean,
        std_distance=(variance / len(islands)) ** 0.5,
        best_length=best.best_length,
        solved=any(s.solved for s in islands),
        diversity=sum(s.diversity for s in islands) / len(islands),
        restarts=sum(s.restarts for s in islands),
        cache_hits=sum(s.cache_hits for s in islands),
        seconds=seconds,
    )
