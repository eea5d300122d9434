"""The island model: same run on both backends, exact resume, ring migration, budgets."""

from __future__ import annotations

import json
import random
from collections import deque
from pathlib import Path

import pytest
from evolve_levels import SMALL_ISLANDS, comparable, run, small_level

from evosoko.config import Config, ConfigError, load_config
from evosoko.errors import EvosokoError
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.evaluation import SerialEvaluator, SerialTaskQueue
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.islands import (
    IslandModel,
    best_distinct,
    combined_stats,
    island_seed,
    run_epoch,
    with_migrants,
)
from evosoko.evolve.state import EngineState, IslandsState, Member, read_state
from evosoko.result import GenerationStats
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Stop

ROOT = Path(__file__).resolve().parents[2]

HARD_ENOUGH = 64  # Microban 65: not solved in a few generations


def test_islands_solve_a_small_level_with_a_verified_solution():
    level = small_level("two-boxes")
    outcome, stats = run(level, ["ga.islands.count=2", "run.budget.generations=300"])
    assert outcome.solved and outcome.status == "solved" and outcome.exhausted is None
    assert verify_solution(level, outcome.solution).solved
    assert stats[0].generation == 0 and stats[-1].solved
    assert outcome.evaluations == stats[-1].evaluations
    assert outcome.generations == stats[-1].generation  # not the end of the solving epoch
    assert not any(s.solved for s in stats[:-1])


def test_islands_give_the_same_run_serial_and_processes(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["run.budget.generations=10"]
    serial, serial_stats = run(level, overrides + ["parallel.backend=serial"])
    processes, processes_stats = run(level, overrides + ["parallel.backend=processes"])
    assert comparable(serial_stats) == comparable(processes_stats)
    assert serial.best.genes == processes.best.genes
    assert serial.evaluations == processes.evaluations
    assert [s.generation for s in serial_stats] == list(range(11))
    _other, other_stats = run(level, overrides + ["run.seed=5", "parallel.backend=serial"])
    assert comparable(other_stats) != comparable(serial_stats)


def test_islands_differ_from_one_population(microban):
    level = microban[HARD_ENOUGH]
    one_population = [key for key in SMALL_ISLANDS if not key.startswith("ga.islands.")]
    one, _ = run(level, one_population + ["run.budget.generations=6"])
    three, _ = run(level, SMALL_ISLANDS + ["run.budget.generations=6"])
    assert three.evaluations > 2.5 * one.evaluations  # three populations of the same size


def test_island_resume_equals_uninterrupted(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["output.checkpoint_every=3", "parallel.backend=serial"]
    whole, whole_stats = run(level, overrides + ["run.budget.generations=12"])
    checkpoints = []
    half, half_stats = run(
        level, overrides + ["run.budget.generations=6"], on_checkpoint=checkpoints.append
    )
    saved = json.loads(json.dumps(checkpoints[-1]))  # really plain data
    assert saved["generation"] == 6 and len(saved["islands"]) == 3
    # every island finished at the checkpoint: their results come back without new generations
    ended, ended_stats = run(level, overrides + ["run.budget.generations=6"], resume_state=saved)
    assert not ended_stats and (ended.best.genes, ended.evaluations, ended.stop) == (
        half.best.genes,
        half.evaluations,
        half.stop,
    )
    # checkpoints written up to 7f84b3d also kept each island's counts after its epochs
    with_counts = {
        **saved,
        "islands": [
            {**island, "counts": [[island["epochs"], island["state"]["evaluations"], 0]]}
            for island in saved["islands"]
        ],
    }
    for checkpoint in (saved, with_counts):
        resumed, resumed_stats = run(
            level, overrides + ["run.budget.generations=12"], resume_state=checkpoint
        )
        assert comparable(half_stats + resumed_stats) == comparable(whole_stats)
        assert resumed.best.genes == whole.best.genes
        assert resumed.evaluations == whole.evaluations


def test_islands_driven_by_ask_and_tell_give_the_run_of_run_and_their_state_resumes(microban):
    """A loop written by hand that runs the newest epoch asked first gives run()'s result, and
    the state taken between two tells continues to it."""
    level = microban[HARD_ENOUGH]
    config = load_config(None, SMALL_ISLANDS + ["run.budget.generations=9"])
    evaluator = SerialEvaluator(level, config.ga.encoding, config.fitness)
    whole = IslandModel(level, config, evaluator).run()
    model, waiting, states = IslandModel(level, config), [], []
    while not model.done:
        waiting += model.ask()
        key, task = waiting.pop()
        model.tell(key, run_epoch(level, evaluator.fitness_function, config, task))
        states.append(model.state)
    told = model.result()
    assert not waiting and len(states) == 9  # 3 islands of 3 epochs
    assert (told.best.genes, told.evaluations, told.generations) == (
        whole.best.genes,
        whole.evaluations,
        whole.generations,
    )
    assert comparable(told.history) == comparable(whole.history)
    middle = next(state for state in states if 0 < state.generation < 9)
    middle = read_state(json.loads(json.dumps(middle.to_json())))
    assert isinstance(middle, IslandsState)
    resumed = IslandModel(level, config, evaluator, state=middle).run()
    assert (resumed.best.genes, resumed.evaluations) == (whole.best.genes, whole.evaluations)


def test_islands_stopped_by_should_stop_resume_as_if_never_stopped(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["run.budget.generations=15", "output.checkpoint_every=0"]
    whole, whole_stats = run(level, overrides)
    calls, checkpoints = [], []
    stopped, stopped_stats = run(
        level,
        overrides,
        should_stop=lambda: calls.append(1) or len(calls) > 4,
        on_checkpoint=checkpoints.append,
    )
    assert stopped.status == "interrupted" and len(checkpoints) == 1
    saved = json.loads(json.dumps(checkpoints[0]))
    assert stopped.generations == saved["generation"] == stopped_stats[-1].generation < 15
    resumed, resumed_stats = run(level, overrides, resume_state=saved)
    assert comparable(stopped_stats + resumed_stats) == comparable(whole_stats)
    assert (resumed.best.genes, resumed.evaluations) == (whole.best.genes, whole.evaluations)


def test_island_evaluation_budget_is_shared(microban):
    outcome, _ = run(microban[HARD_ENOUGH], SMALL_ISLANDS + ["run.budget.evaluations=200"])
    assert outcome.stop == Stop.budget("evaluations")
    assert 200 <= outcome.evaluations < 200 + 3 * 16


def test_islands_out_of_evaluations_at_an_epoch_end_stop_for_evaluations(microban):
    """Issue 51's case: both islands' shares of the evaluations ran out at generation 30, where
    their epochs ended anyway; with no generation limit set, the stop is the evaluations (it
    said ``generations`` before, the limit of the last epoch's task)."""
    config = load_config(
        ROOT / "configs" / "pushes.toml",
        [
            "ga.islands.count=2",
            "run.budget.evaluations=3000",
            "run.budget.seconds=none",
            "parallel.backend=serial",
        ],
    )
    level = microban[92]
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        outcome = evolve_level(level, config, evaluator=evaluator)
    step = config.ga.islands.migration_every
    assert outcome.generations is not None and outcome.generations % step == 0  # an epoch end
    assert (outcome.status, outcome.exhausted) == ("budget", "evaluations")
    assert outcome.evaluations is not None and outcome.evaluations >= 3000


def test_checkpoints_of_the_other_kind_are_refused(microban):
    level = microban[HARD_ENOUGH]
    single = []
    run(
        level,
        [
            "run.budget.generations=2",
            "output.checkpoint_every=1",
            "ga.population=10",
            "ga.offspring=10",
        ],
        on_checkpoint=single.append,
    )
    with pytest.raises(EvosokoError, match="one population"):
        run(level, SMALL_ISLANDS + ["run.budget.generations=4"], resume_state=single[-1])
    islands = []
    run(
        level,
        SMALL_ISLANDS + ["run.budget.generations=3", "output.checkpoint_every=3"],
        on_checkpoint=islands.append,
    )
    with pytest.raises(EvosokoError, match="3 islands"):
        run(level, ["run.budget.generations=4"], resume_state=islands[-1])
    with pytest.raises(EvosokoError, match="3 islands"):
        run(
            level,
            SMALL_ISLANDS[:3] + ["ga.islands.count=2", "run.budget.generations=4"],
            resume_state=islands[-1],
        )


def member(distance: int, state_hash: int) -> Member:
    return Member.of([distance], Evaluation(False, distance, 1, 1, state_hash))


def by_distance(member: Member) -> tuple:
    return (member.evaluation.distance,)


def engine_state(population, lost=()) -> EngineState:
    return EngineState.model_construct(
        generation=3, population=tuple(population), lost_positions=tuple(lost)
    )


def distances(state: EngineState) -> list[int]:
    return [m.evaluation.distance for m in state.population]


def test_migrants_replace_the_worst_and_held_positions_are_not_taken():
    state = engine_state(member(d, 100 + d) for d in (4, 8, 2, 6))
    arrived = with_migrants(state, [member(1, 1), member(3, 3)], by_distance)
    assert distances(arrived) == [4, 1, 2, 3]
    assert distances(state) == [4, 8, 2, 6]  # not changed
    held = with_migrants(state, [member(2, 102), member(5, 5)], by_distance)
    assert distances(held) == [4, 5, 2, 6]
    assert with_migrants(state, [], by_distance) is state
    assert with_migrants(None, [member(1, 1)], by_distance) is None


def test_lost_members_are_replaced_first_and_lost_migrants_not_taken():
    state = engine_state((member(d, 100 + d) for d in (4, 8, 2, 6)), lost=[102])
    arrived = with_migrants(state, [member(1, 1), member(3, 3)], by_distance)
    assert distances(arrived) == [4, 3, 1, 6]
    refused = with_migrants(state, [member(1, 102)], by_distance)
    assert refused.population == state.population


def test_islands_with_the_lost_search_resume_exactly_and_agree_across_backends(microban):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + [
        "output.checkpoint_every=3",
        "fitness.lost_search_nodes=500",
        "fitness.lost_search_age=0",
    ]
    serial = ["run.budget.generations=12", "parallel.backend=serial"]
    whole, whole_stats = run(level, overrides + serial)
    processes, processes_stats = run(
        level, overrides + ["run.budget.generations=12", "parallel.backend=processes"]
    )
    assert comparable(processes_stats) == comparable(whole_stats)
    assert processes.best.genes == whole.best.genes
    checkpoints = []
    run(
        level,
        overrides + ["run.budget.generations=6", "parallel.backend=serial"],
        on_checkpoint=checkpoints.append,
    )
    saved = json.loads(json.dumps(checkpoints[-1]))
    assert any(island["state"]["lost_positions"] for island in saved["islands"])
    resumed, _ = run(level, overrides + serial, resume_state=saved)
    assert resumed.best.genes == whole.best.genes and resumed.evaluations == whole.evaluations


class _RecordingQueue(SerialTaskQueue):
    """Runs the waiting tasks in a shuffled order (seeded; None: in order) and records each
    epoch's task and report under its key."""

    def __init__(self, level, fitness_function, function, shuffle_seed, log):
        super().__init__(level, fitness_function, function)
        self._random = None if shuffle_seed is None else random.Random(shuffle_seed)
        self._log = log

    def submit(self, key, *args):
        self._log.setdefault(key, {})["task"] = args[1]
        super().submit(key, *args)

    def next_result(self, timeout=None):
        if self._random is not None:
            waiting = list(self._waiting)
            self._random.shuffle(waiting)
            self._waiting = deque(waiting)
        key, report = super().next_result()
        self._log[key]["report"] = report
        return key, report


class _RecordingEvaluator(SerialEvaluator):
    def __init__(self, level, config, shuffle_seed=None):
        super().__init__(level, config.ga.encoding, config.fitness, config.parallel.batch_size)
        self.shuffle_seed, self.log = shuffle_seed, {}

    def task_queue(self, function):
        return _RecordingQueue(
            self.level, self.fitness_function, function, self.shuffle_seed, self.log
        )


def evolve_recorded(level, overrides, shuffle_seed=None):
    config = load_config(None, overrides)
    evaluator = _RecordingEvaluator(level, config, shuffle_seed)
    stats = []
    outcome = evolve_level(level, config, evaluator=evaluator, on_generation=stats.append)
    return outcome, stats, evaluator.log


@pytest.mark.parametrize("lag", [0, 1])
def test_migrants_reach_the_next_island_after_the_lag(microban, lag):
    overrides = SMALL_ISLANDS + ["run.budget.generations=9", f"ga.islands.migration_lag={lag}"]
    _, _, log = evolve_recorded(microban[HARD_ENOUGH], overrides)
    assert sorted(log) == [(i, e) for i in range(3) for e in (1, 2, 3)]
    arrived = 0
    for island in range(3):
        for epoch in range(2, 2 + lag):  # before the first migrants arrive
            assert log[(island, epoch)]["task"].state == log[(island, epoch - 1)]["report"].state
        epoch = 2 + lag  # the first epoch that starts with migrants: those sent after epoch 1
        sender = log[((island - 1) % 3, 1)]["report"].state.to_json()["population"]
        best = sorted(
            sender, key=lambda m: (m["evaluation"]["distance"], m["evaluation"]["length"])
        )
        best = [
            m
            for i, m in enumerate(best)
            if m["evaluation"]["state_hash"]
            not in {b["evaluation"]["state_hash"] for b in best[:i]}
        ][:2]
        before = log[(island, epoch - 1)]["report"].state.to_json()["population"]
        held = {m["evaluation"]["state_hash"] for m in before}
        started = log[(island, epoch)]["task"].state.to_json()["population"]
        new = [m for m in started if m not in before]
        assert new == [m for m in best if m["evaluation"]["state_hash"] not in held]
        assert len(started) == len(before)
        arrived += len(new)
    assert arrived > 0


def test_best_distinct_takes_one_record_per_position():
    records = [member(3, 7), member(1, 5), member(1, 5), member(2, 6)]
    assert [m.evaluation.distance for m in best_distinct(records, 2, by_distance)] == [1, 2]
    assert best_distinct(records, 0, by_distance) == []


def test_migrants_zero_keeps_islands_apart(microban):
    overrides = SMALL_ISLANDS + ["run.budget.generations=9", "ga.islands.migrants=0"]
    _, _, log = evolve_recorded(microban[HARD_ENOUGH], overrides)
    for island in range(3):
        assert log[(island, 3)]["task"].state == log[(island, 2)]["report"].state


@pytest.mark.parametrize("lag", [0, 1, 2])
def test_island_runs_do_not_depend_on_the_order_epochs_finish_in(microban, lag):
    level = microban[HARD_ENOUGH]
    overrides = SMALL_ISLANDS + ["run.budget.generations=21", f"ga.islands.migration_lag={lag}"]
    fifo, fifo_stats, _ = evolve_recorded(level, overrides)
    for shuffle_seed in (1, 2):
        shuffled, shuffled_stats, _ = evolve_recorded(level, overrides, shuffle_seed)
        assert comparable(shuffled_stats) == comparable(fifo_stats)
        assert (shuffled.best.genes, shuffled.evaluations) == (fifo.best.genes, fifo.evaluations)


@pytest.mark.parametrize(
    "index, lag", [(9, 1), pytest.param(22, 1, marks=pytest.mark.slow), (28, 0)]
)  # solved after 10-40 epochs
def test_a_solve_is_settled_at_its_epoch_whatever_the_order(microban, index, lag):
    overrides = [
        "ga.islands.count=4",
        "ga.islands.migration_every=2",
        "run.budget.generations=300",
        "ga.population=8",
        "ga.offspring=8",
        f"ga.islands.migration_lag={lag}",
    ]
    level = microban[index]
    fifo, fifo_stats, _ = evolve_recorded(level, overrides)
    assert fifo.solved and fifo.generations > 20
    for shuffle_seed in range(1, 9):
        shuffled, shuffled_stats, _ = evolve_recorded(level, overrides, shuffle_seed)
        assert comparable(shuffled_stats) == comparable(fifo_stats)
        assert (shuffled.solution, shuffled.evaluations, shuffled.generations) == (
            fifo.solution,
            fifo.evaluations,
            fifo.generations,
        )
    assert fifo.evaluations == fifo_stats[-1].evaluations
    assert fifo.generations == fifo_stats[-1].generation


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
    ],
)
def test_island_settings_are_checked(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)
    assert Config().ga.islands.count == 1


def test_an_epoch_that_starts_after_the_levels_seconds_ends_after_its_first_population(microban):
    # an island that waited for a worker got the seconds left when its epoch was sent
    import time

    from evosoko.budget import Budget
    from evosoko.evolve.islands import EpochTask, run_epoch

    level = microban[HARD_ENOUGH]
    config = load_config(None, SMALL_ISLANDS)
    late = EpochTask(
        seed=1,
        state=None,
        budget=Budget(generations=30, seconds=1000.0),
        deadline=time.time() - 1.0,
    )
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        queue = evaluator.task_queue(run_epoch)
        queue.submit("late", config, late)
        _key, report = queue.next_result()
    assert report.result.exhausted == "seconds" and report.state.generation == 0
