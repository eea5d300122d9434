"""What a certified level is scored on: the built-in level objectives.

Each takes the level and its :class:`~evosoko.levelgen.certificate.Certificate` and returns a
number; whether larger is better is registered with it (``maximize``) and can be turned in a
configuration. A run names its objectives in ``[[levels.objective]]`` tables; MAP-Elites names
two of them as the features of its archive (``[levels.archive] features``). Registered in
:mod:`evosoko.levelgen.builtins`:

- difficulty (larger is better): ``pushes`` (optimal with a push-optimal certifier), ``moves``,
  ``box_changes``, ``expanded`` (the certifier's nodes);
- costs (smaller is better): ``floor`` (floor cells), ``boxes``;
- style: ``openness`` (larger: the share of floor cells with three or four floor neighbours);
- ``ga_solve_rate`` (smaller is better): the share of seeds on which the GA solves the level
  within a budget of evaluations (expensive: a GA run per seed per candidate).
"""

from __future__ import annotations

import numpy as np

from evosoko.levelgen.certificate import Certificate
from evosoko.sokoban.level import Level


def pushes(level: Level, certificate: Certificate) -> int:
    """Pushes of the certificate's solution (the fewest, with a push-optimal certifier)."""
    return certificate.pushes


def moves(level: Level, certificate: Certificate) -> int:
    """Moves of the certificate's solution."""
    return certificate.moves


def box_changes(level: Level, certificate: Certificate) -> int:
    """How often the solution switches to pushing another box."""
    return certificate.box_changes


def expanded(level: Level, certificate: Certificate) -> int:
    """Nodes the certifier expanded to solve the level."""
    return certificate.expanded


def floor(level: Level, certificate: Certificate) -> int:
    """Floor cells of the level (the player's region)."""
    return int(level.floor.sum())


def boxes(level: Level, certificate: Certificate) -> int:
    """Boxes of the level."""
    return level.box_count


def openness(level: Level, certificate: Certificate) -> float:
    """The share of floor cells with at least three floor neighbours (0: corridors only)."""
    floor_cells = level.floor
    neighbours = level.neighbours
    counts = np.where(neighbours >= 0, floor_cells[np.maximum(neighbours, 0)], False).sum(axis=1)
    open_cells = floor_cells & (counts >= 3)
    return float(open_cells.sum() / max(1, floor_cells.sum()))


def ga_solve_rate(
    level: Level,
    certificate: Certificate,
    preset: str = "pushes",
    seeds: int = 2,
    evaluations: int = 5000,
) -> float:
    """The share of ``seeds`` GA runs of ``preset`` (seeds 0, 1, ...) that solve the level
    within ``evaluations`` fitness evaluations each (serially, in the calling worker)."""
    from evosoko.api import evolve
    from evosoko.api import preset as load_preset
    from evosoko.budget import Budget

    config = load_preset(preset).set({"parallel.backend": "serial"})
    budget = Budget(evaluations=evaluations)
    solved = 0
    for seed in range(seeds):
        result = evolve(level, config, seed=seed, budget=budget)
        assert not isinstance(result, list)  # one level in, one result out
        solved += result.solved
    return solved / seeds
