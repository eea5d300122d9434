"""Repair: any genome becomes a legal level of its space, drawing what it must from the run's rng.

:func:`repair` runs after every variation (operators may leave two players, a box in a wall
or a room cut off), in this order:

1. cells outside the space become wall, a wall cell carries nothing else and a player
   standing on a box pushes it out of existence;
2. one player: the first of several stays; none, one is placed on a free floor cell;
3. one connected floor region: the largest one (the player's on a tie) is kept and every other
   becomes wall (with what it held); the player moves in if it was elsewhere; a region too
   small for the boxes grows by wall cells next to it;
4. as many goals as boxes, within the space's box range: missing boxes or goals are placed on
   free cells of the region, extra ones removed at random;
5. at least one box off its goal (else one goal moves to a free cell).

A repaired genome is returned in place (and as the result). The repair is a function of the
genome and the rng, so runs stay reproducible.
"""

from __future__ import annotations

import random

from evosoko.levelgen.space import BOX, FLOOR, GOAL, PLAYER, WALL, Genes, LevelSpace


def repair(genes: Genes, space: LevelSpace, rng: random.Random) -> Genes:
    """Make ``genes`` a legal level of ``space`` in place (see the module docstring)."""
    inside = space.inside_mask
    for cell, code in enumerate(genes):
        if not inside[cell] or code & WALL:
            genes[cell] = WALL
        elif code & PLAYER and code & BOX:
            genes[cell] = code & ~BOX
    _one_player(genes, space, rng)
    region = _keep_one_region(genes, space)
    _grow_region(genes, space, region, rng)
    _match_boxes_and_goals(genes, space, rng)
    _unsolve(genes, rng)
    return genes


def _one_player(genes: Genes, space: LevelSpace, rng: random.Random) -> None:
    players = [cell for cell, code in enumerate(genes) if code & PLAYER]
    for cell in players[1:]:
        genes[cell] &= ~PLAYER
    if players:
        return
    free = [cell for cell, code in enumerate(genes) if not code & (WALL | BOX)]
    if not free:  # a board of walls and boxes: open a cell of the space for the player
        free = list(space.inside)
    cell = rng.choice(free)
    genes[cell] = (genes[cell] & GOAL) | PLAYER


def _regions(genes: Genes, space: LevelSpace) -> list[list[int]]:
    """The connected floor regions (boxes ignored), each in the order met, by first cell."""
    seen = [False] * len(genes)
    found = []
    neighbours = space.neighbours
    for start in space.inside:
        if seen[start] or genes[start] & WALL:
            continue
        seen[start] = True
        region, stack = [start], [start]
        while stack:
            cell = stack.pop()
            for neighbour in neighbours[cell]:
                if neighbour >= 0 and not seen[neighbour] and not genes[neighbour] & WALL:
                    seen[neighbour] = True
                    region.append(int(neighbour))
                    stack.append(int(neighbour))
        found.append(region)
    return found


def _keep_one_region(genes: Genes, space: LevelSpace) -> set[int]:
    player = next(cell for cell, code in enumerate(genes) if code & PLAYER)
    regions = _regions(genes, space)
    own = next(region for region in regions if player in region)
    largest = max(regions, key=len)
    kept = own if len(own) >= len(largest) else largest
    for region in regions:
        if region is not kept:
            for cell in region:
                genes[cell] = WALL
    if kept is not own:
        cell = min(c for c in kept if not genes[c] & BOX) if _has_free(genes, kept) else kept[0]
        genes[cell] = (genes[cell] & GOAL) | PLAYER
    return set(kept)


def _has_free(genes: Genes, cells) -> bool:
    return any(not genes[cell] & BOX for cell in cells)


def _grow_region(genes: Genes, space: LevelSpace, region: set[int], rng: random.Random) -> None:
    """Open wall cells of the space next to the region until it holds the fewest boxes, as
    many goals... and the player: ``min_boxes + 1`` cells."""
    needed = space.min_boxes + 1
    inside = space.inside_mask
    while len(region) < needed:
        frontier = sorted(
            {
                int(neighbour)
                for cell in region
                for neighbour in space.neighbours[cell]
                if neighbour >= 0 and inside[neighbour] and neighbour not in region
            }
        )
        cell = rng.choice(frontier)
        genes[cell] = FLOOR
        region.add(cell)


def _match_boxes_and_goals(genes: Genes, space: LevelSpace, rng: random.Random) -> None:
    floor = [cell for cell, code in enumerate(genes) if not code & WALL]
    boxes = [cell for cell in floor if genes[cell] & BOX]
    goals = [cell for cell in floor if genes[cell] & GOAL]
    room = len(floor) - 1  # cells a box may stand on: all but the player's
    target = min(max(len(boxes), space.min_boxes), space.max_boxes, room)
    for cell in _drawn(boxes, len(boxes) - target, rng):
        genes[cell] &= ~BOX
    free = [cell for cell in floor if not genes[cell] & (BOX | PLAYER)]
    for cell in _drawn(free, target - len(boxes), rng):
        genes[cell] |= BOX
    for cell in _drawn(goals, len(goals) - target, rng):
        genes[cell] &= ~GOAL
    open_goals = [cell for cell in floor if not genes[cell] & GOAL]
    for cell in _drawn(open_goals, target - len(goals), rng):
        genes[cell] |= GOAL


def _drawn(cells: list[int], count: int, rng: random.Random) -> list[int]:
    """``count`` of ``cells`` drawn at random (none when ``count`` is not positive)."""
    return rng.sample(cells, count) if count > 0 else []


def _unsolve(genes: Genes, rng: random.Random) -> None:
    """Move one goal off a box when every box stands on a goal (a solved board is no puzzle)."""
    boxes = [cell for cell, code in enumerate(genes) if code & BOX]
    if any(not genes[cell] & GOAL for cell in boxes):
        return
    free = [cell for cell, code in enumerate(genes) if not code & (WALL | BOX | GOAL)]
    if not free:
        return  # no cell to move a goal to: the level stays trivial and is scored infeasible
    genes[rng.choice(boxes)] &= ~GOAL
    genes[rng.choice(free)] |= GOAL
