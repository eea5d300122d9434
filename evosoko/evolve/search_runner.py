"""A level run by a population of searches (``[searches] enabled = true``): the runner's door
to :class:`evosoko.evolve.search_population.SearchPopulation`, with the GA's callbacks,
checkpoints and :class:`~evosoko.result.Result`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from evosoko.budget import Budget
from evosoko.config import Config
from evosoko.evolve.callbacks import Callbacks, Generation
from evosoko.evolve.evaluation import Evaluator
from evosoko.evolve.search_population import SearchPopulation
from evosoko.evolve.state import SearchesState
from evosoko.result import Result
from evosoko.settings_digest import ga_settings_digest
from evosoko.sokoban.level import Level

__all__ = ["evolve_searches"]

log = logging.getLogger(__name__)


def evolve_searches(
    level: Level,
    config: Config,
    *,
    evaluator: Evaluator,
    seed: int | None,
    budget: Budget,
    hooks: Callbacks,
    should_stop: Callable[[], bool] | None,
    state: SearchesState | None,
) -> Result:
    """Run the population of searches of ``config.searches`` on ``level``: its searches as
    tasks of the evaluator (on its workers, or here)."""

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
        base=config.search.fess,
        budget=budget,
        evaluator=evaluator,
        should_stop=should_stop,
        stop_requested=lambda: hooks.stop_requested,
        on_generation=on_generation,
        on_checkpoint=lambda data: hooks.on_checkpoint(level, data),
        checkpoint_every=config.output.checkpoint_every,
        state=state,
        settings=ga_settings_digest(config, budget),
        optimize_seconds=config.output.optimize_seconds or 0.0,
    )
    result = population.run()
    if population.best is not None:
        outcome = population.best.outcome
        log.info(
            "level %s: %s after %d generations; best search %s: %s, %d expansions",
            level.name,
            population.stop,
            population.generation,
            population.best.describe(population.base),
            "solved" if outcome.solved else f"packing {outcome.packing}, h {outcome.distance}",
            outcome.expanded,
        )
    return result
