"""The compiled Hungarian matching equals sokoban.deadlocks.matching_cost (scipy)."""

from __future__ import annotations

import numpy as np
import pytest
from shared_microban import microban

from evosoko.sokoban import deadlocks
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import matching_cost


@pytest.mark.parametrize("title", ["3", "36", "93", "144", "153"])
def test_matching_equals_the_scipy_reference(title):
    level = microban(title)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(7)
    costs = set()
    samples = [np.array(level.start.boxes)] + [
        rng.choice(floor_cells, size=level.box_count, replace=False) for _ in range(200)
    ]
    for boxes in samples:
        cost = matching_cost(level.push_distance, boxes)
        assert cost == deadlocks.matching_cost(level, boxes)
        costs.add(cost >= UNREACHABLE)
    assert costs == {True, False}  # deadlocked and matchable positions both occurred
