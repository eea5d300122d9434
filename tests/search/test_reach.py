"""Compiled reachability agrees with sokoban.rules on random positions."""

from __future__ import annotations

import numpy as np
from tiny_levels import microban

from evosoko.search.reach import explore, smallest_reachable
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
