"""The rules of push genomes, compiled: candidate pushes, pushes, frozen goals, lost positions.

Push replay (:mod:`evosoko.evolve.push_replay`), decoding to LURD and the lost search
(:mod:`evosoko.evolve.lost_search`) all play positions by these rules, on the level's arrays
(:class:`~evosoko.sokoban.arrays.LevelArrays`) and one :class:`PushScratch` of work arrays.

The *candidate pushes* of a position, in canonical order (boxes by increasing cell, then
directions ``u d l r``): the player can walk behind the box, the cell beyond is free floor, it is
not a dead square, and the push freezes no box off its goal. Frozen boxes are found as a greatest
fixpoint (:func:`evosoko.sokoban.freeze.mark_frozen`), which also catches a box frozen by the
pushed one when the pushed one is held by walls alone.

Boxes frozen on goals are walls from then on: the distance matches the other boxes to the goals
left, on push distances recomputed with those walls, and cells from which none of those goals can
be reached become dead squares (:func:`evosoko.sokoban.deadlocks.frozen_goal_tables`); this
catches goals filled in the wrong order. With ``corrals``, when the player's area leaves a
PI-corral (:mod:`evosoko.sokoban.corrals`), only the pushes of its barrier boxes are candidates:
every solution can start with one of them.

A position is *lost* when no candidate is left, when the pushes forced from it (a single
candidate at each step) lead to such a position, or (with ``stop_on_deadlock``) when the boxes
can no longer be matched to goals (distance ``UNREACHABLE``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.evolve.distances import MANHATTAN, MATCHING, box_objective
from evosoko.sokoban.analysis import pull_distances
from evosoko.sokoban.corrals import pi_corral
from evosoko.sokoban.freeze import frozen_off_goal, mark_frozen, may_freeze
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import matching_kernel
from evosoko.sokoban.reach import explore


class PushScratch(NamedTuple):
    """Work arrays of the push rules for one level (build with :func:`push_scratch`)."""

    occupied: np.ndarray  # bool[cells]: the position's boxes
    boxes: np.ndarray  # int64[boxes]: the same boxes, sorted
    mark: np.ndarray  # int64[cells]: reach marks (stamped)
    queue: np.ndarray  # int64[cells]
    out_box: np.ndarray  # int64[4 * boxes]: the candidate pushes' boxes
    out_direction: np.ndarray  # int64[4 * boxes]: and directions
    frozen: np.ndarray  # bool[cells]: scratch of the freeze fixpoint, all False between calls
    frozen_goals: np.ndarray  # bool[cells]: the boxes frozen on goals
    reduced: np.ndarray  # int64[goals, cells]: push distances to the goals left free
    dead_now: np.ndarray  # bool[cells]: dead squares with boxes frozen on goals as walls
    open_cells: np.ndarray  # bool[cells]: floor without the boxes frozen on goals
    free_boxes: np.ndarray  # int64[boxes]: the boxes not frozen on goals
    corral: tuple  # 7 x int64[cells]: scratch of pi_corral
    corral_marks: np.ndarray  # int64[4]: its stamps
    stamp: np.ndarray  # int64[1]: the last reach stamp used
    assignment: np.ndarray  # int16[boxes]: matching scratch
    work: np.ndarray  # int64[6, boxes + 1]: matching scratch


@numba.njit(cache=True)
def push_scratch(cells, box_count, goal_count):  # pragma: no cover - compiled
    """A :class:`PushScratch` for a level of ``cells`` cells and ``box_count`` boxes."""
    corral = (
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
    )
    return PushScratch(
        np.zeros(cells, dtype=np.bool_),
        np.zeros(box_count, dtype=np.int64),  # set_position clears these cells first
        np.zeros(cells, dtype=np.int64),
        np.empty(cells, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.bool_),
        np.empty((max(goal_count, 1), cells), dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.bool_),
        np.empty(box_count, dtype=np.int64),
        corral,
        np.zeros(4, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(box_count, dtype=np.int16),
        np.zeros((6, box_count + 1), dtype=np.int64),
    )


@numba.njit(cache=True)
def set_position(scratch, boxes):  # pragma: no cover - compiled
    """Put the sorted ``boxes`` on the scratch's board (clearing the boxes it held)."""
    for k in range(scratch.boxes.shape[0]):
        scratch.occupied[scratch.boxes[k]] = False
    for k in range(boxes.shape[0]):
        scratch.boxes[k] = boxes[k]
        scratch.occupied[boxes[k]] = True


@numba.njit(cache=True)
def reach(arrays, scratch, player):  # pragma: no cover - compiled
    """Mark the player's area with a new stamp; returns (stamp, smallest reachable cell)."""
    scratch.stamp[0] += 1
    stamp = scratch.stamp[0]
    count, smallest = explore(
        arrays.floor,
        scratch.occupied,
        arrays.deltas,
        player,
        scratch.mark,
        stamp,
        scratch.queue,
        scratch.queue[:0],
    )
    return stamp, smallest, count


@numba.njit(cache=True)
def update_frozen_goals(arrays, scratch, known):  # pragma: no cover - compiled
    """Find the boxes frozen on goals; when there are more than ``known``, rebuild the tables
    that treat them as walls. Returns their count (-1: a box is frozen off its goal).

    ``frozen_goals`` marks them; ``reduced`` gets, in rows ``0..m-1``, the push distances to the
    m goals left free with frozen boxes as walls; and ``dead_now`` the cells from which none of
    those goals can be reached.
    """
    floor, dead, goals, boxes = arrays.floor, arrays.dead, arrays.goals, scratch.boxes
    frozen_goals, open_cells = scratch.frozen_goals, scratch.open_cells
    frozen_goals[:] = False
    mark_frozen(floor, dead, arrays.deltas, boxes, -1, -1, frozen_goals)
    count = 0
    for k in range(boxes.shape[0]):
        if frozen_goals[boxes[k]]:
            if not goals[boxes[k]]:
                return -1
            count += 1
    if count <= known:
        return count
    for cell in range(floor.shape[0]):
        open_cells[cell] = floor[cell] and not frozen_goals[cell]
    rows = 0
    for cell in range(floor.shape[0]):
        if goals[cell] and not frozen_goals[cell]:
            pull_distances(open_cells, arrays.deltas, cell, scratch.reduced[rows], scratch.queue)
            rows += 1
    for cell in range(floor.shape[0]):
        unreachable = open_cells[cell]
        for r in range(rows):
            if scratch.reduced[r, cell] < UNREACHABLE:
                unreachable = False
                break
        scratch.dead_now[cell] = dead[cell] or unreachable
    return count


@numba.njit(cache=True)
def position_distance(arrays, objective, scratch, frozen_count):  # pragma: no cover - compiled
    """The objective of the scratch's boxes (capped at ``UNREACHABLE``); with boxes frozen on goals
    (``frozen_count`` > 0), the other boxes are matched to the other goals on distances with the
    frozen boxes as walls. Without, the matching leaves each box's goal in ``assignment``."""
    boxes = scratch.boxes
    if frozen_count <= 0 or objective == MANHATTAN:
        return box_objective(objective, arrays, boxes, scratch.assignment, scratch.work)
    free_boxes = scratch.free_boxes
    m = 0
    for k in range(boxes.shape[0]):
        if not scratch.frozen_goals[boxes[k]]:
            free_boxes[m] = boxes[k]
            m += 1
    if m == 0:
        return 0
    if objective == MATCHING:
        cost = matching_kernel(
            scratch.reduced[:m], free_boxes[:m], scratch.assignment, scratch.work
        )
        return min(cost, UNREACHABLE)
    total = 0
    for k in range(m):
        closest = UNREACHABLE
        for r in range(m):
            closest = min(closest, scratch.reduced[r, free_boxes[k]])
        total += closest
    return min(total, UNREACHABLE)


@numba.njit(cache=True)
def candidates_here(arrays, corrals, player, scratch, frozen_count):  # pragma: no cover
    """Mark the player's area and write the position's candidate pushes into ``out_box`` and
    ``out_direction``; returns (count, the smallest reachable cell)."""
    stamp, smallest, reached = reach(arrays, scratch, player)
    dead_targets = scratch.dead_now if frozen_count > 0 else arrays.dead
    allowed_stamp = -1
    # a corral needs free floor that the player does not reach
    if corrals and reached + scratch.boxes.shape[0] < arrays.floor_cells:
        corral_floor = scratch.open_cells if frozen_count > 0 else arrays.floor
        found = pi_corral(
            corral_floor,
            dead_targets,
            arrays.goals,
            arrays.deltas,
            scratch.occupied,
            scratch.boxes,
            scratch.mark,
            stamp,
            scratch.corral,
            scratch.corral_marks,
        )
        if found >= 0:
            allowed_stamp = scratch.corral_marks[3]
    count = _enumerate_pushes(arrays, scratch, stamp, dead_targets, allowed_stamp)
    return count, smallest


@numba.njit(cache=True)
def _enumerate_pushes(arrays, scratch, stamp, dead_targets, allowed_stamp):  # pragma: no cover
    """Write the candidate pushes (canonical order) of the marked position; returns their count.

    ``dead_targets``: the cells no box may be pushed to (the dead squares, or with boxes frozen
    on goals the cells that reach no goal left). With ``allowed_stamp >= 0`` only the barrier
    boxes of the corral (``corral[5][box] == allowed_stamp``) are pushed.
    """
    floor, deltas = arrays.floor, arrays.deltas
    occupied, boxes, mark = scratch.occupied, scratch.boxes, scratch.mark
    allowed = scratch.corral[5]
    count = 0
    for i in range(boxes.shape[0]):
        box = boxes[i]
        if allowed_stamp >= 0 and allowed[box] != allowed_stamp:
            continue
        for direction in range(4):
            delta = deltas[direction]
            target = box + delta
            if (
                mark[box - delta] != stamp
                or not floor[target]
                or occupied[target]
                or dead_targets[target]
            ):
                continue
            occupied[box] = False
            occupied[target] = True
            lost = False
            if may_freeze(floor, occupied, arrays.dead, deltas, target):
                lost = frozen_off_goal(
                    floor, arrays.dead, arrays.goals, deltas, boxes, box, target, scratch.frozen
                )
            occupied[target] = False
            occupied[box] = True
            if lost:
                continue
            scratch.out_box[count] = box
            scratch.out_direction[count] = direction
            count += 1
    return count


@numba.njit(cache=True)
def move_box(boxes, assignment, source, target):  # pragma: no cover - compiled
    """Replace ``source`` by ``target`` in the sorted array ``boxes``, keeping it sorted (and
    each box's entry of ``assignment`` with it)."""
    n = boxes.shape[0]
    i = 0
    while boxes[i] != source:
        i += 1
    boxes[i] = target
    while i > 0 and boxes[i - 1] > boxes[i]:
        boxes[i - 1], boxes[i] = boxes[i], boxes[i - 1]
        assignment[i - 1], assignment[i] = assignment[i], assignment[i - 1]
        i -= 1
    while i < n - 1 and boxes[i + 1] < boxes[i]:
        boxes[i + 1], boxes[i] = boxes[i], boxes[i + 1]
        assignment[i + 1], assignment[i] = assignment[i], assignment[i + 1]
        i += 1


@numba.njit(cache=True)
def push(arrays, scratch, box, direction, frozen_count):  # pragma: no cover - compiled
    """Push ``box`` in ``direction`` in the scratch's position; returns the new frozen count
    (boxes frozen on goals; -1 when a box is frozen off its goal)."""
    target = box + arrays.deltas[direction]
    scratch.occupied[box] = False
    scratch.occupied[target] = True
    move_box(scratch.boxes, scratch.assignment, box, target)
    if arrays.goals[target] and may_freeze(
        arrays.floor, scratch.occupied, arrays.dead, arrays.deltas, target
    ):
        frozen_count = update_frozen_goals(arrays, scratch, frozen_count)
    return frozen_count


@numba.njit(cache=True)
def forced_dead_end(
    arrays, corrals, objective, stop_on_deadlock, scratch, player, frozen_count, on_goals
):  # pragma: no cover - compiled
    """Whether the scratch's position is lost because the pushes forced from it (positions with
    a single candidate) end where no candidate is left, a box is frozen off its goal or (with
    ``stop_on_deadlock``) the boxes can no longer be matched to goals. Changes the position."""
    box_count = scratch.boxes.shape[0]
    for chain in range(arrays.floor.shape[0]):  # a forced chain never repeats a position
        if frozen_count < 0:
            return True
        if (
            chain > 0
            and stop_on_deadlock
            and position_distance(arrays, objective, scratch, frozen_count) >= UNREACHABLE
        ):
            return True
        if on_goals == box_count:
            return False
        count, _ = candidates_here(arrays, corrals, player, scratch, frozen_count)
        if count != 1:
            return count == 0
        box = scratch.out_box[0]
        target = box + arrays.deltas[scratch.out_direction[0]]
        on_goals += (1 if arrays.goals[target] else 0) - (1 if arrays.goals[box] else 0)
        frozen_count = push(arrays, scratch, box, scratch.out_direction[0], frozen_count)
        player = box
    return False
