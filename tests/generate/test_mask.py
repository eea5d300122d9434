"""The mask method: pieces away from the border, and exactly the visited cells stay floor."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evosoko.generate.certify import certify
from evosoko.generate.mask import mask_level, open_room_sketch, visited_cells
from evosoko.generate.spec import MASK_MARGIN, generation_spec
from evosoko.sokoban.solutions import replay_states


@pytest.mark.parametrize("seed", range(20))
def test_open_room_pieces_keep_their_distance_from_the_border(seed):
    spec = generation_spec("mask", 9, 8, 3)
    sketch = open_room_sketch(spec, random.Random(seed))
    assert len(set(sketch.boxes) | set(sketch.goals)) == 6
    assert sketch.player not in sketch.boxes
    for cell in sketch.boxes + sketch.goals:
        row, column = divmod(cell, 9)
        assert MASK_MARGIN <= row <= 8 - 1 - MASK_MARGIN
        assert MASK_MARGIN <= column <= 9 - 1 - MASK_MARGIN
    assert int((~sketch.walls).sum()) == 7 * 6


@pytest.mark.parametrize("seed", range(8))
def test_floor_is_exactly_what_the_open_room_solution_visited(seed):
    spec = generation_spec("mask", 8, 8, 3)
    room = open_room_sketch(spec, random.Random(seed))
    candidate = mask_level(spec, random.Random(seed))
    assert candidate is not None
    open_solution = certify(room.to_level(), spec.node_limit)
    visited = visited_cells(room.to_level(), open_solution.solution)
    masked = candidate.sketch
    assert (masked.walls == ~visited).all()
    assert (masked.boxes, masked.goals, masked.player) == (room.boxes, room.goals, room.player)
    # the masked level is certified on its own, with the same optimal number of pushes
    assert candidate.certificate.pushes == open_solution.pushes
    # the open-room solution still solves the masked level and steps on every one of its cells
    level = masked.to_level()
    stepped = np.zeros(level.cells, dtype=bool)
    for state in replay_states(level, open_solution.solution):
        stepped[state.player] = True
        stepped[list(state.boxes)] = True
    assert (stepped == level.floor).all()
    assert set(replay_states(level, open_solution.solution)[-1].boxes) == set(
        level.goal_cells.tolist()
    )
