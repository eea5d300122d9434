"""Reverse search: breadth-first over pull-states, starting from the solved position.

A *pull* is a push played backwards: the player stands next to a box, steps away from it and
drags the box one cell along. Starting from every box on a goal (with the player in each region
of the remaining floor), the breadth-first depth of a state is exactly the fewest pushes that
solve it: every solution ends in some solved position, and the search starts from all of them.

States are ``(sorted boxes, normalized player)``, where the normalized player is the smallest cell
the player can reach; they are hashed by Zobrist keys drawn from the caller's random generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numba
import numpy as np
from numba import types
from numba.typed import Dict


@dataclass(frozen=True)
class PullTree:
    """The states a reverse search reached: ``boxes[i]`` (sorted), ``players[i]``, ``depths[i]``.

    ``complete`` is True when the search exhausted the state space before its node limit.
    """

    boxes: np.ndarray  # int32[n, k]
    players: np.ndarray  # int32[n]
    depths: np.ndarray  # int32[n]
    complete: bool


def pull_search(
    floor: np.ndarray,
    neighbours: np.ndarray,
    goals: tuple[int, ...],
    node_limit: int,
    rng: random.Random,
) -> PullTree:
    """Breadth-first reverse search from ``goals`` over at most ``node_limit`` states.

    ``floor`` is ``bool[cells]`` (closed by walls), ``neighbours`` the ``u d l r`` table.
    """
    cells = len(floor)
    zobrist = np.array([rng.getrandbits(63) for _ in range(2 * cells)], dtype=np.int64)
    boxes, players, depths, count, complete = _pull_bfs(
        floor,
        neighbours,
        np.array(sorted(goals), dtype=np.int32),
        zobrist[:cells],
        zobrist[cells:],
        int(node_limit),
    )
    return PullTree(boxes[:count], players[:count], depths[:count], bool(complete))


@numba.njit(cache=True)
def _fill(free, neighbours, start, reach, stack):
    """Mark ``reach`` from ``start`` over ``free`` cells; return the smallest reached cell."""
    reach[:] = False
    reach[start] = True
    stack[0] = start
    top = 1
    smallest = start
    while top > 0:
        top -= 1
        cell = stack[top]
        smallest = min(smallest, cell)
        for d in range(4):
            nxt = neighbours[cell, d]
            if nxt >= 0 and free[nxt] and not reach[nxt]:
                reach[nxt] = True
                stack[top] = nxt
                top += 1
    return smallest


@numba.njit(cache=True)
def _state_key(boxes, player, box_keys, player_keys):
    key = player_keys[player]
    for b in boxes:
        key ^= box_keys[b]
    return key


@numba.njit(cache=True)
def _pull_bfs(floor, neighbours, goals, box_keys, player_keys, node_limit):
    cells = floor.shape[0]
    k = goals.shape[0]
    boxes = np.empty((node_limit, k), dtype=np.int32)
    players = np.empty(node_limit, dtype=np.int32)
    depths = np.empty(node_limit, dtype=np.int32)
    seen = Dict.empty(key_type=types.int64, value_type=types.int64)
    free = floor.copy()
    reach = np.zeros(cells, dtype=np.bool_)
    claimed = np.zeros(cells, dtype=np.bool_)
    stack = np.empty(cells, dtype=np.int32)
    for b in goals:
        free[b] = False

    count = 0
    # Every region of the floor around the solved boxes is a possible final player position.
    for cell in range(cells):
        if free[cell] and not claimed[cell] and count < node_limit:
            smallest = _fill(free, neighbours, cell, reach, stack)
            claimed |= reach
            boxes[count] = goals
            players[count] = smallest
            depths[count] = 0
            seen[_state_key(goals, smallest, box_keys, player_keys)] = count
            count += 1

    head = 0
    complete = True
    while head < count:
        free[:] = floor
        for b in boxes[head]:
            free[b] = False
        _fill(free, neighbours, players[head], reach, stack)
        reach_here = reach.copy()
        for j in range(k):
            box = boxes[head, j]
            for d in range(4):
                stand = neighbours[box, d]
                if stand < 0 or not reach_here[stand]:
                    continue
                back = neighbours[stand, d]
                if back < 0 or not free[back]:
                    continue
                # pull: the box moves to `stand`, the player to `back`
                free[box] = True
                free[stand] = False
                smallest = _fill(free, neighbours, back, reach, stack)
                free[stand] = True
                free[box] = False
                moved = boxes[head].copy()
                moved[j] = stand
                moved.sort()
                key = _state_key(moved, smallest, box_keys, player_keys)
                if key in seen:
                    continue
                if count >= node_limit:
                    complete = False
                    continue
                seen[key] = count
                boxes[count] = moved
                players[count] = smallest
                depths[count] = depths[head] + 1
                count += 1
        head += 1
    return boxes, players, depths, count, complete
