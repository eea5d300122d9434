"""Repair: any board becomes a legal level of its space (property tests over random boards)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from evosoko.levelgen.repair import repair
from evosoko.levelgen.space import BOX, GOAL, PLAYER, WALL, LevelSpace
from evosoko.sokoban.level import flood_fill

SPACES = [
    LevelSpace.of(7, 7, 3),
    LevelSpace.of(8, 8, 2, max_boxes=6),
    LevelSpace.of(6, 5, 1, mask=["######", "#..#.#", "#....#", "#.#..#", "######"]),
]


def legal(genes: list[int], space: LevelSpace) -> None:
    codes = np.asarray(genes)
    assert all(code == WALL for code in codes[~space.inside_mask])
    assert not any(code & WALL and code != WALL for code in codes)
    players = np.flatnonzero(codes & PLAYER)
    assert len(players) == 1 and not codes[players[0]] & BOX
    floor = (codes & WALL) == 0
    reached = flood_fill(floor, space.neighbours, int(players[0]))
    assert (reached == floor).all(), "one connected floor region"
    boxes, goals = int(((codes & BOX) > 0).sum()), int(((codes & GOAL) > 0).sum())
    assert boxes == goals and space.min_boxes <= boxes <= space.max_boxes
    space.level(genes)  # and it is a level


@given(
    st.sampled_from(range(len(SPACES))),
    st.lists(st.integers(0, 15), min_size=64, max_size=64),
    st.integers(0, 2**32),
)
def test_any_board_is_repaired_into_a_legal_level(which, codes, seed):
    space = SPACES[which]
    genes = [code & 0xF for code in codes[: space.cells]]
    repair(genes, space, random.Random(seed))
    legal(genes, space)


@given(st.sampled_from(range(len(SPACES))), st.integers(0, 2**32))
def test_a_legal_board_is_left_as_it_is(which, seed):
    space, rng = SPACES[which], random.Random(seed)
    genes = repair([rng.randrange(16) for _ in range(space.cells)], space, rng)
    again = repair(list(genes), space, random.Random(seed + 1))
    if any(genes[cell] & BOX and not genes[cell] & GOAL for cell in range(space.cells)):
        assert again == genes


def test_the_largest_region_is_kept_and_the_player_moves_into_it():
    space = LevelSpace.of(7, 5, 1)
    rows = ["#######", "#@#   #", "###$. #", "#     #", "#######"]
    genes = [_code(char) for row in rows for char in row]
    repair(genes, space, random.Random(0))
    legal(genes, space)
    assert genes[8] == WALL  # the player's pocket of one cell is walled up


def test_a_board_with_every_box_on_a_goal_gets_a_goal_moved():
    space = LevelSpace.of(6, 4, 1)
    rows = ["######", "#@ * #", "#    #", "######"]
    genes = [_code(char) for row in rows for char in row]
    repair(genes, space, random.Random(0))
    assert not genes[9] & GOAL and genes[9] & BOX


def _code(char: str) -> int:
    return {
        "#": WALL,
        " ": 0,
        ".": GOAL,
        "$": BOX,
        "*": BOX | GOAL,
        "@": PLAYER,
        "+": PLAYER | GOAL,
    }[char]
