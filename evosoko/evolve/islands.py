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

:class:`IslandModel` speaks the loop protocol of :mod:`evosoko.evolve.loop` over epochs, as
Optuna's ask/tell does over trials that finish in any order::

    while not model.done:
        for key, task in model.ask():          # the epochs that may start now, each once
            queue.submit(key, config, task)    # run_epoch(level, fitness, config, task)
        model.tell(*queue.next_result())       # one finished epoch, in any order
    result = model.result()

which is :meth:`IslandModel.run` on its evaluator's task queue. Its state is a frozen
:class:`~evosoko.evolve.state.IslandsState`, replaced by every ``tell``: each island's engine
state after its last finished epoch (:class:`~evosoko.evolve.state.EngineState`), the outboxes
still to be delivered and the statistics not yet streamed; with the seconds spent it is the
checkpoint. What an island receives is fixed by the rule above, not by which task finishes
first: a run is a function of (level, configuration, seed) on every backend, and a run resumed
from a checkpoint continues exactly as the uninterrupted run.

Budgets: ``run.budget.generations`` counts the generations of each island;
``run.budget.evaluations`` is shared out among the islands; ``run.budget.seconds`` is the
level's time on the budget's clock (wall seconds, or with a CPU budget this process's CPU
time, so the epochs run here: :func:`evosoko.evolve.loop.loop_clock`). The level is solved
in the first epoch in which an island solves it: every island finishes that epoch (later
epochs are discarded), and the outcome is that of the island that solved at the earliest
generation (the lowest-numbered on a tie). Statistics
stream as one combined record per generation once every island still running has passed it,
up to the generation that solved; the outcome's generations, evaluations and seconds are those
of the last record streamed (so results and metrics agree; work islands did past the solving
generation to finish their epoch is not counted).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.callbacks import BestGenome, Callback, Callbacks, Generation
from evosoko.evolve.engine import Engine
from evosoko.evolve.evaluation import Evaluator, SerialEvaluator
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.loop import deadline_clock, loop_clock
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
from evosoko.parallel.pool import results_in_order
from evosoko.result import GenerationStats, History, Result
from evosoko.settings_digest import ga_settings_digest
from evosoko.sokoban.level import Level
from evosoko.status import Resource, Status, Stop

EpochKey = tuple[int, int]
"""An epoch to run: (island, epoch), epochs counted from 1."""


@dataclass(frozen=True)
class EpochTask:
    """What an island needs for one epoch: plain data, sent to a worker as it is."""

    seed: int
    state: EngineState | None
    budget: Budget
    initial_genomes: tuple[tuple[int, ...], ...] = ()
    deadline: float | None = None
    """When the level's seconds run out, read on :func:`deadline_clock` of the budget's clock:
    an epoch that starts late (its island waited for a worker) gets the seconds left then, not
    those left when it was sent."""


@dataclass(frozen=True)
class EpochReport:
    """One island after an epoch: its state, the statistics of its generations (each with the
    island's best individual after it), its result."""

    state: EngineState
    stats: tuple[StreamedRecord, ...]
    result: Result


class _Collector(Callback):
    def __init__(self) -> None:
        self.streamed: list[StreamedRecord] = []

    def on_generation(self, generation: Generation) -> None:
        best, record = generation.best, None
        if best is not None:
            record = BestRecord.model_construct(
                genes=tuple(best.genes), fitness=dict(best.fitness), evaluation=best.evaluation
            )
        self.streamed.append(StreamedRecord.model_construct(stats=generation.stats, best=record))


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
        left = task.deadline - deadline_clock(budget.clock)()
        budget = budget.replace(seconds=own + max(0.0, left))
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
    return EpochReport(engine.state, tuple(collector.streamed), result)


def island_seed(seed: int, island: int) -> int:
    """The seed of one island's generator, derived from the level's seed."""
    digest = hashlib.sha256(f"evosoko-island:{seed}:{island}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class IslandModel:
    """Evolves ``ga.islands.count`` islands of one level (see the module docstring): drive it
    with :meth:`ask` and :meth:`tell`, or :meth:`run` it on ``evaluator.task_queue`` (in this
    process, on the worker pool or on a Dask cluster).

    The arguments are the :class:`~evosoko.evolve.engine.Engine`'s; ``state``: a checkpoint to
    continue from. Besides its :attr:`state`, the model keeps what only this process needs: the
    epochs running, the islands finished (out of budget or solved: found again from the state
    and the budget on resume) and each island's last result.
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
        self.last_streamed: GenerationStats | None = None  # the last record streamed
        self.history = History()
        self._state = IslandsState.model_construct(  # kind, version, restarts: the defaults
            level=level.name,
            generation=0,
            evaluations=0,
            seconds=seconds_spent,
            islands=tuple(IslandState.model_construct() for _ in range(self.count)),
        )
        self._running: set[int] = set()
        self._finished: set[int] = set()
        self._results: dict[int, Result] = {}  # each island's last epoch run in this process
        self._stopping = False
        self._stopped_by_callback = False
        self._solve_epoch: int | None = None
        self._solves: list[tuple[int, int, Result]] = []  # (generation, island, result)
        self._result: Result | None = None
        if state is not None:
            self._restore(state)
        self._last_checkpoint = self._state.generation
        self._clock = loop_clock(self.budget, evaluator)
        self._started = self._clock()

    @property
    def seconds(self) -> float:
        """Seconds spent on this level on the budget's clock, across resumes."""
        return self._state.seconds + self._clock() - self._started

    @property
    def state(self) -> IslandsState:
        """Every island after its last finished epoch, with the seconds spent: the checkpoint.
        ``generation`` is the last generation streamed (later statistics are kept in the
        islands), ``evaluations`` and ``restarts`` the sums of the islands' states."""
        return self._state.model_copy(update={"seconds": self.seconds})

    # ---- the protocol ----------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once no epoch that matters runs and none may start: an island solved the level
        (and every island finished that epoch), every island is out of budget, or a callback
        or ``should_stop`` said so (then the running epochs finish)."""
        return not self._awaited() and not self._ready()

    def ask(self) -> list[tuple[EpochKey, EpochTask]]:
        """The epochs that may start now, each given once: an island starts its next epoch when
        its previous one and the neighbour's epoch it takes migrants from are done."""
        asked = []
        for index in self._ready():
            island = self._state.islands[index]
            asked.append(((index, island.epochs + 1), self._task(index, island)))
            self._running.add(index)
        return asked

    def tell(self, key: EpochKey, report: EpochReport) -> None:
        """An epoch :meth:`ask` gave has finished, in any order."""
        index, epoch = key
        self._running.discard(index)
        if self._solve_epoch is not None and epoch > self._solve_epoch:
            return  # past the epoch that solved: not part of this run
        self._accept(index, epoch, report)
        if not self._stopping and self.callbacks.stop_requested:
            self._stopping = self._stopped_by_callback = True
        if not self._stopping and self.should_stop is not None and self.should_stop():
            self._stopping = True
        if self._solve_epoch is None and not self._stopping:
            self._checkpoint_if_due()

    def run(self) -> Result:
        """Run the epochs on the evaluator's task queue until :attr:`done`; the level's result
        (an interrupt also takes a checkpoint)."""
        if self.evaluator is None:
            raise RuntimeError("an island model without an evaluator is driven by ask() and tell()")
        queue = self.evaluator.task_queue(run_epoch)
        while not self.done:
            for epoch, task in self.ask():
                queue.submit(epoch, self.config, task)
            finished = queue.next_result()
            assert finished is not None  # without a timeout it waits for one
            key, report = finished
            assert isinstance(report, EpochReport)
            self.tell(cast(EpochKey, key), report)
        queue.cancel()
        return self.result()

    def result(self) -> Result:
        """The level's result once :attr:`done` (the statistics left are streamed first; an
        interrupt takes a checkpoint)."""
        if not self.done:
            raise RuntimeError("the island model has not stopped yet")
        if self._result is None:
            self._result = self._final_result()
        return self._result

    def _final_result(self) -> Result:
        if self._solve_epoch is not None:
            return self._solved()
        if self._stopping and len(self._finished) < self.count:
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
        islands = self._state.islands
        return any(islands[index].epochs < limit for index in self._running)

    def _ready(self) -> list[int]:
        """The islands that may start their next epoch now."""
        ready = []
        islands = self._state.islands
        for index, island in enumerate(islands):
            if index in self._running or index in self._finished:
                continue
            epoch = island.epochs + 1
            if self._solve_epoch is not None:
                if epoch > self._solve_epoch:
                    continue
            elif self._stopping:
                continue
            sender, sent = (index - 1) % self.count, epoch - 1 - self.lag
            if sent >= 1 and islands[sender].epochs < sent and sender not in self._finished:
                continue  # its migrants are not ready yet
            ready.append(index)
        return ready

    def _task(self, index: int, island: IslandState) -> EpochTask:
        step = self.config.ga.islands.migration_every
        until = island.epochs * step + step
        if self.budget.generations is not None:
            until = min(until, self.budget.generations)
        remaining = self.budget.seconds_left(self.seconds)
        own_seconds = 0.0 if island.state is None else island.state.seconds
        sender = self._state.islands[index - 1]
        incoming = dict(sender.outbox).get(island.epochs - self.lag, ())
        return EpochTask(
            seed=self.seeds[index],
            state=with_migrants(island.state, incoming, self._rank),
            budget=Budget(
                generations=until,
                evaluations=self._share(index).evaluations,
                seconds=None if remaining is None else own_seconds + remaining,
                clock=self.budget.clock,
            ),
            initial_genomes=self.initial_genomes if island.state is None else (),
            deadline=None if remaining is None else deadline_clock(self.budget.clock)() + remaining,
        )

    def _accept(self, index: int, epoch: int, report: EpochReport) -> None:
        """Take in an island's finished epoch: a new state."""
        state, result = report.state, report.result
        self._results[index] = result
        if (
            result.solved
            or result.exhausted == Resource.SECONDS
            or self._spent(index, state) is not None
        ):
            self._finished.add(index)
        lost = set(state.lost_positions)
        sendable = [m for m in state.population if m.position not in lost]
        sent = tuple(best_distinct(sendable, self.config.ga.islands.migrants, self._rank))
        islands = list(self._state.islands)
        before = islands[index]
        islands[index] = before.model_copy(
            update={
                "state": state,
                "epochs": epoch,
                "outbox": (*before.outbox, (epoch, sent)),
                "pending": before.pending + report.stats,
            }
        )
        if result.solved:
            generations = result.generations
            if generations is None:  # an engine's result always counts its generations
                raise RuntimeError(f"island {index} reported a solve without its generation")
            self._solves.append((generations, index, result))
            self._solve_epoch = min(epoch, self._solve_epoch or epoch)
        states = [i.state for i in islands if i.state is not None]
        self._state = self._state.model_copy(
            update={
                "islands": self._delivered_dropped(islands),
                "evaluations": sum(s.evaluations for s in states),
                "restarts": sum(s.restarts for s in states),
            }
        )
        if self._solve_epoch is None:
            running = [i for n, i in enumerate(islands) if n not in self._finished]
            self._stream(min((_generation(i) for i in running), default=math.inf))

    def _delivered_dropped(self, islands: list[IslandState]) -> tuple[IslandState, ...]:
        """The islands without the outboxes the next island has taken."""
        kept = []
        for index, island in enumerate(islands):
            needed = islands[(index + 1) % self.count].epochs - self.lag  # its next epoch's
            outbox = tuple((epoch, sent) for epoch, sent in island.outbox if epoch >= needed)
            kept.append(
                island if outbox == island.outbox else island.model_copy(update={"outbox": outbox})
            )
        return tuple(kept)

    def _share(self, island: int) -> Budget:
        """One island's budget: its share of the evaluations (see :meth:`Budget.share`)."""
        return self.budget.share(island, self.count)

    def _spent(self, index: int, state: EngineState) -> str | None:
        """The generations or evaluations an island has used up, if any."""
        limits = self._share(index).replace(seconds=None, nodes=None)
        return limits.exhausted(generations=state.generation, evaluations=state.evaluations)

    def _rank(self, member: Member) -> tuple[float, ...]:
        """Sort key of a member, best first: its weighted fitness, negated."""
        values = self.objectives.values(member.evaluation)
        return tuple(-v for v in self.objectives.weighted(values))

    # ---- reporting ------------------------------------------------------------------------------
    def _stream(self, limit: float) -> None:
        """One combined statistics record per generation up to ``limit`` not streamed yet, each
        island at its latest record."""
        islands = list(self._state.islands)
        generations = sorted(
            {r.stats.generation for i in islands for r in i.pending if r.stats.generation <= limit}
        )
        if not generations:
            return
        for generation in generations:
            for index, island in enumerate(islands):
                if island.pending and island.pending[0].stats.generation == generation:
                    islands[index] = island.model_copy(
                        update={"latest": island.pending[0], "pending": island.pending[1:]}
                    )
            current = [i.latest for i in islands if i.latest is not None]
            self.last_streamed = combined_stats(
                generation, [r.stats for r in current], self.seconds
            )
            self.history.append(self.last_streamed)
            best = self._best_of([r.best for r in current if r.best is not None])
            self.callbacks.on_generation(Generation(self.level, self.last_streamed, best))
        self._state = self._state.model_copy(
            update={"islands": tuple(islands), "generation": generations[-1]}
        )

    def _best_of(self, bests: list[BestRecord]) -> BestGenome | None:
        """The best of the islands' best individuals (the first island's on a tie)."""
        if not bests:
            return None
        weighted = self.objectives.weighted
        best = max(bests, key=lambda b: weighted(self.objectives.from_named(b.fitness)))
        return BestGenome(list(best.genes), dict(best.fitness), best.evaluation)

    def _checkpoint_if_due(self) -> None:
        every = self.config.output.checkpoint_every
        if every and self._state.generation // every > self._last_checkpoint // every:
            self._checkpoint()

    def _checkpoint(self) -> None:
        self._last_checkpoint = self._state.generation
        self.callbacks.on_checkpoint(self.level, self.state.to_json())

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
        self._state = state
        self._finished = {
            index
            for index, island in enumerate(state.islands)
            if island.state is not None and self._spent(index, island.state) is not None
        }

    # ---- results --------------------------------------------------------------------------------
    def _solved(self) -> Result:
        """The earliest solve of the solving epoch; its generation is the last one streamed, and
        the counts are those of all islands at that generation (as the last statistics record
        says; what islands ran beyond it to finish the epoch is not part of the run)."""
        # a solve of a later epoch (reported early) comes at a later generation: never chosen
        generation, _, chosen = min(self._solves, key=lambda s: s[:2])
        self._stream(generation)
        return self._level_result(chosen, Stop(Status.SOLVED))

    def _outcome(self, stop: Stop | None) -> Result:
        """The best island's result with ``stop`` (None: the limit that island ran out of),
        with all islands' counts at the last generation streamed."""
        self._final_results()
        objectives = self.objectives
        index, best = max(
            sorted(self._results.items()),
            key=lambda item: objectives.weighted(objectives.from_named(item[1].fitness)),
        )
        return self._level_result(best, stop or self._exhausted(index, best))

    def _exhausted(self, index: int, result: Result) -> Stop:
        """The limit of the level's budget an island ran out of. Its last epoch's own result
        may name the generation where that epoch was to end, though the island stopped there
        because its share of the evaluations was spent too: the level's limits decide."""
        state = self._state.islands[index].state
        if result.exhausted == Resource.SECONDS or state is None:
            return result.stop
        exhausted = self._spent(index, state)
        return result.stop if exhausted is None else Stop.budget(exhausted)

    def _level_result(self, island: Result, stop: Stop) -> Result:
        """The level's result, built from an island's: its best individual with ``stop``, the
        generation, evaluations, restarts and seconds of the last statistics record streamed
        (so that the results and the metrics agree), the history of the combined statistics,
        this process's level (a worker's copy has no file position), the level's seed and
        settings digest, and its solution shortened when ``output.optimize_seconds`` asks."""
        last = self.last_streamed
        if last is None:  # nothing streamed in this process (a resume that had nothing left)
            states = [i.state for i in self._state.islands if i.state is not None]
            evaluations = sum(s.evaluations for s in states)
            restarts = sum(s.restarts for s in states)
            counts = (self._state.generation, evaluations, restarts, self.seconds)
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
            (index, island.state)
            for index, island in enumerate(self._state.islands)
            if index not in self._results and island.state is not None
        ]
        if not missing:
            return
        if self.evaluator is None:
            raise RuntimeError("the results of islands resumed finished need an evaluator")
        tasks = [
            (
                self.config,
                EpochTask(  # the budget it ran out of is still out: the engine stops at once
                    seed=self.seeds[index],
                    state=state,
                    budget=Budget(
                        generations=self.budget.generations,
                        evaluations=self._share(index).evaluations,
                        seconds=state.seconds,
                        clock=self.budget.clock,
                    ),
                ),
            )
            for index, state in missing
        ]
        reports = results_in_order(self.evaluator.task_queue(run_epoch), tasks)
        for (index, _), report in zip(missing, reports):
            self._results[index] = report.result


def _generation(island: IslandState) -> int:
    """The last generation an island has run (-1: none)."""
    return -1 if island.state is None else island.state.generation


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
