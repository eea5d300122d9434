"""The ``mask`` method: solve boxes in an open room, then wall up every cell the solution missed.

Boxes and goals go on distinct random cells at least :data:`~evosoko.generate.spec.MASK_MARGIN`
cells from the border of an empty room, the player on any other free cell. The certifier solves
that open room; every floor cell that neither the player nor a box visited along the solution
becomes wall, and the masked level is certified again (the open-room solution still fits it).
"""

from __future__ import annotations

import random

import numpy as np

from evosoko.generate.certify import Candidate, certify
from evosoko.generate.rooms import open_room
from evosoko.generate.sketch import Sketch, interior_cells
from evosoko.generate.spec import MASK_MARGIN, GenerationSpec
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import replay_states


def mask_level(spec: GenerationSpec, rng: random.Random) -> Candidate | None:
    """One attempt: a certified candidate, or None when the open room was not solved in time."""
    room = open_room_sketch(spec, rng)
    level = room.to_level()
    solved = certify(level, spec.node_limit)
    if solved is None:
        return None
    masked = Sketch(
        room.width,
        room.height,
        ~visited_cells(level, solved.solution),
        room.goals,
        room.boxes,
        room.player,
    )
    certificate = certify(masked.to_level(), spec.node_limit)
    return None if certificate is None else Candidate(masked, certificate)


def open_room_sketch(spec: GenerationSpec, rng: random.Random) -> Sketch:
    """An empty room with boxes and goals on distinct cells of its inner zone and the player."""
    width, height = spec.width, spec.height
    zone = interior_cells(width, height, MASK_MARGIN)
    pieces = rng.sample(zone, 2 * spec.boxes)
    boxes, goals = pieces[: spec.boxes], pieces[spec.boxes :]
    player = rng.choice([cell for cell in interior_cells(width, height) if cell not in boxes])
    walls = open_room(width, height)
    return Sketch(width, height, walls, tuple(sorted(goals)), tuple(sorted(boxes)), player)


def visited_cells(level: Level, solution: str) -> np.ndarray:
    """``bool[cells]``: every cell the player or a box occupies at some step of ``solution``."""
    visited = np.zeros(level.cells, dtype=bool)
    for state in replay_states(level, solution):
        visited[state.player] = True
        visited[list(state.boxes)] = True
    return visited
