"""The GA's learned-lost term: off changes nothing; on, it ranks by the scored position."""

from __future__ import annotations

import random

import numpy as np
import pytest
from learn_levels import microban, seed_level

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import decode, random_genes
from evosoko.learn.fitness_term import TIEBREAK_SCALE, LearnedLostTerm


def _genomes(encoding: str, count: int = 40, length: int = 30) -> list[list[int]]:
    rng = random.Random(4)
    return [random_genes(rng, rng.randint(1, length), encoding) for _ in range(count)]


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_the_term_adds_the_lost_probability_and_leaves_the_rest(encoding):
    level = microban("8")[0]
    genomes = _genomes(encoding)
    plain = FitnessFunction(level, encoding, FitnessConfig())(genomes)
    tied = FitnessFunction(level, encoding, FitnessConfig(learned_lost="tiebreak"))(genomes)
    penalised = FitnessFunction(
        level, encoding, FitnessConfig(learned_lost="penalty", learned_lost_weight=5)
    )(genomes)
    changed = 0
    for a, b, c in zip(plain, tied, penalised):
        assert (a.solved, a.distance, a.length, a.keep, a.state_hash) == (
            b.solved,
            b.distance,
            b.length,
            b.keep,
            b.state_hash,
        )
        assert b.gap % TIEBREAK_SCALE == a.gap
        assert a.distance <= c.distance <= a.distance + 5
        assert c.gap == a.gap
        changed += b.gap != a.gap
    assert changed > 0


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_the_term_and_a_term_of_ones_own_work_together(encoding):
    level = microban("8")[0]
    genomes = _genomes(encoding)
    own = {"terms": [{"kind": "boxes_on_goals"}]}
    with_own = FitnessFunction(level, encoding, FitnessConfig(**own))(genomes)
    both = FitnessFunction(level, encoding, FitnessConfig(learned_lost="tiebreak", **own))(genomes)
    tied = FitnessFunction(level, encoding, FitnessConfig(learned_lost="tiebreak"))(genomes)
    for a, b, c in zip(with_own, both, tied):
        assert b.terms == a.terms and len(a.terms) == 1
        assert b._replace(terms=()) == c


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_positions_are_where_the_genomes_are_scored(encoding):
    level = seed_level("seed000-case3")
    config = FitnessConfig(learned_lost="tiebreak", trim_to_best=False)
    term = LearnedLostTerm(level, encoding, config)
    genomes = _genomes(encoding, 15, 20)
    from evosoko.learn.fitness_term import _kept_genes
    from evosoko.parallel.packing import pack_genomes

    genes, lengths = pack_genomes(genomes)
    evaluations = FitnessFunction(level, encoding, FitnessConfig(trim_to_best=False))(genomes)
    keep = np.array([e.keep for e in evaluations])
    rows = np.arange(len(genomes))
    boxes, players = term.positions(_kept_genes(genes, lengths, rows, keep), keep)
    for k, genome in enumerate(genomes):
        final = decode(level, encoding, genome[: keep[k]], stop_on_deadlock=True).final
        assert tuple(boxes[k]) == final.boxes
        if encoding == "moves":
            assert players[k] == final.player


def test_the_term_is_off_by_default_and_needs_no_model():
    assert FitnessConfig().learned_lost == "off"
    function = FitnessFunction(seed_level("seed000-case3"), "pushes", FitnessConfig())
    assert function._learned_term is None


def test_a_given_holes_level_is_scored_without_the_network():
    from learn_levels import REPO_ROOT

    from evosoko.sokoban.formats import read_levels

    level = read_levels(REPO_ROOT / "levels" / "given-holes.xsb")[0]
    genomes = _genomes("pushes")
    plain = FitnessFunction(level, "pushes", FitnessConfig())(genomes)
    tied = FitnessFunction(level, "pushes", FitnessConfig(learned_lost="tiebreak"))(genomes)
    assert plain == tied
