"""The trials of a sweep: planning them, their jobs and configurations, scoring and ranking.

Each trial (one setting of the parameters) runs the GA on every level with every seed; its
metrics are the solve rate and the median evaluations over all runs (a failed run counted at
the evaluation budget), compared in that order. Optuna maximises
``solve_rate - normalised_median_evaluations / (runs + 1)`` (:func:`objective_value`), which
orders trials the same way.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evosoko.config import OVERRIDE_SOURCE, Config, dump_config, load_config
from evosoko.config_loading import locate, toml_value
from evosoko.errors import ConfigError
from evosoko.experiment.analysis.statistics import (
    Cost,
    Interval,
    TieReport,
    level_groups,
    median_interval,
    rate_interval,
    stable_seed,
    sweep_ties,
)
from evosoko.experiment.compare.jobs import (
    LevelEntry,
    comparison_levels,
    record_stop,
    rules_payload,
)
from evosoko.experiment.sweep.config import ParameterRange, Scalar, SweepBudget, SweepConfig
from evosoko.experiment.warmup import warm_up_for
from evosoko.parallel.backends import make_backend
from evosoko.parallel.jobs import Job
from evosoko.status import Status

__all__ = ["Trial", "best_trial", "plan_trials", "score_trial", "tie_report", "trial_config"]


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
        axes = config.grid_axes()
        return [
            Trial(n, dict(zip(keys, values)))
            for n, values in enumerate(itertools.product(*axes.values()))
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
    from evosoko.experiment.compare.config import CompareSettings

    base = (
        load_config(config.sweep.base, config.sweep.set)
        if config.sweep.base or config.sweep.set
        else None
    )
    levels = config.sweep.levels or (base.run.levels if base else None)
    if not levels:
        where = config._source[0] if config._source else None
        raise ConfigError("no levels: set sweep.levels or run.levels in the base", where)
    source: tuple[str, str | None] | None = config._source
    keys: tuple[str, ...] = ("sweep", "select")
    select = config.sweep.select
    if not select and base and not config.sweep.levels:
        select = base.run.select
        source = (config.sweep.base, None) if config.sweep.base else None
        keys = ("run", "select")
    return comparison_levels(
        CompareSettings(levels=levels, select=select, first=config.sweep.first),
        source,
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
                **rules_payload(entry.level),
            }
            jobs.append(Job(f"{digest}|{entry.index}|{seed}", payload))
    return jobs


def _stop_columns(result: dict, job: Job) -> dict[str, Any]:
    """``status`` and ``exhausted`` of a finished job (an older journal's words read in
    today's vocabulary)."""
    if "error" in result:
        return {"status": Status.ERROR, "exhausted": None}
    stop = record_stop(result, job.payload)
    return {"status": stop.status, "exhausted": stop.exhausted}


def score_trial(
    trial: Trial, results: list[dict], names: dict[int, str], budget: SweepBudget, jobs: list[Job]
) -> None:
    """Fill the trial's metrics and per-job rows from its finished jobs."""
    trial.rows = []
    for job, result in zip(jobs, results):
        trial.rows.append(
            {
                "trial": trial.number,
                **trial.params,
                "level_index": job.payload["level_index"],
                "level": names[job.payload["level_index"]],
                "seed": job.payload["seed"],
                **_stop_columns(result, job),
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


ProgressCallback = Callable[[int, int, str], None]
"""``progress(done, total, what)``: jobs finished of the jobs known so far."""


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
