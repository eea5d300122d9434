"""The population of searches: genomes of push-fess settings, bred and run per level."""

from __future__ import annotations

import itertools
import json
import time
from functools import partial

import pytest

from evosoko.budget import Budget
from evosoko.config import FitnessConfig
from evosoko.errors import EvosokoError
from evosoko.evolve.evaluation import ProcessEvaluator
from evosoko.evolve.search_population import (
    KNOBS,
    SearchPopulation,
    genome_of,
    run_member,
    settings_of,
)
from evosoko.evolve.state import read_state
from evosoko.parallel.pool import ProcessPool, stop_requested
from evosoko.search import clocks
from evosoko.search.clocks import TimeLimit, end_searches_when
from evosoko.search.settings import FessSettings
from evosoko.search.solver import warm_up
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Stop
from tests.fake_clock import FakeClock
from tests.search.tiny_levels import ROOM, microban, quiet_level


def test_a_genome_names_one_choice_of_every_knob():
    genome = [len(choices) - 1 for choices in KNOBS.values()]
    settings = settings_of(genome)
    assert [getattr(settings, knob) for knob in KNOBS] == [c[-1] for c in KNOBS.values()]
    assert genome_of(settings) == genome
    with pytest.raises(ValueError, match="genes"):
        settings_of(genome[:-1])


def test_the_shipped_settings_are_a_genome():
    assert settings_of(genome_of(FessSettings())) == FessSettings()


def test_the_knobs_are_the_fields_that_name_their_choices_in_field_order():
    assert list(KNOBS) == [
        "weight",
        "alternate",
        "room_links",
        "corral_deadlocks",
        "pack_macros",
        "cluster_deadlocks",
        "connectivity_limit",
        "cell_weights",
    ]
    assert KNOBS["cell_weights"] == ((-1, -1), (1, 1), (0, 1), (1, 3))


def test_a_genome_sets_its_knobs_over_the_base_settings():
    base = FessSettings(cluster_limit=3000, alternate=4)
    settings = settings_of(genome_of(base), base)
    assert settings == base
    other = settings_of([0] * len(KNOBS), base)
    assert other.cluster_limit == 3000 and other.alternate == 2


def test_a_base_value_outside_its_knobs_choices_is_named():
    with pytest.raises(ValueError, match="search.fess.alternate = 5 is not among"):
        genome_of(FessSettings(alternate=5))


def test_a_member_that_solves_reports_a_verified_solution_and_full_packing():
    level = quiet_level(ROOM)
    outcome = run_member(level, genome_of(FessSettings()), 50_000, None)
    assert outcome.solved and outcome.distance == 0
    assert outcome.packing == level.box_count
    assert verify_solution(level, outcome.lurd).solved


def test_a_member_cut_short_reports_its_packing_and_closest_position():
    level = microban("144")[0]
    outcome = run_member(level, genome_of(FessSettings()), 300, None)
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
    assert population.run().stop == Stop("solved")
    assert population.best.outcome.solved
    assert population.history[-1].solved and population.history[-1].best_distance == 0


def test_generations_hold_distinct_genomes_and_keep_the_elites_first():
    population = small_population(microban("144")[0], generations=3, elitism=2)
    seen = history(population)
    assert population.run().stop == Stop.budget("generations")
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
    assert first[0] == tuple(genome_of(FessSettings()))
    assert not set(first[:2]) <= set(second)


def test_the_same_seed_gives_the_same_generations_serially_and_on_two_workers():
    level = microban("144")[0]
    serial = small_population(level)
    seen_serial = history(serial)
    serial.run()
    pool = ProcessPool(2, warm_up=partial(warm_up, ["push-fess"], 0))
    try:
        parallel = small_population(level, evaluator=on(pool, level))
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
    assert stopped.run().stop == Stop("interrupted")
    state = json.loads(json.dumps(states[-1]))  # as the file holds it
    assert read_state(state).generation == 1
    resumed = small_population(level, generations=3)
    resumed.restore(read_state(state))
    seen_resumed = history(resumed)
    resumed.run()
    assert seen_resumed == seen_whole[2:]
    assert resumed.evaluations == whole.evaluations
    assert [s.as_dict() for s in resumed.history][:-1] != []
    assert [s.generation for s in resumed.history] == [0, 1, 2, 3]


def interrupted_in_generation_2(level, **options) -> tuple[SearchPopulation, list[dict]]:
    """A run whose ``should_stop`` comes true once generation 2 has started."""
    states: list[dict] = []
    population = small_population(level, generations=3, checkpoint_every=1, **options)
    population.on_checkpoint = states.append
    population.should_stop = lambda: population.generation == 2
    assert population.run().stop == Stop("interrupted")
    return population, states


def resumed_from(level, state: dict) -> list:
    resumed = small_population(level, generations=3)
    resumed.restore(read_state(json.loads(json.dumps(state))))
    seen = history(resumed)
    resumed.run()
    return seen


def test_an_interrupt_drops_the_generation_it_cuts_and_the_resumed_run_redoes_it():
    level = microban("144")[0]
    whole = small_population(level, generations=3)
    seen_whole = history(whole)
    whole.run()
    stopped, states = interrupted_in_generation_2(level)
    # the first search of generation 2 ended at once and the generation was dropped
    assert stopped.generation == 1 and stopped.evaluations == 2 * 4
    assert [state["generation"] for state in states] == [1, 1]
    assert resumed_from(level, states[-1]) == seen_whole[2:]


def test_an_interrupt_on_two_workers_leaves_a_run_that_resumes_as_the_whole_run():
    level = microban("144")[0]
    whole = small_population(level, generations=3)
    seen_whole = history(whole)
    whole.run()
    pool = ProcessPool(2, warm_up=partial(warm_up, ["push-fess"], 0))
    try:
        stopped, states = interrupted_in_generation_2(level, evaluator=on(pool, level))
    finally:
        pool.close()
    state = states[-1]
    # generation 2 was either cut (dropped) or had finished before the parent looked
    assert state["generation"] in (1, 2) and state["generation"] == stopped.generation
    assert resumed_from(level, state) == seen_whole[state["generation"] + 1 :]


def _wait_until_ended(seconds: float) -> str:
    limit = TimeLimit(None)
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if limit.passed():
            return "ended"
        time.sleep(0.01)
    return "ran out"


def test_end_running_ends_the_searches_a_pool_is_running():
    pool = ProcessPool(2)
    try:
        pool.on_every_worker(end_searches_when, stop_requested)  # as an evaluator's tasks do
        futures = [pool.submit(_wait_until_ended, 120.0) for _ in range(3)]
        started = time.monotonic()
        while not futures[0].running() and time.monotonic() - started < 60:
            time.sleep(0.01)
        pool.end_running(futures)
        assert futures[0].result() == "ended"  # it was running: it ended, not cancelled
        assert all(f.cancelled() or f.result() == "ended" for f in futures)
        later = pool.submit(_wait_until_ended, 0.2)
        assert later.result() == "ran out"  # the tasks after it run as usual
    finally:
        pool.close()


def on(pool: ProcessPool, level):
    """An evaluator of ``level`` on ``pool`` (what a run's processes backend gives)."""
    return ProcessEvaluator(level, "pushes", FitnessConfig(), pool.workers, 1, pool=pool)


def problem(state: dict) -> str | None:
    try:
        read_state(state).check(None)  # type: ignore[arg-type]  # searches need no config
    except (EvosokoError, ValueError) as error:
        return str(error)
    return None


@pytest.mark.parametrize(
    ("key", "value"),
    [("generation", -1), ("members", []), ("rng", [3, [1], None]), ("seconds", "x")],
)
def test_a_damaged_checkpoint_is_named(key, value):
    population = small_population(microban("144")[0], generations=0)
    population.run()
    state = json.loads(json.dumps(population.state.to_json()))
    assert problem(state) is None
    state[key] = value
    assert problem(state) is not None
    state = json.loads(json.dumps(population.state.to_json()))
    state["members"][0]["genome"][0] = 99
    assert problem(state) is not None


def test_a_member_reads_its_deadline_and_time_limit_on_the_cpu_clock(monkeypatch):
    """A CPU clock that jumps 10 s a reading ends a member with 40 s left long before its
    node limit (the wall clock would let it run to the limit)."""
    level = microban("144")[0]
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(10.0))
    outcome = run_member(level, genome_of(FessSettings()), 10**6, 50.0, clock="cpu")
    assert 0 < outcome.expanded < 10**6 and not outcome.solved


def test_the_seconds_of_the_budget_count_on_its_clock(monkeypatch):
    """A CPU clock that stands still never ends the run, which its generations end; one that
    jumps ends it at once, its searches cut before they start."""
    level = microban("144")[0]
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(0.0))
    budget = Budget(generations=1, seconds=0.01, clock="cpu")
    still = SearchPopulation(level, population=4, first_nodes=20, seed=5, budget=budget)
    assert still.run().stop == Stop.budget("generations")
    assert all(member.outcome.expanded > 0 for member in still.members)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(1000.0))
    budget = Budget(generations=1, seconds=100.0, clock="cpu")
    jumping = SearchPopulation(level, population=4, first_nodes=20, seed=5, budget=budget)
    assert jumping.run().stop == Stop.budget("seconds")
    assert all(member.outcome.expanded == 0 for member in jumping.members)


def test_cpu_seconds_need_the_searches_in_this_process():
    level = microban("144")[0]
    pool = ProcessPool(1)
    try:
        with pytest.raises(ValueError, match="parallel.backend = serial"):
            SearchPopulation(
                level, budget=Budget(seconds=1.0, clock="cpu"), evaluator=on(pool, level)
            )
    finally:
        pool.close()
