"""Given-holes levels from any generation method (:mod:`evosoko.sokoban.holes.board`).

A method builds and certifies a standard level as usual; its certified solution, replayed
with the boxes told apart, says which goal each box ends on: that is the box's hole (for
``reverse``, the box the pulls dragged away from that goal along an optimal route back; for
``mask``, the box the open-room solution took there). The level gets that pairing and is
certified again by the given-holes push-A*, whose push-optimal solution and push count are
what the level records. Such a level is always solvable under the variant (replaying the
standard solution without the pushes of boxes already vanished stays legal: fewer boxes only
free cells). An attempt whose pairing leaves a box in its own hole at the start is dropped.

With ``pairing="random"`` the pairing is drawn at random instead (from the attempt's seed, so
the ``Seed`` note still rebuilds the level) among those that leave no box in its own hole, and
the level is kept only if the given-holes push-A* solves it: levels where the pairing, not
only the board, makes the puzzle. Each level records how it was paired (``Paired-By``).
"""

from __future__ import annotations

import random

from evosoko.errors import SolutionError
from evosoko.generate.certify import Candidate, Certificate
from evosoko.search.given_holes import solve_given_holes
from evosoko.sokoban.holes.board import given_holes_notes
from evosoko.sokoban.level import DIRECTIONS, Level
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import parse_lurd, verify_solution


def solution_pairing(level: Level, solution: str) -> list[int] | None:
    """For each box (reading order), the row in ``goal_cells`` of the goal the standard
    ``solution`` brings it to; None when the solution does not solve ``level``."""
    board = Board(level)
    where = list(level.start.boxes)  # where[box number] = its cell
    for letter in parse_lurd(solution):
        direction = DIRECTIONS.index(letter.lower())
        box_cell = board.player + level.deltas[direction]
        pushed = bool(board.occupied[box_cell])
        if not board.step(direction):
            return None
        if pushed:
            number = where.index(box_cell)
            where[number] = box_cell + level.deltas[direction]
    if not board.is_solved():
        return None
    goals = level.goal_cells.tolist()
    return [goals.index(cell) for cell in where]


PAIRINGS = ("solution", "random")
"""How a generated given-holes level gets its pairing (see the module docstring)."""
_PAIRING_SALT = 0x6A09_E667_F3BC_C908
"""Mixed into the attempt's seed for the random pairing, so it does not repeat the method's
own draws."""
_PAIRING_TRIES = 50


def given_holes_candidate(
    candidate: Candidate, node_limit: int, pairing: str = "solution", seed: int = 0
) -> Candidate | None:
    """The given-holes version of a certified standard candidate, certified by the given-holes
    push-A*; None when a box would start in its own hole, the pairing is unsolvable or the
    search ran out of nodes."""
    standard = candidate.sketch.to_level()
    goals = standard.goal_cells.tolist()
    if pairing == "random":
        rows = _random_pairing(standard.start.boxes, goals, random.Random(seed ^ _PAIRING_SALT))
    else:
        rows = solution_pairing(standard, candidate.certificate.solution)
        if rows is None:
            raise SolutionError("the standard certificate does not solve its own level")
    if rows is None or any(box == goals[row] for box, row in zip(standard.start.boxes, rows)):
        return None
    notes = (*given_holes_notes(rows), ("Paired-By", pairing))
    level = candidate.sketch.to_level(notes=notes)
    result = solve_given_holes(level, "push-astar", node_limit=node_limit)
    if not result.solved or result.solution is None:
        return None
    check = verify_solution(level, result.solution)
    if not (check.valid and check.solved):
        raise SolutionError("the given-holes push-A* returned a solution that does not replay")
    certificate = Certificate(check.lurd, check.pushes, check.moves, int(result.expanded))
    return Candidate(candidate.sketch, certificate, notes + candidate.notes)


def _random_pairing(boxes, goals: list[int], rng: random.Random) -> list[int] | None:
    """A random pairing (rows of ``goals``) that leaves no box in its own hole, or None."""
    for _ in range(_PAIRING_TRIES):
        rows = rng.sample(range(len(goals)), len(goals))
        if all(box != goals[row] for box, row in zip(boxes, rows)):
            return rows
    return None
