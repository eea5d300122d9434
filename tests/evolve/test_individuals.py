"""Individuals: a clone (DEAP's deepcopy) is an independent copy of genes, fitness, evaluation
and age; an individual pickles; no class is added to deap.creator."""

from __future__ import annotations

import pickle
from copy import deepcopy

from deap import base, creator

from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.individuals import Individuals, genome_class, invalidate
from evosoko.evolve.objectives import Objectives

EVALUATION = Evaluation(False, 5, 10, 10, 123, 2, ())


def test_a_clone_copies_genes_fitness_evaluation_and_age_and_stays_independent():
    individuals = Individuals(Objectives())
    original = individuals.new([3, 700, 12], EVALUATION, age=4)
    twin = base.Toolbox().clone(original)  # DEAP's clone: copy.deepcopy
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
    twin = deepcopy(original)
    assert not twin.fitness.valid and twin.evaluation is None
    individuals.assign(twin, EVALUATION)
    assert twin.fitness.valid and not original.fitness.valid


def test_an_individual_pickles_with_its_fitness_evaluation_and_age():
    individuals = Individuals(Objectives(weights=(1.0, -1.0, -1.0, 1.0)))
    original = individuals.new([3, 1], EVALUATION, age=2)
    again = pickle.loads(pickle.dumps(original))
    assert type(again) is type(original) and list(again) == [3, 1]
    assert again.fitness.wvalues == original.fitness.wvalues and again.fitness.weights[-1] == 1
    assert again.evaluation == EVALUATION and again.age == 2
    unscored = pickle.loads(pickle.dumps(individuals.new([0])))
    assert not unscored.fitness.valid


def test_classes_per_weights_are_made_once_and_creator_is_left_alone():
    before = set(vars(creator))
    first = genome_class((1.0, -1.0))
    assert genome_class((1.0, -1.0)) is first and first.fitness_class.weights == (1.0, -1.0)
    assert genome_class((1.0, 1.0)) is not first
    assert set(vars(creator)) == before
