"""The compiled freeze kernels: the recursive test with one scratch reused across calls, as
search loops call it, gives the verdicts of fresh scratch and leaves the scratch clean
(correctness against a recursive reference is in test_deadlocks.py); the fixpoint that replays
call equals a plain-Python fixpoint (:func:`frozen_cells_reference`), and so does
:func:`evosoko.sokoban.deadlocks.frozen_cells`, its Python entry point."""

from __future__ import annotations

import numpy as np
import pytest
from shared_microban import microban

from evosoko.sokoban.deadlocks import frozen_cells, is_freeze_deadlock
from evosoko.sokoban.freeze import (
    freeze_deadlock,
    frozen_off_goal,
    make_freeze_scratch,
    mark_frozen,
)
from evosoko.sokoban.rules import delta_array


def frozen_cells_reference(level, boxes) -> frozenset[int]:
    """The greatest set of boxes each blocked on both axes by walls, boxes of the set, or dead
    squares on both sides, by plain iteration over Python sets."""
    frozen = {int(box) for box in boxes}
    width = level.width
    changed = True
    while changed:
        changed = False
        for cell in sorted(frozen):
            for a, b in ((cell - width, cell + width), (cell - 1, cell + 1)):
                blocked = not level.floor[a] or not level.floor[b] or a in frozen or b in frozen
                if not blocked and not (level.dead_squares[a] and level.dead_squares[b]):
                    frozen.discard(cell)
                    changed = True
                    break
    return frozenset(frozen)


@pytest.mark.parametrize("title", ["7", "44", "93", "144", "146", "155"])
def test_reused_scratch_gives_the_verdicts_of_fresh_scratch(title):
    level = microban(title)
    deltas = delta_array(level.width)
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
                level.floor, level.dead_squares, level.goals, occupied, deltas, int(box), scratch
            )
            assert got == expected, (title, sorted(boxes.tolist()), int(box))
            agreed += 1
            deadlocked += expected
        assert not scratch.as_wall.any()  # the as-wall flags are left clean for the next call
    assert deadlocked > 0 and deadlocked < agreed  # both outcomes were exercised


@pytest.mark.parametrize("title", ["7", "44", "93", "144"])
def test_mark_frozen_is_the_fixpoint_of_frozen_cells(title):
    """The compiled fixpoint (replays call it) keeps the boxes of the Python rule, also with
    one box moved, and leaves only box cells marked."""
    level = microban(title)
    deltas = delta_array(level.width)
    frozen = np.zeros(level.cells, dtype=bool)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(int(title))
    some_frozen = 0
    for _ in range(300):
        count = rng.integers(1, min(len(floor_cells) - 1, 2 * level.box_count + 4))
        cells = rng.choice(floor_cells, size=count + 1, replace=False)
        boxes, moved_to = np.sort(cells[:-1]), int(cells[-1])
        moved_from = int(boxes[rng.integers(count)])
        after = [moved_to if box == moved_from else int(box) for box in boxes]
        expected = frozen_cells_reference(level, after)
        assert frozen_cells(level, after) == expected
        mark_frozen(level.floor, level.dead_squares, deltas, boxes, moved_from, moved_to, frozen)
        assert set(np.flatnonzero(frozen).tolist()) == expected
        frozen[:] = False
        some_frozen += bool(expected)
        lost = any(not level.goals[cell] for cell in expected)
        got = frozen_off_goal(
            level.floor,
            level.dead_squares,
            level.goals,
            deltas,
            boxes,
            moved_from,
            moved_to,
            frozen,
        )
        assert got == lost and not frozen.any()
    assert 0 < some_frozen < 300
