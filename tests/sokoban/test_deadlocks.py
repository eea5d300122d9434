"""Deadlock tests on hand-drawn boards, and their soundness against exhaustive search."""

from __future__ import annotations

from collections import deque
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_boards import quiet_level, small_levels

from evosoko.sokoban.deadlocks import (
    frozen_boxes,
    is_bipartite_deadlock,
    is_deadlocked,
    is_freeze_deadlock,
    matching_cost,
)
from evosoko.sokoban.level import UNREACHABLE, State
from evosoko.sokoban.rules import Board


def freeze_results(rows: list[str]) -> list[bool]:
    """``is_freeze_deadlock`` from each box of the start position, in cell order."""
    level = quiet_level(rows)
    occupied = Board(level).occupied
    return [is_freeze_deadlock(level, occupied, box) for box in level.start.boxes]


# ---- freeze deadlocks ----------------------------------------------------------------------------
def test_a_square_of_four_boxes_off_goal_is_frozen():
    rows = ["#######",
            "#     #",
            "# $$  #",
            "# $$  #",
            "#.... #",
            "#   @ #",
            "#######"]  # fmt: skip
    assert freeze_results(rows) == [True] * 4
    level = quiet_level(rows)
    assert is_deadlocked(level, level.start)


def test_a_square_of_four_boxes_on_goals_is_no_deadlock():
    rows = ["#######",
            "#     #",
            "# **  #",
            "# **  #",
            "#     #",
            "#   @ #",
            "#######"]  # fmt: skip
    assert freeze_results(rows) == [False] * 4
    level = quiet_level(rows)
    assert frozen_boxes(level, Board(level).occupied, level.start.boxes[0]) == level.start.boxes
    assert not is_deadlocked(level, level.start)


def test_one_box_off_goal_makes_the_whole_square_a_deadlock():
    rows = ["#######",
            "#     #",
            "# **  #",
            "# *$  #",
            "#  .  #",
            "#   @ #",
            "#######"]  # fmt: skip
    assert freeze_results(rows) == [True] * 4


def test_box_wall_box_is_frozen():
    rows = ["#######",
            "#  #  #",
            "#  $$ #",
            "#   # #",
            "# ..  #",
            "#  @  #",
            "#######"]  # fmt: skip
    assert freeze_results(rows) == [True, True]


def test_two_boxes_in_the_open_are_not_frozen():
    rows = ["#######",
            "#  #  #",
            "#  $$ #",
            "#     #",
            "# ..  #",
            "#  @  #",
            "#######"]  # fmt: skip
    assert freeze_results(rows) == [False, False]


STAIRCASE = ["##########",
             "#  #     #",
             "#  $$    #",
             "#   $$   #",
             "#    #   #",
             "#        #",
             "#  ....@ #",
             "##########"]  # fmt: skip


def test_a_staircase_frozen_only_through_its_far_end_is_found_recursively():
    level = quiet_level(STAIRCASE)
    occupied = Board(level).occupied
    first = level.cell(2, 3)
    assert is_freeze_deadlock(level, occupied, first)
    assert frozen_boxes(level, occupied, first) == level.start.boxes


def test_the_staircase_thaws_when_its_far_end_can_move():
    rows = STAIRCASE[:4] + ["#        #"] + STAIRCASE[5:]
    assert freeze_results(rows) == [False] * 4


def test_the_staircase_on_goals_is_no_deadlock_unless_one_box_is_off():
    on_goals = (
        STAIRCASE[:2] + ["#  **    #", "#   **   #"] + STAIRCASE[4:6] + ["#       @#", STAIRCASE[7]]
    )
    assert freeze_results(on_goals) == [False] * 4
    far_end_off = (
        STAIRCASE[:2] + ["#  **    #", "#   *$   #"] + STAIRCASE[4:6] + ["#   .   @#", STAIRCASE[7]]
    )
    assert freeze_results(far_end_off) == [True] * 4


def test_a_free_neighbour_on_one_side_does_not_hide_a_frozen_one_on_the_other():
    rows = ["#####",
            "#.@ #",
            "#.$.#",
            "##$##",
            "##$##",
            "#####"]  # fmt: skip
    level = quiet_level(rows)
    above, middle, below = level.cell(2, 2), level.cell(3, 2), level.cell(4, 2)
    occupied = Board(level).occupied
    assert frozen_boxes(level, occupied, middle) == (middle, below)
    assert is_freeze_deadlock(level, occupied, middle)
    assert not is_freeze_deadlock(level, occupied, above)


def test_dead_squares_on_both_sides_block_an_axis():
    rows = ["#####",
            "# * #",
            "##$##",
            "#   #",
            "#.  #",
            "# @ #",
            "#####"]  # fmt: skip
    level = quiet_level(rows)
    above, below = level.cell(1, 2), level.cell(2, 2)
    assert level.dead_squares[level.cell(1, 1)] and level.dead_squares[level.cell(1, 3)]
    assert not level.dead_squares[below]
    occupied = Board(level).occupied
    assert is_freeze_deadlock(level, occupied, below)
    assert not is_freeze_deadlock(level, occupied, above)  # frozen, but on its goal
    assert is_deadlocked(level, level.start)


def test_freeze_test_requires_a_box():
    level = quiet_level(STAIRCASE)
    with pytest.raises(ValueError):
        is_freeze_deadlock(level, Board(level).occupied, level.cell(5, 5))


@settings(deadline=None)
@given(small_levels(max_boxes=6), st.lists(st.integers(0, 3), max_size=40))
def test_frozen_groups_agree_with_a_recursive_reference(level, moves):
    board = Board(level)
    for direction in moves:
        board.step(direction)
    boxes = set(board.boxes())
    for box in sorted(boxes):
        expected = reference_frozen_group(level, boxes, box, frozenset())
        assert frozen_boxes(level, board.occupied, box) == tuple(sorted(set(expected or ())))
        off_goal = expected is not None and not all(level.goals[b] for b in expected)
        assert is_freeze_deadlock(level, board.occupied, box) == off_goal


def reference_frozen_group(level, boxes, box, path) -> list[int] | None:
    """The textbook recursion: the frozen group of ``box``, or None when it can move."""
    path = path | {box}
    group = [box]
    for side_a, side_b in ((box - level.width, box + level.width), (box - 1, box + 1)):
        if not level.floor[side_a] or not level.floor[side_b] or {side_a, side_b} & path:
            continue
        if level.dead_squares[side_a] and level.dead_squares[side_b]:
            continue
        frozen = None
        if side_a in boxes:
            frozen = reference_frozen_group(level, boxes, side_a, path)
        if frozen is None and side_b in boxes:
            frozen = reference_frozen_group(level, boxes, side_b, path)
        if frozen is None:
            return None
        group += frozen
    return group


# ---- bipartite deadlocks and matching ------------------------------------------------------------
BOTH_NEED_ONE_GOAL = ["#######",
                      "#.$ $ #",
                      "#     #",
                      "#  .  #",
                      "#  @  #",
                      "#######"]  # fmt: skip


def test_two_boxes_that_can_only_reach_the_same_goal_are_a_bipartite_deadlock():
    level = quiet_level(BOTH_NEED_ONE_GOAL)
    boxes = level.start.boxes
    assert not any(level.dead_squares[box] for box in boxes)
    assert freeze_results(BOTH_NEED_ONE_GOAL) == [False, False]
    assert matching_cost(level, boxes) == UNREACHABLE
    assert is_bipartite_deadlock(level, boxes)
    assert is_deadlocked(level, level.start)


def test_matching_cost_sums_the_best_assignment():
    level = quiet_level(["#######",
                         "#     #",
                         "# $ $ #",
                         "#.   .#",
                         "#  @  #",
                         "#######"])  # fmt: skip
    # each box is pushed down once and sideways once to its own goal
    assert matching_cost(level, level.start.boxes) == 4
    assert not is_bipartite_deadlock(level, level.start.boxes)
    assert not is_deadlocked(level, level.start)


@settings(deadline=None)
@given(small_levels(max_boxes=3))
def test_matching_cost_is_the_best_permutation(level):
    boxes = level.start.boxes
    distance = level.push_distance
    best = min(
        sum(int(distance[goal, box]) for goal, box in zip(order, boxes))
        for order in permutations(range(len(boxes)))
    )
    assert matching_cost(level, boxes) == (min(UNREACHABLE, best))


# ---- soundness: a reported deadlock is never solvable --------------------------------------------
@settings(deadline=None, max_examples=60)
@given(small_levels(max_boxes=2, max_side=5))
def test_every_reported_deadlock_is_unsolvable(level):
    solvable = can_be_solved(level, level.start)
    if is_deadlocked(level, level.start):
        assert not solvable
    occupied = Board(level).occupied
    if any(is_freeze_deadlock(level, occupied, box) for box in level.start.boxes):
        assert not solvable


def can_be_solved(level, start: State) -> bool:
    """Exhaustive breadth-first search over positions (tiny levels only)."""
    seen = {start}
    queue = deque([start])
    while queue:
        board = Board(level, queue.popleft())
        if board.is_solved():
            return True
        for direction in range(4):
            if board.step(direction):
                state = board.state()
                if state not in seen:
                    seen.add(state)
                    queue.append(state)
                board.undo()
    return False
