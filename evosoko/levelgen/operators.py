"""Variation of level genomes: mutations that flip cells, carve and fill rooms, move pieces and
swap regions, and crossovers that exchange regions of two boards.

Every operator follows DEAP's contract (change the genome in place, return a tuple) and draws
every random number from the run's ``rng``; ``space`` is the
:class:`~evosoko.levelgen.space.LevelSpace` of the run. Operators may leave a board illegal
(two players, a box in a wall, a room cut off): the loop repairs every child afterwards
(:func:`evosoko.levelgen.repair.repair`). They are registered under the names below in
:mod:`evosoko.levelgen.builtins`; ``mixed`` (the default) applies a few of the others.
"""

from __future__ import annotations

import random

from evosoko.levelgen.space import BOX, FLOOR, GOAL, PLAYER, WALL, Genes, LevelSpace

MIXED_WEIGHTS = {
    "flip_cells": 1.0,
    "carve_room": 1.0,
    "fill_room": 1.0,
    "move_box": 2.0,
    "move_goal": 2.0,
    "move_player": 0.5,
    "swap_regions": 1.0,
    "add_box": 0.5,
    "remove_box": 0.5,
}
"""How often ``mixed`` picks each mutation (relative weights)."""


# ---- cells and rooms ---------------------------------------------------------------------------
def flip_cells(genome: Genes, rng: random.Random, space: LevelSpace, rate: float = 0.05):
    """Each cell of the space turns from wall to floor or back with chance ``rate`` (at least
    one cell does); a cell that becomes wall loses what stood on it."""
    flipped = [cell for cell in space.inside if rng.random() < rate]
    for cell in flipped or [rng.choice(space.inside)]:
        genome[cell] = FLOOR if genome[cell] & WALL else WALL
    return (genome,)


def carve_room(genome: Genes, rng: random.Random, space: LevelSpace, largest: int = 3):
    """A rectangle of up to ``largest`` x ``largest`` cells becomes floor (pieces stay)."""
    for cell in _rectangle(space, rng, largest):
        if genome[cell] & WALL:
            genome[cell] = FLOOR
    return (genome,)


def fill_room(genome: Genes, rng: random.Random, space: LevelSpace, largest: int = 2):
    """A rectangle of up to ``largest`` x ``largest`` cells becomes wall (pieces go)."""
    for cell in _rectangle(space, rng, largest):
        genome[cell] = WALL
    return (genome,)


def swap_regions(genome: Genes, rng: random.Random, space: LevelSpace, largest: int = 3):
    """Two rectangles of the same size (up to ``largest`` a side) swap their cells."""
    height = rng.randint(1, min(largest, space.height - 2))
    width = rng.randint(1, min(largest, space.width - 2))
    first = _corner(space, rng, width, height)
    second = _corner(space, rng, width, height)
    for row in range(height):
        for column in range(width):
            a = first + row * space.width + column
            b = second + row * space.width + column
            genome[a], genome[b] = genome[b], genome[a]
    return (genome,)


# ---- pieces --------------------------------------------------------------------------------------
def move_box(genome: Genes, rng: random.Random, space: LevelSpace, reach: int = 0):
    """A box moves to a free floor cell (within ``reach`` steps of Manhattan distance; 0:
    anywhere)."""
    return _move_piece(genome, rng, space, BOX, BOX | PLAYER, reach)


def move_goal(genome: Genes, rng: random.Random, space: LevelSpace, reach: int = 0):
    """A goal moves to a floor cell without one (within ``reach``; 0: anywhere)."""
    return _move_piece(genome, rng, space, GOAL, GOAL, reach)


def move_player(genome: Genes, rng: random.Random, space: LevelSpace):
    """The player moves to a free floor cell (perhaps into another part of the level)."""
    return _move_piece(genome, rng, space, PLAYER, BOX | PLAYER, 0)


def add_box(genome: Genes, rng: random.Random, space: LevelSpace):
    """A box and a goal appear on free floor cells (repair keeps the space's box range)."""
    free = [cell for cell in space.inside if not genome[cell] & (WALL | BOX | PLAYER)]
    open_goals = [cell for cell in space.inside if not genome[cell] & (WALL | GOAL)]
    if free and open_goals:
        genome[rng.choice(free)] |= BOX
        genome[rng.choice(open_goals)] |= GOAL
    return (genome,)


def remove_box(genome: Genes, rng: random.Random, space: LevelSpace):
    """A box and a goal disappear (repair keeps the space's box range)."""
    boxes = [cell for cell in space.inside if genome[cell] & BOX]
    goals = [cell for cell in space.inside if genome[cell] & GOAL]
    if boxes and goals:
        genome[rng.choice(boxes)] &= ~BOX
        genome[rng.choice(goals)] &= ~GOAL
    return (genome,)


def _move_piece(
    genome: Genes, rng: random.Random, space: LevelSpace, piece: int, blocked: int, reach: int
):
    held = [cell for cell in space.inside if genome[cell] & piece]
    if not held:
        return (genome,)
    source = rng.choice(held)
    targets = [
        cell
        for cell in space.inside
        if not genome[cell] & (WALL | blocked)
        and (reach <= 0 or _distance(space, source, cell) <= reach)
    ]
    if targets:
        genome[source] &= ~piece
        genome[rng.choice(targets)] |= piece
    return (genome,)


def mixed(
    genome: Genes,
    rng: random.Random,
    space: LevelSpace,
    steps: int = 2,
    weights: dict[str, float] = MIXED_WEIGHTS,
):
    """One to ``steps`` mutations drawn by ``weights`` (default :data:`MIXED_WEIGHTS`; a name
    left out is never drawn), each with its default parameters."""
    chosen = weights
    unknown = set(chosen) - set(MIXED_WEIGHTS)
    if unknown:
        raise ValueError(f"mixed: unknown mutations {', '.join(sorted(unknown))}")
    names = [name for name in MIXED_WEIGHTS if chosen.get(name, 0) > 0]
    if not names:
        raise ValueError("mixed: every weight is zero")
    for _ in range(rng.randint(1, max(1, steps))):
        name = rng.choices(names, [chosen[name] for name in names])[0]
        ELEMENTARY[name](genome, rng, space)
    return (genome,)


ELEMENTARY = {
    "flip_cells": flip_cells,
    "carve_room": carve_room,
    "fill_room": fill_room,
    "move_box": move_box,
    "move_goal": move_goal,
    "move_player": move_player,
    "swap_regions": swap_regions,
    "add_box": add_box,
    "remove_box": remove_box,
}
"""The mutations ``mixed`` draws from, by name."""


# ---- crossover -------------------------------------------------------------------------------
def region_crossover(
    first: Genes, second: Genes, rng: random.Random, space: LevelSpace, smallest: int = 2
):
    """A rectangle (at least ``smallest`` cells a side where the board allows) is exchanged
    between the two boards."""
    inner_height, inner_width = space.height - 2, space.width - 2
    height = rng.randint(min(smallest, inner_height), inner_height)
    width = rng.randint(min(smallest, inner_width), inner_width)
    corner = _corner(space, rng, width, height)
    for row in range(height):
        for column in range(width):
            cell = corner + row * space.width + column
            first[cell], second[cell] = second[cell], first[cell]
    return first, second


def row_crossover(first: Genes, second: Genes, rng: random.Random, space: LevelSpace):
    """The rows below a cut drawn between two inner rows are exchanged."""
    cut = rng.randint(2, space.height - 2) * space.width
    first[cut:], second[cut:] = second[cut:], first[cut:]
    return first, second


# ---- geometry ------------------------------------------------------------------------------------
def _rectangle(space: LevelSpace, rng: random.Random, largest: int) -> list[int]:
    """The cells of the space in a random rectangle of up to ``largest`` a side."""
    height = rng.randint(1, min(largest, space.height - 2))
    width = rng.randint(1, min(largest, space.width - 2))
    corner = _corner(space, rng, width, height)
    inside = space.inside_mask
    cells = [
        corner + row * space.width + column for row in range(height) for column in range(width)
    ]
    return [cell for cell in cells if inside[cell]]


def _corner(space: LevelSpace, rng: random.Random, width: int, height: int) -> int:
    """The top left cell of a ``width`` x ``height`` rectangle inside the border."""
    row = rng.randint(1, space.height - 1 - height)
    column = rng.randint(1, space.width - 1 - width)
    return row * space.width + column


def _distance(space: LevelSpace, a: int, b: int) -> int:
    (row_a, column_a), (row_b, column_b) = divmod(a, space.width), divmod(b, space.width)
    return abs(row_a - row_b) + abs(column_a - column_b)
