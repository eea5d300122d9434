"""Freeze deadlocks, compiled and allocation-free so that search and replay loops can test
every push: boxes that can never move again.

:func:`may_freeze` is the cheap filter every caller tries first. The classic rule
(:func:`evosoko.sokoban.deadlocks.is_freeze_deadlock` is its Python entry point; a test holds it
equal to a recursive reference): a box is blocked along an axis by a wall on either side, dead
squares on both sides, or a neighbouring box on that axis that is itself frozen, examined with the
boxes under examination taken as walls. Numba cannot cache recursive functions, so the recursion
runs on an explicit stack held in caller-owned scratch arrays (:func:`make_freeze_scratch`), which
are left clean for the next call. The GA's replay uses the stronger greatest fixpoint over all boxes
(:func:`mark_frozen`, :func:`frozen_off_goal`).

Under the given-holes rules a frozen box is lost even on a hole (it never vanishes): callers
there pass ``goals`` all False to :func:`freeze_deadlock`, so that no box is excused.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted

NO_CELL = np.int64(-1)
"""``moved_from`` and ``moved_to`` of :func:`mark_frozen` when no box moved: a typed constant, so
that kernels passing it share one compilation with those passing cells (a literal ``-1`` would
compile one of its own)."""


class FreezeScratch(NamedTuple):
    """Scratch of :func:`freeze_deadlock` and :func:`frozen_group`: the explicit stack of the
    recursion, one frame per row, and the group found."""

    as_wall: np.ndarray
    """bool[cells]: boxes under examination, taken as walls (all False between calls)."""
    frame_box: np.ndarray
    """int64[cells + 1]: the box of each frame."""
    frame_axis: np.ndarray
    """int64[cells + 1]: the axis being tried."""
    frame_side: np.ndarray
    """int64[cells + 1]: the side of that axis being tried."""
    frame_size: np.ndarray
    """int64[cells + 1]: the group's size when the side was tried."""
    group: np.ndarray
    """int64[cells + 1]: the boxes of the frozen group found (:func:`frozen_group`'s size)."""


def make_freeze_scratch(cells: int) -> FreezeScratch:
    """A clean :class:`FreezeScratch` for a board of ``cells`` cells."""
    return FreezeScratch(
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells + 1, dtype=np.int64),
        np.zeros(cells + 1, dtype=np.int64),
        np.zeros(cells + 1, dtype=np.int64),
        np.zeros(cells + 1, dtype=np.int64),
        np.zeros(cells + 1, dtype=np.int64),
    )


@numba.njit(cache=True, inline="always")
def may_freeze(floor, occupied, dead, deltas, cell):  # pragma: no cover - compiled
    """Cheap filter: False when a box on ``cell`` can certainly still move along some axis
    (free floor on both sides, not dead squares on both)."""
    for axis in range(2):
        a = cell + deltas[2 * axis]
        b = cell + deltas[2 * axis + 1]
        if (
            floor[a]
            and floor[b]
            and not occupied[a]
            and not occupied[b]
            and not (dead[a] and dead[b])
        ):
            return False
    return True


@uncounted
def freeze_deadlock(floor, dead, goals, occupied, deltas, box, scratch):  # pragma: no cover
    """True when ``box`` is frozen together with at least one box off goal."""
    size = frozen_group(floor, dead, occupied, deltas, box, scratch)
    group = scratch.group
    for k in range(size):
        if not goals[group[k]]:
            return True
    return False


@uncounted
def frozen_group(floor, dead, occupied, deltas, box, scratch):  # pragma: no cover - compiled
    """Size of the frozen group found from ``box`` (0 when it can move), its boxes left in
    ``scratch.group``."""
    as_wall, group = scratch.as_wall, scratch.group
    frame_box, frame_axis, frame_side = scratch.frame_box, scratch.frame_axis, scratch.frame_side
    frame_size = scratch.frame_size
    size = 0
    depth = 0
    answer = -1  # answer of the frame just left: -1 none, 0 it can move, 1 it is frozen
    enter = box
    while True:
        if enter >= 0:
            as_wall[enter] = True
            group[size] = enter
            size += 1
            frame_box[depth] = enter
            frame_axis[depth] = 0
            frame_side[depth] = 0
            depth += 1
            enter = -1
        top = depth - 1
        here = frame_box[top]
        side_a = here + deltas[2 * frame_axis[top]]
        side_b = here + deltas[2 * frame_axis[top] + 1]
        axis_blocked = False
        if answer == 1:
            axis_blocked = True
        elif answer == 0:
            size = frame_size[top]
            if frame_side[top] == 1 and occupied[side_b]:
                frame_side[top] = 2
                enter = side_b
        elif (
            not floor[side_a]
            or not floor[side_b]
            or as_wall[side_a]
            or as_wall[side_b]
            or (dead[side_a] and dead[side_b])
        ):
            axis_blocked = True
        elif occupied[side_a]:
            frame_side[top] = 1
            enter = side_a
        elif occupied[side_b]:
            frame_side[top] = 2
            enter = side_b
        answer = -1
        if enter >= 0:
            frame_size[top] = size
            continue
        if axis_blocked and frame_axis[top] == 0:
            frame_axis[top] = 1
            frame_side[top] = 0
            continue
        as_wall[here] = False
        depth -= 1
        answer = 1 if axis_blocked else 0
        if depth == 0:
            return size if axis_blocked else 0


@uncounted
def mark_frozen(floor, dead, deltas, boxes, moved_from, moved_to, frozen):  # pragma: no cover
    """Leave ``frozen[cell]`` True exactly on the boxes that can never move.

    The greatest fixpoint: start from every box and drop, until nothing changes, each box that
    is free along some axis (neither side a wall or a kept box, and not dead squares on both
    sides). ``boxes`` with ``moved_from`` now at ``moved_to`` (-1 and -1 for no move);
    ``frozen`` is bool[cells], all False on entry; the caller clears the box cells afterwards.
    """
    n = boxes.shape[0]
    for k in range(n):
        cell = moved_to if boxes[k] == moved_from else boxes[k]
        frozen[cell] = True
    changed = True
    while changed:
        changed = False
        for k in range(n):
            cell = moved_to if boxes[k] == moved_from else boxes[k]
            if not frozen[cell]:
                continue
            for axis in range(2):
                a = cell + deltas[2 * axis]
                b = cell + deltas[2 * axis + 1]
                held = not floor[a] or not floor[b] or frozen[a] or frozen[b]
                if not held and not (dead[a] and dead[b]):
                    frozen[cell] = False
                    changed = True
                    break


@numba.njit(cache=True)
def frozen_off_goal(
    floor, dead, goals, deltas, boxes, moved_from, moved_to, frozen
):  # pragma: no cover
    """Whether some box can never move and is off its goal (see :func:`mark_frozen`).

    ``frozen`` is scratch bool[cells], all False on entry and on return.
    """
    mark_frozen(floor, dead, deltas, boxes, moved_from, moved_to, frozen)
    lost = False
    for k in range(boxes.shape[0]):
        cell = moved_to if boxes[k] == moved_from else boxes[k]
        if frozen[cell] and not goals[cell]:
            lost = True
        frozen[cell] = False
    return lost
