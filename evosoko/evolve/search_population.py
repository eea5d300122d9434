r"""A population of searches: a GA whose individuals are push-fess settings.

On large levels the tuning of the feature-space search decides whether it solves a level at
all: on XSokoban screen 27 one setting of push-fess's knobs solves in 223,634 expansions where
the shipped one does not in 1,721,069 (60 CPU-seconds; docs/xsokoban.md, round 20). Here each
genome is a choice of those knobs (:data:`KNOBS`: the fields of
:class:`~evosoko.search.settings.FessSettings` that name their ``choices``, one gene per knob, an
index into its choices; the other fields are the run's ``[search.fess]``); its fitness is how far
a push-fess with those settings gets within a node budget: solved first, then the most goals a
frontier state of it has filled in packing order (FESS's packing feature), then the heuristic of
its closest frontier state (on screen 18 at 100,000 expansions the three settings of thirteen
that solve it all reach packing 9, as do three of the ten that do not; the closest heuristic
tells them apart no better than chance).

Generation 0 holds the shipped settings and distinct random ones. Every generation runs each
member's search afresh with a larger node budget (``first_nodes * growth ** generation``, at
most ``max_nodes``); the next keeps the ``elitism`` best and breeds the rest, all distinct, with
parts of the registry: a tournament among distinct members (``sampled_tournament``), with
probability ``crossover`` a uniform crossover (``uniform``), then one knob changed
(``one_gene``). ``evolve=False`` draws each new generation at random instead: the portfolio
that selection is measured against.

:class:`SearchPopulation` is a loop of :mod:`evosoko.evolve.loop` (``ask`` gives the genomes,
``tell`` their :class:`SearchOutcome`\ s, ``run`` runs the searches on its evaluator's tasks:
in this process or on the workers). Searches run under node budgets, so the same seed gives the
same generations serially and on any number of workers; the budget's seconds end the run
(cutting its last searches, the newest members' first: each generation lists its elites
first). They count on the budget's clock: wall seconds, or (searches run in this process) the
process's CPU seconds, the budget ``evosoko compare`` gives a search on a loaded machine.
Between generations :attr:`SearchPopulation.state` is its validated state, the checkpoint
(:class:`~evosoko.evolve.state.SearchesState`); a run restored from it goes on exactly as the
whole run. An interrupt does not wait for a generation's searches: they end at once, the
generation is dropped, and the checkpoint holds the one before it, so the resumed run breeds
and runs it again.
"""

from __future__ import annotations

import logging
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evosoko.budget import Budget
from evosoko.evolve.evaluation import Evaluator, SerialEvaluator
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.loop import (
    GENERATION_END,
    AskTellLoop,
    Generations,
    deadline_clock,
    loop_clock,
)
from evosoko.evolve.registry import crossovers, mutations, parent_selections
from evosoko.evolve.search_genomes import KNOBS, SearchOutcome, genome_of, outcome_of, settings_of
from evosoko.evolve.shortening import shortened
from evosoko.evolve.state import SearchesState, SearchMember
from evosoko.result import BestIndividual, GenerationStats, HallOfFameEntry, History, Result
from evosoko.search.clocks import Clock, end_searches_when
from evosoko.search.packing_order import packing_order
from evosoko.search.settings import FessSettings, settings_text
from evosoko.search.solver import solve
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Status, Stop

__all__ = [
    "KNOBS",
    "Member",
    "SearchOutcome",
    "SearchPopulation",
    "genome_of",
    "outcome_of",
    "run_member",
    "settings_of",
]


log = logging.getLogger(__name__)

UNREACHED = 1 << 30
"""The distance of a member whose search left no frontier (cut before it started, or its
space ran out)."""

FRONTIER_SAMPLE = 64
"""Frontier states a member's search returns to find its packing: the closest, then the best
of each other feature cell (closest first)."""

STOP_POLL_SECONDS = 0.1
"""How often the parent looks at ``should_stop`` while a generation's searches run in a pool."""

PARENTS, CROSSOVER, MUTATION = "sampled_tournament", "uniform", "one_gene"
"""The registry's parts a population of searches breeds with."""


def run_member(
    level: Level,
    genome: Sequence[int],
    nodes: int,
    deadline: float | None,
    base: FessSettings | None = None,
    clock: Clock = "wall",
) -> SearchOutcome:
    """One member's search: push-fess with its settings (``base`` with its knobs), ``nodes``
    expansions at most, ending by ``deadline`` on ``clock`` (:func:`deadline_clock`; None:
    no limit)."""
    seconds = None if deadline is None else deadline - deadline_clock(clock)()
    if seconds is not None and seconds <= 0:
        return SearchOutcome(UNREACHED, "", False, 0, 0, 0, Status.BUDGET)
    result = solve(
        level,
        "push-fess",
        node_limit=nodes,
        time_limit=seconds,
        clock=clock,
        partial=FRONTIER_SAMPLE,
        settings=settings_of(genome, base),
    )
    if result.solved and result.solution is not None:
        return SearchOutcome(
            0,
            result.solution,
            True,
            result.moves,
            result.pushes,
            result.expanded,
            result.status,
            level.box_count,
        )
    if not result.partial:  # its space ran out, or no time was left to start
        return SearchOutcome(UNREACHED, "", False, 0, 0, result.expanded, result.status)
    order = packing_order(level)
    closest = result.partial[0]
    return SearchOutcome(
        closest.h,
        closest.lurd,
        False,
        closest.moves,
        closest.pushes,
        result.expanded,
        result.status,
        max(order.packing(list(path.state.boxes)) for path in result.partial),
    )


def search_task(
    level: Level,
    _fitness: FitnessFunction,
    genome: Sequence[int],
    nodes: int,
    deadline: float | None,
    base: FessSettings | None = None,
    clock: Clock = "wall",
) -> SearchOutcome:
    """:func:`run_member` as a task of an evaluator (run where the level lives)."""
    return run_member(level, genome, nodes, deadline, base, clock)


@dataclass
class Member:
    """A genome and what its search did at its generation's budget."""

    genome: list[int]
    outcome: SearchOutcome

    @property
    def rank(self) -> tuple[int, int, int]:
        """See :attr:`SearchOutcome.rank`."""
        return self.outcome.rank

    def settings(self, base: FessSettings | None = None) -> FessSettings:
        """The settings its search ran with (``base``: the population's)."""
        return settings_of(self.genome, base)

    def describe(self, base: FessSettings | None = None) -> str:
        """Its settings as ``key=value`` words, those that differ from the defaults."""
        return settings_text(self.settings(base), "fess.")


class SearchPopulation(AskTellLoop[tuple[int, ...], SearchOutcome]):
    """The generational loop over search genomes for one level (see the module docstring).

    ``budget``: generations, evaluations (searches run) and seconds on its clock (``"cpu"``
    only with the searches run in this process: no evaluator or a serial one).
    ``evaluator``: where :meth:`run` runs the searches (its tasks: a worker pool's, or this
    process's by default). ``on_generation(stats, members)`` sees every generation once its
    searches ran (generation 0 too); ``on_checkpoint(state)`` gets the state as JSON every
    ``checkpoint_every`` generations and when ``should_stop`` ends the run (an interrupt,
    resumable; it also ends the searches running then); ``stop_requested`` ends it without a
    checkpoint (a callback's stop). ``base``: the push-fess settings every member starts
    from (the run's ``[search.fess]``; the genome sets its knobs), its own knobs generation 0's
    first member. ``state``: a checkpoint to continue from. ``settings`` (the run's settings
    digest) and ``seed`` go into the level's result, whose solution is shortened for up to
    ``optimize_seconds`` (0: not shortened).
    """

    def __init__(
        self,
        level: Level,
        *,
        population: int = 8,
        first_nodes: int = 100_000,
        growth: float = 2.0,
        max_nodes: int = 1_000_000,
        elitism: int = 2,
        tournament_size: int = 2,
        crossover: float = 0.5,
        evolve: bool = True,
        seed: int = 0,
        base: FessSettings | None = None,
        budget: Budget | None = None,
        evaluator: Evaluator | None = None,
        should_stop: Callable[[], bool] | None = None,
        stop_requested: Callable[[], bool] | None = None,
        on_generation: Callable[[GenerationStats, list[Member]], None] | None = None,
        on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
        checkpoint_every: int = 0,
        state: SearchesState | None = None,
        settings: str | None = None,
        optimize_seconds: float = 0.0,
    ) -> None:
        super().__init__()
        self.level = level
        self.seed = seed
        self.settings = settings
        self.optimize_seconds = optimize_seconds
        self.population = population
        self.first_nodes, self.growth, self.max_nodes = first_nodes, growth, max_nodes
        self.elitism = elitism
        self.crossover = crossover
        self.evolve = evolve
        self.base = base or FessSettings()
        self.budget = budget or Budget()
        self._clock = loop_clock(self.budget, evaluator)
        self.evaluator = evaluator
        self.should_stop = should_stop
        self.stop_requested = stop_requested
        self.on_generation = on_generation
        self.on_checkpoint = on_checkpoint
        self.checkpoint_every = checkpoint_every
        self.generation = self.evaluations = 0
        self.members: list[Member] = []
        self.best: Member | None = None
        """The best member of any generation so far (the solver once one solves)."""
        self.history = History()
        """The statistics of every generation so far."""
        self.rng = random.Random(seed)
        self._started, self._seconds_before = self._clock(), 0.0
        self._before: tuple[int, tuple, float] | None = None
        context = {
            "rng": self.rng,
            "key": _key,
            "gene_choices": tuple(len(choices) for choices in KNOBS.values()),
        }
        self._select = parent_selections.get(PARENTS).bind(
            {"tournament_size": tournament_size}, context
        )
        self._mate = crossovers.get(CROSSOVER).bind({"swap": 0.5}, context)
        self._mutate = mutations.get(MUTATION).bind({}, context)
        if state is not None:
            self.restore(state)

    # ---- the loop --------------------------------------------------------------------------------
    def _generations(self) -> Generations:
        if not self.members:
            genomes = self.first_genomes()
            outcomes = yield [tuple(g) for g in genomes]
            self._take(genomes, outcomes)
            yield GENERATION_END
        while (stop := self.stop_reason()) is None:
            self._before = (self.generation, self.rng.getstate(), self.elapsed())
            self.generation += 1
            genomes = self.next_genomes()
            outcomes = yield [tuple(g) for g in genomes]
            self._take(genomes, outcomes)
            if self.checkpoint_every and self.generation % self.checkpoint_every == 0:
                self._checkpoint()
            yield GENERATION_END
        return stop

    def _take(self, genomes: list[list[int]], outcomes: Sequence[SearchOutcome] | None) -> None:
        """The generation's members, from its genomes and what their searches did."""
        assert outcomes is not None
        self.evaluations += len(genomes)
        self.members = [Member(list(g), o) for g, o in zip(genomes, outcomes, strict=True)]
        self.record()

    def stop_reason(self) -> Stop | None:
        """Why the loop ends now (solved, a budget limit, an interrupt), or None."""
        if self.best is not None and self.best.outcome.solved:
            return Stop(Status.SOLVED)
        spent = {"generations": self.generation, "evaluations": self.evaluations}
        exhausted = self.budget.exhausted(**spent, seconds=self.elapsed())
        if exhausted is not None:
            return Stop.budget(exhausted)
        if self.stop_requested is not None and self.stop_requested():
            return Stop(Status.STOPPED)
        if self.should_stop is not None and self.should_stop():
            self._checkpoint()
            return Stop(Status.INTERRUPTED)
        return None

    def interrupted_during_evaluation(self) -> None:
        """Drop the generation an interrupt cut: the state after the one before again, the
        seconds spent since not counted (a resumed run has the time the whole run had)."""
        assert self._before is not None
        log.info(
            "level %s: interrupted during generation %d; its searches were ended and it runs "
            "again on resume",
            self.level.name,
            self.generation,
        )
        generation, rng_state, seconds = self._before
        self.generation = generation
        self.rng.setstate(rng_state)
        self._seconds_before, self._started = seconds, self._clock()
        self._end(Stop(Status.INTERRUPTED))
        self._checkpoint()

    def nodes(self) -> int:
        """This generation's node budget per search."""
        return int(min(self.first_nodes * self.growth**self.generation, self.max_nodes))

    def elapsed(self) -> float:
        """Seconds spent on the budget's clock, across resumes."""
        return self._seconds_before + self._clock() - self._started

    def evaluate(self, genomes: list[tuple[int, ...]]) -> list[SearchOutcome] | None:
        """Each genome's search at this generation's node budget, on the evaluator's tasks
        (here without one), within the seconds left; None when ``should_stop`` ended them
        first (never in generation 0). Genomes come best-ranked first (the elites), so when
        the time runs out the searches cut short are the newest."""
        left = None if self.budget.seconds is None else self.budget.seconds - self.elapsed()
        clock = self.budget.clock
        deadline = None if left is None else deadline_clock(clock)() + left
        if self.evaluator is None:
            self.evaluator = SerialEvaluator.tasks_only(self.level)
        queue = self.evaluator.task_queue(search_task)
        for position, genome in enumerate(genomes):
            queue.submit(position, genome, self.nodes(), deadline, self.base, clock)
        stop = self.should_stop if self.members else None
        outcomes: dict[Any, SearchOutcome] = {}
        previous = end_searches_when(stop)  # a search running here ends at its next check
        try:
            while len(outcomes) < len(genomes):
                finished = queue.next_result(timeout=STOP_POLL_SECONDS)
                if finished is not None:
                    key, outcome = finished
                    outcomes[key] = outcome  # type: ignore[assignment]
                if stop is not None and stop():
                    queue.end_running()
                    return None
        finally:
            end_searches_when(previous)
        return [outcomes[position] for position in range(len(genomes))]

    def ranked(self) -> list[Member]:
        """This generation's members, best first (:attr:`SearchOutcome.rank`); ties keep their
        order."""
        return sorted(self.members, key=lambda member: member.rank)

    def record(self) -> None:
        """Update the best member and stream this generation's statistics."""
        leader = self.ranked()[0]
        if self.best is None or leader.rank < self.best.rank:
            self.best = leader
        stats = self.stats()
        self.history.append(stats)
        if self.on_generation is not None:
            self.on_generation(stats, self.members)

    def stats(self) -> GenerationStats:
        """This generation as the GA's statistics: distances of the searches that left a
        frontier (the best: the best-ranked member's), ``best_length`` its pushes."""
        leader = self.ranked()[0]
        reached = [m.outcome.distance for m in self.members if m.outcome.distance < UNREACHED]
        return GenerationStats(
            generation=self.generation,
            evaluations=self.evaluations,
            best_distance=float(min(leader.outcome.distance, UNREACHED)),
            mean_distance=float(statistics.fmean(reached)) if reached else float(UNREACHED),
            std_distance=float(statistics.pstdev(reached)) if reached else 0.0,
            best_length=leader.outcome.pushes,
            solved=leader.outcome.solved,
            diversity=len({tuple(m.genome) for m in self.members}) / len(self.members),
            restarts=0,
            cache_hits=0,
            seconds=round(self.elapsed(), 3),
        )

    def result(self) -> Result:
        """The level's result (:func:`searches_result`)."""
        if self.stop is None:
            raise RuntimeError("the loop has not stopped yet")
        return searches_result(self.level, self, self.stop)

    # ---- breeding --------------------------------------------------------------------------------
    def random_genome(self) -> list[int]:
        return [self.rng.randrange(len(choices)) for choices in KNOBS.values()]

    def first_genomes(self) -> list[list[int]]:
        """The base settings, then distinct random ones."""
        return self._fill([genome_of(self.base)], self.random_genome)

    def next_genomes(self) -> list[list[int]]:
        """The next generation: the elites and bred children, or (``evolve=False``) new random
        genomes."""
        if not self.evolve:
            return self._fill([], self.random_genome)
        elites = [list(member.genome) for member in self.ranked()[: self.elitism]]
        return self._fill(elites, self.child)

    def child(self) -> list[int]:
        """A child of two tournament winners: with probability ``crossover`` the first child of
        a uniform crossover of the second winner with the first (else the first winner), then
        one knob changed."""
        first, second = (list(m.genome) for m in self._select(self.members, 2))
        genome = first
        if self.rng.random() < self.crossover:
            genome, _ = self._mate(second, first)
        (genome,) = self._mutate(genome)
        return genome

    def _fill(self, genomes: list[list[int]], make: Callable[[], list[int]]) -> list[list[int]]:
        """``genomes`` topped up with distinct new ones from ``make`` to the population size
        (repeats allowed only once distinct ones are hard to find)."""
        seen = {tuple(genome) for genome in genomes}
        tries = 0
        while len(genomes) < self.population:
            genome = make()
            tries += 1
            if tuple(genome) in seen and tries < 100 * self.population:
                continue
            seen.add(tuple(genome))
            genomes.append(genome)
        return genomes

    # ---- state -----------------------------------------------------------------------------------
    def _checkpoint(self) -> None:
        if self.on_checkpoint is not None:
            self.on_checkpoint(self._snapshot().to_json())

    @property
    def state(self) -> SearchesState:
        """The state after this generation: the checkpoint (defined between generations)."""
        if not self.between_generations or not self.members:
            raise RuntimeError("the state is defined between generations")
        return self._snapshot()

    def _snapshot(self) -> SearchesState:
        return SearchesState.model_construct(
            kind="searches",
            version=3,
            level=self.level.name,
            generation=self.generation,
            evaluations=self.evaluations,
            restarts=0,
            seconds=self.elapsed(),
            members=tuple(_saved(member) for member in self.members),
            best=None if self.best is None else _saved(self.best),
            history=tuple(self.history),
            rng=self.rng.getstate(),
        )

    def restore(self, state: SearchesState) -> None:
        """Continue from ``state``."""
        self.generation = state.generation
        self.evaluations = state.evaluations
        self.members = [_member(saved) for saved in state.members]
        self.best = None if state.best is None else _member(state.best)
        self.history = History(state.history)
        self.rng.setstate(state.rng)
        self._seconds_before = state.seconds
        self._started = self._clock()


def _key(member: Member) -> tuple[int, ...]:
    """Selection's key (larger is better): the rank negated."""
    return tuple(-value for value in member.rank)


def _saved(member: Member) -> SearchMember:
    return SearchMember.model_construct(genome=tuple(member.genome), outcome=tuple(member.outcome))


def _member(saved: SearchMember) -> Member:
    return Member(list(saved.genome), outcome_of(saved.outcome))


def searches_result(level: Level, population: SearchPopulation, stop: Stop) -> Result:
    """The level's result: the best member's path, replay-verified (its solution when it
    solved, shortened when the population's ``optimize_seconds`` asks); ``details`` names its
    settings."""
    best = population.best
    if best is None:
        raise RuntimeError(f"level {level.name}: the population of searches ran no search")
    verification = verify_solution(level, best.outcome.lurd)
    if not verification.valid or verification.solved != best.outcome.solved:
        raise RuntimeError(
            f"level {level.name}: the best search's path does not replay as it reported"
        )
    solved = best.outcome.solved
    played = (verification.lurd, verification.moves, verification.pushes)
    if solved and population.optimize_seconds:
        short = shortened(level, verification.lurd, population.optimize_seconds)
        played = (short.lurd, short.moves, short.pushes)
    history = population.history
    last = history[-1] if history else None
    return Result(
        level_name=level.name,
        solver="ga",
        status=stop.status,
        exhausted=stop.exhausted,
        solution=played[0] if solved else None,
        moves=played[1] if solved else None,
        pushes=played[2] if solved else None,
        cost=population.evaluations,
        unit="evaluations",
        seconds=round(population.elapsed() if last is None else last.seconds, 3),
        index=level.index,
        generations=population.generation,
        best=BestIndividual(
            lurd=played[0],
            distance=best.outcome.distance,
            moves=played[1],
            pushes=played[2],
            solved=solved,
            genes=list(best.genome),
        ),
        fitness={"distance": float(best.outcome.distance), "packing": float(best.outcome.packing)},
        history=history,
        hall_of_fame=[
            HallOfFameEntry(list(m.genome), m.outcome.solved, m.outcome.distance, m.outcome.pushes)
            for m in population.ranked()
        ],
        details={
            "settings": best.settings(population.base).model_dump(mode="json"),
            "expanded": best.outcome.expanded,
        },
        level=level,
        seed=population.seed,
        settings=population.settings,
    )
