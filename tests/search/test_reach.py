"""Compiled reachability agrees with sokoban.rules on random positions."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_levels import microban

from evosoko.search.reach import explore, normalized_after_push, smallest_reachable
from evosoko.sokoban.rules import normalized_player, reachable_cells


def test_explore_and_normalization_match_the_rules():
    level = microban("144")[0]
    deltas = np.array(level.deltas, dtype=np.int64)
    cells = level.cells
    mark = np.zeros(cells, dtype=np.int64)
    distance = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(cells, dtype=np.int64)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(3)
    for stamp in range(1, 200):
        picked = rng.choice(floor_cells, size=level.box_count + 1, replace=False)
        player, boxes = int(picked[0]), picked[1:]
        occupied = np.zeros(cells, dtype=bool)
        occupied[boxes] = True
        explore(level.floor, occupied, deltas, player, mark, 2 * stamp, distance, queue)
        assert np.array_equal(mark == 2 * stamp, reachable_cells(level, player, occupied))
        assert distance[player] == 0
        smallest = smallest_reachable(
            level.floor, occupied, deltas, player, mark, 2 * stamp + 1, queue
        )
        assert smallest == normalized_player(level, player, occupied)


@pytest.mark.parametrize("title", ["139", "144", "153", "155"])
def test_normalization_after_a_push_matches_a_full_search(title):
    level = microban(title)[0]
    deltas = np.array(level.deltas, dtype=np.int64)
    cells = level.cells
    mark, norm_mark, distance, queue = (np.zeros(cells, dtype=np.int64) for _ in range(4))
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(int(title))
    checked = shortcuts = 0
    for stamp in range(1, 400):
        count = rng.integers(1, level.box_count + 1)
        picked = rng.choice(floor_cells, size=count + 1, replace=False)
        player, boxes = int(picked[0]), picked[1:]
        occupied = np.zeros(cells, dtype=bool)
        occupied[boxes] = True
        explore(level.floor, occupied, deltas, player, mark, stamp, distance, queue)
        parent_normalized = normalized_player(level, player, occupied)
        for box in boxes.tolist():
            for direction in range(4):
                behind, target = box - deltas[direction], box + deltas[direction]
                if mark[behind] != stamp or not level.floor[target] or occupied[target]:
                    continue
                occupied[box], occupied[target] = False, True
                norm_stamp = 1000 * stamp + 4 * box + direction
                got = normalized_after_push(
                    level.floor,
                    occupied,
                    deltas,
                    mark,
                    stamp,
                    parent_normalized,
                    box,
                    target,
                    direction,
                    norm_mark,
                    norm_stamp,
                    queue,
                )
                assert got == normalized_player(level, box, occupied)
                shortcuts += not (norm_mark == norm_stamp).any()
                checked += 1
                occupied[box], occupied[target] = True, False
    assert checked > 100 and 0 < shortcuts < checked  # both paths were exercised
