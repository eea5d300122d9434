"""The first population of a level run: reverse-generated rooms, random boards or a file's levels.

- ``reverse``: the reverse generator's carved room with goals, boxes pulled away from them to
  the deepest state its pull search reached (:func:`evosoko.generate.reverse.pull_level`,
  uncertified: the run certifies every board itself);
- ``random``: walls drawn with a random density, pieces on random cells;
- ``file``: the levels of ``init_levels``, in turn.

Every board is repaired (:mod:`evosoko.levelgen.repair`) and drawn from the run's rng.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from evosoko.errors import ConfigError
from evosoko.generate.reverse import pull_level
from evosoko.generate.sketch import Sketch
from evosoko.generate.spec import generation_spec
from evosoko.levelgen.config import LevelsSettings
from evosoko.levelgen.repair import repair
from evosoko.levelgen.space import BOX, FLOOR, GOAL, PLAYER, WALL, Genes, LevelSpace
from evosoko.sokoban.level import Level

PULL_ATTEMPTS = 20
"""Rooms the reverse start tries before it falls back to a random board."""
WALL_DENSITY = (0.1, 0.4)
"""Range of the share of wall cells of a random board."""


def initial_genomes(
    settings: LevelsSettings, space: LevelSpace, rng: random.Random, file_levels: Sequence[Level]
) -> list[Genes]:
    """``settings.population`` repaired boards made as ``settings.init`` says."""
    count = settings.population
    if settings.init == "file":
        if not file_levels:
            raise ConfigError("levels.init_levels holds no level")
        boards = [space.genes_of(file_levels[index % len(file_levels)]) for index in range(count)]
    elif settings.init == "reverse":
        boards = [reverse_board(space, rng) for _ in range(count)]
    else:
        boards = [random_board(space, rng) for _ in range(count)]
    return [repair(genes, space, rng) for genes in boards]


def reverse_board(space: LevelSpace, rng: random.Random) -> Genes:
    """A carved room with its boxes pulled away from the goals (a random board when the pull
    search finds no state in :data:`PULL_ATTEMPTS` rooms)."""
    boxes = rng.randint(space.min_boxes, space.max_boxes)
    try:
        spec = generation_spec("reverse", space.width, space.height, boxes)
    except ConfigError:  # more boxes than a carved room of this size takes
        return random_board(space, rng)
    for _ in range(PULL_ATTEMPTS):
        pulled = pull_level(spec, rng)
        if pulled is not None:
            return sketch_genes(pulled.sketch)
    return random_board(space, rng)


def random_board(space: LevelSpace, rng: random.Random) -> Genes:
    """Walls on a random share of the cells, boxes, goals and the player on random cells."""
    genes = space.empty()
    density = rng.uniform(*WALL_DENSITY)
    for cell in space.inside:
        genes[cell] = WALL if rng.random() < density else FLOOR
    floor = [cell for cell in space.inside if genes[cell] == FLOOR] or list(space.inside)
    boxes = min(rng.randint(space.min_boxes, space.max_boxes), len(floor) - 1)
    for cell in rng.sample(floor, boxes):
        genes[cell] = BOX
    for cell in rng.sample(floor, boxes):
        genes[cell] = (genes[cell] & BOX) | GOAL
    genes[rng.choice(floor)] |= PLAYER
    return genes


def sketch_genes(sketch: Sketch) -> Genes:
    """The genome of a generator's sketch."""
    genes = [WALL if wall else FLOOR for wall in sketch.walls.tolist()]
    for goal in sketch.goals:
        genes[goal] |= GOAL
    for box in sketch.boxes:
        genes[box] |= BOX
    genes[sketch.player] |= PLAYER
    return genes
