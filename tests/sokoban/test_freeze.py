"""The freeze kernel with one scratch reused across calls, as search loops call it, gives the
verdicts of fresh scratch and leaves the scratch clean (correctness against a recursive
reference is in test_deadlocks.py)."""

from __future__ import annotations

import numpy as np
import pytest
from shared_microban import microban

from evosoko.sokoban.deadlocks import is_freeze_deadlock
from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.rules import delta_array


@pytest.mark.parametrize("title", ["7", "44", "93", "144", "146", "155"])
def test_reused_scratch_gives_the_verdicts_of_fresh_scratch(title):
    level = microban(title)
    blocked, deltas = ~level.floor, delta_array(level.width)
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
                blocked, level.dead_squares, level.goals, occupied, deltas, int(box), scratch
            )
            assert got == expected, (title, sorted(boxes.tolist()), int(box))
            agreed += 1
            deadlocked += expected
        assert not scratch[0].any()  # the as-wall flags are left clean for the next call
    assert deadlocked > 0 and deadlocked < agreed  # both outcomes were exercised
