"""The sweep file: its tables as pydantic models, read with errors that name file and line.

A sweep file (TOML) has a ``[sweep]`` table (method, base run configuration and overrides,
levels, seeds, budget, trials), a ``[parameters]`` table whose keys are dotted paths into the
run configuration (``"ga.mutation.replace_rate"``) and a ``[parallel]`` table (job backend).
With ``[sweep] algorithm`` set the trials run that search instead of the GA, and the parameters
are keys of the ``[search]`` table (``"search.fess.cluster_limit"``); its budget is ``seconds``
and ``nodes``:

- a list of values is a grid axis (grid search), or a set of choices (random, Optuna);
- a table ``{ low = ..., high = ..., log = true }`` is a range (random and Optuna only);
  integers when both ends are integers.

The names of the files a sweep folder holds are here too (see
:mod:`evosoko.experiment.sweep.runner`).
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import Field, PrivateAttr, field_validator, model_validator

from evosoko.config import Config, TrackingConfig
from evosoko.config_loading import leaf_keys, load_model, resolve_path
from evosoko.errors import ConfigError
from evosoko.experiment.compare.config import JobsParallel
from evosoko.experiment.settings import DistinctSeeds, Section

__all__ = ["SweepConfig", "dump_sweep_config", "load_sweep_config"]

CONFIG_FILE = "sweep.toml"
JOURNAL_FILE = "journal.jsonl"
OPTUNA_FILE = "optuna.journal"
INDEX_FILE = "index.csv"
RESULTS_FILE = "results.csv"
BEST_FILE = "best.toml"

Scalar = bool | int | float | str


class ParameterRange(Section):
    """A range to sample from: integers when ``low`` and ``high`` are both integers."""

    low: int | float
    high: int | float
    log: bool = Field(default=False, description="Sample the logarithm uniformly.")

    @model_validator(mode="after")
    def _ordered(self) -> ParameterRange:
        if not self.low < self.high:
            raise ValueError(f"low {self.low} must be below high {self.high}")
        if self.log and self.low <= 0:
            raise ValueError("a log range needs low > 0")
        return self

    @property
    def integer(self) -> bool:
        """True when values are integers."""
        return isinstance(self.low, int) and isinstance(self.high, int)


class SweepBudget(Section):
    """The budget of every run in the sweep (the first limit reached stops it): seconds and
    evaluations or generations of a GA, seconds and expanded nodes of a search."""

    seconds: float | None = Field(default=60.0, gt=0, description="Wall seconds per run.")
    evaluations: int | None = Field(default=None, ge=1, description="Evaluations per GA run.")
    generations: int | None = Field(default=None, ge=1, description="Generations per GA run.")
    nodes: int | None = Field(
        default=None, ge=1, description="Expanded nodes per search run (mcts: iterations)."
    )

    @model_validator(mode="after")
    def _one_limit(self) -> SweepBudget:
        limits = (self.seconds, self.evaluations, self.generations, self.nodes)
        if all(limit is None for limit in limits):
            raise ValueError("set at least one of seconds, evaluations, generations, nodes")
        return self

    @property
    def cost(self) -> int | None:
        """The budget of the cost a trial is ranked by: expanded nodes of a search sweep,
        evaluations of a GA sweep (None: no such limit)."""
        return self.nodes if self.nodes is not None else self.evaluations


class SweepSettings(Section):
    """What a sweep runs and how it chooses trials."""

    name: str = Field(default="sweep", min_length=1, description="Used in the folder name.")
    method: Literal["grid", "random", "optuna"] = Field(default="grid", description="Search.")
    base: str | None = Field(default=None, description="Run configuration the trials start from.")
    set: list[str] = Field(default_factory=list, description="KEY=VALUE overrides on the base.")
    levels: str | None = Field(default=None, description="Level file (default: the base's).")
    select: list[str | int] = Field(default_factory=list, description="Titles or indices.")
    first: int | None = Field(default=None, ge=1, description="Keep the first N levels.")
    seeds: DistinctSeeds = Field(default_factory=lambda: [0], min_length=1, description="GA seeds.")
    trials: int | None = Field(default=None, ge=1, description="Trials of random / optuna.")
    algorithm: str | None = Field(
        default=None,
        description="A search to tune instead of the GA (one of evosoko.search.ALGORITHMS): "
        "the parameters are then keys of its [search] table.",
    )
    heuristic: str | None = Field(
        default=None, description="The search's heuristic (default: the algorithm's)."
    )
    sampler_seed: int = Field(default=0, description="Seed of the random and TPE samplers.")
    budget: SweepBudget = Field(default_factory=SweepBudget, description="Per-run budget.")

    @field_validator("algorithm")
    @classmethod
    def _known_search(cls, algorithm: str | None) -> str | None:
        from evosoko.search.algorithms import ALGORITHMS

        if algorithm is not None and algorithm not in ALGORITHMS:
            raise ValueError(f"unknown search algorithm; known: {', '.join(ALGORITHMS)}")
        return algorithm

    @model_validator(mode="after")
    def _budget_fits(self) -> SweepSettings:
        from evosoko.search.algorithms import heuristic_misfit

        budget = self.budget
        if self.algorithm is None:
            if budget.nodes is not None:
                raise ValueError("budget.nodes bounds a search sweep: set sweep.algorithm")
            if self.heuristic is not None:
                raise ValueError("heuristic goes with a search sweep: set sweep.algorithm")
            return self
        if budget.evaluations is not None or budget.generations is not None:
            raise ValueError(
                "a search sweep's budget is seconds and nodes, not evaluations or generations"
            )
        misfit = heuristic_misfit(self.algorithm, self.heuristic)
        if misfit is not None:
            raise ValueError(misfit)
        return self

    @property
    def unit(self) -> str:
        """What a trial's cost counts: evaluations (GA), expanded nodes or mcts's iterations."""
        if self.algorithm is None:
            return "evaluations"
        from evosoko.search.algorithms import ALGORITHMS

        return ALGORITHMS[self.algorithm].unit


class SweepConfig(Section):
    """A whole sweep file."""

    sweep: SweepSettings
    parameters: dict[str, list[Scalar] | ParameterRange] = Field(min_length=1)
    parallel: JobsParallel = Field(default_factory=JobsParallel)
    tracking: TrackingConfig = Field(
        default_factory=TrackingConfig, description="Tracking the sweep in MLflow."
    )
    _source: tuple[str, str] | None = PrivateAttr(default=None)

    @field_validator("parameters")
    @classmethod
    def _values_given(cls, parameters: dict) -> dict:
        for key, values in parameters.items():
            if isinstance(values, list) and not values:
                raise ValueError(f"parameter {key!r} has no values")
        return parameters

    @model_validator(mode="after")
    def _method_fits(self) -> SweepConfig:
        method = self.sweep.method
        ranges = [k for k, v in self.parameters.items() if isinstance(v, ParameterRange)]
        if method == "grid" and ranges:
            raise ValueError(f"grid search needs lists of values, not ranges ({ranges[0]!r})")
        if method != "grid" and self.sweep.trials is None:
            raise ValueError(f"method {method!r} needs sweep.trials")
        return self

    def grid_axes(self) -> dict[str, list[Scalar]]:
        """The values of every parameter of a grid search (lists: grid files have no ranges)."""
        axes = {}
        for key, values in self.parameters.items():
            if isinstance(values, ParameterRange):
                raise TypeError(f"grid search needs lists of values, not ranges ({key!r})")
            axes[key] = values
        return axes


def load_sweep_config(path: str | PathLike[str], overrides: Sequence[str] = ()) -> SweepConfig:
    """Read and validate a sweep file: parameter keys must be run-configuration keys."""
    config, text = load_model(SweepConfig, path, overrides)
    base_dir = Path(path).parent
    update: dict[str, Any] = {}
    if config.sweep.base:
        update["base"] = resolve_path(config.sweep.base, base_dir)
    if config.sweep.levels:
        update["levels"] = resolve_path(config.sweep.levels, base_dir)
    resolved = config.model_copy(update={"sweep": config.sweep.model_copy(update=update)})
    resolved._source = (str(path), text)
    for key in resolved.parameters:
        _check_key(key, str(path), text, resolved.sweep.algorithm)
    return resolved


PART_TABLES = ("ga.mutation.", "ga.crossover.", "ga.parents.", "ga.survival.")
"""Tables whose plugin part may take keys of its own (checked when a trial is configured)."""


def _check_key(key: str, path: str, text: str, algorithm: str | None = None) -> None:
    """A parameter key must name a value of the run configuration (or a parameter of a plugin
    part, whose table then checks it for every trial); of a search sweep, a key of the
    ``[search]`` table."""
    keys = [".".join(k) for k in leaf_keys(Config)]
    if algorithm is not None:
        keys = [k for k in keys if k.startswith("search.")]
    if key in keys:
        return
    table, _, name = key.rpartition(".")
    if algorithm is None and f"{table}." in PART_TABLES and name.isidentifier():
        return
    import difflib

    close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    line = next((n for n, t in enumerate(text.splitlines(), 1) if key in t and "=" in t), None)
    what = "a key of the [search] table" if algorithm is not None else "a run configuration key"
    raise ConfigError(f"parameter {key!r} is not {what}{hint}", path, line)


def dump_sweep_config(config: SweepConfig) -> str:
    """The sweep as TOML; :func:`load_sweep_config` reads it back equal."""
    untracked = {"tracking"} if config.tracking == TrackingConfig() else None
    return tomli_w.dumps(config.model_dump(exclude_none=True, exclude=untracked))
