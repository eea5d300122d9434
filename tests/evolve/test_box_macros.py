"""The box macro of push genomes: one box carried to a free goal by candidate pushes."""

from __future__ import annotations

import random

from evolve_levels import comparable, run, small_level

from evosoko.evolve.box_macros import in_plan_goals, mut_append_box_path
from evosoko.evolve.genomes import genes_from_lurd, random_genes
from evosoko.evolve.push_replay import push_choices, push_tables
from evosoko.search import solve
from evosoko.search.packing_order import packing_order


class Individual(list):
    """Stands in for a DEAP individual: its class must survive."""


def _boxes_after(tables, pushes):
    boxes = {int(b) for b in tables.start_boxes}
    for box, direction in pushes:
        boxes.remove(box)
        boxes.add(box + int(tables.deltas[direction]))
    return boxes


def test_appends_the_pushes_of_one_box_to_a_free_goal():
    level = small_level("two-boxes")
    tables = push_tables(level)
    layer = packing_order(level).layer
    rng = random.Random(3)
    changed = 0
    for _ in range(60):
        genome = Individual(random_genes(rng, rng.randint(0, 4), "pushes"))
        made = push_choices(tables, genome)
        before = _boxes_after(tables, made)
        result = mut_append_box_path(genome, rng, tables, layer, "matching", True, max_length=100)
        assert result[0] is genome and type(genome) is Individual
        after = push_choices(tables, genome)
        if after == made:
            continue
        changed += 1
        assert after[: len(made)] == made and len(genome) == len(after)
        macro = after[len(made) :]
        cell = macro[0][0]
        for box, direction in macro:  # one box, pushed along a chain
            assert box == cell
            cell = box + int(tables.deltas[direction])
        assert cell in in_plan_goals(layer, before)
        assert _boxes_after(tables, after) == (before - {macro[0][0]}) | {cell}
    assert changed > 10


def test_no_change_when_every_box_is_on_a_goal_or_the_macro_is_too_long():
    level = small_level("corridor")
    tables = push_tables(level)
    solved = genes_from_lurd(level, "pushes", solve(level, "push-astar").solution)
    genome = list(solved)
    layer = packing_order(level).layer
    mut_append_box_path(genome, random.Random(0), tables, layer, "matching", True, 100)
    assert genome == solved
    genome = []
    mut_append_box_path(genome, random.Random(0), tables, layer, "matching", True, 1)
    assert genome == []  # the box is two pushes from its goal


def test_runs_with_box_macros_are_reproducible_and_solve():
    level = small_level("two-boxes")
    overrides = [
        "ga.encoding=pushes",
        "ga.population=20",
        "ga.offspring=20",
        "ga.mutation.box_macro=0.5",
        "run.budget.generations=30",
        "run.seed=4",
    ]
    first, first_stats = run(level, overrides)
    _, second_stats = run(level, overrides)
    assert first.solved
    assert comparable(first_stats) == comparable(second_stats)
