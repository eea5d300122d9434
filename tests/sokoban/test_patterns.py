"""Deadlock patterns: what a corral or cluster deadlock test proves at one position is matched
at later, different positions, and every position matched is lost (push-BFS agrees)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from random_boards import quiet_level, small_levels
from shared_microban import microban

from evosoko.search import FessSettings, PushSettings, solve
from evosoko.sokoban.arrays import arrays_bytes, level_arrays
from evosoko.sokoban.corral_deadlock import (
    cluster_deadlock,
    corral_deadlock,
    make_corral_scratch,
)
from evosoko.sokoban.patterns import (
    MATCHED,
    STORED,
    add_pattern,
    make_pattern_store,
    pattern_lost,
)
from evosoko.sokoban.reach import explore
from evosoko.sokoban.state import State


def cells(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def board(size: int, *boxes: int) -> np.ndarray:
    occupied = np.zeros(size, dtype=np.bool_)
    occupied[list(boxes)] = True
    return occupied


def test_a_pattern_matches_more_boxes_with_the_player_anywhere_in_its_region():
    store = make_pattern_store(20, 4, 10)
    assert add_pattern(store, cells(3, 5), cells(1, 2, 7))
    occupied = board(20, 3, 5, 9)  # the pattern's boxes and one more
    assert pattern_lost(store, occupied, 2, 3)
    assert pattern_lost(store, occupied, 7, 5)  # another cell of the region, through either box
    assert not pattern_lost(store, occupied, 8, 3)  # the player outside the region
    assert not pattern_lost(store, board(20, 3, 9), 2, 3)  # a box of the pattern missing
    assert not pattern_lost(store, occupied, 2, 9)  # only the patterns holding the cell
    assert store.counts[MATCHED] == 2


def test_a_full_store_keeps_no_more_patterns():
    store = make_pattern_store(20, 1, 2)
    assert not add_pattern(store, cells(3, 5, 6), cells(1))  # more boxes than it holds
    assert add_pattern(store, cells(3, 5), cells(1))
    assert not add_pattern(store, cells(4, 6), cells(1))
    assert store.counts[STORED] == 1
    assert not pattern_lost(store, board(20, 4, 6), 1, 4)
    assert arrays_bytes(store) == sum(array.nbytes for array in store)
    assert arrays_bytes(make_pattern_store(20, 0, 10)) < arrays_bytes(store)


# The box on row 1 fences off the corner on its left (see tests/search/test_corral_deadlock.py);
# the player stands in the region below, a second box on the right.
FENCE = ["#########",
         "# $ .   #",
         "## @  $ #",
         "#     . #",
         "#########"]  # fmt: skip


def start_occupied(level) -> np.ndarray:
    return board(level.cells, *level.start.boxes)


def test_a_pattern_learned_at_one_position_prunes_a_later_different_one():
    level = quiet_level(FENCE)
    tables = level_arrays(level)
    fence, other = sorted(level.start.boxes)
    corner = fence - 1
    scratch = make_corral_scratch(level.cells, 200, patterns=16)
    assert corral_deadlock(tables, start_occupied(level), level.start.player, corner, scratch)
    patterns = scratch.patterns
    assert patterns.counts[STORED] == 1 and patterns.sizes[0] == 1  # the fence alone
    # later: the other box one cell down and left, the player where it stood
    moved = other + level.width - 1
    later = replace(level, start=State.of(other, (fence, moved)))
    occupied = start_occupied(later)
    assert pattern_lost(patterns, occupied, later.start.player, fence)
    assert not pattern_lost(patterns, occupied, later.start.player, moved)
    assert not solve(later, "push-bfs").solved


def learned_patterns(level):
    """The patterns the corral tests of every corral and the cluster tests of every box of the
    start position prove."""
    tables = level_arrays(level)
    size = level.cells
    occupied = start_occupied(level)
    scratch = make_corral_scratch(size, 200, 64, patterns=64)
    mark, seen = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    queue = np.zeros(size, dtype=np.int64)
    explore(tables.floor, occupied, tables.deltas, level.start.player, mark, 1, queue, queue[:0])
    for cell in np.flatnonzero(tables.floor).tolist():
        if not occupied[cell] and mark[cell] != 1 and not seen[cell]:
            explore(tables.floor, occupied, tables.deltas, cell, seen, 1, queue, queue[:0])
            corral_deadlock(tables, occupied, level.start.player, cell, scratch)
    for box in level.start.boxes:
        cluster_deadlock(tables, occupied, level.start.player, box, scratch)
    return scratch.patterns


def region_cells(patterns, row: int, size: int) -> list[int]:
    bits = patterns.region[row]
    return [cell for cell in range(size) if int(bits[cell >> 6]) >> (cell & 63) & 1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_levels(max_boxes=4, max_side=5), st.data())
def test_every_position_a_learned_pattern_matches_is_lost(level, data):
    patterns = learned_patterns(level)
    stored = int(patterns.counts[STORED])
    assume(stored > 0)
    row = data.draw(st.integers(0, stored - 1))
    kept = patterns.boxes[row, : patterns.sizes[row]].tolist()
    floor = np.flatnonzero(level.floor).tolist()
    free = [cell for cell in floor if cell not in kept]
    others = data.draw(  # the other boxes anywhere else
        st.lists(
            st.sampled_from(free),
            min_size=level.box_count - len(kept),
            max_size=level.box_count - len(kept),
            unique=True,
        )
    )
    players = [c for c in region_cells(patterns, row, level.cells) if c not in others]
    assume(players)
    player = data.draw(st.sampled_from(players))
    later = replace(level, start=State.of(player, kept + others))
    occupied = start_occupied(later)
    assert all(pattern_lost(patterns, occupied, player, cell) for cell in kept)
    assert not solve(later, "push-bfs").solved


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_levels(max_boxes=4, max_side=5))
def test_searches_that_keep_patterns_stay_sound_and_optimal(level):
    bfs = solve(level, "push-bfs")
    astar = solve(level, "push-astar", settings=PushSettings(deadlock_patterns=64))
    assert astar.solved == bfs.solved
    if bfs.solved:
        assert astar.pushes == bfs.pushes
    tested = FessSettings(deadlock_patterns=64, cluster_deadlocks=1 << 10)
    assert solve(level, "push-fess", settings=tested).solved == bfs.solved


def test_push_astar_keeping_patterns_expands_fewer_states_for_the_same_pushes():
    level = microban("36")
    plain = solve(level, "push-astar")
    kept = solve(level, "push-astar", settings=PushSettings(deadlock_patterns=4096))
    assert plain.solved and kept.solved
    assert kept.pushes == plain.pushes
    assert kept.expanded < plain.expanded
