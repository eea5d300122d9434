"""Box paths: the fewest pushes taking one box to a target cell, the other boxes staying put.

The packing macro of ``push-fess`` (FESS's packing advisor): a box is carried to the next goal
of the packing order in one step of the search. A search state here is the box's cell and the
side the player stands on (``cell * 4 + d``: the player on ``cell - delta[d]``, able to push
in direction ``d``); each push moves the box one cell. Which sides of a box cell the player
can go between is labelled once per cell the box reaches (one side when they meet through the
cell's ring of eight, else from one depth-first search of the free floor around the box lifted:
:mod:`evosoko.sokoban.cell_sides`), and kept for the other searches of the same box while
the other boxes stay where they are. Breadth-first, so the path has the fewest pushes; the same
kernel rebuilds the path for the solution (:func:`box_path_pushes`), so the search and the
replayed solution agree push for push.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sets import box_blocked
from evosoko.sokoban.cell_sides import (
    SideSearch,
    label_sides,
    make_side_search,
    one_side,
    search_region,
)
from evosoko.sokoban.reach import explore, walkable_around

STATE_STAMP, SEARCHED_STAMP, LABEL_STAMP = 0, 1, 2
"""Slots of :attr:`BoxPathScratch.stamps`."""


class PathBoard(NamedTuple):
    """The board of :func:`box_path`: ``occupied`` holds every box."""

    floor: np.ndarray
    dead: np.ndarray
    deltas: np.ndarray
    occupied: np.ndarray


class BoxPathScratch(NamedTuple):
    """Scratch of :func:`box_path`; a state is ``cell * 4 + d`` (see the module)."""

    seen: np.ndarray
    """int64[4 * cells]: the search's stamp on each state it reached."""
    previous: np.ndarray
    """int64[4 * cells]: each state's predecessor, -1 for a start state."""
    queue: np.ndarray
    """int64[4 * cells]: the queue of states."""
    sides: SideSearch
    """The depth-first search of the free floor around the box lifted, the other boxes in
    place (``stamps[SEARCHED_STAMP]``: the ``labels`` stamp of the box it was made for)."""
    labelled: np.ndarray
    """int64[cells]: on each box cell whose sides are labelled, the ``labels`` stamp of the box
    lifted meanwhile."""
    labels: np.ndarray
    """int64[cells]: on the cell of each box lifted, the ``stamps[LABEL_STAMP]`` its labels
    were made with."""
    side_label: np.ndarray
    """int64[cells, 4]: with the box on ``cell``, the player's region on its neighbour in
    direction ``k`` at ``[cell, k]`` (:func:`evosoko.sokoban.cell_sides.label_sides`); equal
    labels, one region; -1: no floor free."""
    stamps: np.ndarray
    """int64[3]: the running stamps of ``seen`` and ``labels``, and the ``labels`` stamp of
    ``sides``."""


def make_box_path_scratch(cells: int) -> BoxPathScratch:
    """A :class:`BoxPathScratch` for a level of ``cells`` cells."""
    return BoxPathScratch(
        seen=np.zeros(4 * cells, dtype=np.int64),
        previous=np.zeros(4 * cells, dtype=np.int64),
        queue=np.zeros(4 * cells, dtype=np.int64),
        sides=make_side_search(cells),
        labelled=np.zeros(cells, dtype=np.int64),
        labels=np.zeros(cells, dtype=np.int64),
        side_label=np.zeros((cells, 4), dtype=np.int64),
        stamps=np.zeros(3, dtype=np.int64),
    )


@uncounted
def box_path(board, box, walk, target, limit, scratch, since):  # pragma: no cover - compiled
    """Fewest pushes taking the box on ``box`` to ``target`` on the :class:`PathBoard`
    ``board``: returns the final state (``target``'s predecessor cell * 4 + last direction)
    and the push count, or (-1, 0).

    ``board.occupied`` holds every box, ``box`` included (it is lifted during the search and
    put back); ``walk`` = ``(reach_mark, reach)``: ``reach_mark == reach`` marks where the
    player can walk now. At most ``limit`` states are visited. The chain of states back from
    the final one is left in ``scratch``. The player's regions around each cell the box reaches
    are labelled once (:func:`label_sides`) and kept for later searches of the same box while
    its ``labels`` stamp is at least ``since``: the caller takes a new ``since`` (the next
    ``stamps[LABEL_STAMP]``) whenever the other boxes move.
    """
    floor, dead, deltas, occupied = board.floor, board.dead, board.deltas, board.occupied
    reach_mark, reach = walk
    seen, previous, queue = scratch.seen, scratch.previous, scratch.queue
    labelled, side_label, stamps = scratch.labelled, scratch.side_label, scratch.stamps
    stamps[STATE_STAMP] += 1
    stamp = stamps[STATE_STAMP]
    if scratch.labels[box] < since:
        stamps[LABEL_STAMP] += 1
        scratch.labels[box] = stamps[LABEL_STAMP]
    labels = scratch.labels[box]
    head = 0
    tail = 0
    for d in range(4):
        if reach_mark[box - deltas[d]] == reach:
            state = box * 4 + d
            seen[state] = stamp
            previous[state] = -1
            queue[tail] = state
            tail += 1
    occupied[box] = False
    found = -1
    pushes = 0
    while head < min(tail, limit):
        state = queue[head]
        head += 1
        cell = state // 4
        d = state % 4
        after = cell + deltas[d]
        if box_blocked(floor, occupied, dead, after):
            continue
        if after == target:
            found = state
            break
        if labelled[after] != labels:
            labelled[after] = labels
            if walkable_around(floor, occupied, after, deltas[1]):
                one_side(floor, occupied, deltas, after, side_label[after])
            else:
                if stamps[SEARCHED_STAMP] != labels:  # one search of the floor around this box
                    stamps[SEARCHED_STAMP] = labels
                    search_region(floor, occupied, deltas, box, scratch.sides)
                label_sides(floor, occupied, deltas, scratch.sides, after, side_label[after])
        around = side_label[after]
        label = around[d ^ 1]  # the player stands on cell, after's neighbour against d
        for e in range(4):
            if around[e ^ 1] != label:  # the player on after - deltas[e]
                continue
            next_state = after * 4 + e
            if seen[next_state] == stamp:
                continue
            seen[next_state] = stamp
            previous[next_state] = state
            queue[tail] = next_state
            tail += 1
    occupied[box] = True
    if found < 0:
        return -1, 0
    state = found
    while state >= 0:
        pushes += 1
        state = previous[state]
    return found, pushes


def box_path_pushes(
    floor: np.ndarray,
    dead: np.ndarray,
    occupied: np.ndarray,
    deltas: np.ndarray,
    box: int,
    player: int,
    target: int,
    last_direction: int | None = None,
) -> list[tuple[int, int]] | None:
    """The pushes ``(box cell, direction)`` of the fewest-push path of :func:`box_path` from the
    position (``occupied``, player on ``player``) to ``target``, ending with a push in
    ``last_direction`` (None: any); None when there is none."""
    found, scratch = _box_search(floor, dead, occupied, deltas, box, player, target)
    if found < 0 or (last_direction is not None and found % 4 != last_direction):
        return None
    previous = scratch.previous
    chain = []
    state = found
    while state >= 0:
        chain.append((int(state // 4), int(state % 4)))
        state = int(previous[state])
    return chain[::-1]


def box_reachable_targets(
    floor: np.ndarray,
    dead: np.ndarray,
    occupied: np.ndarray,
    deltas: np.ndarray,
    box: int,
    player: int,
    targets,
) -> list[int]:
    """The cells of ``targets`` that the box on ``box`` can be pushed to from the position
    (``occupied``, player on ``player``), the other boxes staying put (one search for all)."""
    _, scratch = _box_search(floor, dead, occupied, deltas, box, player, -1)
    seen, stamp = scratch.seen, scratch.stamps[STATE_STAMP]
    return [int(t) for t in targets if t != box and (seen[4 * t : 4 * t + 4] == stamp).any()]


def _box_search(floor, dead, occupied, deltas, box, player, target) -> tuple[int, BoxPathScratch]:
    """Run :func:`box_path` from the position (``target`` -1: every state it reaches); the
    final state (-1 if none) and the scratch holding the search."""
    cells = floor.shape[0]
    scratch = make_box_path_scratch(cells)
    reach_mark = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(cells, dtype=np.int64)
    explore(floor, occupied, deltas, player, reach_mark, 1, queue, queue[:0])
    board = PathBoard(floor, dead, deltas, occupied.copy())
    found, _ = box_path(board, box, (reach_mark, 1), target, 4 * cells, scratch, 1)
    return int(found), scratch
