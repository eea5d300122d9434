"""The Optuna method of ``evosoko sweep``: a TPE study stored in a journal file.

The study lives in ``optuna.journal`` (``JournalStorage`` over a ``JournalFileBackend``), so
a sweep that stops resumes with the trials it finished, and several processes started on the
same folder share the study (each runs trials until the study has ``sweep.trials`` complete
ones). Each trial's GA jobs go through the sweep's job journal as well, so a trial with
settings already run reuses their results. The TPE sampler is re-seeded before every trial
with ``sampler_seed`` plus the number of trials in the study: one process draws the same
sequence every time, and processes sharing a study draw different settings.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from evosoko.errors import ConfigError, EvosokoError
from evosoko.experiment.compare.jobs import LevelEntry, run_job
from evosoko.experiment.sweep.config import OPTUNA_FILE, ParameterRange, SweepConfig
from evosoko.experiment.sweep.trials import (
    ProgressCallback,
    Trial,
    objective_value,
    score_trial,
    sweep_backend,
    trial_config,
    trial_jobs,
)
from evosoko.experiment.warmup import warm_up_config
from evosoko.parallel.jobs import Journal, run_jobs

__all__ = ["open_study", "require_optuna", "run_optuna"]

METRIC_ATTRS = ("runs", "solved", "median_evaluations", "median_seconds")


def require_optuna(path: str | None = None, line: int | None = None) -> None:
    """A :class:`ConfigError` naming the extra when Optuna cannot be imported."""
    try:
        import optuna  # noqa: F401
    except ImportError as error:
        raise ConfigError(
            f"sweep.method 'optuna' needs Optuna, which cannot be imported ({error}): "
            "pip install 'evosoko[tune]' (or pip install optuna)",
            path,
            line,
        ) from None


def open_study(config: SweepConfig, folder: Path):
    """The sweep's study in ``folder/optuna.journal``, created or loaded."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = JournalStorage(JournalFileBackend(str(folder / OPTUNA_FILE)))
    return optuna.create_study(
        study_name=config.sweep.name, storage=storage, direction="maximize", load_if_exists=True
    )


def run_optuna(
    config: SweepConfig,
    folder: Path,
    levels: list[LevelEntry],
    journal: Journal,
    progress: ProgressCallback | None,
    stop_after: int | None,
) -> tuple[list[Trial], bool]:
    """Run trials until the study has ``sweep.trials`` complete ones (or ``stop_after`` new
    trials ran); returns every trial of the study and whether the target was reached."""
    from optuna.samplers import TPESampler

    study = open_study(config, folder)
    target = config.sweep.trials or 0
    names = {entry.index: entry.level.name for entry in levels}
    per_trial = len(levels) * len(config.sweep.seeds)
    startup = max(2, min(10, target // 3))
    counter = {"jobs": 0}

    def objective(optuna_trial) -> float:
        params = {key: _suggest(optuna_trial, key, spec) for key, spec in config.parameters.items()}
        trial = Trial(optuna_trial.number, params)
        try:
            run_config = trial_config(config, params)
        except EvosokoError as error:
            optuna_trial.set_user_attr("error", error.message)
            raise
        jobs = trial_jobs(trial, run_config, levels, config.sweep)

        def on_result(job, result, resumed) -> None:
            counter["jobs"] += 1
            if progress is not None:
                progress(counter["jobs"], target * per_trial, f"trial {trial.number}")

        warm_up_config(run_config)  # a trial's settings may need other kernels
        results = run_jobs(
            jobs, run_job, backend, journal=journal, on_result=on_result, close_backend=False
        )
        score_trial(trial, [results[job.key] for job in jobs], names, config.sweep.budget, jobs)
        if trial.status != "complete":
            optuna_trial.set_user_attr("error", trial.error)
            raise EvosokoError(f"trial {trial.number} failed: {trial.error}")
        for attr in METRIC_ATTRS:
            optuna_trial.set_user_attr(attr, getattr(trial, attr))
        return objective_value(trial, config.sweep.budget)

    backend = sweep_backend(config, [trial_config(config, {})])  # one for the whole study
    ran = 0
    try:
        while _completed(study) < target and (stop_after is None or ran < stop_after):
            study.sampler = TPESampler(
                seed=config.sweep.sampler_seed + len(study.trials), n_startup_trials=startup
            )
            study.optimize(objective, n_trials=1, catch=(EvosokoError,))
            ran += 1
    finally:
        backend.close()
    trials = [_trial(frozen, config, levels, journal, names) for frozen in study.trials]
    return trials, _completed(study) >= target


def _suggest(optuna_trial, key: str, spec: list | ParameterRange) -> Any:
    if isinstance(spec, list):
        return optuna_trial.suggest_categorical(key, spec)
    if spec.integer:
        return optuna_trial.suggest_int(key, spec.low, spec.high, log=spec.log)
    return optuna_trial.suggest_float(key, float(spec.low), float(spec.high), log=spec.log)


def _completed(study) -> int:
    from optuna.trial import TrialState

    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def _trial(frozen, config: SweepConfig, levels, journal: Journal, names) -> Trial:
    """A study trial as a sweep :class:`Trial`, its job rows read back from the job journal."""
    from optuna.trial import TrialState

    params = {key: frozen.params[key] for key in config.parameters if key in frozen.params}
    trial = Trial(frozen.number, params, error=frozen.user_attrs.get("error"))
    if frozen.state != TrialState.COMPLETE or len(params) != len(config.parameters):
        trial.status = frozen.state.name.lower()
        return trial
    jobs = trial_jobs(trial, trial_config(config, params), levels, config.sweep)
    finished = journal.finished()
    if all(job.key in finished for job in jobs):
        score_trial(trial, [finished[job.key] for job in jobs], names, config.sweep.budget, jobs)
    else:  # the job journal was removed: keep the metrics the study stored
        trial.status = "complete"
        for attr in METRIC_ATTRS:
            setattr(trial, attr, frozen.user_attrs.get(attr))
        trial.runs = trial.runs or 0
        trial.solved = trial.solved or 0
    if trial.median_evaluations is not None and math.isnan(trial.median_evaluations):
        trial.median_evaluations = None
    return trial
