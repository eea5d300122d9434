"""A population of searches: a GA whose individuals are push-fess settings.

On large levels the tuning of the feature-space search decides whether it solves a level at
all: on XSokoban screen 27 one setting of push-fess's knobs solves in 223,634 expansions where
the shipped one does not in 1,721,069 (60 CPU-seconds; docs/xsokoban.md, round 20). Here each genome is a
choice of those knobs (:data:`KNOBS`, one gene per knob, an index into its choices); its
fitness is how far a push-fess with those settings gets within a node budget: solved first,
then the most goals a frontier state of it has filled in packing order (FESS's packing
feature), then the heuristic of its closest frontier state (on screen 18 at 100,000
expansions the three settings of thirteen that solve it all reach packing 9, as do three of
the ten that do not; the closest heuristic tells them apart no better than chance).

Generation 0 holds the shipped settings and distinct random ones. Every generation runs each
member's search afresh with a larger node budget (``first_nodes * growth ** generation``, at
most ``max_nodes``); the next keeps the ``elitism`` best and breeds the rest by tournaments,
uniform crossover and a one-knob mutation, all distinct. ``evolve=False`` draws each new
generation at random instead: the portfolio that selection is measured against.

Searches run under node budgets, so the same seed gives the same generations serially and on
any number of workers; a wall-clock limit ends the run (cutting its last searches, the newest
members' first: each generation lists its elites first). The state after each generation is JSON-able
(:meth:`SearchPopulation.state`); a run restored from it goes on exactly as the whole run. An
interrupt does not wait for a generation's searches: they end at once, the generation is dropped,
and the checkpoint holds the one before it, so the resumed run breeds and runs it again.
"""

from __future__ import annotations

import logging
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evosoko.budget import Budget
from evosoko.evolve.checkpoint import SEARCHES_CHECKPOINT_KIND
from evosoko.result import GenerationStats, History
from evosoko.search.clocks import end_searches_when
from evosoko.search.fess_settings import FessSettings, solve_fess
from evosoko.search.packing_order import packing_order
from evosoko.sokoban.level import Level
from evosoko.status import Status, Stop

__all__ = [
    "KNOBS",
    "Member",
    "SearchOutcome",
    "SearchPopulation",
    "genome_of",
    "run_member",
    "settings_of",
]

KNOBS: dict[str, tuple] = {
    "weight": (2.0, 3.0, 5.0),
    "alternate": (2, 3, 4, 6),
    "room_cap": (0, 1, 2),
    "corral_deadlocks": (0, 200, 1000),
    "pack_macros": (0, 2),
    "cluster_deadlocks": (0, 1 << 14),
    "connectivity_limit": (4, 8),
    "cell_weights": ((-1, -1), (1, 1), (0, 1), (1, 3)),
}
"""Each knob of :class:`~evosoko.search.fess_settings.FessSettings` a genome sets, with the
values its gene chooses from (the shipped value among them)."""

log = logging.getLogger(__name__)

UNREACHED = 1 << 30
"""The distance of a member whose search left no frontier (cut before it started, or its
space ran out)."""

FRONTIER_SAMPLE = 64
"""Frontier states a member's search returns to find its packing: the closest, then the best
of each other feature cell (closest first)."""

STOP_POLL_SECONDS = 0.1
"""How often the parent looks at ``should_stop`` while a generation's searches run in a pool."""


def settings_of(genome: Sequence[int]) -> FessSettings:
    """The push-fess settings a genome chooses."""
    if len(genome) != len(KNOBS):
        raise ValueError(f"a search genome has {len(KNOBS)} genes, not {len(genome)}")
    return FessSettings(**{k: v[g] for (k, v), g in zip(KNOBS.items(), genome, strict=True)})


def genome_of(settings: FessSettings) -> list[int]:
    """The genome of ``settings`` (each value must be one of its knob's choices)."""
    return [choices.index(getattr(settings, knob)) for knob, choices in KNOBS.items()]


class SearchOutcome(NamedTuple):
    """What one member's search did: ``distance`` (the heuristic of its closest frontier
    state; 0 when solved), the LURD path there (the solution when solved), its counts, and
    ``packing``: the most goals filled in packing order by a frontier state it left (all of
    them when solved)."""

    distance: int
    lurd: str
    solved: bool
    moves: int
    pushes: int
    expanded: int
    status: str
    packing: int = 0

    @property
    def rank(self) -> tuple[int, int, int]:
        """Smaller is better: solved first, then more packing, then a lower distance."""
        return (0 if self.solved else 1, -self.packing, self.distance)


def run_member(
    level: Level, genome: Sequence[int], nodes: int, deadline: float | None
) -> SearchOutcome:
    """One member's search: push-fess with its settings, ``nodes`` expansions at most, ending
    by ``deadline`` (a ``time.time()``; None: no limit)."""
    seconds = None if deadline is None else deadline - time.time()
    if seconds is not None and seconds <= 0:
        return SearchOutcome(UNREACHED, "", False, 0, 0, 0, Status.BUDGET)
    result = solve_fess(
        level, settings_of(genome), node_limit=nodes, time_limit=seconds, partial=FRONTIER_SAMPLE
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


@dataclass
class Member:
    """A genome and what its search did at its generation's budget."""

    genome: list[int]
    outcome: SearchOutcome

    @property
    def rank(self) -> tuple[int, int, int]:
        """See :attr:`SearchOutcome.rank`."""
        return self.outcome.rank

    @property
    def settings(self) -> FessSettings:
        return settings_of(self.genome)


@dataclass
class SearchPopulation:
    """The generational loop over search genomes for one level (see the module docstring).

    ``budget``: generations, evaluations (searches run) and wall-clock seconds.
    ``submit(task, args)`` runs a task elsewhere and returns a future (a worker pool's
    :meth:`~evosoko.evolve.evaluation.ProcessPool.submit`); None runs each search here.
    ``end_running(futures)`` ends submitted searches early (the pool's
    :meth:`~evosoko.evolve.evaluation.ProcessPool.end_running`), so that an interrupt ends a
    generation at once (without it, the generation's searches finish first).
    ``on_generation(stats, members)`` sees every generation once its searches ran (generation
    0 too); ``on_checkpoint(state)`` gets :meth:`state` every ``checkpoint_every``
    generations and when ``should_stop`` ends the run (an interrupt, resumable);
    ``stop_requested`` ends it without a checkpoint (a callback's stop).
    """

    level: Level
    population: int = 8
    first_nodes: int = 100_000
    growth: float = 2.0
    max_nodes: int = 1_000_000
    elitism: int = 2
    tournament_size: int = 2
    crossover: float = 0.5
    evolve: bool = True
    seed: int = 0
    budget: Budget = field(default_factory=Budget)
    submit: Callable[[Callable, tuple], Future | None] | None = None
    end_running: Callable[[list[Future]], None] | None = None
    should_stop: Callable[[], bool] | None = None
    stop_requested: Callable[[], bool] | None = None
    on_generation: Callable[[GenerationStats, list[Member]], None] | None = None
    on_checkpoint: Callable[[dict[str, Any]], None] | None = None
    checkpoint_every: int = 0
    generation: int = 0
    evaluations: int = 0
    members: list[Member] = field(default_factory=list)
    best: Member | None = None
    """The best member of any generation so far (the solver once one solves)."""
    history: History = field(default_factory=History)
    """The statistics of every generation so far."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._started = time.perf_counter()
        self._seconds_before = 0.0

    # ---- the loop --------------------------------------------------------------------------------
    def run(self) -> Stop:
        """Run generations until one solves, the budget ends or ``should_stop``; the reason."""
        if not self.members:
            self.members = self.evaluate(self.first_genomes())
            self.record()
        while (stop := self.stop_reason()) is None:
            before = (self.generation, self.rng.getstate(), self.elapsed())
            self.generation += 1
            members = self.evaluate_unless_stopped(self.next_genomes())
            if members is None:
                self._back_to(*before)
                self._checkpoint()
                return Stop(Status.INTERRUPTED)
            self.members = members
            self.record()
            if self.checkpoint_every and self.generation % self.checkpoint_every == 0:
                self._checkpoint()
        return stop

    def _back_to(self, generation: int, rng_state: tuple, seconds: float) -> None:
        """Drop the generation an interrupt cut: the state after ``generation`` again, the
        seconds spent since not counted (a resumed run has the time the whole run had)."""
        log.info(
            "level %s: interrupted during generation %d; its searches were ended and it runs "
            "again on resume",
            self.level.name,
            self.generation,
        )
        self.generation = generation
        self.rng.setstate(rng_state)
        self._seconds_before = seconds
        self._started = time.perf_counter()

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

    def nodes(self) -> int:
        """This generation's node budget per search."""
        return int(min(self.first_nodes * self.growth**self.generation, self.max_nodes))

    def elapsed(self) -> float:
        """Wall-clock seconds spent, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    def evaluate(self, genomes: list[list[int]]) -> list[Member]:
        """Members of ``genomes``, each search run at this generation's node budget (in the pool
        when there is one), within the seconds left. Genomes come best-ranked first (the
        elites), so when the time runs out the searches cut short are the newest."""
        members = self._evaluate(genomes, stop=None)
        assert members is not None  # without a stop check every search runs to its end
        return members

    def evaluate_unless_stopped(self, genomes: list[list[int]]) -> list[Member] | None:
        """As :meth:`evaluate`, but None when ``should_stop`` ended the searches before all
        had finished."""
        return self._evaluate(genomes, stop=self.should_stop)

    def _evaluate(
        self, genomes: list[list[int]], stop: Callable[[], bool] | None
    ) -> list[Member] | None:
        left = None if self.budget.seconds is None else self.budget.seconds - self.elapsed()
        deadline = None if left is None else time.time() + left
        tasks = [(self.level, genome, self.nodes(), deadline) for genome in genomes]
        outcomes = _run_here(tasks, stop) if self.submit is None else self._run_in_pool(tasks, stop)
        if outcomes is None:
            return None
        self.evaluations += len(tasks)
        return [Member(list(g), o) for g, o in zip(genomes, outcomes, strict=True)]

    def _run_in_pool(
        self, tasks: list[tuple], stop: Callable[[], bool] | None
    ) -> list[SearchOutcome] | None:
        """Each task's outcome, run by ``submit``; None when ``stop()`` came true first (the
        searches still running ended by ``end_running``)."""
        assert self.submit is not None
        futures = []
        for task in tasks:
            future = self.submit(run_member, task)
            if future is None:
                raise RuntimeError("the worker pool broke while the searches ran")
            futures.append(future)
        if stop is not None and self.end_running is not None:
            while wait(futures, timeout=STOP_POLL_SECONDS).not_done:
                if stop():
                    self.end_running(futures)
                    return None
        return [future.result() for future in futures]

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

    # ---- breeding --------------------------------------------------------------------------------
    def random_genome(self) -> list[int]:
        return [self.rng.randrange(len(choices)) for choices in KNOBS.values()]

    def first_genomes(self) -> list[list[int]]:
        """The shipped settings, then distinct random ones."""
        return self._fill([genome_of(FessSettings.shipped())], self.random_genome)

    def next_genomes(self) -> list[list[int]]:
        """The next generation: the elites and bred children, or (``evolve=False``) new random
        genomes."""
        if not self.evolve:
            return self._fill([], self.random_genome)
        elites = [list(member.genome) for member in self.ranked()[: self.elitism]]
        return self._fill(elites, self.child)

    def child(self) -> list[int]:
        """A child of two tournament winners: uniform crossover, then one knob changed."""
        first, second = self._tournament(), self._tournament()
        if self.rng.random() < self.crossover:
            genome = [a if self.rng.random() < 0.5 else b for a, b in zip(first, second)]
        else:
            genome = list(first)
        knob = self.rng.randrange(len(KNOBS))
        choices = len(list(KNOBS.values())[knob])
        genome[knob] = (genome[knob] + 1 + self.rng.randrange(choices - 1)) % choices
        return genome

    def _tournament(self) -> list[int]:
        contestants = self.rng.sample(self.members, min(self.tournament_size, len(self.members)))
        return list(min(contestants, key=lambda member: member.rank).genome)

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

    # ---- state -------------------------------------------------------------------------------------
    def _checkpoint(self) -> None:
        if self.on_checkpoint is not None:
            self.on_checkpoint(self.state())

    def state(self) -> dict[str, Any]:
        """JSON-able state after this generation (:meth:`restore` goes on from it)."""
        return {
            "kind": SEARCHES_CHECKPOINT_KIND,
            "level": self.level.name,
            "generation": self.generation,
            "evaluations": self.evaluations,
            "restarts": 0,
            "seconds": self.elapsed(),
            "members": [_member_json(member) for member in self.members],
            "best": None if self.best is None else _member_json(self.best),
            "history": [stats.as_dict() for stats in self.history],
            "rng": _rng_state(self.rng),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`state`."""
        self.generation = int(state["generation"])
        self.evaluations = int(state["evaluations"])
        self.members = [_member_from(data) for data in state["members"]]
        self.best = None if state["best"] is None else _member_from(state["best"])
        self.history = History(GenerationStats.from_dict(data) for data in state["history"])
        self.rng.setstate(_rng_from(state["rng"]))
        self._seconds_before = float(state["seconds"])
        self._started = time.perf_counter()


def _run_here(tasks: list[tuple], stop: Callable[[], bool] | None) -> list[SearchOutcome] | None:
    """Each task's outcome, run in this process; None when ``stop()`` came true first (the
    search then running ends at its next time check)."""
    outcomes = []
    previous = end_searches_when(stop)
    try:
        for task in tasks:
            outcomes.append(run_member(*task))
            if stop is not None and stop():
                return None
    finally:
        end_searches_when(previous)
    return outcomes


def _member_json(member: Member) -> dict[str, Any]:
    return {"genome": list(member.genome), "outcome": list(member.outcome)}


def _member_from(data: dict[str, Any]) -> Member:
    return Member(list(data["genome"]), SearchOutcome(*data["outcome"]))


def _rng_state(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from(data: list) -> tuple:
    version, internal, gauss = data
    return (version, tuple(internal), gauss)


def state_problem(data: Any) -> str | None:
    """What is wrong with a checkpoint ``data`` of :meth:`SearchPopulation.state` (None:
    nothing): a damaged or edited file is refused before a run resumes from it."""
    try:
        if not isinstance(data, dict):
            return "it is not an object"
        for key in ("generation", "evaluations", "restarts"):
            value = data.get(key)
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                return f"{key} = {value!r} is not a count"
        if not isinstance(data.get("seconds"), (int, float)) or data["seconds"] < 0:
            return f"seconds = {data.get('seconds')!r} is not a duration"
        members = data.get("members")
        if not isinstance(members, list) or not members:
            return "members is not a list of searches"
        for number, member in enumerate([*members, *([data["best"]] if data.get("best") else [])]):
            _member_from(member)
            settings_of(member["genome"])  # a gene past its knob's choices fails here
            if any(not isinstance(g, int) or g < 0 for g in member["genome"]):
                return f"member {number} has a gene that is not a choice"
        History(GenerationStats.from_dict(stats) for stats in data["history"])
        random.Random().setstate(_rng_from(data["rng"]))
    except (KeyError, TypeError, ValueError, IndexError):
        return "it is not the state of a population of searches written by evosoko"
    return None
