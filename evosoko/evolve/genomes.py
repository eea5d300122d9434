"""The two genome encodings and their translation to and from LURD.

- ``moves``: each gene is a direction ``0..3`` = ``u d l r``; a move into a wall or a blocked
  box is skipped; replay stops when the level is solved.
- ``pushes``: each gene is an integer ``0..PUSH_GENE_RANGE-1`` that chooses among the candidate
  pushes of the current position (:mod:`evosoko.evolve.push_replay`); the player walks to the
  chosen push by a shortest path.

A genome is a plain list (or tuple) of ints; DEAP individuals are lists too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evosoko.evolve.push_replay import (
    PUSH_GENE_RANGE,
    genes_for_pushes,
    push_choices,
    push_tables,
)
from evosoko.sokoban.holes.board import HolesState, board_for
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import Board, played_moves
from evosoko.sokoban.solutions import parse_lurd
from evosoko.sokoban.variants import level_rules

if TYPE_CHECKING:
    from evosoko.config import FitnessConfig

ENCODINGS = ("moves", "pushes")


def gene_range(encoding: str) -> int:
    """Genes of ``encoding`` are drawn from ``0..gene_range-1``."""
    if encoding == "moves":
        return len(DIRECTIONS)
    if encoding == "pushes":
        return PUSH_GENE_RANGE
    raise ValueError(f"unknown encoding {encoding!r}; expected one of {ENCODINGS}")


def random_genes(rng: random.Random, count: int, encoding: str) -> list[int]:
    """``count`` uniformly random genes of ``encoding``."""
    top = gene_range(encoding) - 1
    return [rng.randint(0, top) for _ in range(count)]


@dataclass(frozen=True)
class Decoded:
    """What a genome does when played: its LURD and what it achieves."""

    lurd: str
    moves: int
    pushes: int
    solved: bool
    final: State


def decode(
    level: Level,
    encoding: str,
    genome: Sequence[int],
    *,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
    pi_corrals: bool = True,
) -> Decoded:
    """Play ``genome`` from the start of ``level`` and return the LURD of the steps it takes.

    For push genomes ``objective``, ``stop_on_deadlock`` and ``pi_corrals`` must be those used
    in evaluation (they decide the candidates and where replay stops). A move genome stops when
    solved; a push genome also before a push into a lost position (see
    :mod:`evosoko.evolve.push_replay`).
    """
    if level_rules(level).boxes_vanish:
        from evosoko.evolve.given_holes import decode_holes

        gene_range(encoding)  # raises for an unknown encoding
        lurd, holes_board = decode_holes(level, encoding, genome, stop_on_deadlock)
        played: Board = holes_board  # its HolesState stands in for a State (see HolesBoard)
        pushes = sum(1 for letter in lurd if letter.isupper())
        return Decoded(lurd, len(lurd), pushes, played.is_solved(), played.state())
    board = Board(level)
    if encoding == "moves":
        letters = played_moves(board, genome)
    elif encoding == "pushes":
        letters = []
        tables = push_tables(level, corrals=pi_corrals)
        for box, direction in push_choices(tables, genome, objective, stop_on_deadlock):
            letters.append(board.push(box, direction))
    else:
        gene_range(encoding)  # raises for an unknown encoding
    lurd = "".join(letters)
    pushes = sum(1 for letter in lurd if letter.isupper())
    return Decoded(lurd, len(lurd), pushes, board.is_solved(), board.state())


def decode_scored(
    level: Level, encoding: str, genome: Sequence[int], fitness: FitnessConfig
) -> Decoded:
    """:func:`decode` with the replay settings of ``fitness``, as evaluation replays."""
    return decode(
        level,
        encoding,
        genome,
        objective=fitness.objective,
        stop_on_deadlock=fitness.stop_on_deadlock,
        pi_corrals=fitness.pi_corrals,
    )


def genes_from_lurd(
    level: Level,
    encoding: str,
    lurd: str,
    start: State | HolesState | None = None,
    pi_corrals: bool = True,
) -> list[int]:
    """Genes that replay ``lurd`` from ``start`` (default: the level's start; a
    :class:`HolesState` on a given-holes level, whose rules the steps then play).

    Move genes are the letters themselves. Push genes choose the pushes of ``lurd`` in turn
    among the candidates of the level's rules (``pi_corrals`` as in evaluation); they stop before
    a push that is not a candidate (it would deadlock, or it leaves a PI-corral's barrier), and
    walks between pushes are left to the encoding's shortest paths.
    Raises ``ValueError`` for an illegal step.
    """
    steps = parse_lurd(lurd)
    if encoding == "moves":
        return [DIRECTIONS.index(letter.lower()) for letter in steps]
    board = board_for(level, start)
    pushes: list[tuple[int, int]] = []
    for number, letter in enumerate(steps, start=1):
        direction = DIRECTIONS.index(letter.lower())
        box = board.player + level.deltas[direction]
        if not board.step(direction):
            raise ValueError(f"step {number} {letter!r} of the path is illegal")
        if board.history[-1].pushed:
            pushes.append((box, direction))
    gene_range(encoding)
    if level_rules(level).boxes_vanish:
        from evosoko.evolve.given_holes import holes_genes_for_pushes

        return holes_genes_for_pushes(level, pushes, start)  # type: ignore[arg-type]
    return genes_for_pushes(push_tables(level, start, pi_corrals), pushes)  # type: ignore[arg-type]
