"""Compiling the numba kernels a command needs before any clock starts.

numba compiles a kernel on its first call and caches the machine code on disk
(``cache=True``): the first run on a fresh machine pays for compilation, later runs load it in
a fraction of a second. Left to happen on first use, compilation lands inside a level's time
budget (a cold default run would spend most of its minute compiling). So every command first
calls the kernels it will use on a tiny level, here, before any budget, ``seconds`` column or
per-job time starts counting; worker processes forked afterwards inherit the compiled code, and
others (spawned, Dask) load it from the cache or warm up the same way before their first task.

Only what the command uses is compiled: the replay kernel of the configured genome encoding,
the lost-position search when it is on, the search algorithms that hybrid mode or a
comparison runs. :func:`watch_compilation` tells when compilation (not a cache load) starts,
so the command line can say so.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from evosoko.config import Config, FitnessConfig
from evosoko.sokoban.variants import level_rules

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level

__all__ = [
    "WARM_UP_ROWS",
    "warm_up_config",
    "warm_up_for",
    "warm_up_search",
    "watch_compilation",
]

WARM_UP_ROWS = ("########", "#      #", "# $$ . #", "#@   . #", "########")
"""A tiny level with two boxes: every kernel gets arguments of the types real levels give."""

_GENOMES = ([0, 1, 3, 3, 2, 3], [3, 3], [2])
"""Genes that reach a few positions of the tiny level (valid in either encoding)."""


@functools.cache
def _level():
    from evosoko.sokoban.build import level_from_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(list(WARM_UP_ROWS), title="warm-up")


def warm_up_config(config: Config, levels: Iterable[Level] = ()) -> None:
    """Compile (or load) every kernel a GA run of ``config`` on ``levels`` calls: fitness
    evaluation and decoding of its encoding, solution checks, and the lost search, push or box
    macro and hybrid search when they are on (a population of searches: push-fess alone); the
    given-holes replay too when one of ``levels`` plays those rules. Each distinct set of
    settings is warmed once per process."""
    if config.searches.enabled:
        warm_up_search(["push-fess"])
    else:
        _warm_ga(
            config.ga.encoding,
            config.fitness.model_dump_json(),
            config.ga.mutation.push_macro > 0 or config.ga.mutation.box_macro > 0,
            config.hybrid.algorithm if config.hybrid.enabled else None,
        )
    if any(level_rules(level).boxes_vanish for level in levels):
        warm_up_given_holes(config)


@functools.cache
def _warm_ga(encoding: str, fitness_json: str, macro: bool, hybrid: str | None) -> None:
    from evosoko.evolve.fitness import FitnessFunction
    from evosoko.evolve.genomes import decode_scored, genes_from_lurd
    from evosoko.sokoban.solutions import verify_solution

    level = _level()
    fitness = FitnessConfig.model_validate_json(fitness_json)
    FitnessFunction(level, encoding, fitness)(list(_GENOMES))
    for genes in _GENOMES:
        decoded = decode_scored(level, encoding, genes, fitness)
        verify_solution(level, decoded.lurd)
        if hybrid:  # search paths become genes
            genes_from_lurd(level, encoding, decoded.lurd)
    if encoding == "pushes" and fitness.lost_search_nodes > 0:
        from evosoko.evolve.lost_search import LostPositionSearch

        search = LostPositionSearch(level, 50, fitness.objective, fitness.stop_on_deadlock)
        search.genome_is_lost(list(_GENOMES[0]), 1)
    if encoding == "moves" and macro:
        import random

        from evosoko.evolve.macros import mut_append_push
        from evosoko.evolve.push_replay import push_tables

        mut_append_push(list(_GENOMES[0]), random.Random(0), level, push_tables(level), 400)
    if encoding == "pushes" and macro:
        import random

        from evosoko.evolve.box_macros import mut_append_box_path
        from evosoko.evolve.push_replay import push_tables
        from evosoko.search.packing_order import packing_order

        tables = push_tables(level, corrals=fitness.pi_corrals)
        layer, objective = packing_order(level).layer, fitness.objective
        stops, genome = fitness.stop_on_deadlock, list(_GENOMES[0])
        mut_append_box_path(genome, random.Random(0), tables, layer, objective, stops, 400)
    if hybrid:
        warm_up_search([hybrid])


def warm_up_given_holes(config: Config) -> None:
    """Compile (or load) the given-holes replay kernel (:mod:`evosoko.evolve.given_holes`), for
    runs that have given-holes levels; standard runs never pay for it."""
    from evosoko.evolve.fitness import FitnessFunction
    from evosoko.evolve.genomes import decode
    from evosoko.sokoban.build import level_from_rows
    from evosoko.sokoban.holes.board import given_holes_notes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        level = level_from_rows(
            list(WARM_UP_ROWS), title="warm-up", notes=given_holes_notes([1, 0])
        )
    FitnessFunction(level, config.ga.encoding, config.fitness)(list(_GENOMES))
    decode(level, config.ga.encoding, _GENOMES[0])


def warm_up_search(algorithms: Iterable[str]) -> None:
    """Compile (or load) the kernels of the named search algorithms (``evosoko.search``)."""
    from evosoko.search import warm_up

    warm_up(algorithms)


def warm_up_for(configs: Iterable[Config] = (), algorithms: Iterable[str] = ()) -> None:
    """Warm up for GA runs of ``configs`` and searches with ``algorithms``."""
    for config in configs:
        warm_up_config(config)
    algorithms = list(algorithms)
    if algorithms:
        warm_up_search(algorithms)


@contextmanager
def watch_compilation(on_start: Callable[[], None]) -> Iterator[None]:
    """Call ``on_start()`` once, when numba starts compiling a kernel inside the block (loading
    one from the cache does not count)."""
    from numba.core import event

    class Listener(event.Listener):
        started = False

        def on_start(self, _event) -> None:
            if not self.started:
                self.started = True
                on_start()

        def on_end(self, _event) -> None:
            pass

    listener = Listener()
    with event.install_listener("numba:compile", listener):
        yield
