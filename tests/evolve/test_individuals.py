"""Individuals: a clone is an independent copy of genes, fitness, evaluation and age; the hall
of fame keeps what DEAP's keeps."""

from __future__ import annotations

import random

from deap import tools

from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.individuals import HallOfFame, Individuals, invalidate
from evosoko.evolve.objectives import Objectives

EVALUATION = Evaluation(False, 5, 10, 10, 123, 2, ())


def test_a_clone_copies_genes_fitness_evaluation_and_age_and_stays_independent():
    individuals = Individuals(Objectives())
    original = individuals.new([3, 700, 12], EVALUATION, age=4)
    twin = individuals.clone(original)
    assert type(twin) is type(original) and list(twin) == [3, 700, 12]
    assert twin.fitness.valid and twin.fitness.values == original.fitness.values
    assert twin.fitness.values == Objectives().values(EVALUATION)
    assert twin.evaluation is EVALUATION and twin.age == 4
    assert twin.fitness is not original.fitness
    assert not twin.fitness < original.fitness and not original.fitness < twin.fitness

    twin.append(5)
    invalidate(twin)
    assert list(original) == [3, 700, 12]
    assert original.fitness.valid and original.evaluation is EVALUATION and original.age == 4
    assert not twin.fitness.valid and twin.evaluation is None and twin.age == 0


def test_a_clone_of_an_unscored_individual_is_unscored_and_can_be_scored():
    individuals = Individuals(Objectives())
    original = individuals.new([1, 2])
    twin = individuals.clone(original)
    assert not twin.fitness.valid and twin.evaluation is None
    individuals.assign(twin, EVALUATION)
    assert twin.fitness.valid and not original.fitness.valid


def test_the_hall_of_fame_keeps_what_deaps_keeps_as_independent_copies():
    rng = random.Random(3)
    individuals = Individuals(Objectives())
    ours, deaps = HallOfFame(5, individuals), tools.HallOfFame(5)
    for _ in range(8):
        population = [
            individuals.new(
                [rng.randrange(4) for _ in range(rng.randint(1, 4))],
                Evaluation(rng.random() < 0.1, rng.randint(0, 6), 3, 3, 0, rng.randint(0, 2)),
            )
            for _ in range(20)
        ]
        ours.update(population)
        deaps.update(population)
        assert [list(member) for member in ours] == [list(member) for member in deaps]
        assert [m.fitness.values for m in ours] == [m.fitness.values for m in deaps]
        assert all(m is not p for m in ours for p in population)
