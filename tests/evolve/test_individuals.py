"""Individuals: a clone is an independent copy of genes, fitness, evaluation and age."""

from __future__ import annotations

from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.individuals import Individuals, invalidate
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
