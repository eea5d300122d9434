"""The values a genome's fitness compares, named and in order: :class:`Objectives`.

The built-in values are ``solved`` (1 or 0, larger is better), ``distance`` (the distance
objective at the scored point, 0 when solved), ``gap`` (move genomes: the walk to the next box
to push) and ``length`` (genes to the scored point); they are compared lexicographically in that
order, each fitness term of ``[[fitness.terms]]`` right after the value it names. ``gap`` is 0
when survival is multi-objective (NSGA-II) and ``length`` when ``fitness.length_objective`` is
off, so the set of names never changes within a configuration.

Everything that reads a fitness (ranking, islands, checkpoints, results) asks for a value by
name: ``objectives.index("distance")``, ``objectives.named(values)["distance"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evosoko.config import FITNESS_VALUES, Config
from evosoko.evolve.fitness import Evaluation

WEIGHTS = {"solved": 1.0, "distance": -1.0, "gap": -1.0, "length": -1.0}
"""DEAP weights of the built-in values: solved is maximised, the others minimised."""


@dataclass(frozen=True)
class Objectives:
    """The named fitness values of one configuration (see the module docstring)."""

    names: tuple[str, ...] = FITNESS_VALUES
    weights: tuple[float, ...] = tuple(WEIGHTS[name] for name in FITNESS_VALUES)
    terms: tuple[int | None, ...] = (None, None, None, None)
    """For each value: the index of its term in ``Evaluation.terms``, None for a built-in."""
    length_objective: bool = True
    gap_objective: bool = True

    @classmethod
    def of(cls, config: Config) -> Objectives:
        """The values ``config`` compares."""
        from evosoko.evolve.parts import parts_of

        names: list[str] = []
        weights: list[float] = []
        terms: list[int | None] = []
        for builtin in FITNESS_VALUES:
            names.append(builtin)
            weights.append(WEIGHTS[builtin])
            terms.append(None)
            for index, term in enumerate(config.fitness.terms):
                if term.after == builtin:
                    names.append(term.label)
                    weights.append(1.0 if term.maximizes else -1.0)
                    terms.append(index)
        return cls(
            names=tuple(names),
            weights=tuple(weights),
            terms=tuple(terms),
            length_objective=config.fitness.length_objective,
            gap_objective=not parts_of(config).multi_objective,
        )

    def values(self, evaluation: Evaluation) -> tuple[float, ...]:
        """The fitness values of an evaluation, in order."""
        values = []
        for name, term in zip(self.names, self.terms):
            if term is not None:
                values.append(float(evaluation.terms[term]))
            elif name == "solved":
                values.append(1.0 if evaluation.solved else 0.0)
            elif name == "distance":
                values.append(float(evaluation.distance))
            elif name == "gap":
                values.append(float(evaluation.gap) if self.gap_objective else 0.0)
            else:
                values.append(float(evaluation.length) if self.length_objective else 0.0)
        return tuple(values)

    def index(self, name: str) -> int:
        """The position of the value called ``name``."""
        return self.names.index(name)

    def named(self, values: Sequence[float]) -> dict[str, float]:
        """``{name: value}`` of a fitness in this order."""
        return dict(zip(self.names, values))

    def weighted(self, values: Sequence[float]) -> tuple[float, ...]:
        """The values times their weights: larger is better, compared lexicographically."""
        return tuple(value * weight for value, weight in zip(values, self.weights))

    def from_named(self, named: dict[str, float]) -> tuple[float, ...]:
        """Inverse of :meth:`named`."""
        return tuple(float(named[name]) for name in self.names)
