"""MAP-Elites: the population as an archive of one elite per behaviour cell.

With ``ga.selection = "map_elites"`` an individual's cell is the FESS feature cell of the
position its genome reaches (``evaluation.cell``, computed where it is scored:
:mod:`evosoko.evolve.descriptors`), so the archive keeps partial plans of every kind (more boxes
packed, fewer out of plan, rooms and floor less cut apart) instead of the many near copies of
the best one that a ranking keeps. Each generation the parents are drawn uniformly from the
occupied cells (the ``random`` parent selection over the archive), the children are varied as
usual and each enters the archive if its cell is empty or it beats that cell's elite.

The archive is the engine's population: the hall of fame, statistics and checkpoints see it as
they see any population (a checkpoint holds each member's cell, so a resumed run continues with
the same archive), and its size is the number of cells filled, not ``ga.population``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from operator import attrgetter

_fitness = attrgetter("fitness")


def archive_elites(population: Sequence, offspring: Sequence, key: Callable = _fitness) -> list:
    """The elite of each cell among ``population`` then ``offspring``, ordered by cell: the
    best by ``key`` (the run's fitness: solved, distance, length); on a tie the one met first
    (the incumbent) stays."""
    elites: dict[int, object] = {}
    for individual in itertools.chain(population, offspring):
        cell = individual.evaluation.cell
        held = elites.get(cell)
        if held is None or key(individual) > key(held):
            elites[cell] = individual
    return [elites[cell] for cell in sorted(elites)]
