"""The parts a configuration runs: its operators, selections and fitness terms, resolved.

:func:`parts_of` reads the registry entries that a validated configuration names (its
``ga.selection`` scheme filling in the parent selection and survival that ``[ga.parents]``
and ``[ga.survival]`` leave unset) together with the parameters each gets from its table (and,
for the built-in selections, from ``[ga]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evosoko.evolve.registry import Operator, parent_selections, survivals

if TYPE_CHECKING:  # the configuration validates itself with these parts: no import at run time
    from evosoko.config import Config, GAConfig


@dataclass(frozen=True)
class Part:
    """A registry entry with the parameters the configuration gives it."""

    operator: Operator
    params: dict[str, Any]

    @property
    def name(self) -> str:
        """Its registered name (or ``"module:function"``)."""
        return self.operator.name


@dataclass(frozen=True)
class Parts:
    """Every part of one configuration."""

    mutation: Part
    crossover: Part
    parents: Part
    survival: Part

    @property
    def multi_objective(self) -> bool:
        """True when survival compares whole fitness vectors (NSGA-II): then there is no
        single ranking, so neither aging, length pressure nor the lost search apply, and the
        gap is no objective."""
        return bool(self.survival.operator.options.get("multi_objective"))

    @property
    def archive(self) -> bool:
        """True when survival keeps an archive (MAP-Elites): the population is then one elite
        per behaviour cell, as many as there are cells filled, the first one included."""
        return bool(self.survival.operator.options.get("archive"))

    def __iter__(self) -> Iterator[Part]:
        return iter((self.mutation, self.crossover, self.parents, self.survival))


def parts_of(config: Config) -> Parts:
    """The parts ``config`` runs (see the module docstring)."""
    from evosoko.evolve.builtins import SCHEMES

    ga = config.ga
    parents_name, survival_name = SCHEMES[ga.selection]
    parents = ga.parents.operator or parent_selections.get(parents_name)
    survival = ga.survival.operator or survivals.get(survival_name)
    return Parts(
        mutation=Part(ga.mutation.operator, _params(ga.mutation.operator, ga.mutation, ga)),
        crossover=Part(ga.crossover.operator, _params(ga.crossover.operator, ga.crossover, ga)),
        parents=Part(parents, _params(parents, ga.parents, ga)),
        survival=Part(survival, _params(survival, ga.survival, ga)),
    )


def _params(operator: Operator, table: Any, ga: GAConfig) -> dict[str, Any]:
    """The values of ``operator``'s parameters: from its table (with the defaults of a plugin's
    model), else from ``[ga]`` (the built-in selections' ``tournament_size``, ``truncation``,
    ``elitism``)."""
    given = table.params if table.operator is operator else {}
    values = {}
    for name in operator.params.model_fields:
        if name in given:
            values[name] = given[name]
        elif name in type(table).model_fields:
            values[name] = getattr(table, name)
        elif name in type(ga).model_fields:
            values[name] = getattr(ga, name)
    return values


def configured_parts(config: Config) -> list[Operator]:
    """Every operator ``config`` names, fitness terms included."""
    parts = parts_of(config)
    return [part.operator for part in parts] + [term.operator for term in config.fitness.terms]


def used_by(config: Any) -> list[Operator]:
    """The operators of ``config`` (a validated :class:`~evosoko.config.Config`) that are
    not built in: what a worker must know to validate and run it."""
    return [operator for operator in configured_parts(config) if not operator.builtin]
