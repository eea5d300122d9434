"""PI-corrals, compiled: the push search prunes with them and push replay narrows its candidates.

A *corral* is a union of connected regions of empty floor the player cannot reach; the boxes
next to it form its *barrier*. It is a **PI-corral** when every push of a barrier box that the
player could ever make before some barrier box moves goes *into* the corral (I), and each of
those inward pushes can be made right now (P). If the corral still holds work (a barrier box
off goal, or an empty goal inside), every solution pushes some barrier box, and the first such
push can be moved to the front without changing the push count: pushes elsewhere cannot touch
the corral and only gain room when a barrier box leaves its cell. So it is enough to expand the
pushes of one PI-corral's barrier: the pruning keeps push-optimal solutions and completeness.

When a check fails because a push leads into (or starts from) another unreachable region, that
region is merged into the corral and the check is repeated. Among the PI-corrals found, the one
whose barrier has the fewest legal pushes is used; if that is none, the position is lost.

Not applied to given-holes levels (:mod:`evosoko.sokoban.holes.board`): the argument counts on
boxes staying on the board, and a box that vanishes in its hole opens its corral.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.reach import explore

_PASS, _FAIL = -1, -2

REGION_MARK, SET_MARK, BARRIER_MARK, ALLOWED_MARK, REGIONS = range(5)
"""Slots of :func:`pi_corral`'s ``marks``: the running stamps of the scratch's region, set,
barrier and allowed marks, then how many regions outside the player's the last call numbered
(:class:`evosoko.sokoban.free_regions.ParentRegions` reads them)."""
MARK_SLOTS = 5
"""The length of ``marks``."""


class PiCorralScratch(NamedTuple):
    """Scratch of :func:`pi_corral`, int64 arrays of length ``cells`` (the stamps they are
    compared with are in the caller's ``marks``)."""

    region: np.ndarray
    """The number of the free region outside the player's that holds each cell."""
    region_mark: np.ndarray
    """Stamp of the cells numbered in ``region`` (marks[REGION_MARK])."""
    region_goal: np.ndarray
    """Per region number: 1 when it holds a goal."""
    region_smallest: np.ndarray
    """Per region number: its smallest cell."""
    set_mark: np.ndarray
    """Per region number: in the corral being checked (marks[SET_MARK])."""
    barrier_mark: np.ndarray
    """Barrier boxes of the corral being checked (marks[BARRIER_MARK])."""
    allowed: np.ndarray
    """Barrier boxes of the best PI-corral found (marks[ALLOWED_MARK]): the boxes to push."""
    queue: np.ndarray
    """Breadth-first queue."""


def make_pi_corral_scratch(cells: int) -> PiCorralScratch:
    """A :class:`PiCorralScratch` for a board of ``cells`` cells."""
    return PiCorralScratch(*(np.zeros(cells, dtype=np.int64) for _ in PiCorralScratch._fields))


class CorralBoard(NamedTuple):
    """The board a PI-corral is looked for on."""

    floor: np.ndarray  # bool[cells]: boxes on cells it leaves out are walls
    dead: np.ndarray  # bool[cells]: cells no push goes to
    goals: np.ndarray  # bool[cells]
    deltas: np.ndarray  # int64[4]: flat offsets of u d l r


@uncounted
def pi_corral(
    board, occupied, boxes, reach_mark, stamp, scratch, marks
):  # pragma: no cover - compiled
    """Mark the barrier boxes of the best PI-corral of the position ``occupied`` / ``boxes``
    (sorted), the player's area being the cells with ``reach_mark == stamp``; returns its
    number of legal pushes or -1.

    ``board`` is a :class:`CorralBoard` (or any named tuple with its fields). A box on a cell
    that ``board.floor`` leaves out (a box frozen on its goal, which the push replay turns into
    wall) is part of the walls: never a barrier box, never pushed.
    ``scratch``: a :class:`PiCorralScratch` (or a plain tuple of its eight arrays in its
    order, as the GA's push replay builds it); ``marks`` int64[MARK_SLOTS] holds their running
    stamps (``REGION_MARK`` .. ``ALLOWED_MARK``) and gets the number of regions outside the
    player's (``REGIONS``). On success the chosen barrier boxes satisfy
    ``scratch.allowed[b] == marks[ALLOWED_MARK]``.
    """
    floor, goals, deltas = board.floor, board.goals, board.deltas
    named = PiCorralScratch(*scratch)  # the fields by name, from a plain tuple too
    region_goal, set_mark = named.region_goal, named.set_mark
    barrier_mark, allowed = named.barrier_mark, named.allowed
    marks[REGION_MARK] += 1
    count = _label(floor, goals, occupied, deltas, reach_mark, stamp, named, marks[REGION_MARK])
    marks[REGIONS] = count
    best = -1
    for start in range(count):
        marks[SET_MARK] += 1
        set_stamp = marks[SET_MARK]
        set_mark[start] = set_stamp
        while True:
            marks[BARRIER_MARK] += 1
            outcome, pushes = _check(board, occupied, boxes, reach_mark, stamp, named, marks)
            if outcome >= 0:
                set_mark[outcome] = set_stamp
                continue
            break
        if outcome == _FAIL or not _holds_work(
            goals, boxes, barrier_mark, marks[BARRIER_MARK], region_goal, set_mark, set_stamp, count
        ):
            continue
        if best < 0 or pushes < best:
            best = pushes
            marks[ALLOWED_MARK] += 1
            for b in boxes:
                if barrier_mark[b] == marks[BARRIER_MARK]:
                    allowed[b] = marks[ALLOWED_MARK]
            if best == 0:
                break
    return best


@uncounted
def _label(
    floor, goals, occupied, deltas, reach_mark, stamp, scratch, region_stamp
):  # pragma: no cover - compiled
    """Number the regions of free floor outside the player's (``scratch.region``, marked
    ``region_stamp`` in ``scratch.region_mark``; ``scratch.region_goal``: whether it holds a
    goal; ``scratch.region_smallest``: its smallest cell); returns how many there are."""
    region, region_mark = scratch.region, scratch.region_mark
    region_goal, queue = scratch.region_goal, scratch.queue
    count = 0
    for cell in range(floor.shape[0]):
        if (
            not floor[cell]
            or occupied[cell]
            or reach_mark[cell] == stamp
            or region_mark[cell] == region_stamp
        ):
            continue
        size, smallest = explore(
            floor, occupied, deltas, cell, region_mark, region_stamp, queue, queue[:0]
        )
        scratch.region_smallest[count] = smallest
        region_goal[count] = 0
        for i in range(size):
            region[queue[i]] = count
            if goals[queue[i]]:
                region_goal[count] = 1
        count += 1
    return count


@numba.njit(cache=True, inline="always")
def _check(board, occupied, boxes, reach_mark, stamp, scratch, marks):  # pragma: no cover
    """(outcome, inward pushes) of the corral of the regions marked ``marks[SET_MARK]`` in
    ``scratch.set_mark``, its barrier boxes marked ``marks[BARRIER_MARK]`` in
    ``scratch.barrier_mark``: outcome is a region to merge, ``_PASS`` or ``_FAIL``.
    Inlined in :func:`pi_corral`."""
    floor, dead, deltas = board.floor, board.dead, board.deltas
    region, region_mark, region_stamp = scratch.region, scratch.region_mark, marks[REGION_MARK]
    set_mark, set_stamp = scratch.set_mark, marks[SET_MARK]
    barrier_mark, barrier_stamp = scratch.barrier_mark, marks[BARRIER_MARK]
    for b in boxes:
        if not floor[b]:
            continue  # a box that ``floor`` counts as wall (frozen on its goal) never moves
        for k in range(4):
            neighbour = b + deltas[k]
            if region_mark[neighbour] == region_stamp and set_mark[region[neighbour]] == set_stamp:
                barrier_mark[b] = barrier_stamp
                break
    pushes = 0
    for b in boxes:
        if barrier_mark[b] != barrier_stamp:
            continue
        for k in range(4):
            behind = b - deltas[k]
            target = b + deltas[k]
            if not floor[behind] or not floor[target]:
                continue
            behind_region = region_mark[behind] == region_stamp
            if behind_region and set_mark[region[behind]] == set_stamp:
                continue  # the player would have to stand inside the corral
            if occupied[behind] and barrier_mark[behind] == barrier_stamp:
                continue  # barrier boxes stay put until the first barrier push
            if occupied[target] and barrier_mark[target] == barrier_stamp:
                continue
            if dead[target]:
                continue  # such a push is never made
            target_region = region_mark[target] == region_stamp
            if target_region and set_mark[region[target]] == set_stamp:
                if reach_mark[behind] == stamp:
                    pushes += 1
                    continue
                if behind_region:
                    return region[behind], pushes
                return _FAIL, pushes
            if target_region:
                return region[target], pushes
            if behind_region:
                return region[behind], pushes
            return _FAIL, pushes
    return _PASS, pushes


@uncounted
def _holds_work(
    goals, boxes, barrier_mark, barrier_stamp, region_goal, set_mark, set_stamp, count
):  # pragma: no cover - compiled
    for b in boxes:
        if barrier_mark[b] == barrier_stamp and not goals[b]:
            return True
    for label in range(count):
        if set_mark[label] == set_stamp and region_goal[label]:
            return True
    return False
