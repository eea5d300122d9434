"""The lone-box matching test: positions it calls lost have no solution (push-BFS agrees)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from evosoko.search import solve
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.lone_box import _frozen_slot, lone_box_lost, lone_box_tables
from evosoko.sokoban.reach import explore
from evosoko.sokoban.solutions import replay_states
from tests.search.tiny_levels import microban, quiet_level, tiny_levels, xsokoban_41_last_box
from tests.sokoban.test_cell_sides import walked_sides

# The left box is on its goal; the goal below the door can only be filled from the room above,
# which a player in the corridor never enters with the right box there: both boxes reach only
# the left goal.
DOOR = ["#######",
        "##   ##",
        "### ###",
        "#*  $@#",
        "###.###",
        "#######"]  # fmt: skip
# The same with the right box in the room and the player above it.
DOOR_OPEN = ["#######",
             "##@  ##",
             "###$###",
             "#*    #",
             "###.###",
             "#######"]  # fmt: skip


def lost(level, boxes=None, player=None, tables=None) -> bool:
    """The test on ``level``'s start (or on ``boxes`` and ``player``)."""
    boxes = np.array(level.start.boxes if boxes is None else boxes, dtype=np.int64)
    player = level.start.player if player is None else player
    deltas = np.array(level.deltas, dtype=np.int64)
    if tables is None:
        tables = lone_box_tables(level.floor, deltas, level.goal_cells)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    mark = np.zeros(level.cells, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    explore(np.asarray(level.floor), occupied, deltas, player, mark, 1, queue, queue[:0])
    first = np.zeros(0, np.int16)
    return bool(lone_box_lost(tables, level_arrays(level), boxes, mark, 1, first))


def test_a_box_that_cannot_get_behind_the_door_is_lost():
    level = quiet_level(DOOR)
    assert lost(level)
    assert solve(level, "push-bfs").status == "unsolvable"


def test_the_same_box_in_the_room_is_not_lost():
    level = quiet_level(DOOR_OPEN)
    assert not lost(level)
    assert solve(level, "push-bfs").solved


def test_the_side_of_the_player_decides():
    # one box below the door: pushed down through it onto the goal by a player in the room
    # above; a player in the corridor beside it can never get there
    room = ["#######",
            "##@  ##",
            "### ###",
            "#  $  #",
            "###.###",
            "#######"]  # fmt: skip
    corridor = [*room[:1], "##   ##", *room[2:3], "#  $ @#", *room[4:]]
    assert not lost(quiet_level(room))
    assert solve(quiet_level(room), "push-bfs").solved
    assert lost(quiet_level(corridor))
    assert solve(quiet_level(corridor), "push-bfs").status == "unsolvable"


def test_boxes_frozen_on_goals_are_walls_to_the_others():
    # XSokoban 41 with 14 boxes on goals and the last in the corridor: on the open floor a lone
    # box there could be pushed up into the room from below (the player walks round by the
    # bottom row) and back down onto the goal left; the frozen boxes of that row cut the way
    corridor = xsokoban_41_last_box(box=(8, 12), player=(8, 13))
    assert lost(corridor)
    deltas = np.array(corridor.deltas, dtype=np.int64)
    open_floor = lone_box_tables(corridor.floor, deltas, corridor.goal_cells)
    assert not lost(corridor, tables=open_floor._replace(frozen_keys=open_floor.frozen_keys[:0]))
    assert not lost(xsokoban_41_last_box(box=(5, 11), player=(4, 11)))


def test_a_set_of_frozen_cells_keeps_its_tables_until_its_slot_is_the_oldest():
    level = quiet_level(DOOR_OPEN)
    deltas = np.array(level.deltas, dtype=np.int64)
    floor = np.array(level.floor, dtype=np.bool_)
    full = lone_box_tables(floor, deltas, level.goal_cells)
    two = full._replace(  # two slots
        frozen_keys=full.frozen_keys[:2],
        frozen_side=full.frozen_side[:2],
        frozen_reaches=full.frozen_reaches[:2],
    )
    walls = [np.flatnonzero(floor)[i] for i in (2, 5, 9)]

    def tables_of(key: int):
        frozen = np.zeros(level.cells, dtype=np.bool_)
        frozen[walls[key - 1]] = True
        slot = _frozen_slot(two, level_arrays(level), frozen, np.uint64(key))
        side, reaches = two.frozen_side[slot], two.frozen_reaches[slot]
        fresh = lone_box_tables(floor & ~frozen, deltas, level.goal_cells)
        assert (side == fresh.side).all() and (reaches == fresh.reaches).all()
        return int(two.frozen_next[0])

    assert [tables_of(1), tables_of(2), tables_of(1)] == [1, 0, 0]  # the third served
    assert [tables_of(3), tables_of(2), tables_of(1)] == [1, 1, 0]  # 3 replaced 1, 2 served


def test_a_matching_tried_first_only_saves_work():
    level = quiet_level(DOOR_OPEN)
    boxes = np.array(level.start.boxes, dtype=np.int64)
    deltas = np.array(level.deltas, dtype=np.int64)
    tables = lone_box_tables(level.floor, deltas, level.goal_cells)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    mark = np.zeros(level.cells, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    explore(
        np.asarray(level.floor), occupied, deltas, level.start.player, mark, 1, queue, queue[:0]
    )
    for assigned in itertools.permutations(range(2)):  # a good first try and a bad one
        first = np.array(assigned, dtype=np.int16)
        assert not lone_box_lost(tables, level_arrays(level), boxes, mark, 1, first)


@pytest.mark.parametrize("title", ["93", "144", "155"])
def test_tables_rebuilt_for_frozen_cells_are_those_built_afresh(title):
    (level,) = microban(title)
    deltas = np.array(level.deltas, dtype=np.int64)
    floor = np.array(level.floor, dtype=np.bool_)
    full = lone_box_tables(floor, deltas, level.goal_cells)
    one = full._replace(  # one slot: every new set of frozen cells rebuilds into the same scratch
        frozen_keys=full.frozen_keys[:1],
        frozen_side=full.frozen_side[:1],
        frozen_reaches=full.frozen_reaches[:1],
    )
    rng = np.random.default_rng(int(title))
    for key in range(1, 41):
        frozen = np.zeros(level.cells, dtype=np.bool_)
        frozen[rng.choice(np.flatnonzero(floor), size=rng.integers(1, 6), replace=False)] = True
        slot = _frozen_slot(one, level_arrays(level), frozen, np.uint64(key))
        fresh = lone_box_tables(floor & ~frozen, deltas, level.goal_cells)
        assert (one.frozen_side[slot] == fresh.side).all()
        assert (one.frozen_reaches[slot] == fresh.reaches).all()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_the_sides_are_the_regions_of_the_floor_without_each_cell(level):
    deltas = np.array(level.deltas, dtype=np.int64)
    tables = lone_box_tables(level.floor, deltas, level.goal_cells)
    assert tables.side.tolist() == walked_sides(level.floor, deltas)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_a_position_called_lost_is_never_solvable(level):
    if lost(level):
        assert not solve(level, "push-bfs").solved


def test_no_position_on_a_solution_is_called_lost():
    checked = 0
    for level in microban(*(str(n) for n in range(1, 31))):
        result = solve(level, "push-astar", node_limit=200_000)
        assert result.solved, level.name
        deltas = np.array(level.deltas, dtype=np.int64)
        tables = lone_box_tables(level.floor, deltas, level.goal_cells)
        for state in replay_states(level, result.solution):
            assert not lost(level, state.boxes, state.player, tables), level.name
            checked += 1
    assert checked > 1000
