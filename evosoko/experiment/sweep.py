"""``evosoko sweep``: tune GA settings by grid search, random search or Optuna (TPE).

A sweep file (TOML) has a ``[sweep]`` table (method, base run configuration and overrides,
levels, seeds, budget, trials), a ``[parameters]`` table whose keys are dotted paths into the
run configuration (``"ga.mutation.replace_rate"``) and a ``[parallel]`` table (job backend):

- a list of values is a grid axis (grid search), or a set of choices (random, Optuna);
- a table ``{ low = ..., high = ..., log = true }`` is a range (random and Optuna only);
  integers when both ends are integers.

Each trial (one setting of the parameters) runs the GA on every level with every seed; its
metrics are the solve rate and the median evaluations over all runs (a failed run counted at
the evaluation budget), compared in that order. Optuna maximises
``solve_rate - normalised_median_evaluations / (runs + 1)``, which orders trials the same way.

Output folder: ``sweep.toml`` (resolved), ``journal.jsonl`` (finished jobs, keyed by the
trial's settings, so a rerun skips them), ``optuna.journal`` (the study, which several
processes may share), ``index.csv`` (one row per trial), ``results.csv`` (one row per job),
``best.toml`` (a complete configuration for ``evosoko run``) and ``plots/``.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import itertools
import json
import math
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tomli_w
from pydantic import BaseModel, Field, PrivateAttr, field_validator, model_validator

from evosoko.config import OVERRIDE_SOURCE, Config, dump_config, load_config
from evosoko.errors import ConfigError
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.compare import JobsParallel, LevelEntry, comparison_levels, run_job
from evosoko.experiment.runfolder import make_output_folder, output_folder
from evosoko.experiment.settings import (
    Section,
    check_same_experiment,
    load_model,
    locate,
    resolve_path,
    toml_value,
)
from evosoko.experiment.statistics import (
    Cost,
    Interval,
    TieReport,
    level_groups,
    median_interval,
    rate_interval,
    stable_seed,
    sweep_ties,
)
from evosoko.experiment.warmup import warm_up_for
from evosoko.parallel.backends import make_backend
from evosoko.parallel.dask_cluster import check_backend_reachable
from evosoko.parallel.jobs import Job, Journal, run_jobs

__all__ = [
    "SweepConfig",
    "SweepOutcome",
    "Trial",
    "load_sweep_config",
    "plan_trials",
    "run_sweep",
]

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
    """The budget of every GA run in the sweep (the first limit reached stops it)."""

    seconds: float | None = Field(default=60.0, gt=0, description="Wall seconds per run.")
    evaluations: int | None = Field(default=None, ge=1, description="Evaluations per run.")
    generations: int | None = Field(default=None, ge=1, description="Generations per run.")

    @model_validator(mode="after")
    def _one_limit(self) -> SweepBudget:
        if self.seconds is None and self.evaluations is None and self.generations is None:
            raise ValueError("set at least one of seconds, evaluations, generations")
        return self


class SweepSettings(Section):
    """What a sweep runs and how it chooses trials."""

    name: str = Field(default="sweep", min_length=1, description="Used in the folder name.")
    method: Literal["grid", "random", "optuna"] = Field(default="grid", description="Search.")
    base: str | None = Field(default=None, description="Run configuration the trials start from.")
    set: list[str] = Field(default_factory=list, description="KEY=VALUE overrides on the base.")
    levels: str | None = Field(default=None, description="Level file (default: the base's).")
    select: list[str | int] = Field(default_factory=list, description="Titles or indices.")
    first: int | None = Field(default=None, ge=1, description="Keep the first N levels.")
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, description="GA seeds.")
    trials: int | None = Field(default=None, ge=1, description="Trials of random / optuna.")
    sampler_seed: int = Field(default=0, description="Seed of the random and TPE samplers.")
    budget: SweepBudget = Field(default_factory=SweepBudget, description="Per-run budget.")

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, seeds: list[int]) -> list[int]:
        if len(set(seeds)) != len(seeds):
            raise ValueError("seeds must be distinct")
        return seeds


class SweepConfig(Section):
    """A whole sweep file."""

    sweep: SweepSettings
    parameters: dict[str, list[Scalar] | ParameterRange] = Field(min_length=1)
    parallel: JobsParallel = Field(default_factory=JobsParallel)
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


def load_sweep_config(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> SweepConfig:
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
        _check_key(key, str(path), text)
    return resolved


PART_TABLES = ("ga.mutation.", "ga.crossover.", "ga.parents.", "ga.survival.")
"""Tables whose plugin part may take keys of its own (checked when a trial is configured)."""


def _check_key(key: str, path: str, text: str) -> None:
    """A parameter key must name a value of the run configuration (or a parameter of a plugin
    part, whose table then checks it for every trial)."""
    keys = [".".join(k) for k in _value_keys(Config)]
    if key in keys:
        return
    table, _, name = key.rpartition(".")
    if f"{table}." in PART_TABLES and name.isidentifier():
        return
    import difflib

    close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    line = next((n for n, t in enumerate(text.splitlines(), 1) if key in t and "=" in t), None)
    raise ConfigError(f"parameter {key!r} is not a run configuration key{hint}", path, line)


def _value_keys(model, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    keys = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.extend(_value_keys(annotation, prefix + (name,)))
        else:
            keys.append(prefix + (name,))
    return keys


def dump_sweep_config(config: SweepConfig) -> str:
    """The sweep as TOML; :func:`load_sweep_config` reads it back equal."""
    return tomli_w.dumps(config.model_dump(exclude_none=True))


# ---- trials -------------------------------------------------------------------------------------


@dataclass
class Trial:
    """One setting of the parameters and, once run, its metrics."""

    number: int
    params: dict[str, Scalar]
    status: str = "pending"
    runs: int = 0
    solved: int = 0
    median_evaluations: float | None = None
    median_seconds: float | None = None
    error: str | None = None
    rows: list[dict] = field(default_factory=list, repr=False)

    @property
    def solve_rate(self) -> float:
        """Solved runs / runs."""
        return self.solved / self.runs if self.runs else 0.0

    def rank_key(self) -> tuple[float, float]:
        """Larger is better: solve rate, then fewer median evaluations."""
        return (
            self.solve_rate,
            -(self.median_evaluations if self.median_evaluations is not None else math.inf),
        )


def plan_trials(config: SweepConfig) -> list[Trial]:
    """The trials of a grid (every combination, in order) or random search (seeded draws)."""
    keys = list(config.parameters)
    if config.sweep.method == "grid":
        axes = [config.parameters[k] for k in keys]
        return [
            Trial(n, dict(zip(keys, values))) for n, values in enumerate(itertools.product(*axes))
        ]
    rng = random.Random(config.sweep.sampler_seed)
    return [
        Trial(n, {k: _draw(rng, config.parameters[k]) for k in keys})
        for n in range(config.sweep.trials or 0)
    ]


def _draw(rng: random.Random, spec: list[Scalar] | ParameterRange) -> Scalar:
    if isinstance(spec, list):
        return rng.choice(spec)
    if spec.log:
        value = math.exp(rng.uniform(math.log(spec.low), math.log(spec.high)))
    else:
        value = rng.uniform(spec.low, spec.high)
    return min(spec.high, max(spec.low, round(value))) if spec.integer else value


def trial_config(config: SweepConfig, params: dict[str, Scalar]) -> Config:
    """The run configuration of a trial: base, its overrides, the sweep's levels and budget,
    then the parameters. A bad value raises :class:`ConfigError` naming the parameter."""
    settings, budget = config.sweep, config.sweep.budget
    fixed = [
        f"run.budget.seconds={_limit(budget.seconds)}",
        f"run.budget.evaluations={_limit(budget.evaluations)}",
        f"run.budget.generations={_limit(budget.generations)}",
        "parallel.backend=serial",
        "output.checkpoint_every=0",
        "output.plots=false",
    ]
    if settings.levels:
        fixed.append(f"run.levels={toml_value(settings.levels)}")
    trial = [f"{key}={toml_value(value)}" for key, value in params.items()]
    try:
        return load_config(settings.base, [*settings.set, *fixed, *trial])
    except ConfigError as error:
        if error.path != OVERRIDE_SOURCE:
            raise
        source = config._source or ("<sweep>", "")
        described = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise ConfigError(
            f"trial ({described}): {error.message}", source[0], locate(source[1], ("parameters",))
        ) from None


def _limit(value: float | None) -> str:
    return "none" if value is None else toml_value(value)


def sweep_levels(config: SweepConfig, *, strict: bool = False) -> list[LevelEntry]:
    """The sweep's levels: its own level file, else the base configuration's (``strict``: an
    invalid level in the file is an error, not a warning)."""
    from evosoko.experiment.compare import CompareSettings

    base = (
        load_config(config.sweep.base, config.sweep.set)
        if config.sweep.base or config.sweep.set
        else None
    )
    levels = config.sweep.levels or (base.run.levels if base else None)
    if not levels:
        source = config._source[0] if config._source else None
        raise ConfigError("no levels: set sweep.levels or run.levels in the base", source)
    source: tuple[str, str | None] | None = config._source
    keys = ("sweep", "select")
    select = config.sweep.select
    if not select and base and not config.sweep.levels:
        select = base.run.select
        source, keys = (config.sweep.base, None) if config.sweep.base else None, ("run", "select")
    return comparison_levels(
        CompareSettings(levels=levels, select=select, first=config.sweep.first),
        source,  # type: ignore[arg-type]
        keys,
        strict=strict,
    )


def _params_digest(config_text: str) -> str:
    return hashlib.sha1(config_text.encode()).hexdigest()[:12]


def trial_jobs(
    trial: Trial, run_config: Config, levels: list[LevelEntry], seeds: list[int]
) -> list[Job]:
    """The jobs of one trial: every level with every seed. Keys depend only on the resolved
    configuration, level and seed, so equal settings share results across trials and reruns."""
    text = dump_config(run_config)
    digest = _params_digest(text)
    jobs = []
    for entry in levels:
        for seed in seeds:
            payload = {
                "kind": "ga",
                "config": text,
                "rows": entry.level.rows(),
                "title": entry.level.title,
                "seed": seed,
                "solver": f"trial-{trial.number}",
                "level_index": entry.index,
            }
            jobs.append(Job(f"{digest}|{entry.index}|{seed}", payload))
    return jobs


def score_trial(
    trial: Trial, results: list[dict], names: dict[int, str], budget: SweepBudget, jobs: list[Job]
) -> None:
    """Fill the trial's metrics and per-job rows from its finished jobs."""
    trial.rows = []
    for job, result in zip(jobs, results):
        failed = "error" in result
        trial.rows.append(
            {
                "trial": trial.number,
                **trial.params,
                "level_index": job.payload["level_index"],
                "level": names[job.payload["level_index"]],
                "seed": job.payload["seed"],
                "status": "error" if failed else result["status"],
                "solved": bool(result.get("solved")),
                "evaluations": result.get("used", 0),
                "seconds": result.get("seconds", 0.0),
                "moves": result.get("moves"),
                "pushes": result.get("pushes"),
            }
        )
    errors = [r for r in results if "error" in r]
    trial.runs = len(results)
    trial.solved = sum(1 for row in trial.rows if row["solved"])
    cap = budget.evaluations
    spent = [row["evaluations"] if row["solved"] or cap is None else cap for row in trial.rows]
    trial.median_evaluations = float(np.median(spent)) if spent else None
    times = [row["seconds"] for row in trial.rows if row["solved"]]
    trial.median_seconds = float(np.median(times)) if times else None
    trial.status = "error" if errors else "complete"
    trial.error = errors[0]["error"] if errors else None


def objective_value(trial: Trial, budget: SweepBudget) -> float:
    """Solve rate minus a tie-breaker below one run's worth: the normalised median evaluations."""
    median = trial.median_evaluations or 0.0
    scale = budget.evaluations
    normalised = median / scale if scale else median / (median + 1.0)
    return trial.solve_rate - min(1.0, normalised) / (trial.runs + 1)


# ---- running ------------------------------------------------------------------------------------


@dataclass
class SweepOutcome:
    """What :func:`run_sweep` produced; ``best`` is None when no trial completed."""

    folder: Path
    trials: list[Trial]
    best: Trial | None
    complete: bool
    ties: TieReport | None = None
    """Which trials the data cannot tell from ``best`` (see :func:`tie_report`)."""

    @property
    def tied(self) -> list[Trial]:
        """The trials that tie with ``best`` (``best`` not included)."""
        numbers = set(self.ties.tied) if self.ties else set()
        return [trial for trial in self.trials if trial.number in numbers]


ProgressCallback = Callable[[int, int, str], None]
"""``progress(done, total, what)``: jobs finished of the jobs known so far."""


def sweep_folder(config: SweepConfig, out: str | Path | None, parent: str | Path = "runs") -> Path:
    """``out`` if given, else a new folder under ``parent`` named like a run's."""
    return output_folder(config.sweep.name, out, parent)


def run_sweep(
    config: SweepConfig,
    folder: str | Path,
    *,
    progress: ProgressCallback | None = None,
    stop_after: int | None = None,
    plots: bool = True,
    strict: bool = False,
) -> SweepOutcome:
    """Run (or resume) the sweep in ``folder`` and write its files.

    A folder that holds a different sweep (other than in ``[parallel]``) is refused with a
    :class:`ConfigError` naming the keys that differ. ``stop_after``: stop after that many new
    jobs (grid and random) or trials (Optuna). ``strict``: an invalid level in the level file
    is an error, not a warning.
    """
    folder = Path(folder)
    stored = folder / CONFIG_FILE
    check_same_experiment(
        folder, load_sweep_config(stored) if stored.is_file() else None, config, "sweep", "sweep"
    )
    levels = sweep_levels(config, strict=strict)
    if not levels:
        raise ConfigError("the sweep selects no levels", config.sweep.levels)
    planned = []
    if config.sweep.method == "optuna":
        from evosoko.experiment.tuning import require_optuna

        path, text = config._source or (None, "")
        line = next((n for n, t in enumerate(text.splitlines(), 1) if "method" in t), None)
        require_optuna(path, line)
    else:  # every trial's configuration checked before running
        planned = [(trial, trial_config(config, trial.params)) for trial in plan_trials(config)]
    check_backend_reachable(config.parallel)  # before anything is written
    make_output_folder(folder)
    write_text_atomic(folder / CONFIG_FILE, dump_sweep_config(config))
    journal = Journal(folder / JOURNAL_FILE)
    if config.sweep.method == "optuna":
        from evosoko.experiment.tuning import run_optuna

        trials, complete = run_optuna(config, folder, levels, journal, progress, stop_after)
    else:
        trials, complete = _run_planned(config, planned, levels, journal, progress, stop_after)
    best = write_sweep_files(folder, config, trials, levels, plots=plots)
    return SweepOutcome(folder, trials, best, complete, tie_report(config, trials))


def _run_planned(
    config, planned, levels, journal, progress, stop_after
) -> tuple[list[Trial], bool]:
    trials = [trial for trial, _ in planned]
    per_trial = [trial_jobs(t, c, levels, config.sweep.seeds) for t, c in planned]
    unique = list({job.key: job for jobs in per_trial for job in jobs}.values())
    done = {"count": 0}

    def on_result(job: Job, result: dict, resumed: bool) -> None:
        done["count"] += 1
        if progress is not None and not resumed:
            outcome = (
                "error" if "error" in result else "solved" if result["solved"] else result["status"]
            )
            progress(
                done["count"],
                len(unique),
                f"{job.payload['solver']} level "
                f"{job.payload['level_index']} seed {job.payload['seed']}: {outcome}",
            )

    backend = sweep_backend(config, [run_config for _, run_config in planned])
    results = run_jobs(
        unique, run_job, backend, journal=journal, on_result=on_result, stop_after=stop_after
    )
    names = {entry.index: entry.level.name for entry in levels}
    for trial, jobs in zip(trials, per_trial):
        if all(job.key in results for job in jobs):
            score_trial(trial, [results[job.key] for job in jobs], names, config.sweep.budget, jobs)
    complete = all(trial.status == "complete" for trial in trials)
    return trials, complete


def sweep_backend(config: SweepConfig, run_configs: list[Config]):
    """The job backend of a sweep, its workers warmed up for ``run_configs`` (compiled here
    first, before any job's clock; forked workers inherit it)."""
    warm_up = functools.partial(warm_up_for, run_configs)
    warm_up()
    return make_backend(config.parallel, warm_up=warm_up)


def best_trial(trials: list[Trial]) -> Trial | None:
    """The complete trial with the highest solve rate, then the fewest median evaluations
    (the first such trial on ties)."""
    finished = [trial for trial in trials if trial.status == "complete"]
    return max(finished, key=Trial.rank_key) if finished else None


def tie_report(config: SweepConfig, trials: list[Trial]) -> TieReport | None:
    """Which complete trials no paired test separates from the best one (None: no trial
    is complete). The cost the tests compare is evaluations, a failure counted at the
    evaluation budget (or, without one, at the most evaluations any run spent)."""
    best = best_trial(trials)
    if best is None:
        return None
    finished = {trial.number: trial.rows for trial in trials if trial.status == "complete"}
    spent = [row["evaluations"] for rows in finished.values() for row in rows]
    budget = config.sweep.budget.evaluations or max(spent, default=0)
    return sweep_ties(best.number, finished, Cost("evaluations", "evaluations", budget))


def trial_intervals(trial: Trial, budget: SweepBudget) -> tuple[Interval, Interval]:
    """95 % intervals of a trial's solve rate and median evaluations, over levels."""
    groups = level_groups(trial.rows)
    cap = budget.evaluations
    spent = [[r["evaluations"] if r["solved"] or cap is None else cap for r in g] for g in groups]
    return (
        rate_interval([[row["solved"] for row in group] for group in groups]),
        median_interval(spent, stable_seed("trial", trial.number)),
    )


def write_sweep_files(
    folder: Path,
    config: SweepConfig,
    trials: list[Trial],
    levels: list[LevelEntry],
    *,
    plots: bool = True,
) -> Trial | None:
    """Write ``index.csv``, ``results.csv``, ``best.toml`` and (optionally) the plots."""
    keys = list(config.parameters)
    ties = tie_report(config, trials)
    write_text_atomic(folder / INDEX_FILE, index_csv(trials, keys, config.sweep.budget, ties))
    rows = [
        {**row, **{k: toml_value(v) for k, v in trial.params.items() if isinstance(v, bool)}}
        for trial in trials
        for row in trial.rows
    ]
    job_columns = [
        "trial",
        *keys,
        "level_index",
        "level",
        "seed",
        "status",
        "solved",
        "evaluations",
        "seconds",
        "moves",
        "pushes",
    ]
    write_text_atomic(folder / RESULTS_FILE, _csv(job_columns, rows))
    best = best_trial(trials)
    if best is not None:
        write_text_atomic(folder / BEST_FILE, best_toml(config, best, levels, folder, ties))
    if plots and any(trial.status == "complete" for trial in trials):
        from evosoko.experiment.sweep_figures import draw_sweep

        draw_sweep(folder, config, trials, ties=ties)
    return best


INDEX_METRICS = (
    "runs",
    "solved",
    "solve_rate",
    "solve_rate_low",
    "solve_rate_high",
    "median_evaluations",
    "median_evaluations_low",
    "median_evaluations_high",
    "median_seconds",
    "objective",
    "tied_with_best",
    "p_vs_best",
)
"""``*_low``/``*_high``: the 95 % confidence interval (over levels); ``tied_with_best``: 1 for
the best trial and every trial no paired test separates from it, else 0; ``p_vs_best``: the
smaller Holm-adjusted p-value of the trial's two tests against the best (see
:func:`evosoko.experiment.statistics.sweep_ties`)."""


def index_csv(
    trials: list[Trial], keys: list[str], budget: SweepBudget, ties: TieReport | None = None
) -> str:
    """``index.csv``: trial number, status, parameters, metrics."""
    tied = {ties.best, *ties.tied} if ties else set()
    rows = []
    for trial in trials:
        params = {k: toml_value(v) if isinstance(v, bool) else v for k, v in trial.params.items()}
        row: dict[str, Any] = {"trial": trial.number, "status": trial.status, **params}
        if trial.status == "complete":
            row.update(
                runs=trial.runs,
                solved=trial.solved,
                solve_rate=trial.solve_rate,
                median_evaluations=trial.median_evaluations,
                median_seconds=trial.median_seconds,
                objective=objective_value(trial, budget),
                tied_with_best=trial.number in tied,
                p_vs_best=ties.p_against_best(trial.number) if ties else None,
            )
            rate, median = trial_intervals(trial, budget)
            row.update(
                solve_rate_low=rate.as_list()[0],
                solve_rate_high=rate.as_list()[1],
                median_evaluations_low=median.as_list()[0],
                median_evaluations_high=median.as_list()[1],
            )
        rows.append(row)
    return _csv(["trial", "status", *keys, *INDEX_METRICS], rows)


def read_index_csv(path: str | Path) -> list[dict[str, str]]:
    """The rows of an ``index.csv`` (as text)."""
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def _csv(columns: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(column)) for column in columns])
    return buffer.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def best_toml(
    config: SweepConfig,
    best: Trial,
    levels: list[LevelEntry],
    folder: Path | None = None,
    ties: TieReport | None = None,
) -> str:
    """The best trial as a complete run configuration: its parameters, the sweep's levels,
    budget and first seed, and the default (serial) evaluation backend. The level file is
    written relative to ``folder`` (where ``best.toml`` goes), so that the configuration runs
    wherever the folder and the level file move together."""
    run_config = trial_config(config, best.params)
    indices = [f"#{entry.index}" for entry in levels]
    level_file = (
        levels[0].level.origin.path if levels[0].level.origin else str(run_config.run.levels)
    )
    run = run_config.run.model_copy(
        update={
            "name": f"{config.sweep.name}-best",
            "seed": config.sweep.seeds[0],
            "levels": _relative_to(level_file, folder),
            "select": indices,
        }
    )
    output = run_config.output.model_copy(update={"plots": True, "checkpoint_every": 10})
    resolved = run_config.model_copy(update={"run": run, "output": output})
    header = (
        f"# Best of sweep {config.sweep.name!r}: trial {best.number}, "
        f"solve rate {best.solve_rate:.0%} over {best.runs} runs, "
        f"median evaluations {best.median_evaluations:g}\n"
        + "".join(f"# {key} = {json.dumps(value)}\n" for key, value in best.params.items())
        + tie_comment(ties)
    )
    return header + dump_config(resolved)


def tie_comment(ties: TieReport | None) -> str:
    """Comment lines for ``best.toml`` saying whether other trials tie with the best."""
    if ties is None or not ties.tests:
        return ""
    if not ties.tied:
        return (
            "# No tie: every other trial is worse by a paired test over the levels "
            "(Holm-adjusted p <= 0.05; index.csv, p_vs_best).\n"
        )
    others = ", ".join(map(str, ties.tied))
    return (
        f"# TIE: no paired test over the levels separates this trial from trial(s) {others}\n"
        "# (Holm-adjusted p > 0.05; index.csv, tied_with_best). It comes first by its point\n"
        "# estimates only; more levels or seeds may separate them.\n"
    )


def _relative_to(path: str, folder: Path | None) -> str:
    """``path`` relative to ``folder`` (POSIX separators), or as it is when it cannot be."""
    if folder is None:
        return path
    try:
        relative = os.path.relpath(Path(path).resolve(), Path(folder).resolve())
    except ValueError:  # another drive
        return path
    return Path(relative).as_posix()
