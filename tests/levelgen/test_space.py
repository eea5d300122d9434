"""Tests of the level space and genome: masks, box ranges, levels in and out, puzzle keys."""

from __future__ import annotations

import pytest

from evosoko.errors import ConfigError
from evosoko.levelgen.space import BOX, GOAL, PLAYER, WALL, LevelSpace, level_key
from evosoko.sokoban.build import level_from_rows

ROWS = ["#######", "#.$ @ #", "#  $. #", "#######"]


def test_the_interior_of_a_size_may_be_floor():
    space = LevelSpace.of(7, 6, 2)
    assert len(space.inside) == 5 * 4 and space.min_boxes == space.max_boxes == 2
    assert not space.inside_mask[0] and space.inside_mask[7 + 1]


def test_a_mask_chooses_the_cells_and_must_close_the_board():
    mask = ["#####", "#...#", "#.#.#", "#...#", "#####"]
    space = LevelSpace.of(5, 5, 1, mask=mask)
    assert len(space.inside) == 8
    with pytest.raises(ConfigError, match="border"):
        LevelSpace.of(5, 5, 1, mask=["#####", "....#", "#.#.#", "#...#", "#####"])
    with pytest.raises(ConfigError, match="5 rows of 5"):
        LevelSpace.of(5, 5, 1, mask=mask[:4])


def test_boxes_that_do_not_fit_are_refused():
    with pytest.raises(ConfigError, match="need 10 cells"):
        LevelSpace.of(5, 5, 9)
    with pytest.raises(ConfigError, match="at most max_boxes"):
        LevelSpace.of(8, 8, 4, max_boxes=3)


def test_a_level_goes_into_a_genome_and_comes_back():
    level = level_from_rows(ROWS)
    space = LevelSpace.of(8, 6, 2)
    genes = space.genes_of(level)
    assert genes[8 + 1] == GOAL and genes[8 + 2] == BOX and genes[8 + 4] == PLAYER
    assert genes[0] == WALL
    assert space.level(genes).rows() == level.rows()


def test_a_level_larger_than_the_space_is_refused():
    with pytest.raises(ConfigError, match="is 7x4"):
        LevelSpace.of(6, 6, 2).genes_of(level_from_rows(ROWS))


def test_the_key_ignores_where_the_player_stands_in_its_region():
    moved = ["#######", "#.$  @#", "#  $. #", "#######"]
    assert level_key(level_from_rows(ROWS)) == level_key(level_from_rows(moved))
    other = ["#######", "#.$ @ #", "# $ . #", "#######"]
    assert level_key(level_from_rows(ROWS)) != level_key(level_from_rows(other))


def test_the_template_key_ignores_the_boxes_and_the_player():
    space = LevelSpace.of(7, 4, 2)
    genes = space.genes_of(level_from_rows(ROWS))
    moved = [code & ~(BOX | PLAYER) for code in genes]
    moved[7 + 3] |= BOX
    moved[7 + 5] |= BOX
    moved[14 + 1] |= PLAYER
    assert space.template_key(genes) == space.template_key(moved)
    assert space.key(genes) != space.key(moved)
