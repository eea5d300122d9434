"""Certification: a level is emitted only with a push-optimal solution that replays.

The certifier is ``push-astar`` from :mod:`evosoko.search`, bounded by a node limit (never a
wall-clock limit) so that acceptance does not depend on the speed of the machine. Its solution is
replayed by :func:`evosoko.sokoban.solutions.verify_solution` before it is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from evosoko.errors import SolutionError
from evosoko.generate.sketch import Sketch
from evosoko.search import solve
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution

CERTIFIER = "push-astar"
"""The search algorithm that certifies every generated level."""


@dataclass(frozen=True)
class Certificate:
    """A verified solution: LURD, its pushes (optimal) and moves, and the A* expansions."""

    solution: str
    pushes: int
    moves: int
    expanded: int

    def notes(self) -> tuple[tuple[str, str], ...]:
        """The certificate as XSB notes (``Pushes``, ``Moves``, ``Expanded``, ``Solution``)."""
        return (
            ("Pushes", str(self.pushes)),
            ("Moves", str(self.moves)),
            ("Expanded", str(self.expanded)),
            ("Solution", self.solution),
        )


@dataclass(frozen=True)
class Candidate:
    """A certified sketch and the method's own notes about it (e.g. box displacement)."""

    sketch: Sketch
    certificate: Certificate
    notes: tuple[tuple[str, str], ...] = ()


def certify(level: Level, node_limit: int) -> Certificate | None:
    """The push-optimal certificate of ``level``, or None if unsolved within ``node_limit``.

    Raises :class:`SolutionError` if the solver returns a solution that does not replay: that is
    a bug in the solver, never a property of the level.
    """
    result = solve(level, CERTIFIER, node_limit=node_limit)
    if result.status != "solved":
        return None
    if result.solution is None:
        raise SolutionError(f"{CERTIFIER} reported the level solved without a solution")
    check = verify_solution(level, result.solution)
    if not (check.valid and check.solved):
        reason = check.error or "the boxes are not all on goals at the end"
        raise SolutionError(f"{CERTIFIER} returned a solution that does not replay: {reason}")
    return Certificate(
        solution=check.lurd, pushes=check.pushes, moves=check.moves, expanded=int(result.expanded)
    )
