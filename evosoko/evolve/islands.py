"""The island model: several populations evolved apart, trading their best individuals.

With ``ga.islands.count`` above 1, each island is an :class:`~evosoko.evolve.engine.Engine` of
``ga.population`` individuals with its own random generator. Islands advance in epochs of
``ga.islands.migration_every`` generations (an epoch ends at a multiple of it, or at the
generation budget); an epoch of one island is one task for the
evaluator's ``run_each``, so with the ``processes`` backend the islands evolve in the workers,
selection and variation included (a single population keeps those in the parent and can only
spread its evaluations). Between epochs, in the parent, each island sends copies of its best
``ga.islands.migrants`` individuals to the next island in a ring, where they replace the worst
ones (never a position the receiver already holds).

Between epochs an island is only its checkpoint (plain data, :meth:`Engine.checkpoint`), so
the same states give the same next states in this process or in a worker: a run is a function
of (level, configuration, seed) on either backend, and a run resumed from a checkpoint (taken
between epochs) continues exactly as the uninterrupted run.

Budgets: ``run.budget.generations`` counts the generations of each island;
``run.budget.evaluations`` is shared out among the islands; ``run.budget.seconds`` is the
level's wall-clock time. The level is solved when an island solves it; the outcome is that of
the first such island, with the evaluations and seconds of all islands.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evosoko.config import BudgetConfig, Config
from evosoko.errors import EvosokoError
from evosoko.evolve.checkpoint import ISLANDS_CHECKPOINT_KIND
from evosoko.evolve.engine import (
    CheckpointCallback,
    Engine,
    GenerationCallback,
    GenerationStats,
    LevelOutcome,
    _weighted,
)
from evosoko.evolve.evaluation import SerialEvaluator
from evosoko.evolve.fitness import Evaluation, FitnessFunction
from evosoko.sokoban.level import Level


@dataclass(frozen=True)
class EpochTask:
    """What an island needs for one epoch: plain data, sent to a worker as it is."""

    seed: int
    state: dict[str, Any] | None
    until_generation: int
    evaluations: int | None
    seconds: float | None
    initial_genomes: tuple[tuple[int, ...], ...] = ()


@dataclass
class EpochReport:
    """One island after an epoch: its state, the statistics of its generations, its outcome."""

    state: dict[str, Any]
    stats: list[GenerationStats]
    outcome: LevelOutcome


def run_epoch(level: Level, fitness_function: FitnessFunction, config: Config, task: EpochTask) -> EpochReport:
    """Evolve one island from ``task.state`` (None: a new population) to its epoch's end."""
    budget = BudgetConfig(
        generations=task.until_generation, evaluations=task.evaluations, seconds=task.seconds
    )
    island_config = config.model_copy(update={"run": config.run.model_copy(update={"budget": budget})})
    improve = None
    if config.hybrid.enabled and config.hybrid.memetic_every:
        from evosoko.evolve.hybrid import memetic_improver

        improve = memetic_improver(level, config)
    stats: list[GenerationStats] = []
    engine = Engine(
        level,
        island_config,
        SerialEvaluator.around(fitness_function, config.parallel.batch_size),
        seed=task.seed,
        initial_genomes=task.initial_genomes,
        improve=improve,
        on_generation=stats.append,
        resume_state=task.state,
    )
    outcome = engine.run()
    return EpochReport(engine.checkpoint(), stats, outcome)


def island_seed(seed: int, island: int) -> int:
    """The seed of one island's generator, derived from the level's seed."""
    digest = hashlib.sha256(f"evosoko-island:{seed}:{island}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class IslandModel:
    """Evolves ``ga.islands.count`` islands of one level on ``evaluator.run_each``."""

    def __init__(
        self,
        level: Level,
        config: Config,
        evaluator: Any,
        *,
        seed: int | None = None,
        initial_genomes: Sequence[Sequence[int]] = (),
        on_generation: GenerationCallback | None = None,
        on_checkpoint: CheckpointCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
        resume_state: dict[str, Any] | None = None,
    ) -> None:
        if not hasattr(evaluator, "run_each"):
            raise EvosokoError("islands need the serial or processes backend")
        self.level = level
        self.config = config
        self.evaluator = evaluator
        self.count = config.ga.islands.count
        base_seed = config.run.seed if seed is None else seed
        self.seeds = [island_seed(base_seed, i) for i in range(self.count)]
        self.initial_genomes = tuple(tuple(g) for g in initial_genomes)
        self.on_generation = on_generation
        self.on_checkpoint = on_checkpoint
        self.should_stop = should_stop
        self.states: list[dict[str, Any] | None] = [None] * self.count
        self.epochs = 0
        self._seconds_before = 0.0
        self._last_checkpoint_generation = 0
        if resume_state is not None:
            self._restore(resume_state)
        self._started = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Wall-clock seconds spent on this level, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    def run(self) -> LevelOutcome:
        """Evolve epochs until an island solves the level or every island is out of budget."""
        every = self.config.output.checkpoint_every
        while True:
            reports = self.evaluator.run_each(run_epoch, [(self.config, t) for t in self._tasks()])
            self.epochs += 1
            self.states = [report.state for report in reports]
            self._stream(reports)
            solved = [r.outcome for r in reports if r.outcome.solved]
            if solved:
                return self._outcome(solved[0], reports, "solved")
            if self.generation % self.config.ga.islands.migration_every == 0:
                self._migrate()
            if every and self.generation // every > self._last_checkpoint_generation // every:
                self._checkpoint()
            best = max(reports, key=lambda r: _weighted(r.outcome.best_fitness)).outcome
            if all(self._finished(r.outcome) for r in reports):
                return self._outcome(best, reports, best.stop_reason)
            if self.should_stop is not None and self.should_stop():
                self._checkpoint()
                return self._outcome(best, reports, "interrupted")

    # ---- epochs ---------------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        """The furthest generation any island has reached."""
        return max((s["generation"] for s in self.states if s is not None), default=0)

    def _tasks(self) -> list[EpochTask]:
        budget = self.config.run.budget
        step = self.config.ga.islands.migration_every
        remaining = None if budget.seconds is None else budget.seconds - self.seconds
        tasks = []
        for island, state in enumerate(self.states):
            generation = 0 if state is None else state["generation"]
            until = (generation // step + 1) * step  # epochs end at multiples of the step
            if budget.generations is not None:
                until = min(until, budget.generations)
            own_seconds = 0.0 if state is None else float(state["seconds"])
            tasks.append(
                EpochTask(
                    seed=self.seeds[island],
                    state=state,
                    until_generation=until,
                    evaluations=self._evaluation_share(island),
                    seconds=None if remaining is None else own_seconds + max(0.0, remaining),
                    initial_genomes=self.initial_genomes if state is None else (),
                )
            )
        return tasks

    def _evaluation_share(self, island: int) -> int | None:
        total = self.config.run.budget.evaluations
        if total is None:
            return None
        return total // self.count + (1 if island < total % self.count else 0)

    def _finished(self, outcome: LevelOutcome) -> bool:
        """Out of budget: evaluations, seconds, or the last generation (not just the epoch's)."""
        if outcome.stop_reason != "generations":
            return True
        limit = self.config.run.budget.generations
        return limit is not None and outcome.generations >= limit

    def _migrate(self) -> None:
        """Each island's best ``migrants`` replace the next island's worst (ring). Works on the
        checkpoints' plain member records (evaluation: solved, distance, length, keep, hash, gap)."""
        migrants = self.config.ga.islands.migrants
        if not migrants or self.count < 2:
            return
        populations = [list(s["population"]) for s in self.states]  # type: ignore[index]
        for island, state in enumerate(self.states):
            sender = sorted(populations[island - 1], key=self._rank)
            receiver = list(populations[island])
            held = {m["evaluation"][4] for m in receiver}
            incoming = [m for m in sender if m["evaluation"][4] not in held][:migrants]
            worst_first = sorted(range(len(receiver)), key=lambda i: self._rank(receiver[i]), reverse=True)
            for slot, member in zip(worst_first, incoming):
                receiver[slot] = member
            state["population"] = receiver  # type: ignore[index]

    def _rank(self, record: dict[str, Any]) -> tuple[float, ...]:
        """Sort key of a member record, best first: its weighted fitness, negated."""
        solved, distance, length, _, _, *gap = record["evaluation"]
        values = Evaluation(bool(solved), distance, length, 0, 0, sum(gap)).fitness_values(
            self.config.fitness.length_objective, gap_objective=self.config.ga.selection != "nsga2"
        )
        return tuple(-v for v in _weighted(values))

    # ---- reporting ------------------------------------------------------------------------------
    def _stream(self, reports: list[EpochReport]) -> None:
        """One combined statistics record per generation of the epoch, all islands together."""
        if self.on_generation is None:
            return
        generations = sorted({s.generation for r in reports for s in r.stats})
        latest: list[GenerationStats | None] = [None] * len(reports)
        by_island = [{s.generation: s for s in r.stats} for r in reports]
        for generation in generations:
            for island, stats in enumerate(by_island):
                latest[island] = stats.get(generation, latest[island])
            current = [s for s in latest if s is not None]
            self.on_generation(combined_stats(generation, current, self.seconds))

    def _checkpoint(self) -> None:
        self._last_checkpoint_generation = self.generation
        if self.on_checkpoint is not None:
            self.on_checkpoint(self.checkpoint())

    def checkpoint(self) -> dict[str, Any]:
        """The state of every island between two epochs, as JSON-able plain data."""
        states = [s for s in self.states if s is not None]
        return {
            "kind": ISLANDS_CHECKPOINT_KIND,
            "level": self.level.name,
            "generation": self.generation,
            "evaluations": sum(s["evaluations"] for s in states),
            "restarts": sum(s["restarts"] for s in states),
            "seconds": self.seconds,
            "epochs": self.epochs,
            "islands": self.states,
        }

    def _restore(self, data: dict[str, Any]) -> None:
        states = data.get("islands")
        if not isinstance(states, list) or len(states) != self.count:
            found = len(states) if isinstance(states, list) else "no"
            raise EvosokoError(
                f"the checkpoint holds {found} islands; the configuration has {self.count}"
            )
        if data.get("level") != self.level.name:
            raise EvosokoError(
                f"the checkpoint is of level {data.get('level')!r}, not {self.level.name!r}"
            )
        self.states = states
        self.epochs = int(data.get("epochs", 0))
        self._seconds_before = float(data.get("seconds", 0.0))
        self._last_checkpoint_generation = self.generation

    def _outcome(self, chosen: LevelOutcome, reports: list[EpochReport], reason: str) -> LevelOutcome:
        return replace(
            chosen,
            evaluations=sum(r.outcome.evaluations for r in reports),
            seconds=self.seconds,
            stop_reason=reason,
            restarts=sum(r.outcome.restarts for r in reports),
        )


def combined_stats(generation: int, islands: Sequence[GenerationStats], seconds: float) -> GenerationStats:
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
