"""Evolving one level: :func:`evolve_level`, the entry point of the runner and the API.

It seeds the first population by search when ``hybrid.enabled`` asks, runs the generational
loop (:class:`evosoko.evolve.engine.Engine`) or, with several islands, the island model
(:class:`evosoko.evolve.islands.IslandModel`), or with ``searches.enabled`` a population of
searches (:mod:`evosoko.evolve.search_runner`), shortens a solution when
``output.optimize_seconds`` asks, and reports the level's start and end to the callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.callbacks import Callback, Callbacks, FunctionCallback
from evosoko.evolve.engine import Engine
from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.islands import IslandModel
from evosoko.evolve.loop import loop_clock
from evosoko.evolve.state import (
    EngineState,
    IslandsState,
    LoopState,
    SearchesState,
    kind_problem,
    read_state,
)
from evosoko.result import GenerationStats, Result
from evosoko.sokoban.level import Level
from evosoko.sokoban.variants import level_rules

__all__ = ["evolve_level"]


def evolve_level(
    level: Level,
    config: Config,
    *,
    evaluator: Evaluator,
    seed: int | None = None,
    budget: Budget | None = None,
    callbacks: Iterable[Callback] = (),
    on_generation: Callable[[GenerationStats], None] | None = None,
    on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    resume_state: dict[str, Any] | LoopState | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Result:
    """Evolve genomes for ``level`` as ``config`` says; the runner's entry point.

    ``evaluator``: from :func:`evosoko.evolve.evaluation.make_evaluator` for this level.
    ``seed``: the seed of this level's generator (default ``run.seed``); ``budget``: the limits
    (default ``run.budget``). ``callbacks`` (:class:`~evosoko.evolve.callbacks.Callback`) see the
    level start and end, every generation (and the start, generation 0) and every checkpoint:
    JSON-able data taken every ``output.checkpoint_every`` generations and when stopped by
    ``should_stop``; pass it back as ``resume_state`` (the JSON data or its state model,
    :func:`evosoko.evolve.state.read_state`) to continue exactly where it was taken.
    ``on_generation(stats)`` and ``on_checkpoint(state)`` are shorthands for such callbacks.
    With ``hybrid.enabled`` the first population is seeded by a bounded search (not when
    resuming), whose seconds (on the budget's clock) count against the budget and in the
    result. A CPU budget (``budget.clock``) counts this process's CPU time, so it needs the
    serial backend (:func:`evosoko.evolve.loop.loop_clock`). With
    ``output.optimize_seconds`` a solution is shortened before it is returned. With
    ``searches.enabled`` the individuals are push-fess settings
    (:func:`evosoko.evolve.search_runner.evolve_searches`), on the evaluator's workers.
    """
    if level_rules(level).boxes_vanish:
        from evosoko.evolve.given_holes import given_holes_config

        config = given_holes_config(level, config)
    hooks = Callbacks([*callbacks, FunctionCallback(on_generation, on_checkpoint)])
    budget = budget or Budget.of(config.run.budget)
    state = _state_of(resume_state, config)
    if config.searches.enabled:
        from evosoko.evolve.search_runner import evolve_searches

        assert state is None or isinstance(state, SearchesState)
        hooks.on_level_start(level)
        searched = evolve_searches(
            level,
            config,
            evaluator=evaluator,
            seed=seed,
            budget=budget,
            hooks=hooks,
            should_stop=should_stop,
            state=state,
        )
        hooks.on_level_end(searched)
        return searched
    initial: list[list[int]] = []
    improve = None
    clock = loop_clock(budget, evaluator)
    started = clock()
    if config.hybrid.enabled:
        from evosoko.evolve.hybrid import memetic_improver, search_seeds

        if state is None:
            initial = search_seeds(level, config, time_limit=budget.seconds, clock=budget.clock)
        if config.hybrid.memetic_every and config.ga.islands.count == 1:
            improve = memetic_improver(level, config)  # islands make their own
    hooks.on_level_start(level)
    common: dict[str, Any] = {
        "seed": seed,
        "budget": budget,
        "initial_genomes": initial,
        "callbacks": [hooks],
        "should_stop": should_stop,
        "seconds_spent": clock() - started,  # the seeding search's, on the budget's clock
    }
    if config.ga.islands.count > 1:
        assert state is None or isinstance(state, IslandsState)
        result = IslandModel(level, config, evaluator, state=state, **common).run()
    else:
        assert state is None or isinstance(state, EngineState)
        result = Engine(level, config, evaluator, improve=improve, state=state, **common).run()
    hooks.on_level_end(result)
    return result


def _state_of(resume_state: dict[str, Any] | LoopState | None, config: Config) -> LoopState | None:
    """The state to resume from, of the kind the configuration runs (a clear
    :class:`EvosokoError` otherwise): a population of searches, islands or one population."""
    if resume_state is None:
        return None
    state = resume_state if isinstance(resume_state, LoopState) else read_state(resume_state)
    problem = kind_problem(state, config)
    if problem is not None:
        raise EvosokoError(f"the checkpoint: {problem}")
    return state
