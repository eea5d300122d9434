"""The ``reverse`` method: carve a room, put the boxes on their goals, and pull them away.

A random walk carves a connected room; goals go on random floor cells; a breadth-first reverse
search (:mod:`evosoko.generate.pulls`) then pulls the boxes away from the goals. Its depth is the
fewest pushes that solve a state, so the method picks the deepest state (or a depth drawn from
the requested band) and, among those, the one whose boxes stand farthest from the goals.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from evosoko.generate.certify import Candidate, certify
from evosoko.generate.pulls import PullTree, pull_search
from evosoko.generate.rooms import carved_room
from evosoko.generate.sketch import Sketch
from evosoko.generate.spec import GenerationSpec
from evosoko.sokoban.level import flood_fill, neighbour_table

FLOOR_FRACTION = (0.45, 0.75)
"""Range of the share of the interior that the random walk carves into floor."""


@dataclass(frozen=True)
class Pulled:
    """The state a reverse search chose: its sketch, pull depth and box displacement.

    The pull depth is the fewest pushes that solve the sketch.
    """

    sketch: Sketch
    depth: int
    displacement: int


def reverse_level(spec: GenerationSpec, rng: random.Random) -> Candidate | None:
    """One attempt: a certified candidate, or None when this room gave nothing in the band."""
    pulled = pull_level(spec, rng)
    if pulled is None:
        return None
    certificate = certify(pulled.sketch.to_level(), spec.node_limit)
    if certificate is None:
        return None
    return Candidate(pulled.sketch, certificate, (("Displacement", str(pulled.displacement)),))


def pull_level(spec: GenerationSpec, rng: random.Random) -> Pulled | None:
    """Carve a room, place goals, search pulls and pick a state (None if none fits the band)."""
    width, height = spec.width, spec.height
    walls = carved_room(width, height, rng.uniform(*FLOOR_FRACTION), rng)
    floor = ~walls
    floor_cells = np.flatnonzero(floor).tolist()
    if len(floor_cells) < spec.boxes + 1:
        return None
    goals = tuple(sorted(rng.sample(floor_cells, spec.boxes)))
    neighbours = neighbour_table(width, height)
    tree = pull_search(floor, neighbours, goals, spec.pull_limit, rng)
    chosen = choose_state(tree, spec, goals, width, rng)
    if chosen is None:
        return None
    boxes = tuple(int(b) for b in tree.boxes[chosen])
    occupied = np.zeros(len(floor), dtype=bool)
    occupied[list(boxes)] = True
    region = np.flatnonzero(flood_fill(floor & ~occupied, neighbours, int(tree.players[chosen])))
    player = int(rng.choice(region.tolist()))
    displacement = int(box_displacement(tree.boxes[chosen : chosen + 1], goals, width)[0])
    sketch = Sketch(width, height, walls, goals, boxes, player)
    return Pulled(sketch, int(tree.depths[chosen]), displacement)


def choose_state(
    tree: PullTree, spec: GenerationSpec, goals: tuple[int, ...], width: int, rng: random.Random
) -> int | None:
    """Index of the state to emit, or None when no state's depth lies in the band.

    Without ``max_pushes`` the deepest depth is taken; with it, a depth drawn uniformly from the
    band's depths that the search reached. Ties go to the largest box displacement, then to rng.
    """
    depths = tree.depths
    in_band = depths >= spec.min_pushes
    if spec.max_pushes is not None:
        in_band &= depths <= spec.max_pushes
    if not in_band.any():
        return None
    if spec.max_pushes is None:
        depth = int(depths[in_band].max())
    else:
        depth = int(rng.choice(sorted(set(depths[in_band].tolist()))))
    candidates = np.flatnonzero(depths == depth)
    displacement = box_displacement(tree.boxes[candidates], goals, width)
    best = candidates[displacement == displacement.max()]
    return int(best[rng.randrange(len(best))])


def box_displacement(boxes: np.ndarray, goals: tuple[int, ...], width: int) -> np.ndarray:
    """int64[n]: for each row of ``boxes``, the sum of each box's Manhattan distance to its
    nearest goal."""
    goal_rows, goal_columns = np.divmod(np.asarray(goals, dtype=np.int64), width)
    rows, columns = np.divmod(boxes.astype(np.int64), width)
    distance = np.abs(rows[..., None] - goal_rows) + np.abs(columns[..., None] - goal_columns)
    return distance.min(axis=-1).sum(axis=-1)
