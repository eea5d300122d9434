"""Player reachability, compiled: the one walk over free floor that every rule and search uses.

:func:`explore` walks breadth-first from a cell over free floor (floor without boxes). It marks
the cells it reaches with a *stamp* (``mark[c] == stamp``: reached in this exploration), so
nothing is cleared between calls (callers take a new stamp each time; PI-corrals and candidate
pushes test the marks of the player's area), lists them in ``queue``, optionally records their
walking distances, and returns the smallest of them: the *normalized player*, the canonical
player cell of positions that differ only by a walk (states, hashes and duplicate detection
use it). :func:`normalized_after_push` gets the normalized player after one push without a new
walk when it can. A level is closed, so ``cell + delta`` of a floor cell is always on the board.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted


@uncounted
def explore(floor, occupied, deltas, start, mark, stamp, queue, distance):  # pragma: no cover
    """Breadth-first walk from ``start`` over free floor; returns (cells reached, smallest).

    Marks every reached cell with ``stamp`` and lists them in ``queue[:count]`` (in order of
    walking distance); when ``distance`` has cells (pass an empty array otherwise), it receives
    their walking distances.
    """
    mark[start] = stamp
    queue[0] = start
    if distance.shape[0] > 0:
        distance[start] = 0
    return spread(floor, occupied, deltas, np.int64(1), mark, stamp, queue, distance)


@numba.njit(cache=True, inline="always")
def spread(floor, occupied, deltas, sources, mark, stamp, queue, distance):  # pragma: no cover
    """The walk of :func:`explore` from the ``sources`` cells in ``queue[:sources]`` at once
    (each already marked with ``stamp``, at distance 0): each cell reached gets its walking
    distance to the nearest source. Returns (cells reached, smallest). Compiled into each
    caller, so that :func:`explore` calls nothing and numba counts no references there (its
    cost: docs/xsokoban.md, round 29)."""
    with_distance = distance.shape[0] > 0
    smallest = queue[0]
    head = 0
    tail = sources
    while head < tail:
        cell = queue[head]
        head += 1
        smallest = min(smallest, cell)
        for k in range(4):
            neighbour = cell + deltas[k]
            if floor[neighbour] and not occupied[neighbour] and mark[neighbour] != stamp:
                mark[neighbour] = stamp
                if with_distance:
                    distance[neighbour] = distance[cell] + 1
                queue[tail] = neighbour
                tail += 1
    return tail, smallest


@uncounted
def normalized_player(floor, occupied, deltas, start, mark, stamp, queue):  # pragma: no cover
    """The smallest cell reachable from ``start`` (marks the area with ``stamp``)."""
    return explore(floor, occupied, deltas, start, mark, stamp, queue, queue[:0])[1]


class Area(NamedTuple):
    """The player's area before a push: the cells with ``mark[c] == stamp``, whose smallest
    is ``smallest`` (its normalized player)."""

    mark: np.ndarray  # int64[cells]
    stamp: int
    smallest: int


class Pushed(NamedTuple):
    """One push: the box went from ``source`` to ``target`` in ``direction`` (``u d l r``)."""

    source: int
    target: int
    direction: int


class Walk(NamedTuple):
    """What a new walk marks with: ``mark`` gets the unused ``stamp``; ``queue`` int64[cells]."""

    mark: np.ndarray
    stamp: int
    queue: np.ndarray


@numba.njit(cache=True, inline="always")
def normalized_after_push(floor, occupied, deltas, area, pushed, walk):  # pragma: no cover
    """Normalized player cell after a single push (a :class:`Pushed`) of the box on ``source``
    to ``target``.

    ``occupied`` is the position after the push; ``area`` (:class:`Area`) is the player's
    region R before it. The player now stands on ``source``. When ``source`` opens onto nothing
    outside R, and ``target`` either lay outside R or can be walked around through its eight
    neighbours, the new region is R minus ``target`` plus ``source``, and its smallest cell
    follows without a walk; otherwise this falls back to :func:`normalized_player`, which marks
    with ``walk`` (:class:`Walk`). Inlined where it is called (once per push of the search).
    """
    source, target, stamp = pushed.source, pushed.target, area.stamp
    across = 2 if pushed.direction < 2 else 0
    for k in range(across, across + 2):
        side = source + deltas[k]
        if floor[side] and not occupied[side] and area.mark[side] != stamp:
            return normalized_player(
                floor, occupied, deltas, source, walk.mark, walk.stamp, walk.queue
            )
    if area.mark[target] == stamp and (
        area.smallest == target or not walkable_around(floor, occupied, target, deltas[1])
    ):
        return normalized_player(floor, occupied, deltas, source, walk.mark, walk.stamp, walk.queue)
    return min(area.smallest, source)


@uncounted
def walkable_around(floor, occupied, cell, width):  # pragma: no cover - compiled
    """True when the free side neighbours of ``cell`` connect through its ring of 8 cells."""
    ring = (-width, -width + 1, 1, width + 1, width, width - 1, -1, -width - 1)
    free = 0
    for k in range(8):
        neighbour = cell + ring[k]
        if floor[neighbour] and not occupied[neighbour]:
            free |= 1 << k
    sides = 0
    links = 0
    for k in range(0, 8, 2):
        if free & (1 << k):
            sides += 1
            if free & (1 << (k + 1)) and free & (1 << ((k + 2) % 8)):
                links += 1
    return sides <= 1 or links >= sides - 1
