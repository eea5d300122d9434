"""Engine checkpoints as plain, JSON-able data (never pickled DEAP objects).

A checkpoint holds everything the generational loop needs to continue exactly as if it had
never stopped: the population and hall of fame as gene lists with their evaluations, the
counters, the table of :class:`evosoko.evolve.aging.AgeMemory` (compressed text) when aging
remembers, the positions proven lost (:mod:`evosoko.evolve.lost_search`), and the state of the
run's ``random.Random``. Fitnesses are deterministic, so the
fitness cache is not saved (it only saves time).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.evolve.fitness import Evaluation

CHECKPOINT_VERSION = 1
ISLANDS_CHECKPOINT_KIND = "islands"
"""The ``kind`` of a checkpoint of several islands (:mod:`evosoko.evolve.islands`)."""


@dataclass
class Member:
    """One individual as plain data: its genes and its evaluation."""

    genes: list[int]
    evaluation: Evaluation
    age: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"genes": list(self.genes), "evaluation": list(self.evaluation), "age": self.age}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Member":
        """Inverse of :meth:`to_dict`."""
        solved, distance, length, keep, state_hash, *gap = data["evaluation"]
        evaluation = Evaluation(
            bool(solved), int(distance), int(length), int(keep), int(state_hash), int(sum(gap))
        )
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
    best_values: list[float] | None
    rng_state: Any
    population: list[Member] = field(default_factory=list)
    hall_of_fame: list[Member] = field(default_factory=list)
    age_memory: str | None = None
    lost_positions: list[int] = field(default_factory=list)
    version: int = CHECKPOINT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (lists, numbers and strings only)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}  # asdict deep-copies: slow
        data["best_values"] = None if self.best_values is None else list(self.best_values)
        data["population"] = [m.to_dict() for m in self.population]
        data["hall_of_fame"] = [m.to_dict() for m in self.hall_of_fame]
        data["rng_state"] = rng_state_to_json(self.rng_state)
        data["lost_positions"] = sorted(self.lost_positions)
        return data

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Checkpoint":
        """Inverse of :meth:`to_dict`; raises :class:`EvosokoError` for a malformed checkpoint."""
        try:
            if data.get("version") != CHECKPOINT_VERSION:
                raise EvosokoError(
                    f"checkpoint version {data.get('version')!r} is not {CHECKPOINT_VERSION}"
                )
            return Checkpoint(
                level=str(data["level"]),
                encoding=str(data["encoding"]),
                generation=int(data["generation"]),
                evaluations=int(data["evaluations"]),
                seconds=float(data["seconds"]),
                restarts=int(data["restarts"]),
                stagnant=int(data["stagnant"]),
                best_values=None
                if data["best_values"] is None
                else [float(v) for v in data["best_values"]],
                rng_state=rng_state_from_json(data["rng_state"]),
                population=[Member.from_dict(m) for m in data["population"]],
                hall_of_fame=[Member.from_dict(m) for m in data["hall_of_fame"]],
                age_memory=data.get("age_memory"),
                lost_positions=[int(h) for h in data.get("lost_positions", [])],
            )
        except (KeyError, TypeError, ValueError) as error:
            raise EvosokoError(f"malformed checkpoint: {error!r}") from None


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
