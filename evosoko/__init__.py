"""evosoko: evolutionary optimization and classical search for Sokoban.

The public API (:mod:`evosoko.api`), importable from the package itself::

    import evosoko

    level = evosoko.load_levels("levels/seeds.xsb", ["seed000-case3"])[0]
    result = evosoko.evolve(level, evosoko.preset("default"))
    result.history.to_pandas()

Levels, configurations and results: :func:`load_levels`, :class:`Config`, :func:`preset`,
:class:`Result`, :class:`Budget`, and how a run ended: :class:`Status` / :class:`Stop`
(:mod:`evosoko.status`). Solving: :func:`evolve` (the GA), :func:`solve` (search),
:func:`verify`. Experiments: :func:`run` / :func:`resume` / :func:`open_run` (run folders),
:func:`compare`, :func:`sweep`, :func:`report`, :func:`plot`, :func:`export` (IOHprofiler),
:func:`results` (one tidy table of results for pandas).
Evolving levels: :func:`evolve_levels` / :func:`resume_levels` / :func:`open_levels`
(:mod:`evosoko.levelgen`), with :func:`load_levels_config`.
Your own parts: :func:`register_mutation`, :func:`register_crossover`,
:func:`register_parent_selection`, :func:`register_survival`, :func:`register_fitness_term`,
:func:`register_level_mutation`, :func:`register_level_crossover`,
:func:`register_level_objective` and :class:`Callback`. Shortening
solutions lives in :mod:`evosoko.optimize`, level generation in :mod:`evosoko.generate`.

Every name is imported on first use, so ``import evosoko`` loads nothing else (no numba
kernels, no pydantic) until you use it; it only points numba's cache at the folder of this
version of the sources (:mod:`evosoko.kernel_cache`).

``evosoko.evolve`` is the function :func:`evosoko.api.evolve`. The GA's package of the same
name is reached by importing from it (``from evosoko.evolve.engine import Engine``,
``from evosoko.evolve import make_evaluator``); the attribute stays the function after such
imports (and ``import evosoko.evolve as x`` gives the function).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from evosoko.kernel_cache import configure_kernel_cache

__version__ = "0.1.0"

configure_kernel_cache()  # compiled kernels are kept per version of the sources

if TYPE_CHECKING:
    from evosoko.api import evolve
else:
    # Loading a subpackage binds its name in this package; the GA's package is loaded first
    # (its names are imported on first use, so this is cheap), then the name becomes the
    # function, and later imports of the package's modules leave it alone. The API module
    # loads its own imports on first use too.
    importlib.import_module("evosoko.evolve")
    evolve = importlib.import_module("evosoko.api").evolve

if TYPE_CHECKING:
    from evosoko.api import (
        compare,
        evolve_levels,
        export,
        load_config,
        load_levels,
        load_levels_config,
        open_levels,
        open_run,
        plot,
        preset,
        presets,
        report,
        results,
        resume,
        resume_levels,
        run,
        select_levels,
        solve,
        stored_solutions,
        sweep,
        verify,
    )
    from evosoko.budget import Budget
    from evosoko.config import Config
    from evosoko.errors import ConfigError, EvosokoError, LevelFormatError, SolutionError
    from evosoko.evolve.callbacks import Callback, Generation
    from evosoko.result import GenerationStats, History, Result
    from evosoko.sokoban.level import Level, State
    from evosoko.status import Status, Stop

_MODULES = {
    "Budget": "evosoko.budget",
    "Config": "evosoko.config",
    "EvosokoError": "evosoko.errors",
    "ConfigError": "evosoko.errors",
    "LevelFormatError": "evosoko.errors",
    "SolutionError": "evosoko.errors",
    "Callback": "evosoko.evolve.callbacks",
    "Generation": "evosoko.evolve.callbacks",
    "GenerationStats": "evosoko.result",
    "History": "evosoko.result",
    "Result": "evosoko.result",
    "Level": "evosoko.sokoban.level",
    "State": "evosoko.sokoban.level",
    "Status": "evosoko.status",
    "Stop": "evosoko.status",
}
"""Where each public name that is not a function of :mod:`evosoko.api` lives."""
_REGISTRIES = {
    "register_mutation": "mutations",
    "register_crossover": "crossovers",
    "register_parent_selection": "parent_selections",
    "register_survival": "survivals",
    "register_fitness_term": "fitness_terms",
    "register_level_mutation": "level_mutations",
    "register_level_crossover": "level_crossovers",
    "register_level_objective": "level_objectives",
}

__all__ = [
    "Budget",
    "Callback",
    "Config",
    "ConfigError",
    "EvosokoError",
    "Generation",
    "GenerationStats",
    "History",
    "Level",
    "LevelFormatError",
    "Result",
    "SolutionError",
    "State",
    "Status",
    "Stop",
    "compare",
    "evolve",
    "evolve_levels",
    "export",
    "load_config",
    "load_levels",
    "load_levels_config",
    "open_levels",
    "open_run",
    "plot",
    "preset",
    "presets",
    "register_crossover",
    "register_fitness_term",
    "register_level_crossover",
    "register_level_mutation",
    "register_level_objective",
    "register_mutation",
    "register_parent_selection",
    "register_survival",
    "report",
    "results",
    "resume",
    "resume_levels",
    "run",
    "select_levels",
    "solve",
    "stored_solutions",
    "sweep",
    "verify",
]


def __getattr__(name: str) -> Any:
    if name in _REGISTRIES:
        registry = importlib.import_module("evosoko.evolve.registry")
        value = getattr(registry, _REGISTRIES[name]).register
    elif name in __all__:
        value = getattr(importlib.import_module(_MODULES.get(name, "evosoko.api")), name)
    else:
        raise AttributeError(f"module 'evosoko' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
