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
    """Bytes of every array the tables hold, the level's arrays (a named tuple) included."""
    values = [getattr(tables, f.name) for f in dataclasses.fields(tables)]
    total = 0
    while values:
        value = values.pop()
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif isinstance(value, tuple):
            values.extend(value)
    return total


@pytest.mark.parametrize("build", [move_tables, push_tables])
def test_genome_tables_are_linear_in_the_board(build):
    level = _level(room_rows(150, 150, player=(1, 1), box=(75, 75), goal=(75, 80)))
    assert _table_bytes(build(level)) < 128 * level.cells  # was 4 * cells**2 (2 GB) for moves


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


_PEAK_SCRIPT = """
import random, resource, warnings
from evosoko.config import FitnessConfig
from evosoko.errors import EvosokoWarning
from evosoko.evolve.fitness import FitnessFunction
from evosoko.generate.stress import room_rows
from evosoko.sokoban.build import level_from_rows
warnings.simplefilter("ignore", EvosokoWarning)
level = level_from_rows(room_rows(150, 150, player=(1, 1), box=(75, 75), goal=(75, 80)))
fitness = FitnessFunction(level, "{encoding}", FitnessConfig())
fitness([[0]])  # compiled (or loaded) before measuring
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rng = random.Random(0)
fitness([[rng.randrange(4) for _ in range(300)] for _ in range(100)])
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_a_batch_on_a_150x150_room_stays_small(encoding):
    """The whole evaluation, scratch and caches included: a walk table alone was 2 GB here."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT.format(encoding=encoding)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(run.stdout.split()[-1]) < 256 * 2**20
