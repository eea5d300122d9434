"""Corral and cluster deadlocks: boxes the search proves lost have no solution (push-BFS
agrees)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiny_levels import SHARED_LEVELS, microban, quiet_level, tiny_levels

from evosoko.search import FessSettings, solve
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.corral_deadlock import (
    cluster_deadlock,
    cluster_lost_after_push,
    corral_deadlock,
    lost_after_push,
    make_corral_scratch,
)
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import matching_cost
from evosoko.sokoban.reach import explore
from evosoko.sokoban.solutions import replay_states

# The box on row 1 fences off the corner on its left; it can only be pushed into it (it is on
# no dead square, nor frozen: pushed right from the corner it would reach a goal).
LOST = ["#######",
        "# $ . #",
        "## +$ #",
        "#######"]  # fmt: skip
# The two boxes fence off the goalless room above them: pushed up they can move about in
# there, but never come back down to the goals; the search needs a few positions to see it.
ROOM = ["#####",
        "#   #",
        "#  ##",
        "#$$ #",
        "#  .#",
        "#+  #",
        "#####"]  # fmt: skip
# One box in a corridor, its goal behind it: the player opens the corral by pushing it home.
OPEN = ["#######",
        "#@ $ .#",
        "#######"]  # fmt: skip
# Three boxes touching one another through corners: none is frozen or on a dead square, and
# they can be pushed about, but never onto the three goals.
CLUSTER = ["######",
           "## @ #",
           "#*.$##",
           "# $  #",
           "# .  #",
           "######"]  # fmt: skip
# Two boxes side by side that the player can push home.
PAIR = ["#######",
        "#     #",
        "# $$  #",
        "#@  ..#",
        "#######"]  # fmt: skip


def corrals_lost(level, limit=200, scratch=None):
    """[(corral cell, lost?)] for one cell of each corral of the start position (a scratch of
    ``limit`` positions unless one is given)."""
    tables = level_arrays(level)
    cells = level.cells
    occupied = np.zeros(cells, dtype=np.bool_)
    occupied[np.array(level.start.boxes, dtype=np.int64)] = True
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(cells, dtype=np.int64)
    explore(tables.floor, occupied, tables.deltas, level.start.player, mark, 1, queue, queue[:0])
    scratch = make_corral_scratch(cells, limit) if scratch is None else scratch
    seen = np.zeros(cells, dtype=np.int64)
    found = []
    for cell in np.flatnonzero(tables.floor).tolist():
        if occupied[cell] or mark[cell] == 1 or seen[cell]:
            continue
        explore(tables.floor, occupied, tables.deltas, cell, seen, 1, queue, queue[:0])
        lost = corral_deadlock(tables, occupied, level.start.player, cell, scratch)
        found.append((cell, bool(lost)))
        assert not scratch.occupied.any(), "the scratch's occupied flags are left clean"
    return found


def test_a_fence_that_can_only_close_in_on_itself_is_lost():
    level = quiet_level(LOST)
    assert [lost for _, lost in corrals_lost(level)] == [True]
    assert solve(level, "push-bfs").status == "unsolvable"


def test_a_corral_the_player_can_open_is_not_lost():
    level = quiet_level(OPEN)
    assert [lost for _, lost in corrals_lost(level)] == [False]
    assert solve(level, "push-bfs").solved


def test_a_scratch_searched_before_answers_as_a_new_one():
    """The position table keeps the entries of earlier searches (stamped, not cleared): none
    of them may count as seen in the next search."""
    level = quiet_level(OPEN)
    scratch = make_corral_scratch(level.cells, 200)
    for _ in range(3):
        assert [lost for _, lost in corrals_lost(level, scratch=scratch)] == [False]


def test_a_search_out_of_positions_proves_nothing():
    level = quiet_level(ROOM)
    assert [lost for _, lost in corrals_lost(level)] == [True]
    assert [lost for _, lost in corrals_lost(level, limit=3)] == [False]
    assert solve(level, "push-bfs").status == "unsolvable"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_a_lost_corral_is_never_solvable(level):
    if any(lost for _, lost in corrals_lost(level)):
        assert not solve(level, "push-bfs").solved


def clusters_lost(level, scratch=None):
    """[lost?] of the cluster of each box of the start position, start player."""
    tables = level_arrays(level)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[np.array(level.start.boxes, dtype=np.int64)] = True
    scratch = make_corral_scratch(level.cells, 200, 64) if scratch is None else scratch
    found = []
    for box in level.start.boxes:
        lost = cluster_deadlock(tables, occupied, level.start.player, box, scratch)
        found.append(bool(lost))
        assert not scratch.occupied.any(), "the scratch's occupied flags are left clean"
    return found


def test_boxes_that_move_but_never_reach_goals_are_a_cluster_deadlock():
    level = quiet_level(CLUSTER)
    tables = level_arrays(level)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[np.array(level.start.boxes, dtype=np.int64)] = True
    freeze = make_freeze_scratch(level.cells)
    for box in level.start.boxes:  # no simpler test sees it
        assert not tables.dead[box]
        assert not freeze_deadlock(
            tables.floor, tables.dead, tables.goals, occupied, tables.deltas, box, freeze
        )
    assert clusters_lost(level) == [True, True, True]
    assert not any(lost for _, lost in corrals_lost(level))  # nor the corral test
    result = solve(level, "push-bfs")
    assert result.status == "unsolvable" and result.expanded > 1


def test_a_cluster_that_can_reach_its_goals_is_not_lost():
    assert clusters_lost(quiet_level(PAIR)) == [False, False]
    assert clusters_lost(quiet_level(OPEN)) == [False]  # one box alone is never tested


def test_a_cluster_answer_comes_from_the_cache_the_second_time():
    level = quiet_level(CLUSTER)
    scratch = make_corral_scratch(level.cells, 200, 64)
    assert clusters_lost(level, scratch)[0]
    assert (scratch.cache_info >= 0).sum() == 1  # one cluster, one player region: one entry
    one_position = make_corral_scratch(level.cells, 1, 64)
    assert clusters_lost(level, one_position) == [False, False, False]  # nothing proven
    with_cache = one_position._replace(
        cache_cells=scratch.cache_cells, cache_info=scratch.cache_info
    )
    assert clusters_lost(level, with_cache) == [True, True, True]
    assert clusters_lost(level, make_corral_scratch(level.cells, 200)) == [True, True, True]


# The player has just pushed the box below it down. The two boxes up left of it, left behind,
# shut the player out of the top-left corner: the box on the top row can then never leave
# it for a goal. The pushed box's own cluster is not lost, and the matching heuristic sees
# nothing (every box has a goal it could reach alone).
LEFT_BEHIND = ["#######",
               "#  $..#",
               "##$ @$#",
               "#   $ #",
               "##.  .#",
               "#######"]  # fmt: skip
DOWN = 1


def test_a_push_can_leave_a_lost_cluster_behind():
    level = quiet_level(LEFT_BEHIND)
    tables = level_arrays(level)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[np.array(level.start.boxes, dtype=np.int64)] = True
    player = level.start.player
    pushed = player + level.deltas[DOWN]
    assert occupied[pushed]
    scratch = make_corral_scratch(level.cells, 200, 64)
    assert not cluster_deadlock(tables, occupied, player, pushed, scratch)
    assert cluster_lost_after_push(tables, occupied, player, DOWN, scratch)
    assert matching_cost(level.push_distance, level.start.boxes) < UNREACHABLE
    assert solve(level, "push-bfs").status == "unsolvable"


def test_cluster_tests_have_a_position_limit_of_their_own():
    level = quiet_level(CLUSTER)
    assert clusters_lost(level, make_corral_scratch(level.cells, 200, 64, cluster_limit=1)) == [
        False,
        False,
        False,
    ]
    assert clusters_lost(level, make_corral_scratch(level.cells, 1, 64, cluster_limit=200)) == [
        True,
        True,
        True,
    ]
    room = quiet_level(ROOM)  # and corral tests keep theirs: ROOM's takes a few positions
    assert any(lost for _, lost in corrals_lost(room))
    tight = make_corral_scratch(room.cells, 1, 64, cluster_limit=200)
    assert not any(lost for _, lost in corrals_lost(room, scratch=tight))


def test_cluster_tests_give_up_when_too_many_positions_wait():
    level = quiet_level(CLUSTER)
    cells = level.cells
    assert clusters_lost(level, make_corral_scratch(cells, 200, 64, cluster_width=0)) == [
        False,
        False,
        False,
    ]  # the start position waits: more than none
    assert clusters_lost(level, make_corral_scratch(cells, 200, 64, cluster_width=200)) == [
        True,
        True,
        True,
    ]
    room = quiet_level(ROOM)  # corral tests have no width
    narrow = make_corral_scratch(room.cells, 200, 64, cluster_width=0)
    assert any(lost for _, lost in corrals_lost(room, scratch=narrow))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4), st.integers(0, 8))
def test_a_width_only_takes_proofs_away(level, width):
    narrow = clusters_lost(level, make_corral_scratch(level.cells, 200, 64, cluster_width=width))
    assert all(lost <= wide for lost, wide in zip(narrow, clusters_lost(level), strict=True))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_a_lost_cluster_is_never_solvable(level):
    if any(clusters_lost(level)):
        assert not solve(level, "push-bfs").solved


def test_push_fess_with_corral_deadlocks_solves_what_push_bfs_solves():
    tests = [{}, {"cluster_deadlocks": 1 << 14}, {"lone_box_matching": True}]  # off, and on
    for change in tests:
        settings = FessSettings(corral_deadlocks=200, **change)
        for rows in (LOST, ROOM, OPEN, CLUSTER, PAIR):
            level = quiet_level(rows)
            fess = solve(level, "push-fess", settings=settings)
            assert fess.solved == solve(level, "push-bfs").solved


def test_cluster_tests_let_push_fess_solve_xsokoban_4_in_few_states():
    path = SHARED_LEVELS / "xsokoban.txt"
    if not path.is_file():
        pytest.skip(f"no shared levels at {SHARED_LEVELS}")
    level = read_levels(path)[3]
    without = FessSettings(cluster_deadlocks=0)
    assert not solve(level, "push-fess", node_limit=20_000, settings=without).solved
    tested = FessSettings(cluster_deadlocks=1 << 14)
    result = solve(level, "push-fess", node_limit=20_000, settings=tested)
    assert result.solved and result.expanded < 5_000


def test_no_position_on_a_solution_is_called_lost():
    # every push of an optimal solution of these Microban levels leaves a solvable position:
    # neither a corral nor the cluster next to the box pushed is called lost
    checked = 0
    for level in microban(*(str(n) for n in range(1, 31))):
        result = solve(level, "push-astar", node_limit=200_000)
        assert result.solved, level.name
        tables = level_arrays(level)
        cells = level.cells
        scratch = make_corral_scratch(cells, 200, 1024)
        mark, queue = np.zeros(cells, dtype=np.int64), np.zeros(cells, dtype=np.int64)
        states = replay_states(level, result.solution)
        for before, after in itertools.pairwise(states):
            if before.boxes == after.boxes:
                continue  # a walk, not a push
            occupied = np.zeros(cells, dtype=np.bool_)
            occupied[np.array(after.boxes, dtype=np.int64)] = True
            explore(tables.floor, occupied, tables.deltas, after.player, mark, checked + 1, queue,
                    queue[:0])  # fmt: skip
            direction = list(tables.deltas).index(after.player - before.player)
            checked += 1
            assert not lost_after_push(
                tables, occupied, mark, checked, after.player, direction, scratch
            ), level.name
            assert not cluster_lost_after_push(
                tables, occupied, after.player, direction, scratch
            ), level.name
    assert checked > 300
