"""The level GA on the GA's ask/tell protocol: boards out, certified scores in, survivors kept.

:class:`LevelEvolution` is an :class:`~evosoko.evolve.loop.AskTellLoop` over boards: each
generation asks for the boards to score (the first population, then children: parents chosen
by the scheme's parent selection, recombined and mutated by the registered level operators,
every child repaired), takes their scores (:class:`~evosoko.levelgen.certificate.Scored`, from
a :class:`~evosoko.levelgen.scoring.Scorer` on any backend, or from whoever drives
:meth:`~LevelEvolution.tell`), drops the infeasible ones and lets the scheme's survival choose
the next population: the GA's own (mu + lambda), tournaments, NSGA-II or the MAP-Elites archive
(:mod:`evosoko.evolve.builtins`). It stops before a generation once the budget of
``[levels.budget]`` is spent (generations after the first population, evaluations, CPU seconds
of certificates), a listener asks to or ``should_stop()`` says so (Ctrl-C). Between
generations its :attr:`~LevelEvolution.state` (:class:`~evosoko.levelgen.state.LevelsState`)
is the checkpoint: a run restored from it asks for the same boards as the run that wrote it.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any, Protocol

from evosoko.budget import Budget
from evosoko.evolve.individuals import genome_class
from evosoko.evolve.loop import GENERATION_END, AskTellLoop, Generations
from evosoko.evolve.registry import Operator, parent_selections, survivals
from evosoko.evolve.state import STATE_VERSION
from evosoko.levelgen.certificate import Scored
from evosoko.levelgen.config import LevelsSettings
from evosoko.levelgen.repair import repair
from evosoko.levelgen.scoring import Scorer
from evosoko.levelgen.space import BOX, PLAYER, Genes, LevelSpace
from evosoko.levelgen.starts import initial_genomes
from evosoko.levelgen.state import LevelMember, LevelsState, genes_from_text, genes_to_text
from evosoko.result import Result
from evosoko.status import Status, Stop

MAX_REMUTATIONS = 8
"""Mutations tried on a child whose repaired board is still one of its parents'."""


@dataclass(frozen=True)
class LevelParts:
    """The registered parts a configuration names, with their parameters bound."""

    mutation: Callable[..., Any]
    crossover: Callable[..., Any]
    parents: Callable[..., Any]
    survival: Callable[..., Any]
    weights: tuple[float, ...]


def level_parts(settings: LevelsSettings, space: LevelSpace, rng: random.Random) -> LevelParts:
    """Resolve and bind the parts of ``settings`` (the context: ``rng``, ``space``, the
    ranking ``key`` and duplicate ``identity``)."""
    context = {"rng": rng, "space": space, "key": attrgetter("fitness"), "identity": _identity}
    parents_name, survival_name = settings.scheme()
    parents, survival = parent_selections.get(parents_name), survivals.get(survival_name)
    mutation, crossover = settings.mutation.operator, settings.crossover.operator
    return LevelParts(
        mutation=mutation.bind(settings.mutation.params, context),
        crossover=crossover.bind(settings.crossover.params, context),
        parents=parents.bind(_selection_params(parents, settings), context),
        survival=survival.bind(_selection_params(survival, settings), context),
        weights=tuple(1.0 if table.maximizes else -1.0 for table in settings.objective),
    )


def _selection_params(operator: Operator, settings: LevelsSettings) -> dict[str, Any]:
    """A selection's parameters from ``[levels]`` (``tournament_size``, ``elitism``, ...)."""
    return {name: getattr(settings, name) for name in operator.params.model_fields}


def _identity(individual: Any) -> str:
    """Duplicate identity of a level individual: its puzzle's key."""
    return individual.evaluation.key


class GenerationListener(Protocol):
    """What sees each generation once its scores are in: ``on_generation(evolution)``, which
    returns True to stop the run (the evolution's :attr:`~LevelEvolution.state` is then the
    generation's checkpoint)."""

    def on_generation(self, evolution: LevelEvolution) -> bool | None: ...


class LevelEvolution(AskTellLoop[Genes, Scored]):
    """The level GA over one configuration (see the module docstring); :meth:`run` it with a
    ``scorer``, or drive it with :meth:`ask` and :meth:`tell`.

    ``state``: a checkpoint to continue from; ``file_levels``: the levels of ``init_levels``;
    ``listeners`` see every generation once its scores are in (one returning True stops the
    run); ``should_stop()`` (Ctrl-C) is asked before each generation and, by the scorer, after
    each certificate.
    """

    def __init__(
        self,
        settings: LevelsSettings,
        *,
        scorer: Scorer | None = None,
        state: LevelsState | None = None,
        file_levels: Sequence[Any] = (),
        listeners: Iterable[GenerationListener] = (),
        should_stop: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.space = settings.space()
        self.scorer = scorer
        self.file_levels = list(file_levels)
        self.listeners = list(listeners)
        self.should_stop = should_stop
        budget = settings.budget
        self.budget = Budget(budget.generations, budget.evaluations, budget.seconds)
        self.rng = random.Random(settings.seed)
        self.parts = level_parts(settings, self.space, self.rng)
        self.individual = genome_class(self.parts.weights)
        self.population: list = []
        self.generation = 0  # the generation being scored, or the last one scored
        self.evaluations = 0
        self.certifications = 0  # distinct puzzles certified
        self.cpu_seconds = 0.0  # their CPU seconds
        self.best: Any = None  # the best individual so far (lexicographic on the objectives)
        self.feasible = 0  # feasible boards among those of the last generation
        self._seconds_before, self._started = 0.0, time.perf_counter()
        self._pending: list[Genes] | None = None  # boards asked, not told yet
        self._before: tuple[int, tuple] | None = None  # generation and rng before asking
        if state is not None:
            self._restore(state)

    @property
    def scored(self) -> int:
        """Generations scored so far, the first population's included."""
        return self.generation + 1 if self.evaluations else 0

    @property
    def seconds(self) -> float:
        """Wall-clock seconds of the loop, across resumes."""
        return self._seconds_before + time.perf_counter() - self._started

    # ---- the loop -----------------------------------------------------------------------------
    def _generations(self) -> Generations:
        """A generation's boards (the first population, then children) until a stop."""
        self._started = time.perf_counter()
        while True:
            exhausted = self._exhausted()
            if exhausted is not None:
                return Stop.budget(exhausted)
            if self.should_stop():
                return Stop(Status.INTERRUPTED)
            self._before = (self.generation, self.rng.getstate())
            if self.evaluations:
                self.generation += 1
            boards = self._boards()
            self._pending = boards
            scores = yield [list(genes) for genes in boards]
            self._take(boards, scores)
            stop = False
            for listener in self.listeners:
                stop = bool(listener.on_generation(self)) or stop
            yield GENERATION_END
            if stop:
                return Stop(Status.STOPPED)

    def _exhausted(self) -> str | None:
        """The budget's limit reached after the first population, or None."""
        if not self.evaluations:
            return None
        return self.budget.exhausted(
            generations=self.generation, evaluations=self.evaluations, seconds=self.cpu_seconds
        )

    def evaluate(self, genomes: list[Genes]) -> list[Scored] | None:
        """The scorer's scores of ``genomes`` (None when ``should_stop`` cut them short)."""
        if self.scorer is None:
            raise RuntimeError("a level evolution without a scorer is driven by ask() and tell()")
        return self.scorer.score(genomes, self.generation, self.should_stop)

    def interrupted_during_evaluation(self) -> None:
        """Drop the generation an interrupt cut: the state after the one before again (what was
        certified stays in the scorer's journal)."""
        assert self._before is not None
        self.generation, rng_state = self._before
        self.rng.setstate(rng_state)
        self._pending = None
        self._end(Stop(Status.INTERRUPTED))

    def result(self) -> Result:
        """The run's best level with its certificate, once the loop has stopped."""
        if self.stop is None:
            raise RuntimeError("the loop has not stopped yet")
        best = None if self.best is None else self.best.evaluation.certificate
        level = None if self.best is None else self.space.level(self.best, self.settings.name)
        return Result(
            level_name=self.settings.name,
            solver="evolve-levels",
            status=self.stop.status,
            exhausted=self.stop.exhausted,
            solution=None if best is None else best.solution,
            moves=None if best is None else best.moves,
            pushes=None if best is None else best.pushes,
            cost=self.evaluations,
            unit="evaluations",
            seconds=self.seconds,
            generations=self.generation,
            level=level,
        )

    def _boards(self) -> list[Genes]:
        """The first population (at the start, or while no level is feasible), else
        children of parents chosen by the scheme."""
        if not self.population:
            return initial_genomes(self.settings, self.space, self.rng, self.file_levels)
        parents = self.parts.parents(self.population, self.settings.offspring)
        return self._children(parents)

    def _take(self, boards: list[Genes], scores: Sequence[Scored] | None) -> None:
        """Charge the new certificates, keep the feasible boards, let survival choose."""
        assert scores is not None
        self._pending = None
        charged: set[str] = set()
        newcomers = []
        for genes, score in zip(boards, scores, strict=True):
            if score.generation == self.generation and score.key not in charged:
                charged.add(score.key)
                self.certifications += 1
                self.cpu_seconds += score.certificate.cpu_seconds
            if score.feasible:
                board = genes if score.board is None else genes_from_text(score.board)
                newcomers.append(self._individual(board, score))
        self.feasible = len(newcomers)
        self.population = self.parts.survival(self.population, newcomers, self.settings.population)
        for individual in self.population:
            if self.best is None or individual.fitness > self.best.fitness:
                self.best = individual
        self.evaluations += len(scores)

    # ---- variation ---------------------------------------------------------------------------
    def _children(self, parents: Sequence[Any]) -> list[Genes]:
        settings, rng, space = self.settings, self.rng, self.space
        children = [list(parent) for parent in parents]
        for first, second in zip(children[::2], children[1::2], strict=False):
            if rng.random() < settings.crossover.probability:
                self.parts.crossover(first, second)
        for child, parent in zip(children, parents, strict=True):
            if rng.random() < settings.mutation.probability:
                self.parts.mutation(child)
            repair(child, space, rng)
            tries = 0
            while self._same(child, parent) and tries < MAX_REMUTATIONS:
                self.parts.mutation(child)
                repair(child, space, rng)
                tries += 1
        return children

    def _same(self, child: Genes, parent: Sequence[int]) -> bool:
        """True when ``child`` is ``parent`` again (its walls and goals, when the start is
        developed from them)."""
        if self.settings.start == "deepest":
            return all(a & ~(BOX | PLAYER) == b & ~(BOX | PLAYER) for a, b in zip(child, parent))
        return child == list(parent)

    def _individual(self, genes: Genes, score: Scored) -> Any:
        individual: Any = self.individual(genes)  # its evaluation is a certificate (Scored)
        if self.settings.archive_run and score.features is not None:
            score = replace(score, cell=self.settings.archive.cell(score.features))
        individual.evaluation = score
        individual.fitness.values = score.values
        return individual

    # ---- statistics -----------------------------------------------------------------------------
    def stats(self) -> dict[str, float | int | None]:
        """The population's best, median and mean of each objective (by label)."""
        row: dict[str, float | int | None] = {"population": len(self.population)}
        for position, table in enumerate(self.settings.objective):
            values = [individual.evaluation.values[position] for individual in self.population]
            best = (max if table.maximizes else min)(values) if values else None
            row[f"best_{table.label}"] = best
            row[f"median_{table.label}"] = statistics.median(values) if values else None
            row[f"mean_{table.label}"] = statistics.fmean(values) if values else None
        return row

    # ---- state -----------------------------------------------------------------------------------
    @property
    def state(self) -> LevelsState:
        """The state after the last generation scored: the checkpoint (defined once a
        generation's scores are in and until the next is asked)."""
        if self._pending is not None:
            raise RuntimeError("the state is defined between generations")
        return LevelsState.model_construct(
            kind="levels",
            version=STATE_VERSION,
            level=self.settings.name,
            generation=self.generation,
            evaluations=self.evaluations,
            restarts=0,
            seconds=self.seconds,
            certifications=self.certifications,
            cpu_seconds=self.cpu_seconds,
            rng_state=self.rng.getstate(),
            population=tuple(_member(individual) for individual in self.population),
            best=None if self.best is None else _member(self.best),
        )

    def _restore(self, state: LevelsState) -> None:
        self.generation, self.evaluations = state.generation, state.evaluations
        self.certifications, self.cpu_seconds = state.certifications, state.cpu_seconds
        self._seconds_before = state.seconds
        self.rng.setstate(state.rng_state)
        self.population = [self._from_member(member) for member in state.population]
        self.best = None if state.best is None else self._from_member(state.best)

    def _from_member(self, member: LevelMember) -> Any:
        return self._individual(genes_from_text(member.genes), member.score)


def _member(individual: Any) -> LevelMember:
    return LevelMember.model_construct(genes=genes_to_text(individual), score=individual.evaluation)
