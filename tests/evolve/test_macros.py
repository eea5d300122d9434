"""The push macro of move genomes: a walk and one candidate push appended."""

from __future__ import annotations

import random

from evolve_levels import small_level

from evosoko.evolve.genomes import decode, random_genes
from evosoko.evolve.macros import mut_append_push
from evosoko.evolve.push_replay import candidate_pushes, push_tables
from evosoko.sokoban.level import DIRECTIONS
from evosoko.sokoban.rules import Board


class Individual(list):
    """Stands in for a DEAP individual: its class must survive."""


def test_appends_a_walk_and_one_candidate_push():
    level = small_level("two-boxes")
    tables = push_tables(level)
    rng = random.Random(5)
    for _ in range(40):
        genome = Individual(random_genes(rng, rng.randint(0, 12), "moves"))
        before = list(genome)
        board = Board(level)
        for gene in before:
            board.step(gene)
        if board.is_solved():
            continue
        candidates = candidate_pushes(tables, board.player, board.state().boxes)
        result = mut_append_push(genome, rng, level, tables, max_length=200)
        assert result[0] is genome and type(genome) is Individual
        assert genome[: len(before)] == before
        if not candidates:
            assert genome == before
            continue
        added = genome[len(before) :]
        pushes_before = decode(level, "moves", before).pushes
        lurd = decode(level, "moves", genome).lurd
        assert decode(level, "moves", genome).pushes == pushes_before + 1
        assert lurd[-1].isupper() and lurd[-1].lower() == DIRECTIONS[added[-1]]
        for gene in added[:-1]:  # the walk ends behind the pushed box
            board.step(gene)
        pushed = (board.player + level.deltas[added[-1]], added[-1])
        assert pushed in candidates


def test_respects_the_maximum_length():
    level = small_level("two-boxes")
    genome = [0] * 5
    mut_append_push(genome, random.Random(1), level, push_tables(level), max_length=5)
    assert genome == [0] * 5
