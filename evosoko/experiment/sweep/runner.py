"""``evosoko sweep``: tune GA settings by grid search, random search or Optuna (TPE).

The sweep file is read by :mod:`evosoko.experiment.sweep.config`; its trials are planned,
run as jobs and scored by :mod:`evosoko.experiment.sweep.trials` (Optuna's by
:mod:`evosoko.experiment.sweep.tuning`); the folder's files are written by
:mod:`evosoko.experiment.sweep.files`. This module runs a sweep from start to end.

Output folder: ``sweep.toml`` (resolved), ``journal.jsonl`` (finished jobs, keyed by the
trial's settings, so a rerun skips them), ``optuna.journal`` (the study, which several
processes may share), ``index.csv`` (one row per trial), ``results.csv`` (one row per job),
``best.toml`` (a complete configuration for ``evosoko run``) and ``plots/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from evosoko.errors import ConfigError
from evosoko.experiment.analysis.statistics import (
    TieReport,
)
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.compare.jobs import run_job
from evosoko.experiment.folder_lock import FolderLock
from evosoko.experiment.journal_results import ResultsRewriter
from evosoko.experiment.run.folder import make_output_folder, output_folder
from evosoko.experiment.settings import check_same_experiment, source_line
from evosoko.experiment.sweep.config import (
    CONFIG_FILE,
    JOURNAL_FILE,
    RESULTS_FILE,
    SweepConfig,
    dump_sweep_config,
    load_sweep_config,
)
from evosoko.experiment.sweep.files import write_sweep_files
from evosoko.experiment.sweep.trials import (
    ProgressCallback,
    Trial,
    objective_value,
    plan_trials,
    score_trial,
    sweep_backend,
    sweep_levels,
    tie_report,
    trial_config,
    trial_jobs,
)
from evosoko.experiment.sweep.tuning import require_optuna, run_optuna
from evosoko.parallel.dask_cluster import check_backend_reachable
from evosoko.parallel.jobs import Job, Journal, run_jobs
from evosoko.tracking import (
    MlflowTracker,
    experiment_tracker,
    require_mlflow,
)

if TYPE_CHECKING:
    import pandas

__all__ = ["SweepOutcome", "run_sweep", "sweep_folder"]


@dataclass
class SweepOutcome:
    """What :func:`run_sweep` produced; ``best`` is None when no trial completed."""

    folder: Path
    trials: list[Trial]
    best: Trial | None
    complete: bool
    ties: TieReport | None = None
    """Which trials the data cannot tell from ``best`` (see :func:`tie_report`)."""

    def to_pandas(self) -> pandas.DataFrame:
        """The tidy table of its results (:func:`evosoko.results`) as a pandas DataFrame."""
        from evosoko.experiment.tidy import results

        return results(self).to_pandas()

    @property
    def tied(self) -> list[Trial]:
        """The trials that tie with ``best`` (``best`` not included)."""
        numbers = set(self.ties.tied) if self.ties else set()
        return [trial for trial in self.trials if trial.number in numbers]


def sweep_folder(
    config: SweepConfig, out: str | PathLike[str] | None, parent: str | Path = "runs"
) -> Path:
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
    check_same_experiment(folder, stored, load_sweep_config, config, "sweep", "sweep")
    levels = sweep_levels(config, strict=strict)
    if not levels:
        raise ConfigError("the sweep selects no levels", config.sweep.levels)
    planned = []
    if config.sweep.method == "optuna":
        require_optuna(*source_line(config, ("sweep", "method")))
    else:  # every trial's configuration checked before running
        planned = [(trial, trial_config(config, trial.params)) for trial in plan_trials(config)]
    check_backend_reachable(config.parallel)  # before anything is written
    make_output_folder(folder)
    # One process writes a sweep's folder; the processes of one Optuna study share it.
    if config.tracking.enabled:
        require_mlflow(*source_line(config, ("tracking", "enabled")))
    with FolderLock(folder, shared=config.sweep.method == "optuna"):
        check_same_experiment(folder, stored, load_sweep_config, config, "sweep", "sweep")
        write_text_atomic(folder / CONFIG_FILE, dump_sweep_config(config))
        tracker = experiment_tracker(config, folder, "sweep")
        outcome = None
        try:
            journal = Journal(folder / JOURNAL_FILE)
            results = ResultsRewriter(folder / RESULTS_FILE)  # says so if not the journal's
            if config.sweep.method == "optuna":
                trials, complete = run_optuna(config, folder, levels, journal, progress, stop_after)
            else:
                trials, complete = _run_planned(
                    config, planned, levels, journal, progress, stop_after
                )
            best = write_sweep_files(folder, config, trials, levels, plots=plots, results=results)
            outcome = SweepOutcome(folder, trials, best, complete, tie_report(config, trials))
        finally:
            if tracker is not None:
                _end_tracking(tracker, folder, config, outcome)
    return outcome


def _end_tracking(
    tracker: MlflowTracker, folder: Path, config: SweepConfig, outcome: SweepOutcome | None
) -> None:
    """Log each trial's metrics and the best trial, then end the MLflow run (never raises)."""

    def log_trials() -> None:
        for trial in outcome.trials if outcome is not None else []:
            if trial.status == "complete":
                tracker.log_metrics(
                    {
                        "objective": objective_value(trial, config.sweep.budget),
                        "solve_rate": trial.solve_rate,
                        "median_evaluations": trial.median_evaluations,
                    },
                    trial.number,
                )
        if outcome is not None and outcome.best is not None:
            tracker.set_tags({f"best.{k}": v for k, v in outcome.best.params.items()})
            tracker.set_tags({"best.trial": outcome.best.number})

    tracker.end_experiment(folder, outcome.complete if outcome else None, log_trials)


def _run_planned(
    config, planned, levels, journal, progress, stop_after
) -> tuple[list[Trial], bool]:
    trials = [trial for trial, _ in planned]
    per_trial = [trial_jobs(t, c, levels, config.sweep) for t, c in planned]
    unique = list({job.key: job for jobs in per_trial for job in jobs}.values())
    done = {"count": 0}

    def on_result(job: Job, result: dict, resumed: bool) -> None:
        done["count"] += 1
        if progress is not None and not resumed:
            outcome = (
                "error" if "error" in result else "solved" if result["solved"] else result["status"]
            )
            seed = job.payload["seed"]  # None: a deterministic search runs once per level
            progress(
                done["count"],
                len(unique),
                f"{job.payload['solver']} level {job.payload['level_index']}"
                + ("" if seed is None else f" seed {seed}")
                + f": {outcome}",
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
