"""Box paths: one box carried to a target cell, the other boxes in place."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evosoko.search.box_paths import box_path_pushes, box_reachable_targets
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
