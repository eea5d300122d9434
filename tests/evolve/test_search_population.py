"""The population of searches: genomes of push-fess settings, bred and run per level."""

from __future__ import annotations

import itertools
import json
from functools import partial

import pytest

from evosoko.budget import Budget
from evosoko.evolve.evaluation import ProcessPool
from evosoko.evolve.search_population import (
    KNOBS,
    SearchPopulation,
    genome_of,
    run_member,
    settings_of,
    state_problem,
)
from evosoko.search.fess_settings import FessSettings
from evosoko.search.solver import warm_up
from evosoko.sokoban.solutions import verify_solution
from tests.search.tiny_levels import ROOM, microban, quiet_level


def test_a_genome_names_one_choice_of_every_knob():
    genome = [len(choices) - 1 for choices in KNOBS.values()]
    settings = settings_of(genome)
    assert [getattr(settings, knob) for knob in KNOBS] == [c[-1] for c in KNOBS.values()]
    assert genome_of(settings) == genome
    with pytest.raises(ValueError, match="genes"):
        settings_of(genome[:-1])


def test_the_shipped_settings_are_a_genome():
    assert settings_of(genome_of(FessSettings.shipped())) == FessSettings.shipped()


def test_a_member_that_solves_reports_a_verified_solution_and_full_packing():
    level = quiet_level(ROOM)
    outcome = run_member(level, genome_of(FessSettings.shipped()), 50_000, None)
    assert outcome.solved and outcome.distance == 0
    assert outcome.packing == level.box_count
    assert verify_solution(level, outcome.lurd).solved


def test_a_member_cut_short_reports_its_packing_and_closest_position():
    level = microban("144")[0]
    outcome = run_member(level, genome_of(FessSettings.shipped()), 300, None)
    assert not outcome.solved and outcome.distance > 0
    assert 0 <= outcome.packing < level.box_count
    verification = verify_solution(level, outcome.lurd)
    assert verification.valid and not verification.solved


def small_population(level, generations: int = 2, **options) -> SearchPopulation:
    values = {"population": 4, "first_nodes": 20, "growth": 2.0, "seed": 5}
    budget = Budget(generations=generations)
    return SearchPopulation(level, budget=budget, **{**values, **options})


def history(population: SearchPopulation) -> list:
    seen = []

    def note(stats, members):
        seen.append((stats.generation, [(list(m.genome), m.outcome) for m in members]))

    population.on_generation = note
    return seen


def test_it_solves_a_level_and_stops():
    population = small_population(quiet_level(ROOM), first_nodes=50_000)
    assert population.run() == "solved"
    assert population.best.outcome.solved
    assert population.history[-1].solved and population.history[-1].best_distance == 0


def test_generations_hold_distinct_genomes_and_keep_the_elites_first():
    population = small_population(microban("144")[0], generations=3, elitism=2)
    seen = history(population)
    assert population.run() == "generations"
    assert [generation for generation, _ in seen] == [0, 1, 2, 3]
    for (_, members), (_, following) in itertools.pairwise(seen):
        assert len({tuple(genome) for genome, _ in members}) == len(members)
        ranked = sorted(members, key=lambda pair: pair[1].rank)
        assert [genome for genome, _ in following[:2]] == [genome for genome, _ in ranked[:2]]
    assert population.nodes() == 20 * 2**3  # the node budget doubles each generation
    assert population.evaluations == 4 * 4


def test_without_evolution_each_generation_is_new_random_settings():
    population = small_population(microban("144")[0], evolve=False, generations=1)
    seen = history(population)
    population.run()
    first, second = ([tuple(g) for g, _ in members] for _, members in seen)
    assert first[0] == tuple(genome_of(FessSettings.shipped()))
    assert not set(first[:2]) <= set(second)


def test_the_same_seed_gives_the_same_generations_serially_and_on_two_workers():
    level = microban("144")[0]
    serial = small_population(level)
    seen_serial = history(serial)
    serial.run()
    pool = ProcessPool(2, warm_up=partial(warm_up, ["push-fess"], 0))
    try:
        parallel = small_population(level, submit=pool.submit)
        seen_parallel = history(parallel)
        parallel.run()
    finally:
        pool.close()
    assert seen_parallel == seen_serial
    other = small_population(level, seed=6)
    seen_other = history(other)
    other.run()
    assert seen_other != seen_serial


def test_a_run_resumed_from_its_checkpoint_continues_as_the_whole_run():
    level = microban("144")[0]
    whole = small_population(level, generations=3)
    seen_whole = history(whole)
    whole.run()
    states = []
    stopped = small_population(level, generations=3, checkpoint_every=1)
    stopped.on_checkpoint = states.append
    stopped.should_stop = lambda: len(states) == 1  # after generation 1
    assert stopped.run() == "interrupted"
    state = json.loads(json.dumps(states[-1]))  # as the file holds it
    assert state_problem(state) is None and state["generation"] == 1
    resumed = small_population(level, generations=3)
    resumed.restore(state)
    seen_resumed = history(resumed)
    resumed.run()
    assert seen_resumed == seen_whole[2:]
    assert resumed.evaluations == whole.evaluations
    assert [s.as_dict() for s in resumed.history][:-1] != []
    assert [s.generation for s in resumed.history] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("key", "value"),
    [("generation", -1), ("members", []), ("rng", [3, [1], None]), ("seconds", "x")],
)
def test_a_damaged_checkpoint_is_named(key, value):
    population = small_population(microban("144")[0], generations=0)
    population.run()
    state = json.loads(json.dumps(population.state()))
    assert state_problem(state) is None
    state[key] = value
    assert state_problem(state) is not None
    state = json.loads(json.dumps(population.state()))
    state["members"][0]["genome"][0] = 99
    assert state_problem(state) is not None
