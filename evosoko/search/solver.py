"""``solve``: run one named search on one level within a time and node budget."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from evosoko.errors import ConfigError
from evosoko.search.algorithms import Algorithm, algorithm_named, heuristic_for
from evosoko.search.clocks import Clock, clock_named
from evosoko.search.fess.run import FeatureSpaceRun
from evosoko.search.result import (
    MEMORY_LIMIT,
    SearchResult,
)
from evosoko.search.search_run import DEFAULT_MEMORY, SearchRun
from evosoko.search.settings import PushSettings, SearchSettings, SettingsModel, settings_for
from evosoko.search.store import (
    NODES,
    Store,
    cell_dtype,
    release_free_memory,
)
from evosoko.sokoban.level import Level
from evosoko.sokoban.variants import level_rules


def solve(
    level: Level,
    algo: str = "push-astar",
    heuristic: str | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    weight: float | None = None,
    partial: int = 0,
    *,
    settings: SearchSettings | SettingsModel | None = None,
    seed: int = 0,
    memory_limit: int = DEFAULT_MEMORY,
    model: str | None = None,
    clock: Clock = "wall",
) -> SearchResult:
    """Search ``level`` with algorithm ``algo`` and return a :class:`SearchResult`.

    ``time_limit`` (seconds) and ``node_limit`` (states expanded) end the search with status
    ``budget``, ``exhausted`` ``seconds`` / ``nodes``; a search that exhausts its space reports
    ``unsolvable``.
    ``settings``: the knobs of the search (:mod:`evosoko.search.settings`: the whole
    :class:`~evosoko.search.settings.SearchSettings` or the family's own model; None: the
    defaults), recorded in the result's ``settings``; ``weight``, when given, replaces the
    settings' heuristic weight (``push-wastar``, ``push-fess``); ``seed`` orders ``random``'s
    successors. With ``partial=k`` an interrupted search also returns its ``k`` best frontier
    states (lowest ``h``, then lowest cost; push-fess: the lowest, then the best state of each
    other feature cell) with their paths. Every solution and partial path
    is replay-verified; a failure raises :class:`evosoko.search.paths.SearchBug`. ``model`` is
    the deadlock network file of the ``push-learned`` searches (None: the one shipped).
    ``clock``: what ``time_limit`` counts, ``"wall"`` seconds or the process's ``"cpu"``
    seconds (:mod:`evosoko.search.clocks`); ``seconds`` of the result are wall seconds.
    """
    algorithm = algorithm_named(algo)
    heuristic = heuristic_for(algorithm, heuristic)
    chosen = settings_for(algorithm.name, settings, weight=weight)
    check_arguments(time_limit, node_limit, partial)
    clock_named(clock)  # an unknown clock fails before any search
    given_holes = level_rules(level).boxes_vanish
    if given_holes and not _plays_given_holes(algorithm):
        from evosoko.search.given_holes import solve_given_holes

        found = solve_given_holes(
            level,
            algorithm.name,
            heuristic,
            time_limit,
            node_limit,
            chosen.weight if isinstance(chosen, PushSettings) else PushSettings().weight,
            partial=partial,
            clock=clock,
        )
        return replace(found, settings=chosen)
    warm_up([algorithm.name], level.cells, given_holes=given_holes)
    budget = (time_limit, node_limit, chosen, seed, memory_limit)
    run = _run_class(algorithm)(level, algorithm, heuristic, *budget, clock=clock)
    run.model = model
    try:
        status = run.search()
    except MemoryError:  # an allocation the memory limit did not foresee found no room
        status = MEMORY_LIMIT
    result = replace(run.result(status, partial), settings=chosen)
    del run  # its only reference: its stores are freed here, before the next search starts
    release_free_memory()
    return result


def _run_class(algorithm: Algorithm) -> type:
    """The class that drives ``algorithm``'s search (the feature space has its own, and an
    algorithm with a :attr:`~evosoko.search.algorithms.Algorithm.runner` names its own)."""
    if algorithm.feature_space:
        return FeatureSpaceRun
    if algorithm.runner:
        import importlib

        module, _, name = algorithm.runner.partition(":")
        return getattr(importlib.import_module(module), name)
    return SearchRun


def _plays_given_holes(algorithm: Algorithm) -> bool:
    """Whether ``algorithm``'s own runner plays given-holes levels (the others go to
    :func:`evosoko.search.given_holes.solve_given_holes`)."""
    return bool(getattr(_run_class(algorithm), "plays_given_holes", False))


def check_arguments(time_limit: float | None, node_limit: int | None, partial: int = 0) -> None:
    """Raise :class:`ConfigError` for a budget or partial count that makes no sense (a weight
    is checked by the settings it goes into)."""
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"time limit must be positive, not {time_limit}")
    if node_limit is not None and node_limit < 1:
        raise ConfigError(f"node limit must be at least 1, not {node_limit}")
    if partial < 0:
        raise ConfigError(f"partial must be zero or more, not {partial}")


_WARMED: set[tuple[str, type, bool]] = set()
_WARM_UP_ROWS = ["#######", "#     #", "# $$. #", "#@  . #", "#######"]


def warm_up(
    algorithms: Iterable[str] | None = None, cells: int = 0, *, given_holes: bool = False
) -> None:
    """Compile (or load from the numba cache) the kernels of ``algorithms`` (default: every
    algorithm) once, outside any timed search.

    ``cells``: the size of the boards to come; the kernels are compiled once for boards that
    store cells in 16 bits and once for larger ones (:func:`evosoko.search.store.cell_dtype`).
    ``given_holes``: for given-holes levels (only the runners that play them compile a variant
    of their own, ``mcts``; the given-holes searches are not compiled).
    """
    from evosoko.search.algorithms import ALGORITHMS
    from evosoko.sokoban.build import level_from_rows
    from evosoko.sokoban.holes.board import given_holes_notes

    dtype = cell_dtype(cells)
    names = list(ALGORITHMS) if algorithms is None else list(algorithms)
    if given_holes:
        names = [name for name in names if _plays_given_holes(algorithm_named(name))]
    todo = [name for name in names if (name, dtype, given_holes) not in _WARMED]
    if not todo:
        return
    first = not _WARMED
    _WARMED.update((name, dtype, given_holes) for name in todo)
    notes = given_holes_notes([1, 0]) if given_holes else ()
    level = level_from_rows(_WARM_UP_ROWS, title="warm-up", notes=notes)
    for name in todo:
        algorithm = algorithm_named(name)
        if algorithm.guided:  # push-astar's kernel; the network needs no compiling
            warm_up(["push-astar"], cells)
            continue
        for heuristic in algorithm.heuristics:
            _warm_up_search(level, algorithm, heuristic, cells)
    if first:  # a long search grows its store: rehashing is a kernel of its own
        _warm_up_growth(level, cells)
    release_free_memory()  # what the searches and the compiler freed goes back to the system


def _warm_up_search(level: Level, algorithm: Algorithm, heuristic: str, cells: int) -> None:
    """Run ``algorithm`` with ``heuristic`` for 50 expansions on the warm-up ``level``, then
    the kernels it did not call (:meth:`~evosoko.search.search_run.SearchRun.compile_rest`)."""
    settings = settings_for(algorithm.name)
    run = _run_class(algorithm)(
        level, algorithm, heuristic, None, 50, settings, 0, DEFAULT_MEMORY, cells
    )
    run.result(run.search(), 0)
    if isinstance(run, SearchRun):  # not a runner of its own (mcts)
        run.compile_rest()


def _warm_up_growth(level: Level, cells: int) -> None:
    """Grow a store of the warm-up ``level`` once."""
    store = Store(level.box_count, capacity=64, cells=cells or level.cells)
    store.counters[NODES] = 60
    store.grow()
