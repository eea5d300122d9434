"""The registered level operators: each keeps the board's size, repair makes the child legal,
the same seed gives the same child."""

from __future__ import annotations

import random

import pytest

from evosoko.evolve.registry import level_crossovers, level_mutations
from evosoko.levelgen.operators import ELEMENTARY, MIXED_WEIGHTS, mixed
from evosoko.levelgen.repair import repair
from evosoko.levelgen.space import LevelSpace
from evosoko.levelgen.starts import random_board
from tests.levelgen.test_repair import legal

SPACE = LevelSpace.of(8, 8, 3, max_boxes=5)


def boards(seed: int, count: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [repair(random_board(SPACE, rng), SPACE, rng) for _ in range(count)]


def test_every_mutation_and_crossover_is_registered():
    assert set(level_mutations.names()) >= {"mixed", *ELEMENTARY}
    assert set(level_crossovers.names()) >= {"region", "rows"}


@pytest.mark.parametrize("name", ["mixed", *ELEMENTARY])
def test_a_mutated_board_is_repaired_into_a_level(name):
    mutation = level_mutations.get(name).bind({}, {"rng": random.Random(1), "space": SPACE})
    changed = 0
    for genes in boards(2, 30):
        before = list(genes)
        (child,) = mutation(genes)
        assert child is genes and len(child) == SPACE.cells
        repair(child, SPACE, random.Random(3))
        legal(child, SPACE)
        changed += child != before
    assert changed >= 10


@pytest.mark.parametrize("name", ["region", "rows"])
def test_crossed_boards_exchange_cells(name):
    crossover = level_crossovers.get(name).bind({}, {"rng": random.Random(4), "space": SPACE})
    parents = boards(5, 20)
    for first, second in zip(parents[::2], parents[1::2], strict=True):
        a, b = list(first), list(second)
        crossover(a, b)
        assert sorted(a + b) == sorted(first + second)  # cells were exchanged, not made
        for child in (a, b):
            repair(child, SPACE, random.Random(6))
            legal(child, SPACE)


def test_mutations_are_reproducible():
    def children(seed):
        rng = random.Random(seed)
        return [mixed(genes, rng, SPACE, steps=3)[0] for genes in boards(7, 10)]

    assert children(8) == children(8) and children(8) != children(9)


def test_mixed_refuses_unknown_names_and_all_zero_weights():
    genes = boards(1, 1)[0]
    with pytest.raises(ValueError, match="unknown mutations nudge"):
        mixed(genes, random.Random(0), SPACE, weights={"nudge": 1.0})
    with pytest.raises(ValueError, match="every weight is zero"):
        mixed(genes, random.Random(0), SPACE, weights=dict.fromkeys(MIXED_WEIGHTS, 0.0))
