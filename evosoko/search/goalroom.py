"""Goal rooms and their packing order, for the goal macro of the non-optimal push searches.

A *goal room* is a region of floor holding at least two goals, no box and not the player at the
start, joined to the rest of the level through one corridor cell, its *entrance*. Its packing
order is found backwards: starting from the room full (a box on every room goal), boxes are
pulled out through the entrance one by one, the one with the shortest way out first; the
forward order is the reverse, and each box's way in is the reversed pulls. During the search
a box pushed onto the entrance while the room holds exactly the first ``k`` packed boxes is
carried straight to goal ``k + 1``, and no other push enters the room or moves a box in it.
That pruning is not complete (the order is fixed), so a search that exhausts its space with it
is repeated without it before ``unsolvable`` is claimed.

Not applied to given-holes levels (:mod:`evosoko.search.given_holes`): there a box never rests
on a goal, and each box has its own hole, so a room has no packing order of its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from evosoko.search.clocks import no_tick
from evosoko.sokoban.level import Level


class GoalRoomArrays(NamedTuple):
    """A goal room as the push kernels take it (:meth:`GoalRoom.kernel_arrays`)."""

    room: np.ndarray
    """bool[cells]: the room's cells."""
    entrance: int
    """The entrance cell (-1: no goal room)."""
    inward: int
    """Direction of the push through the entrance into the room."""
    goal: np.ndarray
    """int64[goals]: the room's goals in packing order."""
    pushes: np.ndarray
    """int64[goals]: the pushes of each goal's macro."""
    player_end: np.ndarray
    """int64[goals]: the player's cell after it."""


@dataclass(frozen=True, eq=False)
class GoalRoom:
    """A goal room, its entrance and the forward packing macros (one per room goal)."""

    room: np.ndarray  # bool[cells]
    entrance: int
    inward: int  # direction of the push from the outside through the entrance into the room
    goals: tuple[int, ...]  # packing order
    pushes: tuple[tuple[tuple[int, int], ...], ...]  # per goal: (box cell, direction) from entrance

    def kernel_arrays(self) -> GoalRoomArrays:
        """The room as the push kernels take it."""
        player_end = [moves[-1][0] for moves in self.pushes]  # the cell the box last left
        return GoalRoomArrays(
            room=self.room,
            entrance=int(self.entrance),
            inward=int(self.inward),
            goal=np.array(self.goals, dtype=np.int64),
            pushes=np.array([len(moves) for moves in self.pushes], dtype=np.int64),
            player_end=np.array(player_end, dtype=np.int64),
        )


def no_goal_room(cells: int) -> GoalRoomArrays:
    """Kernel arrays meaning "no goal room"."""
    return GoalRoomArrays(
        room=np.zeros(cells, dtype=np.bool_),
        entrance=-1,
        inward=0,
        goal=np.zeros(0, dtype=np.int64),
        pushes=np.zeros(0, dtype=np.int64),
        player_end=np.zeros(0, dtype=np.int64),
    )


class _OutOfSteps(Exception):
    pass


class _Steps:
    """A countdown of breadth-first steps; raises :class:`_OutOfSteps` when spent. ``tick``
    is called on every step (a search's :meth:`~evosoko.search.clocks.TimeLimit.tick`)."""

    def __init__(self, steps: int, tick: Callable[[], None]) -> None:
        self.left = steps
        self.tick = tick

    def spend(self, steps: int = 1) -> None:
        self.tick()
        self.left -= steps
        if self.left < 0:
            raise _OutOfSteps


def find_goal_room(
    level: Level, steps: int = 1_000_000, tick: Callable[[], None] = no_tick
) -> GoalRoom | None:
    """The goal room with the most goals that can be packed, or None (also when finding it
    would take more than ``steps`` breadth-first steps: the search is quadratic in the board
    size; Microban, XSokoban and Boxoban levels need at most 85,000; the push searches' setting
    ``goal_room_steps``). ``tick`` is called once per step and per cell looked at (a search's
    :meth:`~evosoko.search.clocks.TimeLimit.tick`: it may end the set-up when time is up)."""
    budget = _Steps(steps, tick)
    best = None
    try:
        for entrance, inward, room in _candidate_rooms(level, budget):
            goals_inside = [g for g in level.goal_cells.tolist() if room[g]]
            if best is not None and len(goals_inside) <= len(best.goals):
                continue
            order = _packing_order(level, room, entrance, inward, goals_inside, budget)
            if order is not None:
                goals, pushes = order
                best = GoalRoom(room, entrance, inward, goals, pushes)
    except _OutOfSteps:
        return None
    return best


def _candidate_rooms(level: Level, budget: _Steps):
    floor = level.floor
    deltas = level.deltas
    start_boxes = set(level.start.boxes)
    seen_rooms = set()
    for cell in np.flatnonzero(floor).tolist():
        budget.tick()
        if level.goals[cell] or cell in start_boxes or cell == level.start.player:
            continue
        open_directions = [d for d in range(4) if floor[cell + deltas[d]]]
        if len(open_directions) != 2 or open_directions[0] // 2 != open_directions[1] // 2:
            continue  # an entrance is a straight corridor cell
        for inward in open_directions:
            room = _component(level, cell + deltas[inward], cell, budget)
            if level.start.player in room or room & start_boxes:
                continue
            if sum(1 for g in level.goal_cells.tolist() if g in room) < 2:
                continue
            key = frozenset(room)
            if key in seen_rooms:
                continue
            seen_rooms.add(key)
            mask = np.zeros(level.cells, dtype=np.bool_)
            mask[list(room)] = True
            yield cell, inward, mask


def _component(level: Level, start: int, blocked: int, budget: _Steps) -> set[int]:
    floor = level.floor
    seen = {start}
    queue = deque([start])
    while queue:
        budget.spend()
        cell = queue.popleft()
        for delta in level.deltas:
            nxt = cell + delta
            if floor[nxt] and nxt != blocked and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _packing_order(level, room, entrance, inward, goals_inside, budget):
    """(goals in packing order, forward pushes of each) or None when the room cannot be emptied."""
    deltas = level.deltas
    outside = entrance - deltas[inward]
    area = set(np.flatnonzero(room).tolist()) | {entrance, outside}
    filled = set(goals_inside)
    removed = []
    while filled:
        best = None
        for box in sorted(filled):
            pulls = _pull_out(deltas, area, filled - {box}, box, entrance, outside, budget)
            if pulls is not None and (best is None or len(pulls) < len(best[1])):
                best = (box, pulls)
        if best is None:
            return None
        box, pulls = best
        filled.remove(box)
        removed.append((box, _forward(deltas, pulls)))
    removed.reverse()
    return tuple(g for g, _ in removed), tuple(p for _, p in removed)


def _pull_out(deltas, area, others, box, entrance, outside, budget):
    """Pulls ``(box cell, player cell, direction)`` taking ``box`` out to the entrance, or None.

    Breadth-first over (box, player) inside ``area``; the player starts outside and the search
    ends with the box on the entrance and the player outside of it.
    """
    start = (box, outside)
    came_from = {start: None}
    queue = deque([start])
    while queue:
        budget.spend()
        state = queue.popleft()
        box_cell, player = state
        if box_cell == entrance and player == outside:
            pulls = []
            while came_from[state] is not None:
                state, pull = came_from[state]
                if pull is not None:
                    pulls.append(pull)
            return pulls[::-1]
        for direction, delta in enumerate(deltas):
            step = player + delta
            if step not in area or step in others:
                continue
            if step != box_cell:
                nxt = (box_cell, step)
                if nxt not in came_from:
                    came_from[nxt] = (state, None)
                    queue.append(nxt)
            # pull: the player stands next to the box and steps away from it, dragging it along
            if player - delta == box_cell:
                nxt = (player, step)
                if nxt not in came_from:
                    came_from[nxt] = (state, (box_cell, player, direction))
                    queue.append(nxt)
    return None


def _forward(deltas, pulls):
    """The pushes that undo ``pulls``: (box cell before the push, push direction), in order."""
    opposite = (1, 0, 3, 2)
    pushes = []
    for _box_cell, player, direction in reversed(pulls):
        # the pull moved the box from box_cell to player; the push moves it back
        pushes.append((player, opposite[direction]))
    return tuple(pushes)
