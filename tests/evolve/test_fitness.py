"""Fitness of both encodings: decoded LURD verifies, trimming is consistent, hashes are states."""

from __future__ import annotations

import random

import pytest
from evolve_levels import small_level

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import Evaluation, FitnessCache, FitnessFunction
from evosoko.evolve.genomes import decode, gene_range, genes_from_lurd, random_genes
from evosoko.sokoban.arrays import state_hash
from evosoko.sokoban.solutions import verify_solution


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_solving_genomes_decode_to_verified_lurd(microban, encoding):
    rng = random.Random(1)
    solved_levels = 0
    for level in microban[:12]:
        fitness = FitnessFunction(level, encoding, FitnessConfig())
        genomes = [random_genes(rng, 80, encoding) for _ in range(400)]
        evaluations = fitness(genomes)
        for genes, evaluation in zip(genomes, evaluations):
            decoded = decode(level, encoding, genes[: evaluation.keep])
            verification = verify_solution(level, decoded.lurd)
            assert verification.valid
            assert verification.solved == evaluation.solved == decoded.solved
            if evaluation.solved:
                assert evaluation.distance == 0
                if encoding == "pushes":
                    assert verification.pushes == evaluation.length
        solved_levels += any(e.solved for e in evaluations)
    assert solved_levels >= (1 if encoding == "moves" else 3)


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
@pytest.mark.parametrize("objective", ["matching", "nearest_goal", "manhattan"])
def test_trimmed_genome_evaluates_the_same(microban, encoding, objective):
    rng = random.Random(2)
    for level in microban[5:25:4]:
        fitness = FitnessFunction(level, encoding, FitnessConfig(objective=objective))
        genomes = [random_genes(rng, 50, encoding) for _ in range(40)]
        for genes, evaluation in zip(genomes, fitness(genomes)):
            assert fitness([genes[: evaluation.keep]]) == [evaluation]


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_state_hash_is_the_hash_of_the_scored_position(microban, encoding):
    rng = random.Random(3)
    level = microban[3]
    fitness = FitnessFunction(level, encoding, FitnessConfig())
    genomes = [random_genes(rng, 30, encoding) for _ in range(30)]
    for genes, evaluation in zip(genomes, fitness(genomes)):
        final = decode(level, encoding, genes[: evaluation.keep]).final
        assert evaluation.state_hash == state_hash(level, final)


def test_without_trimming_the_whole_genome_counts(microban):
    level = microban[4]
    rng = random.Random(4)
    config = FitnessConfig(trim_to_best=False, stop_on_deadlock=False, objective="manhattan")
    fitness = FitnessFunction(level, "moves", config)
    genomes = [random_genes(rng, 30, "moves") for _ in range(20)]
    for _genes, evaluation in zip(genomes, fitness(genomes)):
        if not evaluation.solved:
            assert evaluation.keep == evaluation.length == 30


def test_fitness_values_order_solved_first():
    from evosoko.evolve.objectives import Objectives

    solved_long = Evaluation(True, 0, 90, 90, 1)
    close = Evaluation(False, 1, 5, 5, 2)
    far_short = Evaluation(False, 4, 2, 2, 3)
    objectives = Objectives()

    def key(e):
        return objectives.weighted(objectives.values(e))

    assert key(solved_long) > key(close) > key(far_short)
    assert objectives.named(objectives.values(close)) == {
        "solved": 0.0,
        "distance": 1.0,
        "gap": 0.0,
        "length": 5.0,
    }
    without_length = Objectives(length_objective=False)
    assert without_length.named(without_length.values(close))["length"] == 0.0


def test_genes_from_lurd_round_trip():
    level = small_level("two-boxes")
    lurd = decode(level, "pushes", [3, 1, 4, 1, 5]).lurd
    verification = verify_solution(level, lurd)
    assert verification.valid and verification.pushes >= 3
    moves = genes_from_lurd(level, "moves", lurd)
    assert decode(level, "moves", moves).lurd == lurd
    pushes = genes_from_lurd(level, "pushes", lurd)
    decoded = decode(level, "pushes", pushes)
    assert decoded.pushes == verification.pushes
    assert decoded.final.boxes == verification.final.boxes
    assert all(0 <= g < gene_range("pushes") for g in pushes)


def test_fitness_cache_is_bounded_lru():
    cache = FitnessCache(2)
    a, b, c = (
        Evaluation(False, 1, 1, 1, 1),
        Evaluation(False, 2, 2, 2, 2),
        Evaluation(False, 3, 3, 3, 3),
    )
    cache.put((1,), a)
    cache.put((2,), b)
    assert cache.get((1,)) == a  # (1,) is now the most recent
    cache.put((3,), c)
    assert cache.get((2,)) is None and cache.get((1,)) == a and cache.get((3,)) == c
    assert len(cache) == 2 and cache.hits == 3 and cache.misses == 1
    FitnessCache(0).put((1,), a)
