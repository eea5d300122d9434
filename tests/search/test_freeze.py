"""The search's allocation-free freeze test agrees with sokoban.deadlocks on random positions."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_levels import microban

from evosoko.search.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.search.tables import search_tables
from evosoko.sokoban.deadlocks import is_freeze_deadlock


@pytest.mark.parametrize("title", ["7", "44", "93", "144", "146", "155"])
def test_freeze_deadlock_matches_the_sokoban_rule(title):
    level = microban(title)[0]
    tables = search_tables(level)
    scratch = make_freeze_scratch(level.cells)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(int(title))
    agreed = deadlocked = 0
    for _ in range(300):
        count = rng.integers(1, min(len(floor_cells), 2 * level.box_count + 4))
        boxes = rng.choice(floor_cells, size=count, replace=False)
        occupied = np.zeros(level.cells, dtype=bool)
        occupied[boxes] = True
        for box in boxes[:3]:
            expected = is_freeze_deadlock(level, occupied, int(box))
            got = freeze_deadlock(
                tables.blocked,
                tables.dead,
                tables.goals,
                occupied,
                tables.deltas,
                int(box),
                scratch,
            )
            assert got == expected, (title, sorted(boxes.tolist()), int(box))
            agreed += 1
            deadlocked += expected
        assert not scratch[0].any()  # the as-wall flags are left clean for the next call
    assert deadlocked > 0 and deadlocked < agreed  # both outcomes were exercised
