"""The reverse method: pull-state search depths are optimal pushes; the deepest state is chosen."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evosoko.generate.certify import certify
from evosoko.generate.pulls import pull_search
from evosoko.generate.reverse import box_displacement, choose_state, pull_level
from evosoko.generate.sketch import Sketch, bordered_room
from evosoko.generate.spec import generation_spec
from evosoko.sokoban.level import neighbour_table
from tests.generate.push_bfs import optimal_pushes

# 7x6 room with a pillar; goals at two fixed cells.
ROOM = ["#######", "#     #", "#  #  #", "#     #", "#     #", "#######"]
WIDTH, HEIGHT = 7, 6


def room_walls() -> np.ndarray:
    return np.array([char == "#" for row in ROOM for char in row], dtype=bool)


def test_pull_depth_is_the_optimal_number_of_pushes():
    walls = room_walls()
    goals = (WIDTH * 1 + 1, WIDTH * 3 + 4)
    tree = pull_search(~walls, neighbour_table(WIDTH, HEIGHT), goals, 100_000, random.Random(0))
    assert tree.complete
    assert (tree.boxes[tree.depths == 0] == sorted(goals)).all() and tree.depths.max() >= 4
    rng = random.Random(1)
    for index in rng.sample(np.flatnonzero(tree.depths > 0).tolist(), 25):
        boxes = tuple(int(b) for b in tree.boxes[index])
        sketch = Sketch(WIDTH, HEIGHT, walls, goals, boxes, int(tree.players[index]))
        assert optimal_pushes(sketch.to_level()) == tree.depths[index]


def test_states_are_unique_and_boxes_never_overlap_walls_or_each_other():
    walls = room_walls()
    goals = (WIDTH * 1 + 1, WIDTH * 4 + 5)
    tree = pull_search(~walls, neighbour_table(WIDTH, HEIGHT), goals, 100_000, random.Random(2))
    keys = {(tuple(b), int(p)) for b, p in zip(tree.boxes.tolist(), tree.players.tolist())}
    assert len(keys) == len(tree.depths)
    assert not walls[tree.boxes].any() and not walls[tree.players].any()
    assert (tree.boxes[:, 0] < tree.boxes[:, 1]).all()
    assert (np.diff(tree.depths) >= 0).all()  # breadth-first order


def test_node_limit_truncates_and_says_so():
    walls = bordered_room(9, 9)
    goals = (10, 20, 30)
    tree = pull_search(~walls, neighbour_table(9, 9), goals, 50, random.Random(0))
    assert not tree.complete and len(tree.depths) == 50


def test_a_player_region_per_solved_position_is_a_start():
    # The box on the goal splits the corridor: both sides are final player positions.
    rows = ["#######", "#  .  #", "#######"]
    walls = np.array([c == "#" for row in rows for c in row], dtype=bool)
    tree = pull_search(~walls, neighbour_table(7, 3), (10,), 100, random.Random(0))
    assert sorted(tree.players[tree.depths == 0].tolist()) == [8, 11]
    assert tree.complete and tree.depths.tolist() == [0, 0, 1, 1]
    assert sorted(tree.boxes[tree.depths == 1, 0].tolist()) == [9, 11]


def test_box_displacement_is_manhattan_to_the_nearest_goal():
    boxes = np.array([[0, 12], [7, 8]], dtype=np.int32)
    assert box_displacement(boxes, (0, 5), width=5).tolist() == [0 + 3, 2 + 3]


def test_without_a_maximum_the_deepest_state_is_chosen():
    spec = generation_spec("reverse", 8, 8, 3)
    walls = bordered_room(8, 8)
    goals = (18, 27, 36)
    tree = pull_search(~walls, neighbour_table(8, 8), goals, 5_000, random.Random(0))
    chosen = choose_state(tree, spec, goals, 8, random.Random(1))
    assert tree.depths[chosen] == tree.depths.max()
    deepest = np.flatnonzero(tree.depths == tree.depths.max())
    best = box_displacement(tree.boxes[deepest], goals, 8).max()
    assert box_displacement(tree.boxes[chosen : chosen + 1], goals, 8)[0] == best


def test_a_band_draws_depths_inside_it():
    spec = generation_spec("reverse", 8, 8, 2, min_pushes=2, max_pushes=4)
    goals = (18, 45)
    tree = pull_search(~bordered_room(8, 8), neighbour_table(8, 8), goals, 5_000, random.Random(0))
    depths = {
        int(tree.depths[choose_state(tree, spec, goals, 8, random.Random(s))]) for s in range(40)
    }
    assert depths == {2, 3, 4}


@pytest.mark.parametrize("seed", range(6))
def test_reverse_pulls_give_solvable_levels_with_the_predicted_pushes(seed):
    spec = generation_spec("reverse", 8, 8, 3)
    pulled = pull_level(spec, random.Random(seed))
    assert pulled is not None
    certificate = certify(pulled.sketch.to_level(), spec.node_limit)
    assert certificate is not None and certificate.pushes == pulled.depth
