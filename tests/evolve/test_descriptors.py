"""Behaviour descriptors: a push genome's FESS cell is push-fess's cell of the position it
reaches, computed from the pushes the replay recorded."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evosoko.config import load_config
from evosoko.evolve.descriptors import FessCells
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import decode, random_genes
from evosoko.evolve.push_replay import push_choices, push_tables
from evosoko.search import FessSettings
from evosoko.search.fess import kernel as fess_kernel
from evosoko.search.fess import space as fess_space
from evosoko.search.packing_order import packing_order
from evosoko.sokoban.rooms import room_links


def _search_cell(level, boxes) -> int:
    """The cell push-fess gives a state with ``boxes``, built as its search builds it."""
    order = packing_order(level)
    _, link, ends = room_links(level.floor, level.deltas)
    features = fess_kernel.make_features(order, level.cells, level.goal_cells, 0, link, ends)
    space = fess_space.make_feature_space(1, level.box_count, order.layers, FessSettings())
    array = np.array(sorted(boxes), dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[array] = True
    deltas = np.array(level.deltas, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    return int(
        fess_space.state_cell(
            features, space.state, level.floor, occupied, deltas, array, queue, False
        )
    )


@pytest.mark.parametrize("trim", [True, False])
def test_each_genomes_cell_is_the_search_cell_of_its_scored_position(microban, trim):
    level = microban[90]  # Microban 91: random genomes reach cells of several kinds
    config = load_config(
        None, ["ga.selection=map_elites", f"fitness.trim_to_best={str(trim).lower()}"]
    )
    assert config.fitness.fess_cells
    function = FitnessFunction(level, "pushes", config.fitness)
    rng = random.Random(3)
    genomes = [random_genes(rng, rng.randint(0, 60), "pushes") for _ in range(40)]
    evaluations = function(genomes)
    cells = set()
    for genome, evaluation in zip(genomes, evaluations):
        scored = decode(level, "pushes", genome[: evaluation.length]).final
        assert evaluation.cell == _search_cell(level, scored.boxes)
        cells.add(evaluation.cell)
    assert len(cells) > 3  # the genomes reach positions of several kinds


def test_without_map_elites_there_is_no_cell(microban):
    function = FitnessFunction(microban[64], "pushes", load_config(None).fitness)
    assert {e.cell for e in function([[1, 2, 3], [4, 5]])} == {-1}


def test_the_start_and_a_pushed_position_have_their_cells(microban):
    level = microban[90]
    cells = FessCells(level, push_tables(level))
    assert cells.of_boxes(level.start.boxes) == _search_cell(level, level.start.boxes)
    tables = push_tables(level)
    pushes = push_choices(tables, [5, 7, 1, 3])
    assert len(pushes) == 4
    boxes = set(level.start.boxes)
    for box, direction in pushes:
        boxes.remove(box)
        boxes.add(box + level.deltas[direction])
    record = np.array(pushes, dtype=np.int64)
    found = cells.after_pushes(tables.start_boxes, record, np.array([len(pushes), 2]), [0, 0])
    halfway = set(level.start.boxes)
    for box, direction in pushes[:2]:
        halfway.remove(box)
        halfway.add(box + level.deltas[direction])
    assert found.tolist() == [_search_cell(level, boxes), _search_cell(level, halfway)]
    assert found[0] != cells.of_boxes(level.start.boxes)  # four pushes change the cell
