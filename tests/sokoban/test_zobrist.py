"""Zobrist hashes of positions and the level arrays they are read from."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from shared_microban import microban

from evosoko.sokoban.arrays import LevelArrays, level_arrays, manhattan_to_nearest_goal, state_hash
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.level import UNREACHABLE, State
from evosoko.sokoban.zobrist import ZOBRIST_SEED, zobrist_keys


def reference_hash(level, state) -> int:
    """The XOR of the keys of the boxes and of the smallest cell the player walks to, from
    keys drawn as the module documents, with a plain-Python flood."""
    keys = np.random.default_rng(ZOBRIST_SEED).integers(
        0, 2**64, size=2 * level.cells, dtype=np.uint64, endpoint=False
    )
    seen, queue = {state.player}, deque([state.player])
    while queue:
        cell = queue.popleft()
        for delta in level.deltas:
            neighbour = cell + delta
            if level.floor[neighbour] and neighbour not in state.boxes and neighbour not in seen:
                seen.add(neighbour)
                queue.append(neighbour)
    value = int(keys[level.cells + min(seen)])
    for box in state.boxes:
        value ^= int(keys[box])
    return value


@pytest.mark.parametrize("title", ["1", "93", "144", "155"])
def test_state_hash_is_the_xor_of_the_boxes_and_the_normalized_player(title):
    level = microban(title)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(int(title))
    for _ in range(100):
        cells = rng.choice(floor_cells, level.box_count + 1, replace=False)
        state = State.of(int(cells[0]), cells[1:].tolist())
        assert state_hash(level, state) == reference_hash(level, state)


def test_the_player_region_decides_the_hash_not_the_cell():
    level = level_from_rows(["########", "#@ $  .#", "########"], title="split")
    left, right, corner = level.cell(1, 2), level.cell(1, 5), level.cell(1, 1)
    box = [level.cell(1, 3)]
    assert state_hash(level, State.of(left, box)) == state_hash(level, State.of(corner, box))
    assert state_hash(level, State.of(left, box)) != state_hash(level, State.of(right, box))


def test_keys_depend_only_on_the_number_of_cells():
    box_keys, player_keys = zobrist_keys(50)
    again = zobrist_keys(50)
    assert np.array_equal(box_keys, again[0]) and np.array_equal(player_keys, again[1])
    assert box_keys.dtype == np.uint64 and len(set(box_keys.tolist())) == 50


def test_level_arrays_mirror_the_level_are_read_only_and_cached():
    level = microban("93")
    arrays = level_arrays(level)
    assert isinstance(arrays, LevelArrays) and level_arrays(level) is arrays
    assert arrays.width == level.width and arrays.deltas.tolist() == list(level.deltas)
    assert arrays.floor_cells == int(level.floor.sum())
    assert np.array_equal(arrays.floor, level.floor) and np.array_equal(arrays.goals, level.goals)
    assert np.array_equal(arrays.dead, level.dead_squares)
    assert np.array_equal(arrays.push_distance, level.push_distance)
    assert np.array_equal(arrays.nearest_push, level.nearest_goal_distance)
    assert np.array_equal(
        divmod(np.arange(level.cells), level.width), (arrays.rows, arrays.columns)
    )
    for name, array in arrays._asdict().items():
        if isinstance(array, np.ndarray) and name != "push_distance":
            assert not array.flags.writeable, name
    twin = level_from_rows(level.rows(), title="twin")
    assert level_arrays(twin) is not arrays
    assert np.array_equal(level_arrays(twin).zobrist_box, arrays.zobrist_box)


def test_manhattan_to_the_nearest_goal_on_the_floor():
    level = microban("1")
    table = manhattan_to_nearest_goal(level)
    goals = [level.position(goal) for goal in level.goal_cells.tolist()]
    for cell in range(level.cells):
        row, column = level.position(cell)
        expected = min(abs(row - r) + abs(column - c) for r, c in goals)
        assert table[cell] == (expected if level.floor[cell] else UNREACHABLE)
