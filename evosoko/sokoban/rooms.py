"""Rooms and the one-wide links between them, compiled: Festival's *room connectivity*.

FESS (Shoham and Schaeffer 2020) splits a level into rooms joined by tunnels and doorways and
counts, in each position, the links between rooms that boxes block. Here the split is static,
computed once per level on the floor alone:

- a *passage* cell is a floor cell the player can only cross, never walk round: it has two
  floor neighbours that are opposite each other (walls on both other sides) or at a bend whose
  inner corner is not floor, or it is a dead end (one floor neighbour or none);
- a *room* is a connected region of the other floor cells (a room may be one cell: the
  junction of three tunnels, say);
- a *link* is a connected run of passage cells between two different rooms. Since a passage
  cell has at most two floor neighbours, a run is a one-wide path touching rooms only at its
  ends, so a box anywhere on it cuts the player's way between those two rooms through it. Runs
  that end in a dead end or lead back into the room they started from are no links.

:func:`blocked_links` counts the links with a box on them (``push-fess`` uses it as a coordinate
of its feature space, :mod:`evosoko.search.fess.space`).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.reference_counts import uncounted


def room_links(floor: np.ndarray, deltas) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(room of each cell (-1: not in a room), link of each cell (-1: not on a link), ends) of
    a closed level's ``floor`` (flat, directions ``u d l r`` as ``deltas``); ``ends[k]``: a
    cell of each of the two rooms that link ``k`` joins, next to the link (one row per link)."""
    deltas = np.asarray(deltas, dtype=np.int64)
    room = np.full(floor.shape[0], -1, dtype=np.int64)
    link = np.full(floor.shape[0], -1, dtype=np.int64)
    ends = np.full((floor.shape[0], 2), -1, dtype=np.int64)
    links = _partition(floor, deltas, room, link, ends, np.zeros(floor.shape[0], dtype=np.int64))
    return room, link, ends[:links].copy()


@numba.njit(cache=True)
def is_passage(floor, deltas, cell):  # pragma: no cover - compiled
    """Whether floor ``cell`` is a passage (see the module docstring)."""
    count = 0
    first = -1
    second = -1
    for d in range(4):
        if floor[cell + deltas[d]]:
            count += 1
            if first < 0:
                first = d
            else:
                second = d
    if count <= 1:
        return True
    if count > 2:
        return False
    if first // 2 == second // 2:  # u d or l r: straight through
        return True
    return not floor[cell + deltas[first] + deltas[second]]  # a bend round a wall corner


@numba.njit(cache=True)
def _partition(floor, deltas, room, link, ends, queue):  # pragma: no cover - compiled
    """Fill ``room``, ``link`` and ``ends`` (all -1 on entry); returns the number of links."""
    cells = floor.shape[0]
    passage = np.zeros(cells, dtype=np.bool_)
    for cell in range(cells):
        passage[cell] = floor[cell] and is_passage(floor, deltas, cell)
    rooms = 0
    for cell in range(cells):
        if floor[cell] and not passage[cell] and room[cell] < 0:
            _fill(floor, passage, False, deltas, cell, room, rooms, queue)
            rooms += 1
    links = 0
    run = np.full(cells, -1, dtype=np.int64)
    for cell in range(cells):
        if not passage[cell] or run[cell] >= 0:
            continue
        size = _fill(floor, passage, True, deltas, cell, run, cell, queue)
        first_room = -1
        for k in range(size):
            for d in range(4):
                end = queue[k] + deltas[d]
                if room[end] < 0:
                    continue
                if first_room < 0:
                    first_room = room[end]
                    ends[links, 0] = end
                elif room[end] != first_room:
                    ends[links, 1] = end
        if ends[links, 1] >= 0:
            for k in range(size):
                link[queue[k]] = links
            links += 1
    return links


@numba.njit(cache=True)
def _fill(floor, passage, want, deltas, start, label, value, queue):  # pragma: no cover
    """Label with ``value`` the floor cells connected to ``start`` whose ``passage`` flag is
    ``want``; they are left in ``queue[:count]``; returns the count."""
    label[start] = value
    queue[0] = start
    head = 0
    count = 1
    while head < count:
        cell = queue[head]
        head += 1
        for d in range(4):
            nxt = cell + deltas[d]
            if floor[nxt] and passage[nxt] == want and label[nxt] != value:
                label[nxt] = value
                queue[count] = nxt
                count += 1
    return count


@uncounted
def blocked_links(link, boxes, seen, ends, occupied, region):  # pragma: no cover - compiled
    """The number of links with a box on them. ``seen``: an all-zero scratch of one entry per
    link, left all zero. With ``ends`` (see :func:`room_links`; pass no rows otherwise), only
    the links whose two rooms are cut apart count: an end cell holds a box or the two ends lie
    in different regions of free floor (``region``: a label per free cell, ``occupied``: the
    boxes)."""
    count = 0
    cuts = ends.shape[0] > 0
    for b in boxes:
        k = link[b]
        if k >= 0 and seen[k] == 0:
            seen[k] = 1
            if cuts:
                first, second = ends[k, 0], ends[k, 1]
                if not (occupied[first] or occupied[second] or region[first] != region[second]):
                    continue
            count += 1
    for b in boxes:
        k = link[b]
        if k >= 0:
            seen[k] = 0
    return count
