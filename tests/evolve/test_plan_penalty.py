"""The out-of-plan penalty of push fitness: goals filled out of the packing order add
``fitness.plan_weight`` each to a genome's distance, and change nothing else."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evosoko.config import load_config
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import random_genes
from evosoko.evolve.plan_penalty import out_of_plan, plan_penalty
from evosoko.evolve.push_replay import push_choices, push_tables
from evosoko.search.packing_order import packing_order
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import Board
from tests.search.tiny_levels import ROOM as ROOM_ROWS
from tests.search.tiny_levels import quiet_level

ROOM = quiet_level(ROOM_ROWS, "goal-room")  # a goal room behind one doorway
WEIGHT = 7


def _fitness(weight: int, trim: bool) -> FitnessFunction:
    overrides = [f"fitness.plan_weight={weight}", f"fitness.trim_to_best={str(trim).lower()}"]
    return FitnessFunction(ROOM, "pushes", load_config(None, overrides).fitness)


def _final_boxes(genome) -> list[int]:
    board = Board(ROOM)
    for box, direction in push_choices(push_tables(ROOM), genome):
        board.push(box, direction)
    return sorted(board.state().boxes)


def test_the_room_has_a_packing_order_of_several_layers():
    assert packing_order(ROOM).layers > 1


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_kernel_counts_out_of_plan_boxes_as_the_packing_order_does(data):
    order = packing_order(ROOM)
    floor = [cell for cell in range(ROOM.cells) if ROOM.floor[cell]]
    boxes = sorted(data.draw(st.sets(st.sampled_from(floor), min_size=1, max_size=8)))
    plan = plan_penalty(ROOM, WEIGHT)
    assert out_of_plan(plan, np.array(boxes, dtype=np.int64)) == order.out_of_plan(boxes)


def _random_genomes(count: int = 300):
    rng = random.Random(5)
    return [random_genes(rng, rng.randint(1, 40), "pushes") for _ in range(count)]


def test_each_out_of_plan_box_adds_the_weight_to_the_final_distance():
    genomes = _random_genomes()
    plain = _fitness(0, trim=False)(genomes)
    weighed = _fitness(WEIGHT, trim=False)(genomes)
    order = packing_order(ROOM)
    penalised = 0
    for genome, before, after in zip(genomes, plain, weighed):
        assert (after.length, after.solved, after.state_hash) == (
            before.length,
            before.solved,
            before.state_hash,
        )
        extra = order.out_of_plan(_final_boxes(genome[: before.length]))
        if before.distance in (0, UNREACHABLE):
            assert after.distance == before.distance
        else:
            assert after.distance == min(before.distance + WEIGHT * extra, UNREACHABLE - 1)
            penalised += extra > 0
    assert penalised > 0  # random genomes do fill the doorway first


def test_the_best_point_moves_but_the_pushes_do_not():
    genomes = _random_genomes()
    weighed = _fitness(WEIGHT, trim=True)(genomes)
    plain_points = [e.length for e in _fitness(0, trim=True)(genomes)]
    assert [e.length for e in weighed] != plain_points  # some genomes are scored elsewhere
    tables = push_tables(ROOM, plan_weight=WEIGHT)
    order = packing_order(ROOM)
    plain_at_end = _fitness(0, trim=False)
    for genome, after in zip(genomes, weighed):
        assert push_choices(tables, genome) == push_choices(push_tables(ROOM), genome)
        boxes = _final_boxes(genome[: after.length])
        if after.distance not in (0, UNREACHABLE):  # scored where the penalised distance is
            plain = plain_at_end([genome[: after.length]])[0].distance
            assert after.distance == plain + WEIGHT * order.out_of_plan(boxes)


def test_without_a_weight_the_tables_carry_no_plan():
    assert push_tables(ROOM).plan.weight == 0
    assert push_tables(ROOM, plan_weight=3).plan.weight == 3
