"""Genetic algorithm: move and push genomes, DEAP operators, parallel evaluation, hybrid seeding.

Entry points for the runner:

- :func:`make_evaluator` (a context manager) builds the evaluation backend for one level;
- :func:`evolve_level` evolves that level and returns a :class:`~evosoko.result.Result`,
  streaming :class:`~evosoko.result.GenerationStats` and JSON-able checkpoints to callbacks
  (:mod:`evosoko.evolve.callbacks`);
- a loop of your own: :class:`Engine`'s ``ask()``/``tell()`` (:mod:`evosoko.evolve.loop`,
  ``examples/ask_tell.py``), its state as a checkpoint (:func:`read_state`), or DEAP's own
  algorithms over :func:`deap_toolbox` (``examples/deap_loop.py``);
- the registries of mutations, crossovers, selections, survivals and fitness terms
  (:mod:`evosoko.evolve.registry`).

Names are imported on first use, so importing a part of the package (the registry, to read a
configuration) does not load the compiled kernels.

``evosoko.evolve`` itself is the function :func:`evosoko.api.evolve` (the public API names
the function after this package; see :mod:`evosoko`): import from this package by name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evosoko.evolve.callbacks import Callback, Generation
    from evosoko.evolve.engine import Engine
    from evosoko.evolve.evaluation import Evaluator, make_evaluator
    from evosoko.evolve.fitness import Evaluation
    from evosoko.evolve.runner import evolve_level
    from evosoko.evolve.state import read_state
    from evosoko.evolve.toolbox import deap_toolbox
    from evosoko.result import GenerationStats, HallOfFameEntry, Result

_NAMES = {
    "Engine": "evosoko.evolve.engine",
    "evolve_level": "evosoko.evolve.runner",
    "Evaluator": "evosoko.evolve.evaluation",
    "make_evaluator": "evosoko.evolve.evaluation",
    "Evaluation": "evosoko.evolve.fitness",
    "Callback": "evosoko.evolve.callbacks",
    "Generation": "evosoko.evolve.callbacks",
    "GenerationStats": "evosoko.result",
    "HallOfFameEntry": "evosoko.result",
    "Result": "evosoko.result",
    "deap_toolbox": "evosoko.evolve.toolbox",
    "read_state": "evosoko.evolve.state",
}

__all__ = [
    "Callback",
    "Engine",
    "Evaluation",
    "Evaluator",
    "Generation",
    "GenerationStats",
    "HallOfFameEntry",
    "Result",
    "deap_toolbox",
    "evolve_level",
    "make_evaluator",
    "read_state",
]


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'evosoko.evolve' has no attribute {name!r}")
