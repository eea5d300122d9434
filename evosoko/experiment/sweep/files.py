"""The files of a sweep folder: ``index.csv``, ``results.csv``, ``best.toml`` and the plots."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

from evosoko.config import dump_config
from evosoko.config_loading import absolute, toml_value
from evosoko.experiment.analysis.statistics import (
    TieReport,
)
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.compare.jobs import LevelEntry
from evosoko.experiment.journal_results import ResultsRewriter
from evosoko.experiment.run.records import csv_cell
from evosoko.experiment.sweep.config import (
    BEST_FILE,
    INDEX_FILE,
    RESULTS_FILE,
    SweepBudget,
    SweepConfig,
)
from evosoko.experiment.sweep.trials import (
    Trial,
    best_trial,
    objective_value,
    tie_report,
    trial_config,
    trial_intervals,
)

__all__ = ["best_toml", "index_csv", "read_index_csv", "write_sweep_files"]


def write_sweep_files(
    folder: Path,
    config: SweepConfig,
    trials: list[Trial],
    levels: list[LevelEntry],
    *,
    plots: bool = True,
    results: ResultsRewriter | None = None,
) -> Trial | None:
    """Write ``index.csv``, ``results.csv``, ``best.toml`` and (optionally) the plots;
    ``results``: what writes ``results.csv`` (by default a new
    :class:`~evosoko.experiment.journal_results.ResultsRewriter`)."""
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
        "exhausted",
        "solved",
        "evaluations",
        "seconds",
        "moves",
        "pushes",
        *(["unit"] if config.sweep.algorithm else []),
    ]
    (results or ResultsRewriter(folder / RESULTS_FILE)).write(_csv(job_columns, rows))
    best = best_trial(trials)
    if best is not None:
        write_text_atomic(folder / BEST_FILE, best_toml(config, best, levels, folder, ties))
    if plots and any(trial.status == "complete" for trial in trials):
        from evosoko.experiment.plots.sweep import draw_sweep

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
"""``median_evaluations``: the median cost in the sweep's unit (evaluations; a search sweep's
expanded nodes, mcts's iterations: ``results.csv``'s ``unit``); ``*_low``/``*_high``: the 95 %
confidence interval (over levels); ``tied_with_best``: 1 for
the best trial and every trial no paired test separates from it, else 0; ``p_vs_best``: the
smaller Holm-adjusted p-value of the trial's two tests against the best (see
:func:`evosoko.experiment.analysis.statistics.sweep_ties`)."""


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
        writer.writerow([csv_cell(row.get(column), ".6g") for column in columns])
    return buffer.getvalue()


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
        f"median {config.sweep.unit} {best.median_evaluations:g}\n"
        + "".join(f"# {key} = {json.dumps(value)}\n" for key, value in best.params.items())
        + tie_comment(ties)
    )
    if config.sweep.algorithm is not None:
        header += (
            f"# Its [search] table tunes {config.sweep.algorithm}: "
            f"evosoko solve LEVELS --algo {config.sweep.algorithm} --config best.toml\n"
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
        relative = os.path.relpath(absolute(path), absolute(folder))
    except ValueError:  # another drive
        return path
    return Path(relative).as_posix()
