"""Run configuration: TOML files validated by pydantic models, with ``KEY=VALUE`` overrides.

A configuration is parsed once, here at the edge, into a :class:`Config` of plain typed values
that the inner layers receive. This module holds the run's tables (``[run]``, ``[parallel]``,
``[hybrid]``, ``[searches]``, ``[output]``, ``[tracking]``); the GA's ``[ga]`` and ``[fitness]``
live in :mod:`evosoko.config_ga` and are re-exported here. Every model forbids unknown keys;
:func:`load_config` turns a typo into a :class:`ConfigError` that names the key, suggests the
closest valid one and gives the line of the TOML file it is on.

Paths: a relative ``run.levels`` is looked up first relative to the current directory, then
relative to the directory of the configuration file; the first that exists is stored as an
absolute path, so the resolved configuration (:func:`dump_config`) loads again from anywhere.
When neither exists the value is kept as written and reading the levels reports the error.

Unset values: TOML has no null, so an optional value (a budget limit, ``hybrid.memetic_every``)
is unset by leaving it out, or by writing the string ``"none"`` (``--set run.budget.seconds=none``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from os import PathLike
from typing import Any, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from evosoko.ceilings import (
    Individuals,
    Workers,
)
from evosoko.errors import ConfigError
from evosoko.search.settings import SearchSettings

__all__ = [
    "FITNESS_VALUES",
    "OVERRIDE_SOURCE",
    "BudgetConfig",
    "Config",
    "ConfigError",
    "CrossoverConfig",
    "FitnessConfig",
    "FitnessTermConfig",
    "GAConfig",
    "HybridConfig",
    "IslandsConfig",
    "MutationConfig",
    "OutputConfig",
    "ParallelConfig",
    "ParentsConfig",
    "RunConfig",
    "SearchesConfig",
    "SurvivalConfig",
    "assign_override",
    "dump_config",
    "load_config",
    "locate_key",
    "parse_override",
    "read_toml",
]


from evosoko.config_ga import (  # the GA's tables, re-exported
    FITNESS_VALUES,
    CrossoverConfig,
    FitnessConfig,
    FitnessTermConfig,
    GAConfig,
    IslandsConfig,
    MutationConfig,
    ParentsConfig,
    SurvivalConfig,
)
from evosoko.config_loading import (
    OVERRIDE_SOURCE,
    UNSET,
    assign_override,
    dump_config,
    load_config_model,
    locate_key,
    parse_override,
    read_toml,
    set_key,
)
from evosoko.config_tables import (  # the base of every table, and tables that name a part
    OMIT_DEFAULT,
    _none_word,
    _Section,
    unread_error,
)

# ---- [run] ----------------------------------------------------------------------------------


class BudgetConfig(_Section):
    """Per-level limits; the first one reached stops the level. At least one must be set."""

    generations: int | None = Field(
        default=None, ge=1, description="Most generations per level (unset: no limit)."
    )
    evaluations: int | None = Field(
        default=None, ge=1, description="Most fitness evaluations per level (unset: no limit)."
    )
    seconds: float | None = Field(
        default=60.0, gt=0, description="Most wall-clock seconds per level (unset: no limit)."
    )

    _unset = field_validator("generations", "evaluations", "seconds", mode="before")(_none_word)

    @model_validator(mode="after")
    def _one_limit(self) -> BudgetConfig:
        if self.generations is None and self.evaluations is None and self.seconds is None:
            raise ValueError("set at least one of generations, evaluations, seconds")
        return self


class RunConfig(_Section):
    """What to run: a name, the seed, the levels and the budget per level."""

    name: str = Field(default="run", min_length=1, description="Name used in the run folder.")
    seed: int = Field(default=0, description="Seed of the run's random number generators.")
    levels: str | None = Field(
        default=None,
        description="Level file to read (required to run). Relative paths are tried against the "
        "current directory, then the configuration file's directory.",
    )
    select: list[str | int] = Field(
        default_factory=list,
        description='Levels to run: titles or 1-based indices into the file; "#N" is always '
        'the N-th level, "title:T" always the level titled T (empty: all).',
    )
    budget: BudgetConfig = Field(default_factory=BudgetConfig, description="Per-level limits.")

    @field_validator("select")
    @classmethod
    def _positive_indices(cls, select: list[str | int]) -> list[str | int]:
        for spec in select:
            if isinstance(spec, int) and spec < 1:
                raise ValueError(f"level index {spec} is not 1-based (the first level is 1)")
        return select


# ---- [parallel] -----------------------------------------------------------------------------


class ParallelConfig(_Section):
    """Where fitness is evaluated. Results are identical whatever the backend."""

    backend: Literal["serial", "processes", "dask"] = Field(
        default="serial",
        description="serial: in this process; processes: a local process pool; dask: a Dask "
        "cluster (needs the optional extra: pip install 'evosoko[dask]'), either an existing "
        "scheduler (address) or a local cluster (local_workers).",
    )
    workers: Workers = Field(
        default=2, ge=1, description="Worker processes of the processes backend."
    )
    batch_size: int = Field(
        default=256,
        ge=1,
        description="Most genomes sent to a worker per task (fewer when a generation is small, "
        "so that every worker gets at least two batches).",
    )
    address: str | None = Field(
        default=None,
        description='dask: the scheduler to use, such as "tcp://HOST:8786" (started by '
        "`dask scheduler`); give either this or local_workers.",
    )
    local_workers: Workers | None = Field(
        default=None,
        ge=1,
        description="dask: start a cluster of this many single-threaded worker processes on "
        "this machine for the run, closed when it ends; give either this or address.",
    )
    retries: int = Field(
        default=2,
        ge=0,
        description="dask: times a failed task is run again before the run fails (a task "
        "whose worker died is moved to another worker in any case).",
    )

    _unset = field_validator("address", "local_workers", mode="before")(_none_word)

    @field_validator("address")
    @classmethod
    def _scheduler_address(cls, address: str | None) -> str | None:
        if address is not None and not re.fullmatch(r"[a-z][a-z0-9+.-]*://\S+", address):
            raise ValueError(f"address {address!r} is not a scheduler address like tcp://HOST:8786")
        return address

    @model_validator(mode="after")
    def _dask_target(self) -> ParallelConfig:
        if self.backend == "dask" and (self.address is None) == (self.local_workers is None):
            raise ValueError(
                "backend 'dask' needs exactly one of address (an existing scheduler, "
                "tcp://HOST:8786) or local_workers (a cluster on this machine)"
            )
        return self


# ---- [hybrid] -------------------------------------------------------------------------------


class HybridConfig(_Section):
    """Seeding the population from a bounded push search, and an optional memetic step."""

    enabled: bool = Field(default=False, description="Seed part of the population by search.")
    algorithm: str = Field(
        default="push-astar",
        description="Push-level search of the seeding and the memetic step: push-astar, "
        "push-wastar, push-greedy, push-fess (the feature-space search, for large levels) or "
        "push-fess-bi (push-fess with a pull search from the solved position).",
    )
    fraction: float = Field(
        default=0.25, ge=0, le=1, description="Share of the initial population seeded by search."
    )
    node_budget: int = Field(
        default=20_000, ge=1, description="Nodes the seeding push-A* may expand."
    )
    memetic_every: int | None = Field(
        default=None,
        ge=1,
        description="Improve the best individual by a bounded search every this many "
        "generations (unset: never); positions searched before are passed over, and with the "
        "lost search on, a search that proves its position lost ranks it last and the next "
        "best position is searched.",
    )
    memetic_node_budget: int = Field(
        default=2_000, ge=1, description="Nodes each memetic search may expand."
    )

    _unset = field_validator("memetic_every", mode="before")(_none_word)

    @field_validator("algorithm")
    @classmethod
    def _push_search(cls, value: str) -> str:
        from evosoko.search.algorithms import ALGORITHMS, PUSH

        choices = [
            name
            for name, algorithm in ALGORITHMS.items()
            if algorithm.level == PUSH and not algorithm.iterative
        ]
        if value not in choices:
            raise ValueError(f"unknown push search {value!r}; choose one of: {', '.join(choices)}")
        return value


# ---- [searches] -----------------------------------------------------------------------------


class SearchesConfig(_Section):
    """A population of searches: the individuals are push-fess settings
    (:mod:`evosoko.evolve.search_population`)."""

    enabled: bool = Field(
        default=False,
        description="Evolve push-fess settings instead of move or push genomes: each individual "
        "is a search of the level, scored by how far it gets within a node budget ([ga], "
        "[fitness] and [hybrid] are not used).",
    )
    population: Individuals = Field(default=8, ge=2, description="Searches per generation.")
    first_nodes: int = Field(
        default=100_000, ge=1, description="Expansions each search of generation 0 may make."
    )
    growth: float = Field(
        default=2.0,
        ge=1,
        description="Factor on the expansions of each generation over the one before.",
    )
    max_nodes: int = Field(
        default=1_000_000, ge=1, description="Most expansions of one search in any generation."
    )
    elitism: int = Field(
        default=2, ge=0, description="Best settings carried into the next generation."
    )
    tournament_size: int = Field(default=2, ge=1, description="Contestants per tournament.")
    crossover: float = Field(
        default=0.5, ge=0, le=1, description="Chance that a child mixes two parents' settings."
    )
    evolve: bool = Field(
        default=True,
        description="Breed each generation from the last (false: draw it at random, the "
        "portfolio selection is measured against).",
    )

    @model_validator(mode="after")
    def _elites_fit(self) -> SearchesConfig:
        if self.elitism >= self.population:
            raise ValueError(
                f"searches.elitism ({self.elitism}) must be below searches.population "
                f"({self.population})"
            )
        return self


# ---- [output] -------------------------------------------------------------------------------


class OutputConfig(_Section):
    """What a run writes."""

    dir: str = Field(default="runs", min_length=1, description="Folder that holds run folders.")
    plots: bool = Field(default=True, description="Draw plots when a run ends.")
    checkpoint_every: int = Field(
        default=10, ge=0, description="Write a checkpoint every this many generations (0: off)."
    )
    optimize_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Shorten every solution found (fewest moves, then pushes; evosoko optimize) "
        "for up to this many seconds before it is written (unset: off).",
    )

    _unset = field_validator("optimize_seconds", mode="before")(_none_word)


class TrackingConfig(_Section):
    """Logging a run to an MLflow tracking server or store (:mod:`evosoko.tracking`; needs the
    ``tracking`` extra: ``pip install -e '.[tracking]'``)."""

    enabled: bool = Field(default=False, description="Log the run to MLflow.")
    uri: str | None = Field(
        default=None,
        min_length=1,
        description="Tracking URI: http://host:port, a folder or sqlite:///file.db (unset: "
        "MLflow's own default, $MLFLOW_TRACKING_URI or ./mlruns).",
    )
    experiment: str = Field(default="evosoko", min_length=1, description="MLflow experiment.")
    run_name: str | None = Field(
        default=None, min_length=1, description="MLflow run name (unset: the folder's name)."
    )
    tags: dict[str, str] = Field(default_factory=dict, description="Tags of the MLflow run.")
    artifacts: bool = Field(
        default=True,
        description="Upload the configuration, summary, solutions, plots and report.html.",
    )

    _unset = field_validator("uri", "run_name", mode="before")(_none_word)


class Config(_Section):
    """A complete, validated run configuration: ``load_config(path)`` or ``Config()`` (every
    default); :meth:`set` changes a key as ``--set`` does, :meth:`to_toml` writes it."""

    run: RunConfig = Field(default_factory=RunConfig, description="What to run.")
    ga: GAConfig = Field(default_factory=GAConfig, description="The genetic algorithm.")
    fitness: FitnessConfig = Field(default_factory=FitnessConfig, description="Scoring.")
    parallel: ParallelConfig = Field(default_factory=ParallelConfig, description="Evaluation.")
    hybrid: HybridConfig = Field(default_factory=HybridConfig, description="Search seeding.")
    searches: SearchesConfig = Field(
        default_factory=SearchesConfig, description="A population of searches."
    )
    search: SearchSettings = Field(
        default_factory=SearchSettings,
        description="The searches' settings: hybrid seeding, memetic steps, the population of "
        "searches (evosoko.search.settings).",
        json_schema_extra=OMIT_DEFAULT,
    )
    output: OutputConfig = Field(default_factory=OutputConfig, description="Run output.")
    tracking: TrackingConfig = Field(
        default_factory=TrackingConfig,
        description="Run tracking in MLflow.",
        json_schema_extra={"omit_default": True},
    )

    @model_validator(mode="after")
    def _descriptors(self) -> Config:
        from evosoko.evolve.parts import parts_of

        if parts_of(self).archive and not self.fitness.fess_cells:
            self.fitness = self.fitness.model_copy(update={"fess_cells": True})
        return self

    @model_validator(mode="after")
    def _every_key_read(self) -> Config:
        from evosoko.config_reads import unread_values

        for unread, value in unread_values(self):
            raise unread_error(unread.key, unread.message(value), list(unread.deciders))
        return self

    def set(self, key: str | Mapping[str, Any], value: Any = UNSET) -> Config:
        """A copy with a key changed, validated exactly as ``--set KEY=VALUE`` (the same
        checks and messages): ``config.set("ga.population", 50)``;
        ``config.set("ga.population=50")`` with the value read as TOML; or several keys that
        must change together, ``config.set({"parallel.backend": "dask",
        "parallel.local_workers": 2})``."""
        return set_key(self, key, value)

    def to_toml(self) -> str:
        """The configuration as TOML, every value written out (:func:`dump_config`)."""
        return dump_config(self)


def load_config(path: str | PathLike[str] | None = None, overrides: Sequence[str] = ()) -> Config:
    """Read ``path`` (TOML; None: all defaults), apply ``KEY=VALUE`` overrides, validate.

    Raises :class:`ConfigError` with file and line for a missing file, a TOML syntax error, an
    unknown key (with the closest valid key suggested) or a value of the wrong type.
    """
    return load_config_model(Config, path, overrides)
