"""The loops' clock: a CPU budget stops the engine, the islands and the hybrid on the CPU clock,
and a resumed run continues the count from its checkpoint."""

from __future__ import annotations

import json

import pytest
from evolve_levels import SMALL_ISLANDS, comparable

from evosoko.budget import Budget
from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.evaluation import SerialEvaluator
from evosoko.evolve.loop import loop_clock
from evosoko.search import clocks
from evosoko.settings_digest import ga_settings_digest
from tests.fake_clock import FakeClock

HARD_ENOUGH = 64  # Microban 65: not solved in a few generations
SMALL = ["ga.encoding=pushes", "ga.population=20", "ga.offspring=20", "run.seed=3"]


class GenerationClock(FakeClock):
    """A CPU clock that stands still but for one second per generation streamed."""

    def __init__(self, start: float = 0.0) -> None:
        super().__init__(0.0)
        self.now = start

    def tick(self, _stats=None) -> None:
        self.now += 1.0


def evolve(level, overrides, budget, **kwargs):
    """(result, statistics) of ``level`` under ``budget``, evaluated serially."""
    config = load_config(None, ["parallel.backend=serial", *overrides])
    stats: list = []
    on_generation = kwargs.pop("on_generation", None)

    def seen(record) -> None:
        stats.append(record)
        if on_generation is not None:
            on_generation(record)

    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        result = evolve_level(
            level, config, evaluator=evaluator, budget=budget, on_generation=seen, **kwargs
        )
    return result, stats


def test_a_cpu_budget_is_read_on_the_cpu_clock_and_a_wall_one_is_not(microban, monkeypatch):
    clock = GenerationClock()
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    cpu = Budget(generations=30, seconds=4.5, clock="cpu")
    result, stats = evolve(microban[HARD_ENOUGH], SMALL, cpu, on_generation=clock.tick)
    assert result.exhausted == "seconds" and result.generations == 4
    assert result.seconds == stats[-1].seconds == 4.0  # read as generation 4 ended
    config = load_config(None, ["parallel.backend=serial", *SMALL])
    wall_digest = ga_settings_digest(config, cpu.replace(clock="wall"))
    assert result.settings == ga_settings_digest(config, cpu) != wall_digest  # names the clock
    wall = Budget(generations=6, seconds=600.0)  # the fake CPU clock does not reach it
    result, _ = evolve(microban[HARD_ENOUGH], SMALL, wall, on_generation=clock.tick)
    assert result.exhausted == "generations"


def test_the_islands_count_a_cpu_budget_on_the_cpu_clock(microban, monkeypatch):
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(0.5))
    budget = Budget(generations=300, seconds=20.0, clock="cpu")
    result, _ = evolve(microban[HARD_ENOUGH], SMALL_ISLANDS, budget)
    assert result.exhausted == "seconds" and result.generations < 300


def test_the_hybrids_seeding_search_spends_the_same_cpu_budget(microban, monkeypatch):
    """The seeding search runs on the budget's clock, and its CPU seconds (three here) leave
    the generations three fewer."""
    from evosoko import search

    clock = GenerationClock()
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    real_solve, calls = search.solve, []

    def seeding(*args, **kwargs):
        calls.append((kwargs["clock"], kwargs["time_limit"]))
        clock.now += 3.0
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(search, "solve", seeding)
    hybrid = [*SMALL, "hybrid.enabled=true", "hybrid.node_budget=50"]
    budget = Budget(generations=30, seconds=6.5, clock="cpu")
    result, _ = evolve(microban[HARD_ENOUGH], hybrid, budget, on_generation=clock.tick)
    assert calls == [("cpu", 6.5)]
    assert result.exhausted == "seconds" and result.generations == 3  # 3 + generations 0-3
    assert result.seconds == 6.0


def test_an_interrupted_cpu_budget_run_resumes_its_count(microban, monkeypatch):
    """Ctrl-C then resume: the resumed run starts from the checkpoint's CPU seconds (on a clock
    that reads otherwise in the new process) and stops where the uninterrupted run stopped."""
    level, budget = microban[HARD_ENOUGH], Budget(generations=30, seconds=6.5, clock="cpu")
    clock = GenerationClock()
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    whole, whole_stats = evolve(level, SMALL, budget, on_generation=clock.tick)
    assert whole.exhausted == "seconds" and whole.generations == 6
    clock = GenerationClock()
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    checkpoints: list = []
    calls: list = []
    half, half_stats = evolve(
        level,
        SMALL,
        budget,
        on_generation=clock.tick,
        on_checkpoint=checkpoints.append,
        should_stop=lambda: calls.append(1) or len(calls) > 3,
    )
    assert half.status == "interrupted" and half.generations == 3
    saved = json.loads(json.dumps(checkpoints[-1]))
    assert saved["seconds"] == 4.0
    clock = GenerationClock(start=1000.0)  # a new process: its CPU clock started elsewhere
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    resumed, resumed_stats = evolve(
        level, SMALL, budget, on_generation=clock.tick, resume_state=saved
    )
    assert resumed.exhausted == "seconds" and resumed.generations == whole.generations
    assert resumed.seconds == whole.seconds == 6.0
    assert comparable(half_stats + resumed_stats) == comparable(whole_stats)


def test_a_cpu_budget_needs_the_work_in_this_process():
    cpu = Budget(seconds=1.0, clock="cpu")
    assert loop_clock(cpu) is clocks.CLOCKS["cpu"]
    assert loop_clock(cpu, SerialEvaluator.tasks_only(None)) is clocks.CLOCKS["cpu"]
    assert loop_clock(Budget(seconds=1.0), object()) is clocks.CLOCKS["wall"]
    with pytest.raises(ValueError, match="parallel.backend = serial"):
        loop_clock(cpu, object())  # an evaluator with workers
