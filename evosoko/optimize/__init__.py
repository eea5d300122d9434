"""Shortening verified solutions: ``evosoko optimize`` and ``output.optimize_seconds``.

:func:`optimize_solution` takes a level and a solution and returns an :class:`OptimizeResult`
(the original counts, the best solution for the objective and the Pareto set of moves and
pushes); :func:`optimize_file` does it for every solution of a solutions file.
"""

from evosoko.optimize.files import optimize_file
from evosoko.optimize.shorten import (
    OBJECTIVES,
    Candidate,
    OptimizeResult,
    optimize_solution,
    pareto_front,
)

__all__ = [
    "OBJECTIVES",
    "Candidate",
    "OptimizeResult",
    "optimize_file",
    "optimize_solution",
    "pareto_front",
]
