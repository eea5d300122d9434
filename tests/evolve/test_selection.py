"""Selection schemes with fixed seeds: pressure, elitism, duplicates, NSGA-II fronts."""

from __future__ import annotations

import json
import random
from collections import Counter
from operator import attrgetter

from deap import base

from evosoko.evolve import selection
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.individuals import genome_class
from evosoko.evolve.state import EngineState, Member, read_state

_fitness = attrgetter("fitness")


def individual(distance: float, length: float = 10.0, solved: bool = False, state: int = 0):
    ind = genome_class()([int(distance), int(length)])
    ind.fitness.values = (1.0 if solved else 0.0, distance, 0.0, length)
    ind.state = state
    return ind


def population(size: int = 20):
    return [individual(float(d), state=d) for d in range(size)]


def test_tournament_pressure_grows_with_size():
    rng = random.Random(1)
    pool = population()
    mean_two = sum(i.fitness.values[1] for i in selection.sel_tournament(pool, 2000, rng, 2)) / 2000
    mean_five = (
        sum(i.fitness.values[1] for i in selection.sel_tournament(pool, 2000, rng, 5)) / 2000
    )
    uniform = sum(i.fitness.values[1] for i in selection.sel_random(pool, 2000, rng)) / 2000
    assert mean_five < mean_two < uniform
    assert 8.5 < uniform < 10.5
    assert selection.sel_tournament(pool, 5, rng, 1)[0] in pool


def test_tournament_draws_and_ties_are_those_of_the_plain_tournament():
    """The same winners as ``max`` over ``rng.choice`` draws (the first of equal keys wins),
    from the same random numbers."""
    pool = [individual(float(d), float(d % 3)) for d in (4, 2, 2, 7, 4, 1, 1, 9, 2)]
    for size in (1, 2, 3, 5):
        plain_rng, rng = random.Random(size), random.Random(size)
        plain = [
            max((plain_rng.choice(pool) for _ in range(size)), key=_fitness) for _ in range(300)
        ]
        chosen = selection.sel_tournament(pool, 300, rng, size)
        assert [id(i) for i in chosen] == [id(i) for i in plain]
        assert rng.random() == plain_rng.random()


def test_single_individual_pools():
    rng = random.Random(2)
    one = [individual(3.0)]
    assert selection.sel_tournament(one, 3, rng, 3) == one * 3
    assert selection.sel_truncation(one, 2, rng, 0.5) == one * 2
    assert selection.best_distinct(one, 4, None) == one


def test_solved_beats_distance_and_length_breaks_ties():
    solved_long = individual(0.0, 99.0, solved=True)
    short = individual(1.0, 2.0)
    longer = individual(1.0, 5.0)
    assert selection.sel_best([longer, short, solved_long], 3) == [solved_long, short, longer]


def test_truncation_draws_only_from_the_best_fraction():
    rng = random.Random(3)
    pool = population(20)
    chosen = selection.sel_truncation(pool, 1000, rng, 0.25)
    distances = Counter(int(i.fitness.values[1]) for i in chosen)
    assert set(distances) == {0, 1, 2, 3, 4}
    assert min(distances.values()) > 150  # roughly uniform among the five kept


def test_best_distinct_prefers_new_states():
    pool = [
        individual(1.0, state=7),
        individual(1.0, length=11.0, state=7),
        individual(2.0, state=8),
    ]
    identity = lambda ind: ind.state
    assert selection.best_distinct(pool, 2, identity) == [pool[0], pool[2]]
    assert selection.best_distinct(pool, 3, identity) == [pool[0], pool[2], pool[1]]
    assert selection.best_distinct(pool, 1, identity, taken={7}) == [pool[2]]
    assert selection.best_distinct(pool, 2, None) == [pool[0], pool[1]]


def test_nsga2_keeps_the_pareto_front():
    front = [
        individual(1.0, 9.0, state=1),
        individual(3.0, 4.0, state=2),
        individual(6.0, 1.0, state=3),
    ]
    dominated = [individual(4.0, 9.0, state=4), individual(7.0, 5.0, state=5)]
    chosen = selection.sel_nsga2(front + dominated, 3, lambda ind: ind.state)
    assert set(map(id, chosen)) == set(map(id, front))
    twins = [individual(1.0, 9.0, state=1) for _ in range(3)]
    chosen = selection.sel_nsga2(twins + dominated, 3, lambda ind: ind.state)
    assert sum(1 for ind in chosen if ind.state == 1) == 1


def test_pareto_tournament_prefers_the_first_front():
    rng = random.Random(4)
    front = [individual(1.0, 9.0), individual(6.0, 1.0)]
    dominated = [individual(7.0, 9.0) for _ in range(6)]
    chosen = selection.sel_pareto_tournament(front + dominated, 1000, rng, 3)
    share = sum(1 for ind in chosen if ind in front) / 1000
    assert share > 0.5


def test_an_engine_state_round_trips_through_plain_data():
    rng = random.Random(5)
    rng.random()
    member = Member.of([1, 2, 3], Evaluation(False, 4, 3, 3, 2**63 + 5))
    state = EngineState(
        level="x",
        encoding="pushes",
        generation=3,
        evaluations=40,
        seconds=1.5,
        restarts=0,
        stagnant=2,
        best_fitness={"solved": 0.0, "distance": 4.0, "gap": 0.0, "length": 3.0},
        rng_state=rng.getstate(),
        population=[member],
        hall_of_fame=[member],
    )
    again = read_state(json.loads(json.dumps(state.to_json())))
    assert again == state and again.version == 3 and again.kind == "engine"
    restored = random.Random()
    restored.setstate(again.rng_state)
    assert restored.random() == rng.random()


def test_deap_fitness_class_is_lexicographic():
    assert issubclass(genome_class().fitness_class, base.Fitness)
    assert genome_class().fitness_class.weights == (1.0, -1.0, -1.0, -1.0)
