"""Box paths: one box carried to a target cell, the other boxes in place."""

from __future__ import annotations

import warnings
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from tiny_levels import microban, tiny_levels

from evosoko.search.box_paths import (
    box_path_pushes,
    box_reachable_targets,
)
from evosoko.sokoban.build import level_from_rows

LEVELS = {
    "two rooms": [
        "#########",
        "#   #   #",
        "# $ $ . #",
        "#@  #  .#",
        "#########",
    ],
    "corridor": [
        "########",
        "#@$ $..#",
        "########",
    ],
}


def _level(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(LEVELS[name], title=name)


def _occupied(level):
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[list(level.start.boxes)] = True
    return occupied


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_reachable_targets_are_the_cells_a_box_path_reaches(name):
    level = _level(name)
    occupied = _occupied(level)
    deltas = np.array(level.deltas, dtype=np.int64)
    cells = [int(c) for c in np.flatnonzero(level.floor)]
    args = (level.floor, level.dead_squares, occupied, deltas)
    for box in level.start.boxes:
        reachable = box_reachable_targets(*args, box, level.start.player, cells)
        with_path = [
            cell
            for cell in cells
            if cell != box and box_path_pushes(*args, box, level.start.player, cell) is not None
        ]
        assert reachable == with_path
    assert occupied.sum() == len(level.start.boxes)  # the position is left as it was


def test_a_box_behind_another_reaches_no_goal_until_the_other_moves():
    level = _level("corridor")
    occupied = _occupied(level)
    deltas = np.array(level.deltas, dtype=np.int64)
    near, far = sorted(level.start.boxes)
    goals = [int(g) for g in level.goal_cells]
    args = (level.floor, level.dead_squares, occupied, deltas)
    assert box_reachable_targets(*args, near, level.start.player, goals) == []
    assert box_reachable_targets(*args, far, level.start.player, goals) == []
    occupied[far] = False
    occupied[goals[1]] = True  # the far box on the far goal
    assert box_reachable_targets(*args, near, level.start.player, goals) == [goals[0]]


def _walk(floor, occupied, deltas, start):
    """The cells the player reaches from ``start``."""
    reached = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for delta in deltas:
            neighbour = cell + int(delta)
            if floor[neighbour] and not occupied[neighbour] and neighbour not in reached:
                reached.add(neighbour)
                queue.append(neighbour)
    return reached


def _one_walk_per_state(floor, dead, occupied, deltas, box, player, target):
    """The box path search written plainly: the player's region walked again after every
    push; its chain of ``(box cell, direction)`` or None."""
    occupied = occupied.copy()
    reach = _walk(floor, occupied, deltas, player)
    deltas = [int(delta) for delta in deltas]
    previous = {box * 4 + d: -1 for d in range(4) if box - deltas[d] in reach}
    queue = deque(previous)
    occupied[box] = False
    while queue:
        state = queue.popleft()
        cell, d = divmod(state, 4)
        after = cell + deltas[d]
        if not floor[after] or occupied[after] or dead[after]:
            continue
        if after == target:
            chain = []
            while state >= 0:
                chain.append(divmod(state, 4))
                state = previous[state]
            return chain[::-1]
        occupied[after] = True
        region = _walk(floor, occupied, deltas, cell)
        occupied[after] = False
        for e in range(4):
            following = after * 4 + e
            if after - deltas[e] in region and following not in previous:
                previous[following] = state
                queue.append(following)
    return None


def _same_paths(level):
    occupied = _occupied(level)
    deltas = np.array(level.deltas, dtype=np.int64)
    args = (level.floor, level.dead_squares, occupied, deltas)
    cells = [int(c) for c in np.flatnonzero(level.floor)]
    for box in level.start.boxes:
        for target in cells:
            if target == box:
                continue
            expected = _one_walk_per_state(*args, box, level.start.player, target)
            assert box_path_pushes(*args, box, level.start.player, target) == expected


def test_labelled_regions_give_the_paths_of_one_walk_per_push():
    for level in microban("1", "60", "96", "144"):
        _same_paths(level)


@settings(max_examples=150, deadline=None)
@given(tiny_levels(max_boxes=4))
def test_labelled_regions_give_the_paths_of_one_walk_per_push_on_any_board(level):
    _same_paths(level)
