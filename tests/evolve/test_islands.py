"""The island model: same run on both backends, exact resume, ring migration, budgets."""

from __future__ import annotations

import json

import pytest
from evolve_levels import comparable, run, small_level

from evosoko.config import Config, ConfigError, load_config
from evosoko.errors import EvosokoError
from evosoko.evolve.checkpoint import Member
from evosoko.evolve.engine import GenerationStats
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.islands import IslandModel, combined_stats, island_seed
from evosoko.sokoban.solutions import verify_solution

HARD_ENOUGH = 64  # Microban 65: not solved in a few generations
SMALL_ISLANDS = [
    "ga.encoding=pushes", "ga.population=16", "ga.offspring=16", "ga.islands.count=3",
    "ga.islands.migration_every=3", "ga.islands.migrants=2", "run.seed=4",
    "parallel.batch_size=8",
]


def test_islands_solve_a_small_level_with_a_verified_solution():
    level = small_level("two-boxes")
    outcome, stats = run(level, ["ga.islands.count=2", "run.budget.generations=300"])
    assert outcome.solved and outcome.stop_reason == "solved"
    assert verify_solution(level, outcome.solution_lurd).solved
    assert stats[0].generation == 0 and stats[-1].solved
    assert outcome.evaluations == stats[-1].evaluations


def test_islands_give_the_same_run_serial_and_processes(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["run.budget.generations=10"]
    serial, serial_stats = run(level, overrides + ["parallel.backend=serial"])
    processes, processes_stats = run(level, overrides + ["parallel.backend=processes"])
    assert comparable(serial_stats) == comparable(processes_stats)
    assert serial.best_genes == processes.best_genes
    assert serial.evaluations == processes.evaluations
    assert [s.generation for s in serial_stats] == list(range(11))
    other, other_stats = run(level, overrides + ["run.seed=5", "parallel.backend=serial"])
    assert comparable(other_stats) != comparable(serial_stats)


def test_islands_differ_from_one_population(microban):
    level = microban[HARD_ENOUGH]
    one, _ = run(level, SMALL_ISLANDS + ["ga.islands.count=1", "run.budget.generations=6"])
    three, _ = run(level, SMALL_ISLANDS + ["run.budget.generations=6"])
    assert three.evaluations > 2.5 * one.evaluations  # three populations of the same size


def test_island_resume_equals_uninterrupted(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["output.checkpoint_every=3", "parallel.backend=serial"]
    whole, whole_stats = run(level, overrides + ["run.budget.generations=12"])
    checkpoints = []
    half, half_stats = run(level, overrides + ["run.budget.generations=6"], on_checkpoint=checkpoints.append)
    saved = json.loads(json.dumps(checkpoints[-1]))  # really plain data
    assert saved["generation"] == 6 and len(saved["islands"]) == 3
    resumed, resumed_stats = run(level, overrides + ["run.budget.generations=12"], resume_state=saved)
    assert comparable(half_stats + resumed_stats) == comparable(whole_stats)
    assert resumed.best_genes == whole.best_genes
    assert resumed.evaluations == whole.evaluations


def test_islands_stop_between_epochs_with_a_checkpoint(microban):
    level = microban[HARD_ENOUGH]
    calls, checkpoints = [], []
    outcome, stats = run(
        level,
        SMALL_ISLANDS + ["run.budget.generations=50", "output.checkpoint_every=0"],
        should_stop=lambda: calls.append(1) or len(calls) > 1,
        on_checkpoint=checkpoints.append,
    )
    assert outcome.stop_reason == "interrupted" and outcome.generations == 6
    assert [c["generation"] for c in checkpoints] == [6]


def test_island_evaluation_budget_is_shared(microban):
    outcome, _ = run(microban[HARD_ENOUGH], SMALL_ISLANDS + ["run.budget.evaluations=200"])
    assert outcome.stop_reason == "evaluations"
    assert 200 <= outcome.evaluations < 200 + 3 * 16


def test_checkpoints_of_the_other_kind_are_refused(microban):
    level = microban[HARD_ENOUGH]
    single = []
    run(level, ["run.budget.generations=2", "output.checkpoint_every=1", "ga.population=10",
                "ga.offspring=10"], on_checkpoint=single.append)
    with pytest.raises(EvosokoError, match="one population"):
        run(level, SMALL_ISLANDS + ["run.budget.generations=4"], resume_state=single[-1])
    islands = []
    run(level, SMALL_ISLANDS + ["run.budget.generations=3", "output.checkpoint_every=3"],
        on_checkpoint=islands.append)
    with pytest.raises(EvosokoError, match="3 islands"):
        run(level, ["run.budget.generations=4"], resume_state=islands[-1])
    with pytest.raises(EvosokoError, match="3 islands"):
        run(level, SMALL_ISLANDS[:3] + ["ga.islands.count=2", "run.budget.generations=4"],
            resume_state=islands[-1])


def member(distance: int, state_hash: int) -> dict:
    return Member([distance], Evaluation(False, distance, 1, 1, state_hash)).to_dict()


def test_migration_sends_the_best_to_the_next_island_in_a_ring():
    config = load_config(None, ["ga.population=4", "ga.islands.count=3", "ga.islands.migrants=2"])
    model = IslandModel(small_level("two-boxes"), config, _NoRuns())
    model.states = [
        {"population": [member(d, 100 * island + d) for d in distances]}
        for island, distances in enumerate([(5, 1, 9, 3), (4, 8, 2, 6), (7, 7, 7, 7)])
    ]
    model.states[2]["population"][0] = member(2, 102)  # island 2 already holds island 1's best
    model._migrate()
    distances = [[m["evaluation"][1] for m in s["population"]] for s in model.states]
    assert distances[1] == [4, 1, 2, 3]  # island 0's best (1, 3) replaced the worst (8, 6)
    assert distances[2] == [2, 4, 6, 7]  # island 1 sends 4 and 6: its 2 is held already
    assert sorted(distances[0]) == [1, 2, 3, 7]  # island 2 sends 2 and 7 for 9 and 5


def test_migrants_zero_keeps_islands_apart():
    config = load_config(None, ["ga.population=4", "ga.islands.count=2", "ga.islands.migrants=0"])
    model = IslandModel(small_level("two-boxes"), config, _NoRuns())
    model.states = [{"population": [member(d, 10 * i + d) for d in (1, 2)]} for i in range(2)]
    before = json.dumps(model.states)
    model._migrate()
    assert json.dumps(model.states) == before


def test_island_seeds_differ_and_repeat():
    assert island_seed(0, 0) != island_seed(0, 1) != island_seed(1, 0)
    assert island_seed(3, 2) == island_seed(3, 2)


def test_combined_stats_pool_the_islands():
    def stats(best, mean, std, evaluations, solved=False):
        return GenerationStats(4, evaluations, best, mean, std, 7, solved, 0.5, 0, 0, 1.0)

    combined = combined_stats(4, [stats(3, 5, 0, 100), stats(2, 7, 0, 120, solved=True)], 2.0)
    assert (combined.best_distance, combined.mean_distance, combined.std_distance) == (2, 6, 1)
    assert combined.evaluations == 220 and combined.solved and combined.seconds == 2.0


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ga.islands.migrants=10", "ga.population=10"], "migrants"),
        (["ga.islands.count=2", "parallel.backend=dask", "parallel.local_workers=1"], "dask"),
    ],
)
def test_island_settings_are_checked(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)
    assert Config().ga.islands.count == 1


class _NoRuns:
    """An evaluator that is never asked to run anything."""

    def run_each(self, function, arguments):
        raise AssertionError("not expected to run")
