"""The push rules, compiled: candidate pushes, pushes, frozen goals, lost positions.

The GA's push replay (:mod:`evosoko.evolve.push_replay`), decoding to LURD, the lost search
(:mod:`evosoko.evolve.lost_search`) and Monte Carlo tree search (:mod:`evosoko.search.mcts.rules`)
all play positions by these rules, on the level's arrays
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

None of this plays given-holes levels: frozen goals, the matching and PI-corrals do not hold once
boxes vanish; :mod:`evosoko.sokoban.holes.pushes` holds the rules that still hold there (each box's
own hole, every frozen box lost).

The rules take small named groups of just the arrays they read (:class:`RuleBoard`,
:class:`BoxPosition`, :class:`FrozenTables`, ...), which a caller builds once, outside its loop
over pushes; :func:`candidates_here` is inlined where it is called (as a compiled call, its
groups built and unpacked per position, it made a serial run of ``configs/pushes.toml`` on
XSokoban 11 for 300 generations about 7% slower), and the ``scratch_*`` forms, inlined where
they are called, take the level's arrays and the scratch as named tuples. A compiled call pays
a reference count update for every array it is passed, alone or in a tuple, and one more for
every field it reads from a tuple, so :func:`push`, which runs at every push of the GA's
replay, takes its arrays one by one. Each compiled function that takes a tuple of thirty
arrays adds about a second to a first run: per push, and in the time of a first run, that is
more than the rules cost.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.analysis import pull_distances
from evosoko.sokoban.corrals import ALLOWED_MARK, MARK_SLOTS, CorralBoard, pi_corral
from evosoko.sokoban.freeze import NO_CELL, frozen_off_goal, mark_frozen, may_freeze
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import MANHATTAN, MATCHING, goal_distance, matching_kernel
from evosoko.sokoban.reach import explore


class CorralScratch(NamedTuple):
    """Work arrays of :func:`~evosoko.sokoban.corrals.pi_corral`, int64[cells] each, in the
    order it reads them."""

    region: np.ndarray  # the region number of each cell
    region_mark: np.ndarray  # stamps of the cells labelled
    region_goal: np.ndarray  # whether a region holds a goal
    region_smallest: np.ndarray  # a region's smallest cell
    set_mark: np.ndarray  # the regions of the corral being grown
    barrier_mark: np.ndarray  # its barrier boxes
    allowed: np.ndarray  # the chosen corral's barrier boxes (``== marks[3]``)
    queue: np.ndarray


class PushScratch(NamedTuple):
    """Work arrays of the push rules for one level (build with :func:`push_scratch`)."""

    occupied: np.ndarray  # bool[cells]: the position's boxes
    boxes: np.ndarray  # int64[boxes]: the same boxes, sorted
    mark: np.ndarray  # int64[cells]: reach marks (stamped)
    stamp: np.ndarray  # int64[1]: the last stamp used
    queue: np.ndarray  # int64[cells]
    out_box: np.ndarray  # int64[4 * boxes]: the candidate pushes' boxes
    out_direction: np.ndarray  # int64[4 * boxes]: and directions
    frozen: np.ndarray  # bool[cells]: scratch of the freeze fixpoint, all False between calls
    frozen_goals: np.ndarray  # bool[cells]: the boxes frozen on goals
    reduced: np.ndarray  # int64[goals, cells]: push distances to the goals left free
    dead_now: np.ndarray  # bool[cells]: dead squares with boxes frozen on goals as walls
    open_cells: np.ndarray  # bool[cells]: floor without the boxes frozen on goals
    free_boxes: np.ndarray  # int64[boxes]: the boxes not frozen on goals
    corral: CorralScratch  # scratch of pi_corral
    corral_marks: np.ndarray  # int64[MARK_SLOTS]: its stamps
    assignment: np.ndarray  # int16[boxes]: each box's goal in the last matching
    work: np.ndarray  # int64[7, boxes + 1]: matching scratch; row 6 the goals' potentials


class FrozenTables(NamedTuple):
    """The boxes frozen on goals and the tables that treat them as walls
    (:func:`update_frozen_goals` builds them; fields of :class:`PushScratch`)."""

    frozen_goals: np.ndarray  # bool[cells]
    reduced: np.ndarray  # int64[goals, cells]: push distances to the goals left free
    dead_now: np.ndarray  # bool[cells]
    open_cells: np.ndarray  # bool[cells]
    queue: np.ndarray  # int64[cells]: work array of the distances


class GoalDistances(NamedTuple):
    """The level's distances to goals that the objective reads (fields of
    :class:`~evosoko.sokoban.arrays.LevelArrays`)."""

    nearest_manhattan: np.ndarray
    nearest_push: np.ndarray
    push_distance: np.ndarray


class MatchingWork(NamedTuple):
    """Work arrays of :func:`position_distance` (fields of :class:`PushScratch`)."""

    free_boxes: np.ndarray  # int64[boxes]
    assignment: np.ndarray  # int16[boxes]: each box's goal in the last matching
    work: np.ndarray  # int64[7, boxes + 1]


class RuleBoard(NamedTuple):
    """The level's arrays the candidate pushes read (fields of
    :class:`~evosoko.sokoban.arrays.LevelArrays`)."""

    floor: np.ndarray  # bool[cells]
    dead: np.ndarray  # bool[cells]: dead squares
    goals: np.ndarray  # bool[cells]
    deltas: np.ndarray  # int64[4]: flat offsets of u d l r
    floor_cells: int  # floor cells of the level


class BoxPosition(NamedTuple):
    """The boxes of a position (the player's cell travels apart)."""

    occupied: np.ndarray  # bool[cells]
    boxes: np.ndarray  # int64[boxes], sorted


class FrozenGoals(NamedTuple):
    """The boxes frozen on goals and the tables that treat them as walls
    (:func:`update_frozen_goals`)."""

    boxes_frozen: int  # boxes frozen on goals (0: none, and the tables are not read)
    dead_now: np.ndarray  # bool[cells]: dead squares with those boxes as walls
    open_cells: np.ndarray  # bool[cells]: floor without those boxes


class ReachWork(NamedTuple):
    """Work arrays of reachability and of the freeze test."""

    mark: np.ndarray  # int64[cells]: reach marks (stamped)
    stamp: np.ndarray  # int64[1]: the last stamp used
    queue: np.ndarray  # int64[cells]
    frozen: np.ndarray  # bool[cells]: scratch of the freeze fixpoint, all False between calls


class CorralWork(NamedTuple):
    """Work arrays of the PI-corral search."""

    scratch: CorralScratch
    marks: np.ndarray  # int64[4]: its stamps


class Candidates(NamedTuple):
    """The candidate pushes written, one box cell and direction each."""

    box: np.ndarray  # int64[4 * boxes]
    direction: np.ndarray  # int64[4 * boxes]


@numba.njit(cache=True)
def push_scratch(cells, box_count, goal_count):  # pragma: no cover - compiled
    """A :class:`PushScratch` for a level of ``cells`` cells and ``box_count`` boxes."""
    corral = CorralScratch(
        np.zeros(cells, dtype=np.int64),
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
        np.zeros(1, dtype=np.int64),
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
        np.zeros(MARK_SLOTS, dtype=np.int64),
        np.zeros(box_count, dtype=np.int16),
        np.zeros((7, box_count + 1), dtype=np.int64),
    )


@numba.njit(cache=True)
def set_position(occupied, boxes, cells):  # pragma: no cover - compiled
    """Put the sorted box ``cells`` on the board ``occupied`` / ``boxes`` (clearing the boxes it
    held)."""
    for k in range(boxes.shape[0]):
        occupied[boxes[k]] = False
    for k in range(cells.shape[0]):
        boxes[k] = cells[k]
        occupied[cells[k]] = True


@numba.njit(cache=True)
def reach(floor, deltas, occupied, player, mark, stamp, queue):  # pragma: no cover - compiled
    """Mark the player's area with a new stamp (``stamp[0]``, bumped); returns (that stamp,
    the smallest reachable cell, cells reached)."""
    stamp[0] += 1
    count, smallest = explore(floor, occupied, deltas, player, mark, stamp[0], queue, queue[:0])
    return stamp[0], smallest, count


@numba.njit(cache=True)
def update_frozen_goals(board, boxes, known, tables):  # pragma: no cover - compiled
    """Find the boxes frozen on goals; when there are more than ``known``, rebuild the tables
    that treat them as walls. Returns their count (-1: a box is frozen off its goal).

    ``board`` is a :class:`RuleBoard` and ``tables`` a :class:`FrozenTables`: its
    ``frozen_goals`` marks them; ``reduced`` gets, in rows ``0..m-1``, the push distances to the
    m goals left free with frozen boxes as walls; and ``dead_now`` the cells from which none of
    those goals can be reached.
    """
    floor, dead, goals, deltas, _ = board
    frozen_goals, reduced, dead_now, open_cells, queue = tables
    for cell in range(frozen_goals.shape[0]):
        frozen_goals[cell] = False
    mark_frozen(floor, dead, deltas, boxes, NO_CELL, NO_CELL, frozen_goals)
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
            pull_distances(open_cells, deltas, cell, reduced[rows], queue)
            rows += 1
    for cell in range(floor.shape[0]):
        unreachable = open_cells[cell]
        for r in range(rows):
            if reduced[r, cell] < UNREACHABLE:
                unreachable = False
                break
        dead_now[cell] = dead[cell] or unreachable
    return count


@numba.njit(cache=True, inline="always")
def rule_board(arrays):  # pragma: no cover - compiled
    """The :class:`RuleBoard` of a level's :class:`~evosoko.sokoban.arrays.LevelArrays`."""
    return RuleBoard(arrays.floor, arrays.dead, arrays.goals, arrays.deltas, arrays.floor_cells)


@numba.njit(cache=True, inline="always")
def frozen_tables(scratch):  # pragma: no cover - compiled
    """The :class:`FrozenTables` of a :class:`PushScratch`."""
    return FrozenTables(
        scratch.frozen_goals, scratch.reduced, scratch.dead_now, scratch.open_cells, scratch.queue
    )


@numba.njit(cache=True, inline="always")
def goal_distances(arrays):  # pragma: no cover - compiled
    """The :class:`GoalDistances` of a level's :class:`~evosoko.sokoban.arrays.LevelArrays`."""
    return GoalDistances(arrays.nearest_manhattan, arrays.nearest_push, arrays.push_distance)


@numba.njit(cache=True, inline="always")
def matching_work(scratch):  # pragma: no cover - compiled
    """The :class:`MatchingWork` of a :class:`PushScratch`."""
    return MatchingWork(scratch.free_boxes, scratch.assignment, scratch.work)


@numba.njit(cache=True, inline="always")
def update_frozen_tables(arrays, scratch, known):  # pragma: no cover - compiled
    """:func:`update_frozen_goals` on the scratch's boxes and tables."""
    return update_frozen_goals(rule_board(arrays), scratch.boxes, known, frozen_tables(scratch))


@numba.njit(cache=True)
def position_distance(
    objective, distances, boxes, frozen_count, frozen_goals, reduced, matching
):  # pragma: no cover - compiled
    """The objective of ``boxes``, capped at ``UNREACHABLE``, on ``distances``
    (:class:`GoalDistances`); with boxes frozen on goals (``frozen_count`` > 0, marked in
    ``frozen_goals``), the other boxes are matched to the other goals on the distances
    ``reduced`` with the frozen boxes as walls. Without, the matching leaves each box's goal in
    ``matching.assignment`` (:class:`MatchingWork`)."""
    if frozen_count <= 0 or objective == MANHATTAN:
        total = goal_distance(
            objective,
            distances.nearest_manhattan,
            distances.nearest_push,
            distances.push_distance,
            boxes,
            matching.assignment,
            matching.work,
        )
        return min(total, UNREACHABLE)
    free_boxes, assignment, work = matching
    m = 0
    for k in range(boxes.shape[0]):
        if not frozen_goals[boxes[k]]:
            free_boxes[m] = boxes[k]
            m += 1
    if m == 0:
        return 0
    if objective == MATCHING:
        return min(matching_kernel(reduced[:m], free_boxes[:m], assignment, work), UNREACHABLE)
    total = 0
    for k in range(m):
        closest = UNREACHABLE
        for r in range(m):
            closest = min(closest, reduced[r, free_boxes[k]])
        total += closest
    return min(total, UNREACHABLE)


@numba.njit(cache=True, inline="always")
def scratch_distance(arrays, objective, scratch, frozen_count):  # pragma: no cover - compiled
    """:func:`position_distance` of the scratch's boxes."""
    return position_distance(
        objective,
        goal_distances(arrays),
        scratch.boxes,
        frozen_count,
        scratch.frozen_goals,
        scratch.reduced,
        matching_work(scratch),
    )


@numba.njit(cache=True, inline="always")
def candidates_here(
    board, corrals, player, position, frozen, work, corral, out
):  # pragma: no cover - compiled
    """Mark the player's area (from ``player``) and write the candidate pushes of ``position``
    (a :class:`BoxPosition`) into ``out`` (:class:`Candidates`); returns (count, the smallest
    reachable cell).

    ``board`` is a :class:`RuleBoard`, ``frozen`` a :class:`FrozenGoals`, ``work`` a
    :class:`ReachWork` and ``corral`` a :class:`CorralWork`; with ``corrals``, when the player's
    area leaves a PI-corral, only its barrier boxes' pushes are candidates."""
    # every field once, into locals: a field read inside the loops costs a reference count
    floor, dead, goals, deltas, floor_cells = board
    occupied, boxes = position
    frozen_count, dead_now, open_cells = frozen
    mark, stamp, queue, frozen_cells = work
    corral_scratch, corral_marks = corral
    out_box, out_direction = out
    here, smallest, reached = reach(floor, deltas, occupied, player, mark, stamp, queue)
    dead_targets = dead_now if frozen_count > 0 else dead
    allowed_stamp = -1
    # a corral needs free floor that the player does not reach
    if corrals and reached + boxes.shape[0] < floor_cells:
        corral_floor = open_cells if frozen_count > 0 else floor  # frozen boxes are walls
        found = pi_corral(
            CorralBoard(corral_floor, dead_targets, goals, deltas),
            occupied,
            boxes,
            mark,
            here,
            corral_scratch,
            corral_marks,
        )
        if found >= 0:
            allowed_stamp = corral_marks[ALLOWED_MARK]
    allowed = corral_scratch.allowed
    count = 0
    for i in range(boxes.shape[0]):
        box = boxes[i]
        if allowed_stamp >= 0 and allowed[box] != allowed_stamp:
            continue
        for direction in range(4):
            delta = deltas[direction]
            target = box + delta
            if (
                mark[box - delta] != here
                or not floor[target]
                or occupied[target]
                or dead_targets[target]
            ):
                continue
            occupied[box] = False
            occupied[target] = True
            lost = False
            if may_freeze(floor, occupied, dead, deltas, target):
                lost = frozen_off_goal(floor, dead, goals, deltas, boxes, box, target, frozen_cells)
            occupied[target] = False
            occupied[box] = True
            if lost:
                continue
            out_box[count] = box
            out_direction[count] = direction
            count += 1
    return count, smallest


@numba.njit(cache=True, inline="always")
def scratch_candidates(arrays, corrals, player, scratch, frozen_count):  # pragma: no cover
    """:func:`candidates_here` of the scratch's position, into its candidate arrays."""
    return candidates_here(
        rule_board(arrays),
        corrals,
        player,
        BoxPosition(scratch.occupied, scratch.boxes),
        FrozenGoals(frozen_count, scratch.dead_now, scratch.open_cells),
        ReachWork(scratch.mark, scratch.stamp, scratch.queue, scratch.frozen),
        CorralWork(scratch.corral, scratch.corral_marks),
        Candidates(scratch.out_box, scratch.out_direction),
    )


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
def push(
    floor, dead, goals, deltas, occupied, boxes, assignment, box, direction, frozen_count,
    frozen_goals, reduced, dead_now, open_cells, queue,
):  # fmt: skip  # pragma: no cover - compiled
    """Push ``box`` in ``direction``; returns the new frozen count (boxes frozen on goals; -1
    when a box is frozen off its goal).

    The one rule left with its arrays one by one: it runs at every push of the GA's replay,
    and taking them as :class:`RuleBoard`, :class:`BoxPosition` and :class:`FrozenTables` (built
    once, outside the replay's loop) made the push path of ``benchmarks/bench_kernel.py`` 3-6%
    slower (the fields read from the groups cost reference counts), inlined 2-8%."""
    target = box + deltas[direction]
    occupied[box] = False
    occupied[target] = True
    move_box(boxes, assignment, box, target)
    if goals[target] and may_freeze(floor, occupied, dead, deltas, target):
        frozen_count = update_frozen_goals(
            RuleBoard(floor, dead, goals, deltas, 0),
            boxes,
            frozen_count,
            FrozenTables(frozen_goals, reduced, dead_now, open_cells, queue),
        )
    return frozen_count


@numba.njit(cache=True, inline="always")
def scratch_push(arrays, scratch, box, direction, frozen_count):  # pragma: no cover - compiled
    """:func:`push` in the scratch's position."""
    return push(
        arrays.floor,
        arrays.dead,
        arrays.goals,
        arrays.deltas,
        scratch.occupied,
        scratch.boxes,
        scratch.assignment,
        box,
        direction,
        frozen_count,
        scratch.frozen_goals,
        scratch.reduced,
        scratch.dead_now,
        scratch.open_cells,
        scratch.queue,
    )


@numba.njit(cache=True)
def forced_dead_end(
    arrays, corrals, objective, stop_on_deadlock, scratch, player, frozen_count, on_goals
):  # pragma: no cover - compiled
    """Whether the scratch's position is lost because the pushes forced from it (positions with
    a single candidate) end where no candidate is left, a box is frozen off its goal or (with
    ``stop_on_deadlock``) the boxes can no longer be matched to goals. Changes the position."""
    goals, deltas = arrays.goals, arrays.deltas
    box_count = scratch.boxes.shape[0]
    for chain in range(arrays.floor.shape[0]):  # a forced chain never repeats a position
        if frozen_count < 0:
            return True
        if (
            chain > 0
            and stop_on_deadlock
            and scratch_distance(arrays, objective, scratch, frozen_count) >= UNREACHABLE
        ):
            return True
        if on_goals == box_count:
            return False
        count, _ = scratch_candidates(arrays, corrals, player, scratch, frozen_count)
        if count != 1:
            return count == 0
        box = scratch.out_box[0]
        direction = scratch.out_direction[0]
        target = box + deltas[direction]
        on_goals += (1 if goals[target] else 0) - (1 if goals[box] else 0)
        frozen_count = scratch_push(arrays, scratch, box, direction, frozen_count)
        player = box
    return False
