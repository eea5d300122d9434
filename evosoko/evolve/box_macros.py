"""Box macros: a mutation of push genomes that carries one box to an empty goal.

Single push genes change a position one push at a time, and on large levels most random
pushes lead into dead ends long before they lead anywhere useful. :func:`mut_append_box_path`
plays the genome, picks a box off its goal and an empty goal it can reach at random, and
appends the fewest pushes that take the box there with every other box in place (the packing
macro of ``push-fess``, :mod:`evosoko.search.box_paths`). The goal is one the packing order
fills next (:mod:`evosoko.search.packing_order`): a goal filled too early walls off the goals
behind it. The macro is kept only if every one of its pushes is a candidate where it is made
(legal, not onto a dead square, not freezing a box off its goal:
:func:`evosoko.evolve.push_replay.candidate_pushes`), so the position the genome reaches stays
one the replay's deadlock tests accept. The genome stays a plain push genome.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence

import numpy as np

from evosoko.evolve.push_replay import PushTables, genes_for_pushes, push_choices
from evosoko.search.box_paths import box_path_pushes, box_reachable_targets


def mut_append_box_path(
    genome: MutableSequence[int],
    rng: random.Random,
    tables: PushTables,
    layer: np.ndarray,
    objective: str,
    stop_on_deadlock: bool,
    max_length: int,
) -> tuple[MutableSequence[int]]:
    """Replace the genes after the last push the genome makes by the pushes carrying a random
    box to a random in-plan goal it can reach (:func:`in_plan_goals` of the packing order's
    ``layer``; DEAP contract: in place, a tuple back). Boxes are tried in random order until
    one has a macro of candidate pushes within ``max_length`` genes; no change when none has,
    or when every box is on a goal."""
    made = push_choices(tables, genome, objective, stop_on_deadlock)
    player, boxes = _position_after(tables, made)
    arrays = tables.arrays
    free = in_plan_goals(layer, boxes)
    loose = sorted(box for box in boxes if not arrays.goals[box])
    rng.shuffle(loose)
    occupied = np.zeros(len(arrays.goals), dtype=np.bool_)
    occupied[list(boxes)] = True
    for box in loose:
        reachable = box_reachable_targets(
            arrays.floor, arrays.dead, occupied, arrays.deltas, box, player, free
        )
        if not reachable:
            continue
        genes = _macro_genes(tables, made, occupied, player, box, rng.choice(reachable))
        if genes is not None and len(genes) <= max_length:
            genome[:] = genes
            break
    return (genome,)


def in_plan_goals(layer: np.ndarray, boxes: set[int]) -> list[int]:
    """The empty goals of the first layer of the packing order that has an empty goal
    (``layer[cell]``: a goal's layer, -1 off goals; :mod:`evosoko.search.packing_order`)."""
    empty = [int(goal) for goal in np.flatnonzero(layer >= 0) if goal not in boxes]
    first = min((layer[goal] for goal in empty), default=-1)
    return [goal for goal in empty if layer[goal] == first]


def _position_after(tables: PushTables, pushes: list[tuple[int, int]]) -> tuple[int, set[int]]:
    """The player's cell and the box cells after ``pushes`` from the tables' start."""
    boxes = {int(box) for box in tables.start_boxes}
    player = tables.start_player
    for box, direction in pushes:
        boxes.remove(box)
        boxes.add(box + int(tables.deltas[direction]))
        player = box
    return player, boxes


def _macro_genes(tables, made, occupied, player, box, goal) -> list[int] | None:
    """Genes of ``made`` followed by the box path of ``box`` to ``goal``, or None when one of
    its pushes is not a candidate where it is made."""
    arrays = tables.arrays
    path = box_path_pushes(arrays.floor, arrays.dead, occupied, arrays.deltas, box, player, goal)
    wanted = made + (path or [])
    genes = genes_for_pushes(tables, wanted)
    return genes if path and len(genes) == len(wanted) else None
