"""A level as the GA's tasks carry it to workers: plain data that a worker rebuilds it from.

:func:`level_payload` packs a level with its encoding and fitness settings (the configuration's
own fitness terms included) as a key and one pickled blob; :func:`fitness_from_payload` rebuilds
the level from its XSB rows in a worker and gives its fitness function. The process pool's
workers (:mod:`evosoko.evolve.evaluation`) and the Dask workers' level plugin
(:mod:`evosoko.evolve.dask_evaluation`) both use them.
"""

from __future__ import annotations

import pickle
import uuid
import warnings
from collections.abc import Callable

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import FitnessFunction
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.holes.board import rules_notes
from evosoko.sokoban.level import Level

__all__ = ["LevelPayload", "LevelTask", "fitness_from_payload", "level_payload"]

LevelTask = Callable[..., object]
"""A task run where the level lives: called as ``task(level, fitness_function, *args)``."""

LevelPayload = tuple[str, bytes]
"""A level as its tasks carry it: a key unique to one evaluator, and the pickled plain data
(XSB rows, title, encoding, fitness settings, rules notes) that a worker rebuilds it from."""


def level_payload(level: Level, encoding: str, fitness: FitnessConfig) -> LevelPayload:
    """``level`` as plain data under a new key; :class:`ValueError` when the level does not
    come back the same from its rows (workers rebuild it from them)."""
    rebuilt = _from_rows(level.rows(), level.title)
    if (rebuilt.width, rebuilt.height, rebuilt.start) != (level.width, level.height, level.start):
        raise ValueError(f"level {level.name} does not survive a round trip through its rows")
    # the fitness settings travel as the validated model: its own fitness terms with them
    data = (level.rows(), level.title, encoding, fitness, rules_notes(level))
    return uuid.uuid4().hex, pickle.dumps(data)


def fitness_from_payload(payload: LevelPayload) -> FitnessFunction:
    """The fitness function of the level that ``payload`` carries, the level rebuilt here."""
    rows, title, encoding, fitness, notes = pickle.loads(payload[1])
    return FitnessFunction(_from_rows(rows, title, notes), encoding, fitness)


def _from_rows(rows: list[str], title: str | None, notes: tuple = ()) -> Level:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(rows, title=title, notes=notes)
