"""The rules Monte Carlo tree search plays given-holes levels by
(:mod:`evosoko.sokoban.holes.board`).

The counterpart, function for function, of :mod:`evosoko.search.mcts.rules`: the kernel
(:mod:`evosoko.search.mcts.kernel`) calls one or the other by the type of the arrays it is
passed (:mod:`evosoko.search.mcts.variants`), so the tree, selection, rollouts and backup are
the same code under both rules. These are the variant's push rules
(:mod:`evosoko.sokoban.holes.pushes`, which the GA's given-holes push genomes play too), whose
candidate generator they call:

- a position is each box's cell *by box number* in ``scratch.boxes`` (``VANISHED`` once in its
  own hole; boxes are told apart, since each has its own hole) and the player's cell; the tree
  stores that array as it is, so a position is found again only with every box where it was;
- the *candidate pushes*, in order of box number then direction ``u d l r``: legal, and not
  losing the level: the box vanishes in its own hole, or lands on a cell from which it can
  still reach it (per-box dead squares) and is not frozen there (a frozen box never vanishes,
  on a hole or not). PI-corrals, frozen goals and the matching do not apply (see
  :mod:`evosoko.search.given_holes`): ``corrals`` is ignored;
- the objective is the *paired distance*: each box's push distance (``manhattan``: Manhattan
  distance) to its own hole, summed over the boxes left; 0 exactly when every box has vanished.
  A push changes it by the pushed box's term alone, so the policy's gain of a push and the
  objective after it are exact (``is_matched`` is always true: the box number plays the part of
  the assigned goal);
- "boxes brought home" counts the vanished boxes: the level is solved when all have.

A position is lost when a box stands where it can no longer reach its hole, when a box is frozen
(checked at the start; no candidate push freezes one) or when no candidate push is left.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.holes.board import VANISHED
from evosoko.sokoban.holes.pushes import HolesRule, holes_candidates, holes_tables
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.pushes import reach


class HolesArrays(NamedTuple):
    """Read-only arrays of a given-holes level (``B`` boxes); the first five fields are the ones
    the kernel reads itself, as in :class:`~evosoko.sokoban.arrays.LevelArrays`."""

    floor_cells: int
    deltas: np.ndarray  # int64[4]
    floor: np.ndarray  # bool[cells]
    zobrist_box: np.ndarray  # uint64[cells]: hash key of a box on each cell
    zobrist_player: np.ndarray  # uint64[cells]
    dead: np.ndarray  # bool[cells]: dead for every hole (the freeze test's dead squares)
    no_goals: np.ndarray  # bool[cells], all False: the freeze test excuses no box
    distance: np.ndarray  # int64[B, cells]: each box's distance to its own hole
    lost: np.ndarray  # bool[B, cells]: cells from which a box can never reach its hole
    holes: np.ndarray  # int64[B]: each box's hole
    rule: HolesRule  # what the candidate generator reads (the same arrays as above)


class HolesScratch(NamedTuple):
    """Work arrays: the scratch's position and what the rules need to play it."""

    occupied: np.ndarray  # bool[cells]: the boxes on the board
    boxes: np.ndarray  # int64[B]: each box's cell, VANISHED once in its hole
    owner: np.ndarray  # int64[cells]: the number of the box on a cell, or -1
    mark: np.ndarray  # int64[cells]: reach marks (stamped)
    stamp: np.ndarray  # int64[1]: the last stamp used
    queue: np.ndarray  # int64[cells]
    out_box: np.ndarray  # int64[4 * B]: the candidate pushes' box cells
    out_direction: np.ndarray  # int64[4 * B]: and directions
    freeze: tuple  # scratch of the freeze test (evosoko.sokoban.freeze.make_freeze_scratch)


def holes_arrays(level: Level, heuristic: str) -> tuple[HolesArrays, HolesScratch]:
    """The arrays and work arrays of a given-holes ``level`` (``heuristic`` ``manhattan``: the
    Manhattan distance to each box's hole; any other: the push distance)."""
    tables = holes_tables(level, "manhattan" if heuristic == "manhattan" else "push-distance")
    shared = level_arrays(level)
    cells, box_count = level.cells, level.box_count
    rule = tables.rule
    arrays = HolesArrays(
        floor_cells=shared.floor_cells,
        deltas=rule.deltas,
        floor=rule.floor,
        zobrist_box=shared.zobrist_box,
        zobrist_player=shared.zobrist_player,
        dead=rule.dead,
        no_goals=rule.no_goals,
        distance=tables.distance,
        lost=rule.lost,
        holes=rule.holes,
        rule=rule,
    )
    scratch = HolesScratch(
        occupied=np.zeros(cells, dtype=np.bool_),
        boxes=np.full(box_count, VANISHED, dtype=np.int64),
        owner=np.full(cells, -1, dtype=np.int64),
        mark=np.zeros(cells, dtype=np.int64),
        stamp=np.zeros(1, dtype=np.int64),
        queue=np.zeros(cells, dtype=np.int64),
        out_box=np.empty(4 * box_count, dtype=np.int64),
        out_direction=np.empty(4 * box_count, dtype=np.int64),
        freeze=make_freeze_scratch(cells),
    )
    return arrays, scratch


# ---- the rules (inlined into the kernel: they take the tuples) ----------------------------------
@numba.njit(cache=True, inline="always")
def start_position(arrays, scratch, start_boxes):  # pragma: no cover - compiled
    """Put ``start_boxes`` (cells by box number) on the scratch board; returns (0, or -1 when a
    box is frozen; boxes vanished)."""
    occupied, where, owner = scratch.occupied, scratch.boxes, scratch.owner
    for b in range(where.shape[0]):
        if where[b] != VANISHED:
            occupied[where[b]] = False
            owner[where[b]] = -1
    vanished = np.int64(0)
    for b in range(where.shape[0]):
        where[b] = start_boxes[b]
        if where[b] == VANISHED:
            vanished += 1
        else:
            occupied[where[b]] = True
            owner[where[b]] = b
    for b in range(where.shape[0]):
        if where[b] != VANISHED and freeze_deadlock(
            arrays.floor, arrays.dead, arrays.no_goals, occupied, arrays.deltas, where[b],
            scratch.freeze,
        ):  # fmt: skip
            return np.int64(-1), vanished
    return np.int64(0), vanished


@numba.njit(cache=True, inline="always")
def candidates(arrays, corrals, scratch, player, frozen_count):  # pragma: no cover - compiled
    """The candidate pushes of the scratch's position into ``scratch.out_box`` and
    ``scratch.out_direction``; returns (their count, the normalized player)."""
    stamp, smallest, _ = reach(
        arrays.floor, arrays.deltas, scratch.occupied, player, scratch.mark, scratch.stamp,
        scratch.queue,
    )  # fmt: skip
    count = holes_candidates(
        arrays.rule, scratch.boxes, scratch.occupied, scratch.mark, stamp, scratch.freeze,
        scratch.out_box, scratch.out_direction,
    )  # fmt: skip
    return count, smallest


@numba.njit(cache=True, inline="always")
def normalized_player(arrays, scratch, player):  # pragma: no cover - compiled
    """The smallest cell the player reaches from ``player`` in the scratch's position."""
    return reach(
        arrays.floor, arrays.deltas, scratch.occupied, player, scratch.mark, scratch.stamp,
        scratch.queue,
    )[1]  # fmt: skip


@numba.njit(cache=True, inline="always")
def play_push(arrays, scratch, box, direction, frozen_count):  # pragma: no cover - compiled
    """Push the box on cell ``box`` in ``direction``; returns (``frozen_count``: a candidate
    push freezes no box; 1 when the box vanished in its hole, else 0)."""
    gained = _move_box(
        arrays.holes, scratch.occupied, scratch.owner, scratch.boxes, box,
        box + arrays.deltas[direction],
    )  # fmt: skip
    return frozen_count, gained


@numba.njit(cache=True, inline="always")
def objective(arrays, measure, scratch, frozen_count):  # pragma: no cover - compiled
    """The paired distance of the scratch's position (``UNREACHABLE``: a box can no longer
    reach its hole)."""
    return _paired_distance(arrays.lost, arrays.distance, scratch.boxes)


@numba.njit(cache=True, inline="always")
def is_matched(arrays, measure, frozen_count):  # pragma: no cover - compiled
    """Always: the pushed box alone changes the paired distance (see the module docstring)."""
    return True


@numba.njit(cache=True, inline="always")
def assigned_goal(scratch, box):  # pragma: no cover - compiled
    """The number of the box on cell ``box``: its own hole is its goal."""
    return np.int64(scratch.owner[box])


@numba.njit(cache=True, inline="always")
def objective_after_push(
    arrays, measure, scratch, frozen_count, distance, matched, push
):  # pragma: no cover - compiled
    """The paired distance after ``push`` (a :class:`~evosoko.search.mcts.tree.BoxPush`: box
    number ``push.goal`` went from ``push.box`` to ``push.target``; its distance at its own
    hole is 0, so a vanished box drops out), from ``distance`` before."""
    number = push.goal
    return distance - arrays.distance[number, push.box] + arrays.distance[number, push.target], True


@numba.njit(cache=True, inline="always")
def candidate_gains(arrays, measure, scratch, frozen_count, matched, count, gains):
    # pragma: no cover - compiled
    """``gains[c]``: how much candidate push ``c`` brings the paired distance down (exact)."""
    for c in range(count):
        box = scratch.out_box[c]
        number = scratch.owner[box]
        target = box + arrays.deltas[scratch.out_direction[c]]
        gains[c] = arrays.distance[number, box] - arrays.distance[number, target]


# ---- helpers (compiled apart: inlined, their branches upset numba's SSA checks) ---------------
@numba.njit(cache=True)
def _move_box(holes, occupied, owner, where, source, target):  # pragma: no cover - compiled
    """Move the box on ``source`` to ``target``, where it vanishes if it is its own hole;
    returns 1 when it vanished, else 0."""
    number = owner[source]
    occupied[source] = False
    owner[source] = -1
    if target == holes[number]:
        where[number] = VANISHED
        return np.int64(1)
    occupied[target] = True
    owner[target] = number
    where[number] = target
    return np.int64(0)


@numba.njit(cache=True)
def _paired_distance(lost, distance, where):  # pragma: no cover - compiled
    """Sum of the boxes' ``distance`` to their own holes (``UNREACHABLE`` when one is lost)."""
    total = np.int64(0)
    for b in range(where.shape[0]):
        if where[b] == VANISHED:
            continue
        if lost[b, where[b]]:
            return np.int64(UNREACHABLE)
        total += distance[b, where[b]]
    return min(total, UNREACHABLE)


def start_distance(level: Level, heuristic: str) -> int:
    """The start's paired distance (``heuristic`` as in :func:`holes_arrays`)."""
    from evosoko.search.given_holes import paired_distance

    total = paired_distance(level, level.start.boxes, manhattan=heuristic == "manhattan")
    return min(total, UNREACHABLE)
