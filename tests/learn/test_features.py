"""Position codes: the bits a network sees of a position."""

from __future__ import annotations

import random

import numpy as np
from learn_levels import seed_level

from evosoko.learn.data import random_positions
from evosoko.learn.features import (
    BOX_BIT,
    CHANNELS,
    DEAD_BIT,
    GOAL_BIT,
    REACH_BIT,
    WALL_BIT,
    encode_states,
    planes,
)
from evosoko.sokoban.rules import Board


def test_codes_hold_walls_goals_boxes_reach_and_dead_squares():
    level = seed_level("seed000-case3")
    states, _ = random_positions(level, random.Random(3), 20, 10)
    codes = encode_states(level, [level.start, *states]).reshape(len(states) + 1, -1)
    for row, state in zip(codes, [level.start, *states]):
        board = Board(level, state)
        assert np.array_equal((row & WALL_BIT) > 0, ~level.floor)
        assert np.array_equal((row & GOAL_BIT) > 0, level.goals)
        assert np.array_equal((row & DEAD_BIT) > 0, level.dead_squares)
        assert sorted(np.flatnonzero(row & BOX_BIT).tolist()) == list(state.boxes)
        assert np.array_equal((row & REACH_BIT) > 0, board.reachable())


def test_planes_expand_one_channel_per_bit():
    codes = np.array([[[WALL_BIT | GOAL_BIT, BOX_BIT], [REACH_BIT, DEAD_BIT]]], dtype=np.uint8)
    x = planes(codes)
    assert x.shape == (1, len(CHANNELS), 2, 2)
    assert x[0, :, 0, 0].tolist() == [1, 1, 0, 0, 0]
    assert x[0, :, 1, 1].tolist() == [0, 0, 0, 0, 1]
