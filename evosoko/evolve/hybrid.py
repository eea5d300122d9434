"""Hybrid mode: classical search seeds the population and improves the best individual.

- :func:`search_seeds`: a push search (``hybrid.algorithm``, push-A* by default) bounded by
  ``hybrid.node_budget`` runs once per level; its
  solution, or else its best frontier paths, are converted to genes of the active encoding
  (LURD letters for move genomes, candidate indices for push genomes). The engine puts them,
  each followed by random genes, in front of ``hybrid.fraction`` of the first population.
- :func:`memetic_improver`: every ``hybrid.memetic_every`` generations, the same search bounded by
  ``hybrid.memetic_node_budget`` starts from the position the best genome reaches; the path to
  its solution or best frontier state is appended to the genome, and the engine keeps the
  result when its fitness is better. A search that exhausts its space there has proven the
  position lost (:attr:`Improvement.lost`); the engine then ranks it as the lost search's
  proofs and tries the next best position (:class:`evosoko.evolve.steps.MemeticStep`).

On a given-holes level both play the variant: the searches are
:mod:`evosoko.search.given_holes`'s, push genes index the variant's candidates, and the
memetic search starts from the reached position itself (a
:class:`~evosoko.sokoban.holes.board.HolesState`, vanished boxes and all).

Search is deterministic under a node budget, so hybrid runs stay reproducible.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import NamedTuple

from evosoko.config import Config
from evosoko.evolve.genomes import decode_scored, genes_from_lurd
from evosoko.search.clocks import Clock
from evosoko.search.result import UNSOLVABLE
from evosoko.sokoban.arrays import state_hash
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.holes.board import HolesState
from evosoko.sokoban.level import Level, State

log = logging.getLogger(__name__)


def search_seeds(
    level: Level, config: Config, time_limit: float | None = None, clock: Clock = "wall"
) -> list[list[int]]:
    """Gene prefixes from a push search (``hybrid.algorithm``) on ``level`` bounded by
    ``hybrid.node_budget`` and ``time_limit`` seconds on ``clock`` (the solution alone if it
    solved)."""
    from evosoko.search import solve

    count = round(config.hybrid.fraction * config.ga.population)
    if count == 0 or (time_limit is not None and time_limit <= 0):
        return []
    result = solve(
        level,
        config.hybrid.algorithm,
        node_limit=config.hybrid.node_budget,
        time_limit=time_limit,
        clock=clock,
        partial=count,
        settings=config.search,
    )
    paths = [result.solution] if result.solved else [p.lurd for p in result.partial]
    log.info(
        "level %s: hybrid search %s after %d nodes, %d seed path(s)",
        level.name,
        result.status,
        result.expanded,
        len(paths),
    )
    encoding, pi_corrals = config.ga.encoding, config.fitness.pi_corrals
    seeds = [genes_from_lurd(level, encoding, path, None, pi_corrals) for path in paths if path]
    return [genes for genes in seeds if genes]


class Improvement(NamedTuple):
    """What a memetic search made of a genome: the longer genome (None: nothing to add), and
    whether the search proved the position the genome reaches lost (it exhausted its space);
    ``position``: that position's state hash (as evaluations report it; None on a given-holes
    level)."""

    genes: list[int] | None
    lost: bool = False
    position: int | None = None


NOTHING = Improvement(None)


def memetic_improver(level: Level, config: Config) -> Callable[[list[int]], Improvement]:
    """A function that extends a genome by a bounded search from the position it reaches."""
    encoding = config.ga.encoding
    fitness = config.fitness
    budget = config.hybrid.memetic_node_budget
    algorithm = config.hybrid.algorithm

    def improve(genes: list[int]) -> Improvement:
        decoded = decode_scored(level, encoding, genes, fitness)
        if decoded.solved:
            return NOTHING
        result = _search_from(level, decoded.final, algorithm, budget, config)
        if result is None:
            return NOTHING
        if result.status == UNSOLVABLE:
            reached = decoded.final
            position = None if isinstance(reached, HolesState) else state_hash(level, reached)
            return Improvement(None, lost=True, position=position)
        path = (
            result.solution if result.solved else (result.partial[0].lurd if result.partial else "")
        )
        if not path:
            return NOTHING
        more = genes_from_lurd(level, encoding, path, decoded.final, fitness.pi_corrals)
        return Improvement(list(genes) + more)

    return improve


def _search_from(
    level: Level, reached: State | HolesState, algorithm: str, budget: int, config: Config
):
    """A bounded search from ``reached`` (one partial path, the settings of
    ``config.search``), or None when it cannot start there. On a given-holes level (``reached`` a
    :class:`HolesState`) the variant's search starts from the position itself (vanished boxes cannot
    be written as a level); a standard one starts from the level rebuilt around it."""
    from evosoko.search import solve

    if isinstance(reached, HolesState):
        from evosoko.search.given_holes import solve_given_holes

        weight = config.search.push.weight
        return solve_given_holes(
            level, algorithm, node_limit=budget, weight=weight, start=reached, partial=1
        )
    start = level_at(level, reached)
    if start is None:
        return None
    return solve(start, algorithm, node_limit=budget, partial=1, settings=config.search)


def level_at(level: Level, state: State) -> Level | None:
    """``level`` with ``state`` as its start (same cells), or None if the board would change."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        moved = level_from_rows(level.rows(state), title=level.title)
    if (moved.width, moved.height) != (level.width, level.height) or moved.start != state:
        return None
    return moved
