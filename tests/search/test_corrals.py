"""PI-corral detection on hand-drawn positions, and its effect on the successors."""

from __future__ import annotations

import numpy as np
from tiny_levels import quiet_level

from evosoko.search import PushSettings, solve
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.corrals import (
    ALLOWED_MARK,
    MARK_SLOTS,
    CorralBoard,
    make_pi_corral_scratch,
    pi_corral,
)
from evosoko.sokoban.reach import explore

# The three boxes of column 4 fence off the goals of column 6; each can only be pushed right.
FENCED = ["########",
          "#   $ .#",
          "#@$ $ .#",
          "#.  $ .#",
          "########"]  # fmt: skip
# The box fences off the two cells on its right, but it can also be pushed up: not a PI-corral.
LEAKY = ["#######",
         "#  .###",
         "#@ $  #",
         "#   ###",
         "#######"]  # fmt: skip
# Without the lower passage the cells above and below the box join the corral: a PI-corral.
MERGED = ["#######",
          "###.###",
          "#@ $  #",
          "### ###",
          "#######"]  # fmt: skip
# The corral holds no work: its goals are all filled and the fence is on goals.
DONE = ["########",
        "#   * *#",
        "#@$ *  #",
        "#.  *  #",
        "########"]  # fmt: skip


def corral_boxes(rows):
    """(legal barrier pushes or -1, barrier boxes as (row, column)) of the start position."""
    level = quiet_level(rows)
    tables = level_arrays(level)
    cells = level.cells
    occupied = np.zeros(cells, dtype=bool)
    boxes = np.array(level.start.boxes, dtype=np.int64)
    occupied[boxes] = True
    mark = np.zeros(cells, dtype=np.int64)
    scratch = make_pi_corral_scratch(cells)
    marks = np.zeros(MARK_SLOTS, dtype=np.int64)
    explore(
        tables.floor,
        occupied,
        tables.deltas,
        level.start.player,
        mark,
        1,
        np.zeros(cells, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )
    pushes = pi_corral(
        CorralBoard(tables.floor, tables.dead, tables.goals, tables.deltas),
        occupied,
        boxes,
        mark,
        1,
        scratch,
        marks,
    )
    chosen = marks[ALLOWED_MARK]
    allowed = {level.position(b) for b in boxes.tolist() if scratch.allowed[b] == chosen}
    return pushes, allowed if pushes >= 0 else set()


def test_a_fence_that_only_opens_inward_is_a_pi_corral():
    assert corral_boxes(FENCED) == (3, {(1, 4), (2, 4), (3, 4)})


def test_a_fence_box_that_can_leave_the_corral_spoils_it():
    assert corral_boxes(LEAKY)[0] == -1


def test_unreachable_regions_on_the_far_side_of_a_push_are_merged():
    assert corral_boxes(MERGED) == (1, {(2, 3)})


def test_a_corral_without_work_is_not_used():
    assert corral_boxes(DONE)[0] == -1


def test_corral_pruning_restricts_the_first_expansion_to_the_fence():
    level = quiet_level(FENCED)
    pruned = solve(level, "push-astar", node_limit=1, settings=PushSettings(tunnels=False))
    full = solve(
        level, "push-astar", node_limit=1, settings=PushSettings(corrals=False, tunnels=False)
    )
    assert pruned.generated == 3
    assert full.generated > pruned.generated
    assert (
        solve(level, "push-astar").pushes
        == solve(
            level, "push-bfs", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
        ).pushes
    )
