"""Genetic algorithm: move and push genomes, DEAP operators, parallel evaluation, hybrid seeding.

Entry points for the runner:

- :func:`make_evaluator` (a context manager) builds the evaluation backend for one level;
- :func:`evolve_level` evolves that level and returns a :class:`LevelOutcome`, streaming
  :class:`GenerationStats` and JSON-able checkpoints through callbacks.
"""

from evosoko.evolve.engine import (
    STOP_REASONS,
    Engine,
    GenerationStats,
    HallOfFameEntry,
    LevelOutcome,
    evolve_level,
)
from evosoko.evolve.evaluation import Evaluator, make_evaluator
from evosoko.evolve.fitness import Evaluation

__all__ = [
    "STOP_REASONS",
    "Engine",
    "Evaluation",
    "Evaluator",
    "GenerationStats",
    "HallOfFameEntry",
    "LevelOutcome",
    "evolve_level",
    "make_evaluator",
]
