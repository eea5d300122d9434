"""The settings of ``evosoko compare``: a comparison file's models, loaded and dumped.

A comparison file (TOML) has a ``[compare]`` table (name, level file, selection, seeds,
budget), a ``[parallel]`` table (the job backend), a ``[search]`` table (the knobs of its
searches, :mod:`evosoko.search.settings`) and one ``[[solver]]`` table per solver: a GA preset
(``kind = "ga"``: a run configuration file and ``set`` overrides) or a classical search
(``kind = "search"``: an algorithm with its heuristic, and a ``search`` table of its own whose
keys replace the file's, ``search.fess.cluster_limit = 3000``). See
:mod:`evosoko.experiment.compare.runner` for what a comparison runs and writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Annotated, Any, Literal

import tomli_w
from pydantic import BaseModel, Field, PrivateAttr, field_validator, model_validator

from evosoko.ceilings import Workers
from evosoko.config import TrackingConfig
from evosoko.config_loading import load_model, resolve_path
from evosoko.experiment.settings import DistinctSeeds, Section
from evosoko.search.algorithms import ALGORITHMS, heuristic_misfit
from evosoko.search.clocks import Clock
from evosoko.search.settings import SearchSettings, SettingsModel, changed_settings, settings_for

__all__ = [
    "CompareBudget",
    "CompareConfig",
    "CompareSettings",
    "GASolver",
    "JobsParallel",
    "SearchSolver",
    "dump_compare_config",
    "load_compare_config",
]


class CompareBudget(Section):
    """The budget of every job (one solver on one level with one seed)."""

    seconds: float = Field(default=60.0, gt=0, description="Seconds per job, on clock.")
    clock: Clock = Field(
        default="wall",
        description="What seconds counts: wall (wall-clock seconds) or cpu (the CPU seconds of "
        "the job's process, which runs a GA serially: the same work on a loaded machine).",
    )
    evaluations: int | None = Field(
        default=None, ge=1, description="Fitness evaluations per GA job (unset: no limit)."
    )
    nodes: int | None = Field(
        default=None, ge=1, description="Expanded nodes per search job (unset: no limit)."
    )


class CompareSettings(Section):
    """Name, levels, seeds and budget of a comparison."""

    name: str = Field(default="compare", min_length=1, description="Used in the folder name.")
    levels: str = Field(description="Level file (relative: current directory, then this file's).")
    select: list[str | int] = Field(
        default_factory=list,
        description="Titles or 1-based indices (#N: the N-th level, title:T: the level titled T; "
        "empty: all levels).",
    )
    first: int | None = Field(default=None, ge=1, description="Keep the first N selected levels.")
    seeds: DistinctSeeds = Field(
        default_factory=lambda: [0], min_length=1, description="Seeds of stochastic solvers."
    )
    budget: CompareBudget = Field(default_factory=CompareBudget, description="Per-job budget.")


class GASolver(Section):
    """A GA preset: a run configuration file plus overrides."""

    kind: Literal["ga"]
    name: str | None = Field(default=None, min_length=1, description="Label (default: file stem).")
    config: str | None = Field(default=None, description="Run configuration (default: defaults).")
    set: list[str] = Field(default_factory=list, description="KEY=VALUE overrides on it.")

    @property
    def label(self) -> str:
        """The solver's name in tables and plots."""
        return self.name or (Path(self.config).stem if self.config else "ga")

    @property
    def unit(self) -> str:
        """What its cost counts."""
        return "evaluations"


class SearchSolver(Section):
    """A classical search and its parameters."""

    kind: Literal["search"]
    name: str | None = Field(default=None, min_length=1, description="Label (default: algorithm).")
    algorithm: str = Field(description="One of evosoko.search.ALGORITHMS.")
    heuristic: str | None = Field(default=None, description="Heuristic (default: the algorithm's).")
    search: SearchSettings = Field(
        default_factory=SearchSettings,
        description="The search's knobs: keys of the [search] table that replace the file's.",
    )
    weight: float | None = Field(
        default=None, ge=1, description="Shorthand for the weight of the algorithm's settings."
    )
    freeze: bool | None = Field(
        default=None, description="Shorthand for search.push.freeze (and fess's, fess_bi's)."
    )
    corrals: bool | None = Field(
        default=None, description="Shorthand for the corrals of the algorithm's settings."
    )

    @field_validator("algorithm")
    @classmethod
    def _known(cls, algorithm: str) -> str:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm; known: {', '.join(ALGORITHMS)}")
        return algorithm

    @model_validator(mode="after")
    def _heuristic_fits(self) -> SearchSolver:
        misfit = heuristic_misfit(self.algorithm, self.heuristic)
        if misfit is not None:
            raise ValueError(misfit)
        return self

    @model_validator(mode="after")
    def _shorthands_apply(self) -> SearchSolver:
        settings = settings_for(self.algorithm, self.search)
        for key in SHORTHANDS:
            if getattr(self, key) is None:
                continue
            if settings is None or key not in type(settings).model_fields:
                raise ValueError(f"{key} does not apply to {self.algorithm}")
        return self

    @property
    def label(self) -> str:
        """The solver's name in tables and plots."""
        return self.name or self.algorithm

    @property
    def settings(self) -> SettingsModel | None:
        """The settings the search runs with: its ``search`` table's family, with the
        shorthands (``weight``, ``freeze``, ``corrals``) applied (None: a move-level search)."""
        settings = settings_for(self.algorithm, self.search)
        given = {key: getattr(self, key) for key in SHORTHANDS if getattr(self, key) is not None}
        if settings is None or not given:
            return settings
        return type(settings).model_validate({**settings.model_dump(), **given})

    def with_file_settings(self, base: SearchSettings) -> SearchSolver:
        """This row with its ``search`` table laid over the file's ``base``: the keys it sets
        replace ``base``'s."""
        return self.model_copy(update={"search": _overlay(base, self.search)})

    @property
    def stochastic(self) -> bool:
        """True when the search depends on its seed (so it runs once per seed)."""
        return ALGORITHMS[self.algorithm].stochastic

    @property
    def unit(self) -> str:
        """What its cost counts (expanded nodes; mcts: iterations)."""
        return ALGORITHMS[self.algorithm].unit


SHORTHANDS = ("weight", "freeze", "corrals")
"""Keys of a search row that stand for the same keys of its settings."""


def _overlay(base: BaseModel, top: BaseModel) -> Any:
    """``base`` with the fields ``top`` was given (tables field by field) in their place."""
    update: dict[str, Any] = {}
    for name in top.model_fields_set:
        value, under = getattr(top, name), getattr(base, name)
        if isinstance(value, BaseModel) and isinstance(under, BaseModel):
            update[name] = _overlay(under, value)
        else:
            update[name] = value
    return type(base).model_validate({**base.model_dump(), **update})


class JobsParallel(Section):
    """Where the jobs run; results do not depend on it (wall-clock limits aside)."""

    backend: Literal["serial", "processes", "dask"] = Field(
        default="serial",
        description="Job backend: serial, processes (a local pool) or dask (each job a task on "
        "a Dask cluster: give address or local_workers; needs pip install 'evosoko[dask]').",
    )
    workers: Workers = Field(default=2, ge=1, description="Processes of the processes backend.")
    address: str | None = Field(
        default=None, description="dask: the scheduler to use, such as tcp://HOST:8786."
    )
    local_workers: Workers | None = Field(
        default=None, ge=1, description="dask: start a local cluster of this many workers."
    )

    @model_validator(mode="after")
    def _dask_target(self) -> JobsParallel:
        if self.backend == "dask" and (self.address is None) == (self.local_workers is None):
            raise ValueError("backend 'dask' needs exactly one of address or local_workers")
        return self


Solver = Annotated[GASolver | SearchSolver, Field(discriminator="kind")]


class CompareConfig(Section):
    """A whole comparison file."""

    compare: CompareSettings
    parallel: JobsParallel = Field(default_factory=JobsParallel)
    search: SearchSettings = Field(
        default_factory=SearchSettings,
        description="The knobs of every search solver (a row's own search table replaces keys).",
    )
    solver: list[Solver] = Field(min_length=1, description="The solvers, in table order.")
    tracking: TrackingConfig = Field(
        default_factory=TrackingConfig, description="Tracking the comparison in MLflow."
    )
    _source: tuple[str, str] | None = PrivateAttr(default=None)
    """The file and its text, to point at the line of a bad GA override."""

    @model_validator(mode="after")
    def _rows_settings(self) -> CompareConfig:
        """Each search row holds its whole settings: the file's, its own keys in their place."""
        self.solver = [
            solver.with_file_settings(self.search) if isinstance(solver, SearchSolver) else solver
            for solver in self.solver
        ]
        return self

    @model_validator(mode="after")
    def _unique_labels(self) -> CompareConfig:
        labels = [solver.label for solver in self.solver]
        for label in labels:
            if labels.count(label) > 1:
                raise ValueError(f"two solvers are called {label!r}; give them distinct names")
        return self


def load_compare_config(path: str | PathLike[str], overrides: Sequence[str] = ()) -> CompareConfig:
    """Read and validate a comparison file; relative paths in it become absolute."""
    config, text = load_model(CompareConfig, path, overrides)
    base = Path(path).parent
    settings = config.compare.model_copy(
        update={"levels": resolve_path(config.compare.levels, base)}
    )
    solvers = [
        solver.model_copy(update={"config": resolve_path(solver.config, base)})
        if isinstance(solver, GASolver) and solver.config
        else solver
        for solver in config.solver
    ]
    resolved = config.model_copy(update={"compare": settings, "solver": solvers})
    resolved._source = (str(path), text)  # for error lines of GA overrides
    return resolved


def dump_compare_config(config: CompareConfig) -> str:
    """The comparison as TOML; :func:`load_compare_config` reads it back equal (the file's
    settings where they differ from the defaults, a row's where they differ from the file's;
    ``[tracking]`` only when it is not the default)."""
    untracked = {"tracking"} if config.tracking == TrackingConfig() else None
    data = config.model_dump(exclude_none=True, exclude=untracked)
    data["search"] = _nested(changed_settings(config.search))
    for row, solver in zip(data["solver"], config.solver):
        if isinstance(solver, SearchSolver):
            row["search"] = _nested(changed_settings(solver.search, base=config.search))
            if not row["search"]:
                del row["search"]
    return tomli_w.dumps({key: value for key, value in data.items() if value != {}})


def _nested(changed: dict[str, Any]) -> dict[str, Any]:
    """``{"fess.cluster_limit": 3000}`` as ``{"fess": {"cluster_limit": 3000}}`` (None as the
    word settings files use for it)."""
    tables: dict[str, Any] = {}
    for key, value in changed.items():
        *path, name = key.split(".")
        table = tables
        for part in path:
            table = table.setdefault(part, {})
        table[name] = "none" if value is None else value
    return tables
