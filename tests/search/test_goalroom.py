"""Goal rooms: detection, packing order, and the goal macro of the non-optimal searches."""

from __future__ import annotations

from tiny_levels import ROOM, quiet_level

from evosoko.search import PushSettings, solve
from evosoko.search.goalroom import find_goal_room
from evosoko.sokoban.solutions import verify_solution

# ROOM, but one box starts inside it: not a goal room.
BOX_INSIDE = [ROOM[0], "#..$  #  #", *ROOM[2:6], "#   $ @$ #", *ROOM[7:]]


def test_the_room_behind_one_corridor_cell_is_found_with_a_packing_order():
    level = quiet_level(ROOM)
    room = find_goal_room(level)
    assert room is not None
    assert level.position(room.entrance) == (2, 6)
    assert set(room.goals) == set(level.goal_cells.tolist())
    # the deepest goals are filled first, and each macro starts by pushing through the entrance
    assert level.position(room.goals[0])[1] == 1
    for pushes in room.pushes:
        assert pushes[0] == (room.entrance, room.inward)


def test_no_goal_room_when_a_box_starts_inside():
    assert find_goal_room(quiet_level(BOX_INSIDE)) is None


def test_goal_macros_solve_and_verify():
    level = quiet_level(ROOM)
    with_macros = solve(level, "push-wastar", settings=PushSettings(goal_rooms=True))
    without = solve(level, "push-wastar", settings=PushSettings(goal_rooms=False))
    assert with_macros.status == without.status == "solved"
    assert verify_solution(level, with_macros.solution).solved
    assert with_macros.generated < without.generated


def test_exhaustion_with_goal_macros_is_retried_without_them():
    # A box that can never leave its corner: unsolvable, so the fixed packing order is no excuse.
    rows = list(ROOM)
    rows[7] = "#$       #"
    rows[6] = "#   $ @$ #"
    result = solve(quiet_level(rows), "push-greedy", settings=PushSettings(goal_rooms=True))
    assert result.status == "unsolvable"
