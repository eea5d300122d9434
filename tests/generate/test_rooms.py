"""Room shapes: the random-walk carving and the Markov chain's transition statistics."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from evosoko.generate.rooms import (
    SOURCE_TABLE,
    MarkovTable,
    carved_room,
    largest_region,
    markov_room,
    open_room,
)
from evosoko.generate.sketch import regions


def border(walls: np.ndarray, width: int, height: int) -> np.ndarray:
    grid = walls.reshape(height, width)
    return np.concatenate([grid[0], grid[-1], grid[:, 0], grid[:, -1]])


@pytest.mark.parametrize(("width", "height", "fraction"), [(8, 8, 0.5), (12, 7, 0.7), (5, 5, 1.0)])
def test_carved_room_is_closed_connected_and_has_the_floor_asked_for(width, height, fraction):
    for seed in range(10):
        walls = carved_room(width, height, fraction, random.Random(seed))
        assert border(walls, width, height).all()
        assert int((~walls).sum()) == round(fraction * (width - 2) * (height - 2))
        assert len(regions(width, height, ~walls)) == 1


def transition_counts(table: MarkovTable, draws: int, width: int = 9, height: int = 9):
    """(first-cell walls, draws), (walls after wall, cells after wall), same after floor."""
    rng = random.Random(1234)
    first = after_wall = after_wall_total = after_floor = after_floor_total = 0
    for _ in range(draws):
        walls = markov_room(width, height, rng, table)
        assert border(walls, width, height).all()
        chain = walls.reshape(height, width)[1:-1, 1:-1].ravel()
        first += chain[0]
        previous, current = chain[:-1], chain[1:]
        after_wall += int((current & previous).sum())
        after_wall_total += int(previous.sum())
        after_floor += int((current & ~previous).sum())
        after_floor_total += int((~previous).sum())
    return (first, draws), (after_wall, after_wall_total), (after_floor, after_floor_total)


def assert_binomial(hits: int, total: int, probability: float, sigmas: float = 5.0) -> None:
    expected = probability * total
    spread = math.sqrt(total * probability * (1 - probability))
    assert abs(hits - expected) <= sigmas * spread, (hits, total, probability)


def test_source_table_statistics_over_many_draws():
    first, after_wall, after_floor = transition_counts(SOURCE_TABLE, 2_000)
    assert_binomial(*first, 0.5)
    assert_binomial(*after_wall, 0.4)
    assert_binomial(*after_floor, 0.4)


def test_the_chain_conditions_on_the_previous_cell():
    # The source table is the same after wall and floor; a skewed one shows the dependence.
    table = MarkovTable(start_wall=0.9, wall_after_wall=0.8, wall_after_floor=0.1)
    first, after_wall, after_floor = transition_counts(table, 1_000)
    assert_binomial(*first, 0.9)
    assert_binomial(*after_wall, 0.8)
    assert_binomial(*after_floor, 0.1)


def test_largest_region_and_open_room():
    walls = open_room(6, 5)
    assert int((~walls).sum()) == 4 * 3 and border(walls, 6, 5).all()
    rows = ["#######", "# #   #", "# #   #", "#######"]
    walls = np.array([c == "#" for row in rows for c in row], dtype=bool)
    region = largest_region(7, 4, walls)
    assert int(region.sum()) == 6 and not region[8]
    assert not largest_region(5, 5, np.ones(25, dtype=bool)).any()
