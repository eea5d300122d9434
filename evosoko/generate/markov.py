"""The ``markov`` method: a Markov chain draws the room, boxes and goals go anywhere in it.

Walls and floor are drawn cell by cell (:func:`evosoko.generate.rooms.markov_room`), the border
is wall, the player's region is the largest connected floor region (every other pocket is walled
up), boxes and goals are placed at random in it, and the level is kept only if the certifier
solves it.
"""

from __future__ import annotations

import random

import numpy as np

from evosoko.generate.certify import Candidate, certify
from evosoko.generate.rooms import SOURCE_TABLE, MarkovTable, largest_region, markov_room
from evosoko.generate.sketch import Sketch
from evosoko.generate.spec import GenerationSpec


def markov_level(
    spec: GenerationSpec, rng: random.Random, table: MarkovTable = SOURCE_TABLE
) -> Candidate | None:
    """One attempt: a certified candidate, or None (region too small, trivial or unsolved)."""
    sketch = markov_sketch(spec, rng, table)
    if sketch is None or sketch.is_solved():
        return None
    level = sketch.to_level()
    if level.dead_squares[list(level.start.boxes)].any():
        return None  # a box no push sequence can bring to any goal: certainly unsolvable
    certificate = certify(level, spec.node_limit)
    return None if certificate is None else Candidate(sketch, certificate)


def markov_sketch(
    spec: GenerationSpec, rng: random.Random, table: MarkovTable = SOURCE_TABLE
) -> Sketch | None:
    """A Markov room with random pieces in its largest region, or None if the region is too
    small."""
    width, height = spec.width, spec.height
    walls = markov_room(width, height, rng, table)
    region = largest_region(width, height, walls)
    cells = np.flatnonzero(region).tolist()
    if len(cells) < spec.boxes + 1:
        return None
    player = rng.choice(cells)
    boxes = rng.sample([cell for cell in cells if cell != player], spec.boxes)
    goals = rng.sample(cells, spec.boxes)
    return Sketch(width, height, ~region, tuple(sorted(goals)), tuple(sorted(boxes)), player)
