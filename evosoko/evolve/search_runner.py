"""A level run by a population of searches (``[searches] enabled = true``): the runner's door
to :class:`evosoko.evolve.search_population.SearchPopulation`, with the GA's callbacks,
checkpoints and :class:`~evosoko.result.Result`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.evolve.callbacks import Callbacks, Generation
from evosoko.evolve.search_population import SearchPopulation
from evosoko.result import BestIndividual, HallOfFameEntry, Result
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Stop

__all__ = ["evolve_searches"]

log = logging.getLogger(__name__)


def evolve_searches(
    level: Level,
    config: Config,
    *,
    evaluator: Any,
    seed: int | None,
    budget: Budget,
    hooks: Callbacks,
    should_stop: Callable[[], bool] | None,
    resume_state: dict[str, Any] | None,
) -> Result:
    """Run the population of searches of ``config.searches`` on ``level``: its searches on the
    evaluator's worker pool (a processes backend) or here (serial)."""
    pool = getattr(evaluator, "pool", None)

    def on_generation(stats, members) -> None:
        hooks.on_generation(Generation(level, stats))

    searches = config.searches
    population = SearchPopulation(
        level,
        population=searches.population,
        first_nodes=searches.first_nodes,
        growth=searches.growth,
        max_nodes=searches.max_nodes,
        elitism=searches.elitism,
        tournament_size=searches.tournament_size,
        crossover=searches.crossover,
        evolve=searches.evolve,
        seed=config.run.seed if seed is None else seed,
        budget=budget,
        submit=None if pool is None else pool.submit,
        end_running=None if pool is None else pool.end_running,
        should_stop=should_stop,
        stop_requested=lambda: hooks.stop_requested,
        on_generation=on_generation,
        on_checkpoint=lambda state: hooks.on_checkpoint(level, state),
        checkpoint_every=config.output.checkpoint_every,
    )
    if resume_state is not None:
        population.restore(resume_state)
    stop = population.run()
    if population.best is not None:
        outcome = population.best.outcome
        log.info(
            "level %s: %s after %d generations; best search %s: %s, %d expansions",
            level.name,
            stop,
            population.generation,
            population.best.settings,
            "solved" if outcome.solved else f"packing {outcome.packing}, h {outcome.distance}",
            outcome.expanded,
        )
    return searches_result(level, population, stop)


def searches_result(level: Level, population: SearchPopulation, stop: Stop) -> Result:
    """The level's result: the best member's path, replay-verified (its solution when it
    solved); ``details`` names its settings."""
    best = population.best
    if best is None:
        raise RuntimeError(f"level {level.name}: the population of searches ran no search")
    verification = verify_solution(level, best.outcome.lurd)
    if not verification.valid or verification.solved != best.outcome.solved:
        raise RuntimeError(
            f"level {level.name}: the best search's path does not replay as it reported"
        )
    solved = best.outcome.solved
    history = population.history
    last = history[-1] if history else None
    return Result(
        level_name=level.name,
        solver="ga",
        status=stop.status,
        exhausted=stop.exhausted,
        solution=verification.lurd if solved else None,
        moves=verification.moves if solved else None,
        pushes=verification.pushes if solved else None,
        cost=population.evaluations,
        unit="evaluations",
        seconds=population.elapsed() if last is None else last.seconds,
        index=level.index,
        generations=population.generation,
        best=BestIndividual(
            lurd=verification.lurd,
            distance=best.outcome.distance,
            moves=verification.moves,
            pushes=verification.pushes,
            solved=solved,
            genes=list(best.genome),
        ),
        fitness={"distance": float(best.outcome.distance), "packing": float(best.outcome.packing)},
        history=history,
        hall_of_fame=[
            HallOfFameEntry(list(m.genome), m.outcome.solved, m.outcome.distance, m.outcome.pushes)
            for m in population.ranked()
        ],
        details={"settings": str(best.settings), "expanded": best.outcome.expanded},
        level=level,
    )
