"""Genome tables on large boards grow with the floor, not with its square (issue 17).

Move genomes kept an all-pairs walking-distance table of cells x cells: 2.2 GB on a 150x150
room, a ``MemoryError`` on a 20,000-cell row. The gap term now comes from a distance field.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from evosoko.config import FitnessConfig
from evosoko.errors import EvosokoWarning
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.move_replay import move_tables
from evosoko.evolve.push_replay import push_tables
from evosoko.generate.stress import corridor_rows, room_rows
from evosoko.sokoban.build import level_from_rows


def _level(rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows)


def _table_bytes(tables) -> int:
    return sum(
        value.nbytes
        for value in (getattr(tables, f.name) for f in dataclasses.fields(tables))
        if isinstance(value, np.ndarray)
    )


@pytest.mark.parametrize("build", [move_tables, push_tables])
def test_genome_tables_are_linear_in_the_board(build):
    level = _level(room_rows(150, 150, player=(1, 1), box=(75, 75), goal=(75, 80)))
    assert _table_bytes(build(level)) < 64 * level.cells  # was 4 * cells**2 (2 GB) for moves


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_genomes_are_scored_on_a_20000_cell_row(encoding):
    level = _level(corridor_rows(20_000, pushes=3))
    fitness = FitnessFunction(level, encoding, FitnessConfig())
    genomes = [[3] * 20_000, [3] * 5, [2, 2, 3]] if encoding == "moves" else [[0, 0, 0], [0]]
    evaluations = fitness(genomes)
    assert evaluations[0].solved
    assert not evaluations[1].solved and evaluations[1].distance == 3 - (
        0 if encoding == "moves" else 1
    )


def test_the_gap_is_the_walk_to_the_nearest_box_off_its_goal():
    level = _level(room_rows(40, 30, player=(1, 1), box=(20, 20), goal=(20, 25)))
    fitness = FitnessFunction(level, "moves", FitnessConfig())
    start = fitness([[]])[0]
    assert start.gap == (20 - 1) + (20 - 1)
    one_step = fitness([[1]])[0]  # down: one step closer
    assert one_step.gap == start.gap - 1
