"""Level-aware mutation of move genomes: append a walk to a push and the push itself.

A move genome that has brought the boxes closer still needs the player to find the next box by
itself, one random step at a time. :func:`mut_append_push` plays the genome, picks one of the
candidate pushes of the position it reaches (legal, not onto a dead square, not freezing a box
off its goal: the candidates of push genomes, :func:`evosoko.evolve.push_replay.candidate_pushes`)
and appends a shortest walk behind that box and the push, as ordinary move genes. The genome
stays a plain move genome; only the variation knows the level.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence

import numpy as np

from evosoko.evolve.push_replay import PushTables, candidate_pushes
from evosoko.sokoban.level import DIRECTIONS, Level
from evosoko.sokoban.rules import play_moves, walk_path


def mut_append_push(
    genome: MutableSequence[int],
    rng: random.Random,
    level: Level,
    tables: PushTables,
    max_length: int,
) -> tuple[MutableSequence[int]]:
    """Append the walk to a random candidate push of the reached position and the push
    (DEAP contract: in place, a tuple back). No change when the genome solves the level, no
    push is possible, or the genes would exceed ``max_length``."""
    played = play_moves(level, genome)
    if played.solved:
        return (genome,)
    candidates = candidate_pushes(tables, played.player, np.flatnonzero(played.occupied))
    if not candidates:
        return (genome,)
    box, direction = rng.choice(candidates)
    walk = walk_path(level, played.occupied, played.player, box - level.deltas[direction])
    if walk is None:  # pragma: no cover - candidates are reachable by construction
        return (genome,)
    genes = [DIRECTIONS.index(letter) for letter in walk] + [direction]
    if len(genome) + len(genes) <= max_length:
        genome.extend(genes)
    return (genome,)
