"""Engine checkpoints as plain, JSON-able data (never pickled DEAP objects).

A checkpoint holds everything the generational loop needs to continue exactly as if it had
never stopped: the population and hall of fame as gene lists with their evaluations, the
counters, the best fitness so far (named values), the table of
:class:`evosoko.evolve.aging.AgeMemory` (compressed text) when aging remembers, the positions
proven lost (:mod:`evosoko.evolve.lost_search`), the positions the memetic step has searched
(:class:`evosoko.evolve.steps.MemeticStep`), and the state of the run's ``random.Random``.
Fitnesses are deterministic, so the fitness cache is not saved (it only saves time).

Versions: 2 (written now) stores each evaluation by name (``{"solved", "distance", "length",
"keep", "state_hash", "gap", "terms"}``, and ``"cell"``, the MAP-Elites cell, when there is
one: the archive is the population, so a resumed run has the same archive) and the best
fitness as ``best_fitness`` ``{name: value}``; version 1 (evosoko before named fitness
values) stored them as positional lists (``[solved, distance, length, keep, state_hash,
gap]`` and ``best_values``). Both are read, so an interrupted run of an earlier version
resumes exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from typing import Any

from evosoko.config import FITNESS_VALUES
from evosoko.errors import EvosokoError
from evosoko.evolve.fitness import Evaluation

CHECKPOINT_VERSION = 2
READABLE_VERSIONS = (1, 2)
ISLANDS_CHECKPOINT_KIND = "islands"
"""The ``kind`` of a checkpoint of several islands (:mod:`evosoko.evolve.islands`)."""

SEARCHES_CHECKPOINT_KIND = "searches"
"""The ``kind`` of a population of searches' checkpoint
(:mod:`evosoko.evolve.search_population`)."""


def searches_mismatch(state: dict[str, Any], searches_enabled: bool) -> str | None:
    """Why a checkpoint cannot resume under ``searches.enabled = searches_enabled`` (it holds
    a population of searches and the configuration evolves genomes, or the other way round),
    or None."""
    held = state.get("kind") == SEARCHES_CHECKPOINT_KIND
    if held == searches_enabled:
        return None
    what = "a population of searches" if held else "genomes"
    return (
        f"it holds {what}; the configuration has searches.enabled = {str(searches_enabled).lower()}"
    )


def evaluation_to_json(evaluation: Evaluation) -> dict[str, Any]:
    """An evaluation by name (``terms`` only when there are any)."""
    data: dict[str, Any] = {
        "solved": bool(evaluation.solved),
        "distance": int(evaluation.distance),
        "length": int(evaluation.length),
        "keep": int(evaluation.keep),
        "state_hash": int(evaluation.state_hash),
        "gap": int(evaluation.gap),
    }
    if evaluation.terms:
        data["terms"] = [float(value) for value in evaluation.terms]
    if evaluation.cell >= 0:
        data["cell"] = int(evaluation.cell)
    return data


def evaluation_from_json(data: dict[str, Any] | list) -> Evaluation:
    """Inverse of :func:`evaluation_to_json`; also reads version 1's positional lists."""
    if isinstance(data, list):
        solved, distance, length, keep, state_hash, *gap = data
        return Evaluation(
            bool(solved), int(distance), int(length), int(keep), int(state_hash), int(sum(gap))
        )
    return Evaluation(
        solved=bool(data["solved"]),
        distance=int(data["distance"]),
        length=int(data["length"]),
        keep=int(data["keep"]),
        state_hash=int(data["state_hash"]),
        gap=int(data.get("gap", 0)),
        terms=tuple(float(value) for value in data.get("terms", ())),
        cell=int(data.get("cell", -1)),
    )


def position_of(record: dict[str, Any]) -> int:
    """The position (state hash) a member record of a checkpoint reaches."""
    evaluation = record["evaluation"]
    return int(evaluation[4] if isinstance(evaluation, list) else evaluation["state_hash"])


@dataclass
class Member:
    """One individual as plain data: its genes and its evaluation."""

    genes: list[int]
    evaluation: Evaluation
    age: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "genes": list(self.genes),
            "evaluation": evaluation_to_json(self.evaluation),
            "age": self.age,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Member:
        """Inverse of :meth:`to_dict` (either version)."""
        evaluation = evaluation_from_json(data["evaluation"])
        return Member([int(g) for g in data["genes"]], evaluation, int(data.get("age", 0)))


@dataclass
class Checkpoint:
    """The engine's state after a generation (see the module docstring)."""

    level: str
    encoding: str
    generation: int
    evaluations: int
    seconds: float
    restarts: int
    stagnant: int
    best_fitness: dict[str, float] | None
    rng_state: Any
    population: list[Member] = field(default_factory=list)
    hall_of_fame: list[Member] = field(default_factory=list)
    age_memory: str | None = None
    lost_positions: list[int] = field(default_factory=list)
    memetic_searched: list[int] = field(default_factory=list)
    version: int = CHECKPOINT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (lists, numbers and strings only)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}  # asdict deep-copies: slow
        data["best_fitness"] = None if self.best_fitness is None else dict(self.best_fitness)
        data["population"] = [m.to_dict() for m in self.population]
        data["hall_of_fame"] = [m.to_dict() for m in self.hall_of_fame]
        data["rng_state"] = rng_state_to_json(self.rng_state)
        data["lost_positions"] = sorted(self.lost_positions)
        data["memetic_searched"] = sorted(self.memetic_searched)
        data["version"] = CHECKPOINT_VERSION
        return data

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Checkpoint:
        """Inverse of :meth:`to_dict`, for either version; raises :class:`EvosokoError` for a
        malformed checkpoint."""
        try:
            version = data.get("version")
            if version not in READABLE_VERSIONS:
                raise EvosokoError(
                    f"checkpoint version {version!r} is not one this evosoko reads "
                    f"({', '.join(map(str, READABLE_VERSIONS))})"
                )
            return Checkpoint(
                level=str(data["level"]),
                encoding=str(data["encoding"]),
                generation=int(data["generation"]),
                evaluations=int(data["evaluations"]),
                seconds=float(data["seconds"]),
                restarts=int(data["restarts"]),
                stagnant=int(data["stagnant"]),
                best_fitness=_best_fitness(data, version),
                rng_state=rng_state_from_json(data["rng_state"]),
                population=[Member.from_dict(m) for m in data["population"]],
                hall_of_fame=[Member.from_dict(m) for m in data["hall_of_fame"]],
                age_memory=data.get("age_memory"),
                lost_positions=[int(h) for h in data.get("lost_positions", [])],
                memetic_searched=[int(h) for h in data.get("memetic_searched", [])],
                version=version,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise EvosokoError(f"malformed checkpoint: {error!r}") from None


def _best_fitness(data: dict[str, Any], version: int) -> dict[str, float] | None:
    if version == 1:
        values = data["best_values"]
        return None if values is None else dict(zip(FITNESS_VALUES, map(float, values)))
    best = data["best_fitness"]
    return None if best is None else {str(name): float(value) for name, value in best.items()}


def engine_checkpoint(engine: Any) -> Checkpoint:
    """The state of an :class:`~evosoko.evolve.engine.Engine` after its last generation."""
    best = engine.best_values
    memory = engine.aging.memory
    return Checkpoint(
        level=engine.level.name,
        encoding=engine.ga.encoding,
        generation=engine.generation,
        evaluations=engine.evaluations,
        seconds=engine.seconds,
        restarts=engine.restarts,
        stagnant=engine.stagnant,
        best_fitness=None if best is None else engine.objectives.named(best),
        rng_state=engine.rng.getstate(),
        population=[Member(list(ind), ind.evaluation, ind.age) for ind in engine.population],
        hall_of_fame=[Member(list(ind), ind.evaluation) for ind in engine.hall_of_fame],
        age_memory=None if memory is None else memory.to_json(),
        lost_positions=sorted(engine.lost_positions),
        memetic_searched=sorted(engine.memetic_searched),
    )


def restore_engine(engine: Any, checkpoint: Checkpoint) -> None:
    """Put an :class:`~evosoko.evolve.engine.Engine` (just made, with the same level and
    configuration) in the state of ``checkpoint``; a clear :class:`EvosokoError` when the
    checkpoint belongs to another level or configuration."""
    from evosoko.evolve.aging import AgeMemory

    _check_resumable(checkpoint, engine)
    engine.rng = restored_rng(checkpoint.rng_state)
    engine.generation, engine.evaluations = checkpoint.generation, checkpoint.evaluations
    engine.restarts, engine.stagnant = checkpoint.restarts, checkpoint.stagnant
    engine._seconds_before = checkpoint.seconds
    if checkpoint.best_fitness is not None:
        engine.best_values = engine.objectives.from_named(checkpoint.best_fitness)
    new = engine.individuals.new
    engine.population = [new(m.genes, m.evaluation, m.age) for m in checkpoint.population]
    if engine.aging.memory is not None:
        if checkpoint.age_memory is None:
            raise EvosokoError("the checkpoint has no age memory; the configuration uses one")
        engine.aging.memory = AgeMemory.from_json(checkpoint.age_memory)
    engine.lost_positions.update(checkpoint.lost_positions)  # in place: the rank key holds it
    engine.memetic_searched.update(checkpoint.memetic_searched)
    for member in reversed(checkpoint.hall_of_fame):  # worst first: the saved order comes back
        engine.hall_of_fame.insert(new(member.genes, member.evaluation))


def _check_resumable(checkpoint: Checkpoint, engine: Any) -> None:
    """A clear error when a checkpoint does not belong to this level and configuration."""
    encoding, objectives = engine.ga.encoding, engine.objectives
    if checkpoint.encoding != encoding:
        raise EvosokoError(
            f"the checkpoint uses {checkpoint.encoding} genomes; the configuration {encoding}"
        )
    if checkpoint.level != engine.level.name:
        raise EvosokoError(
            f"the checkpoint is of level {checkpoint.level!r}, not {engine.level.name!r}"
        )
    saved = list(checkpoint.best_fitness or objectives.names)
    terms = sum(1 for term in objectives.terms if term is not None)
    scored = [m.evaluation for m in checkpoint.population + checkpoint.hall_of_fame]
    if sorted(saved) != sorted(objectives.names) or any(len(e.terms) != terms for e in scored):
        raise EvosokoError(
            f"the checkpoint compares the fitness values {', '.join(saved)}; the configuration "
            f"{', '.join(objectives.names)} (fitness terms cannot change on resume)"
        )


def rng_state_to_json(state: tuple) -> list:
    """``random.Random.getstate()`` as nested lists."""
    version, internal, gauss_next = state
    return [version, list(internal), gauss_next]


def rng_state_from_json(data: list) -> tuple:
    """Inverse of :func:`rng_state_to_json`, ready for ``random.Random.setstate``."""
    version, internal, gauss_next = data
    return (int(version), tuple(int(x) for x in internal), gauss_next)


def restored_rng(state: tuple) -> random.Random:
    """A ``random.Random`` in ``state``."""
    rng = random.Random()
    rng.setstate(state)
    return rng
