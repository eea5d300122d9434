"""The rules of a push-level expansion that every push search shares, compiled.

The successor loop itself is written once, in
:func:`evosoko.search.push_kernel.expand_pushes` (push A*, weighted A*, greedy and IDA*, and
the feature-space search, which numba compiles apart from the same source); these are the
rules it applies to a push: the dead-end tunnel macro (:func:`deepest_goal_ahead`), the
corridor macro (:func:`through_corridor`), the goal room's packing prefix
(:func:`packed_prefix`) and the child's sorted boxes (:func:`moved_child`).
"""

from __future__ import annotations

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sets import box_blocked

REACH_STAMP, NORM_STAMP = 0, 1
"""Slots of the push kernels' running stamps
(:attr:`evosoko.search.push_kernel.PushSearchScratch.stamps`): the player's region of the node
expanded, and the region walked to normalize a child's player."""


@uncounted
def moved_child(
    boxes, assignment, index, target, child, child_assign, with_assignment
):  # pragma: no cover - compiled
    """``child`` = ``boxes`` with box ``index`` moved to ``target``, kept sorted (and its goal,
    ``child_assign`` from ``assignment``, when ``with_assignment``); returns the row of
    ``child`` that holds ``target``."""
    count = boxes.shape[0]
    written = 0
    placed = -1
    for k in range(count):
        if k == index:
            continue
        if placed < 0 and target < boxes[k]:
            child[written] = target
            if with_assignment:
                child_assign[written] = assignment[index]
            placed = written
            written += 1
        child[written] = boxes[k]
        if with_assignment:
            child_assign[written] = assignment[k]
        written += 1
    if placed < 0:
        child[written] = target
        if with_assignment:
            child_assign[written] = assignment[index]
        placed = written
    return placed


@uncounted
def deepest_goal_ahead(floor, goals, occupied, delta, cell):  # pragma: no cover - compiled
    """Steps from ``cell`` to the deepest goal of the free run ahead in a dead-end tunnel, or -1.

    Nobody can get past a box in a dead-end tunnel, so it only ever moves deeper; stopping
    short of the deepest free goal seals that goal, going past it leaves the box off goal for
    good. So the deepest free goal is the one place it can usefully end.
    """
    deepest = -1
    steps = 0
    while True:
        if goals[cell]:
            deepest = steps
        cell += delta
        if not floor[cell] or occupied[cell]:
            return deepest
        steps += 1


@uncounted
def through_corridor(floor, dead, goals, occupied, deltas, d, source, target):  # pragma: no cover
    """Further pushes in direction ``d`` that carry a box just pushed from ``source`` to
    ``target`` through a one-wide corridor: while the box and the player behind it both have
    walls on either side across ``d``, the box is off goal and the next cell is free and not
    dead, nothing but pushing on can use the box's place, so the macro does it at once. Not
    complete (a box may have to wait inside a corridor), so only ``push-fess`` uses it, and
    a search that exhausts its space with it runs again without it."""
    across = 2 if d < 2 else 0
    extra = 0
    behind = source
    cell = target
    while True:
        if goals[cell]:
            return extra
        for k in range(across, across + 2):
            if floor[cell + deltas[k]] or floor[behind + deltas[k]]:
                return extra
        after = cell + deltas[d]
        if box_blocked(floor, occupied, dead, after):
            return extra
        behind = cell
        cell = after
        extra += 1


@uncounted
def packed_prefix(room, pack_goal, occupied, boxes):  # pragma: no cover - compiled
    """How many goals of the goal room's packing order ``pack_goal`` are filled, when the
    ``room`` holds exactly those boxes; else -1."""
    inside = 0
    for b in boxes:
        if room[b]:
            inside += 1
    for k in range(inside):
        if not occupied[pack_goal[k]]:
            return -1
    return inside
