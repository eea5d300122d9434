"""The level GA as ``ask`` / ``tell``: boards out, certified scores in, survivors kept.

:class:`LevelEvolution` holds the population and the run's ``random.Random``; it never scores
anything itself. :meth:`~LevelEvolution.ask` returns the boards to score (the first population,
then each generation's children: parents chosen by the scheme's parent selection, recombined and
mutated by the registered level operators, every child repaired);
:meth:`~LevelEvolution.tell` takes their scores (:class:`~evosoko.levelgen.certificate.Scored`,
from any backend), drops the infeasible ones and lets the scheme's survival choose the next
population: the GA's own (mu + lambda), tournaments, NSGA-II or the MAP-Elites archive
(:mod:`evosoko.evolve.builtins`). Between a ``tell`` and the next ``ask`` the whole state is
plain data (:meth:`~LevelEvolution.state`), so the state is the checkpoint: a run restored from
it asks for the same boards as the run that wrote it.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

from evosoko.errors import ConfigError, EvosokoError
from evosoko.evolve.individuals import genome_class
from evosoko.evolve.registry import Operator, parent_selections, survivals
from evosoko.evolve.state import rng_from_json, rng_to_json
from evosoko.levelgen.certificate import Scored
from evosoko.levelgen.config import LevelsSettings
from evosoko.levelgen.repair import repair
from evosoko.levelgen.space import BOX, PLAYER, WALL, Genes, LevelSpace
from evosoko.levelgen.starts import initial_genomes

STATE_VERSION = 1
MAX_REMUTATIONS = 8
"""Mutations tried on a child whose repaired board is still one of its parents'."""


@dataclass(frozen=True)
class LevelParts:
    """The registered parts a configuration names, with their parameters bound."""

    mutation: Callable[..., Any]
    crossover: Callable[..., Any]
    parents: Callable[..., Any]
    survival: Callable[..., Any]
    objectives: tuple[tuple[Operator, dict[str, Any]], ...]
    features: tuple[tuple[Operator, dict[str, Any]], ...]
    weights: tuple[float, ...]


def level_parts(settings: LevelsSettings, space: LevelSpace, rng: random.Random) -> LevelParts:
    """Resolve and bind the parts of ``settings`` (the context: ``rng``, ``space``, the
    ranking ``key`` and duplicate ``identity``)."""
    from evosoko.evolve.registry import level_objectives

    context = {"rng": rng, "space": space, "key": attrgetter("fitness"), "identity": _identity}
    parents_name, survival_name = settings.scheme()
    parents, survival = parent_selections.get(parents_name), survivals.get(survival_name)
    mutation, crossover = settings.mutation.operator, settings.crossover.operator
    features: tuple[tuple[Operator, dict[str, Any]], ...] = ()
    if settings.archive_run:
        features = tuple((level_objectives.get(name), {}) for name in settings.archive.features)
    return LevelParts(
        mutation=mutation.bind(settings.mutation.params, context),
        crossover=crossover.bind(settings.crossover.params, context),
        parents=parents.bind(_selection_params(parents, settings), context),
        survival=survival.bind(_selection_params(survival, settings), context),
        objectives=tuple((table.operator, table.params) for table in settings.objective),
        features=features,
        weights=tuple(1.0 if table.maximizes else -1.0 for table in settings.objective),
    )


def _selection_params(operator: Operator, settings: LevelsSettings) -> dict[str, Any]:
    """A selection's parameters from ``[levels]`` (``tournament_size``, ``elitism``, ...)."""
    return {name: getattr(settings, name) for name in operator.params.model_fields}


def _identity(individual: Any) -> str:
    """Duplicate identity of a level individual: its puzzle's key."""
    return individual.evaluation.key


class LevelEvolution:
    """The level GA's state and steps (see the module docstring). ``state``: a checkpoint of
    :meth:`state` to continue from."""

    def __init__(
        self,
        settings: LevelsSettings,
        *,
        state: dict[str, Any] | None = None,
        file_levels: Sequence[Any] = (),
    ) -> None:
        self.settings = settings
        self.space = settings.space()
        self.file_levels = list(file_levels)
        self.rng = random.Random(settings.seed)
        self.parts = level_parts(settings, self.space, self.rng)
        self.individual = genome_class(self.parts.weights)
        self.population: list = []
        self.batches = 0  # generations scored, the first population's included
        self.evaluations = 0
        self.best: Any = None  # the best individual so far (lexicographic on the objectives)
        self.feasible = 0  # feasible boards among those of the last tell
        self._asked: list[Genes] | None = None
        if state is not None:
            self._restore(state)

    # ---- ask / tell ---------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        """The generation the next :meth:`ask` makes (0: the first population)."""
        return self.batches

    def ask(self) -> list[Genes]:
        """The boards to score next (asking again before :meth:`tell` returns the same)."""
        if self._asked is None:
            if self.population:
                parents = self.parts.parents(self.population, self.settings.offspring)
                self._asked = self._children(parents)
            else:  # the start, or no feasible level yet: a first population
                self._asked = initial_genomes(self.settings, self.space, self.rng, self.file_levels)
        return [list(genes) for genes in self._asked]

    def tell(self, scores: Sequence[Scored]) -> None:
        """Give the scores of the boards :meth:`ask` returned, in order."""
        if self._asked is None or len(scores) != len(self._asked):
            raise ValueError("tell() needs one score per board of the last ask()")
        newcomers = []
        self.feasible = sum(score.feasible for score in scores)
        for genes, score in zip(self._asked, scores, strict=True):
            if score.feasible:
                board = genes if score.board is None else genes_from_text(score.board)
                newcomers.append(self._individual(board, score))
        if self.population:
            self.population = self.parts.survival(
                self.population, newcomers, self.settings.population
            )
        else:
            self.population = self.parts.survival([], newcomers, self.settings.population)
        for individual in self.population:
            if self.best is None or individual.fitness > self.best.fitness:
                self.best = individual
        self.evaluations += len(scores)
        self.batches += 1
        self._asked = None

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
    def state(self) -> dict[str, Any]:
        """Plain JSON data of the whole state; valid between a :meth:`tell` and the next
        :meth:`ask` (a checkpoint)."""
        if self._asked is not None:
            raise EvosokoError("the state is taken between tell() and the next ask()")
        return {
            "version": STATE_VERSION,
            "batches": self.batches,
            "evaluations": self.evaluations,
            "rng_state": rng_to_json(self.rng.getstate()),
            "population": [_member(individual) for individual in self.population],
            "best": None if self.best is None else _member(self.best),
        }

    def _restore(self, state: dict[str, Any]) -> None:
        if state.get("version") != STATE_VERSION:
            raise ConfigError(f"a level-evolution checkpoint of version {state.get('version')!r}")
        self.batches = int(state["batches"])
        self.evaluations = int(state["evaluations"])
        self.rng.setstate(rng_from_json(state["rng_state"]))
        self.population = [self._from_member(member) for member in state["population"]]
        best = state.get("best")
        self.best = None if best is None else self._from_member(best)

    def _from_member(self, member: dict[str, Any]) -> Any:
        return self._individual(genes_from_text(member["genes"]), Scored.from_dict(member["score"]))


def _member(individual: Any) -> dict[str, Any]:
    return {"genes": genes_to_text(individual), "score": individual.evaluation.to_dict()}


def genes_to_text(genes: Sequence[int]) -> str:
    """A genome as one hexadecimal digit per cell."""
    return "".join(f"{code:x}" for code in genes)


def genes_from_text(text: str) -> Genes:
    """The genome of :func:`genes_to_text`."""
    genes = [int(char, 16) for char in text]
    if any(code & WALL and code != WALL for code in genes):
        raise ValueError("a wall cell that holds a piece")
    return genes
