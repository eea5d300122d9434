"""The built-in parts of level evolution, registered under the names configurations use.

- level mutations (:mod:`evosoko.levelgen.operators`): ``mixed`` (the default), ``flip_cells``,
  ``carve_room``, ``fill_room``, ``move_box``, ``move_goal``, ``move_player``,
  ``swap_regions``, ``add_box``, ``remove_box``;
- level crossovers: ``region`` (a rectangle exchanged), ``rows`` (the rows below a cut);
- level objectives (:mod:`evosoko.levelgen.objectives`): ``pushes``, ``moves``,
  ``box_changes``, ``expanded``, ``openness`` (larger is better), ``floor``, ``boxes``,
  ``ga_solve_rate`` (smaller is better).

Selection and survival are the GA's own (:mod:`evosoko.evolve.builtins`): tournaments,
truncation, (mu + lambda), NSGA-II and the MAP-Elites archive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evosoko.evolve.registry import Registry, level_crossovers, level_mutations, level_objectives
from evosoko.levelgen import objectives, operators


def _builtin(registry: Registry, name: str, function: Callable, **options: Any) -> None:
    registry.install(registry.make(function, name, builtin=True, **options))


for _name, _mutation in {"mixed": operators.mixed, **operators.ELEMENTARY}.items():
    _builtin(level_mutations, _name, _mutation)

_builtin(level_crossovers, "region", operators.region_crossover)
_builtin(level_crossovers, "rows", operators.row_crossover)

for _function, _maximize in (
    (objectives.pushes, True),
    (objectives.moves, True),
    (objectives.box_changes, True),
    (objectives.expanded, True),
    (objectives.openness, True),
    (objectives.floor, False),
    (objectives.boxes, False),
    (objectives.ga_solve_rate, False),
):
    _builtin(level_objectives, _function.__name__, _function, maximize=_maximize)
