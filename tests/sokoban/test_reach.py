"""The compiled walk (sokoban.reach) against a plain-Python flood fill, and the rules on top."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from shared_microban import microban

from evosoko.sokoban.reach import (
    Area,
    Pushed,
    Walk,
    explore,
    normalized_after_push,
    normalized_player,
)
from evosoko.sokoban.rules import normalized_player as rules_normalized_player
from evosoko.sokoban.rules import reachable_cells, walk_path


def flood(level, player, occupied):
    """{cell: walking distance} over free floor from ``player``, in plain Python."""
    seen = {player: 0}
    queue = deque([player])
    while queue:
        cell = queue.popleft()
        for delta in level.deltas:
            neighbour = cell + delta
            if level.floor[neighbour] and not occupied[neighbour] and neighbour not in seen:
                seen[neighbour] = seen[cell] + 1
                queue.append(neighbour)
    return seen


def random_positions(level, count, seed, boxes=None):
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        size = level.box_count if boxes is None else rng.integers(1, level.box_count + 1)
        picked = rng.choice(floor_cells, size=size + 1, replace=False)
        occupied = np.zeros(level.cells, dtype=bool)
        occupied[picked[1:]] = True
        yield int(picked[0]), picked[1:], occupied


@pytest.mark.parametrize("title", ["1", "93", "144"])
def test_explore_marks_counts_and_measures_the_flood(title):
    level = microban(title)
    deltas = np.array(level.deltas, dtype=np.int64)
    mark, queue, distance = (np.zeros(level.cells, dtype=np.int64) for _ in range(3))
    for stamp, (player, _, occupied) in enumerate(random_positions(level, 200, 3), start=1):
        expected = flood(level, player, occupied)
        count, smallest = explore(
            level.floor, occupied, deltas, player, mark, stamp, queue, distance
        )
        assert set(np.flatnonzero(mark == stamp).tolist()) == set(expected)
        assert sorted(queue[:count].tolist()) == sorted(expected)
        assert all(distance[cell] == steps for cell, steps in expected.items())
        assert smallest == min(expected)
        assert normalized_player(
            level.floor, occupied, deltas, player, mark, stamp + 1000, queue
        ) == min(expected)
        assert np.array_equal(
            reachable_cells(level, player, occupied),
            np.isin(np.arange(level.cells), list(expected)),
        )
        assert rules_normalized_player(level, player, occupied) == min(expected)


def first_walk(level, occupied, start, target):
    """The walk of a plain breadth-first search trying u d l r, each cell entered from the
    cell that discovered it first (the rule walk_path keeps)."""
    came_by = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for direction, delta in enumerate(level.deltas):
            neighbour = cell + delta
            if level.floor[neighbour] and not occupied[neighbour] and neighbour not in came_by:
                came_by[neighbour] = direction
                queue.append(neighbour)
    if target not in came_by:
        return None
    letters = []
    while target != start:
        letters.append("udlr"[came_by[target]])
        target -= level.deltas[came_by[target]]
    return "".join(reversed(letters))


@pytest.mark.parametrize("title", ["1", "144", "155"])
def test_walk_path_is_the_first_breadth_first_walk_in_u_d_l_r_order(title):
    level = microban(title)
    checked = 0
    for player, _, occupied in random_positions(level, 40, 5):
        for target in np.flatnonzero(level.floor).tolist()[::3]:
            if occupied[target]:
                continue
            assert walk_path(level, occupied, player, target) == first_walk(
                level, occupied, player, target
            )
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("title", ["139", "144", "153", "155"])
def test_normalization_after_a_push_matches_a_full_walk(title):
    level = microban(title)
    deltas = np.array(level.deltas, dtype=np.int64)
    mark, norm_mark, queue = (np.zeros(level.cells, dtype=np.int64) for _ in range(3))
    checked = shortcuts = 0
    positions = random_positions(level, 400, int(title), boxes="some")
    for stamp, (player, boxes, occupied) in enumerate(positions, start=1):
        explore(level.floor, occupied, deltas, player, mark, stamp, queue, queue[:0])
        parent_normalized = min(flood(level, player, occupied))
        for box in boxes.tolist():
            for direction in range(4):
                behind, target = box - deltas[direction], box + deltas[direction]
                if mark[behind] != stamp or not level.floor[target] or occupied[target]:
                    continue
                occupied[box], occupied[target] = False, True
                norm_stamp = 1000 * stamp + 4 * box + direction
                got = normalized_after_push(
                    level.floor,
                    occupied,
                    deltas,
                    Area(mark, stamp, parent_normalized),
                    Pushed(box, target, direction),
                    Walk(norm_mark, norm_stamp, queue),
                )
                assert got == min(flood(level, box, occupied))
                shortcuts += not (norm_mark == norm_stamp).any()
                checked += 1
                occupied[box], occupied[target] = True, False
    assert checked > 100 and 0 < shortcuts < checked  # both paths were exercised
