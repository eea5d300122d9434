"""``evosoko compare``: solvers × levels × seeds under one budget per level, resumably.

A comparison file (TOML) has a ``[compare]`` table (name, level file, selection, seeds,
budget), a ``[parallel]`` table (the job backend) and one ``[[solver]]`` table per solver:

- ``kind = "ga"``: a GA preset, ``config`` = a run configuration file (default: the built-in
  defaults) and ``set`` = ``KEY=VALUE`` overrides on it; run once per seed.
- ``kind = "search"``: a classical search, ``algorithm`` (``bfs``, ``astar``, ``push-astar``,
  ...) with ``heuristic``, ``weight`` and pruning switches; deterministic searches run once
  per level, the shuffling ``random`` once per seed.

Every job gets the same seconds (``budget.seconds``, wall-clock or, with ``budget.clock = "cpu"``,
the CPU seconds of its process) and its solver's own budget
(``budget.evaluations`` for the GA, ``budget.nodes`` expanded for search). The output folder
holds ``compare.toml`` (the resolved comparison), ``journal.jsonl`` (one line per finished job:
a rerun skips those), ``results.csv`` (one row per job), ``summary.md`` / ``summary.json``
(per solver: solve rate, median time to solve, ERT, median moves and pushes, each with its
95 % interval, and paired tests between solvers), ``ioh/`` (the runs in IOHprofiler's format,
:mod:`evosoko.experiment.analysis.ioh`) and ``plots/``.
A job's key holds a digest of its settings, so changing a solver or the budget reruns it.
Every stored solution is replay-verified here, in the parent process.

The settings live in :mod:`evosoko.experiment.compare.config`, the jobs in
:mod:`evosoko.experiment.compare.jobs`, the result files in :mod:`evosoko.experiment.compare.files`;
this module runs the jobs and writes the files as they finish.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.errors import ConfigError
from evosoko.experiment.analysis.ioh import IOH_DIR, write_comparison_ioh
from evosoko.experiment.analysis.metrics import SolverSummary, summarise
from evosoko.experiment.analysis.statistics import (
    comparison_uncertainty,
)
from evosoko.experiment.atomic import write_json_atomic, write_text_atomic
from evosoko.experiment.compare.config import (
    CompareConfig,
    GASolver,
    SearchSolver,
    dump_compare_config,
    load_compare_config,
)
from evosoko.experiment.compare.files import (
    CONFIG_FILE,
    JOURNAL_FILE,
    RESULTS_FILE,
    SUMMARY_JSON,
    SUMMARY_MD,
    read_results_csv,
    results_csv,
    summary_json,
    summary_markdown,
)
from evosoko.experiment.compare.jobs import (
    comparison_levels,
    ga_config,
    plan_jobs,
    result_row,
    run_job,
    unit_budgets,
)
from evosoko.experiment.folder_lock import FolderLock
from evosoko.experiment.journal_results import ResultsRewriter
from evosoko.experiment.report.writer import Throttle, refresh_report
from evosoko.experiment.run.folder import make_output_folder, output_folder
from evosoko.experiment.settings import check_same_experiment, source_line
from evosoko.experiment.warmup import warm_up_for
from evosoko.parallel.backends import make_backend
from evosoko.parallel.dask_cluster import check_backend_reachable
from evosoko.parallel.jobs import Job, Journal, run_jobs
from evosoko.tracking import (
    MlflowTracker,
    experiment_tracker,
    require_mlflow,
)

if TYPE_CHECKING:
    import pandas

__all__ = ["CompareOutcome", "compare_folder", "run_compare", "write_compare_files"]

REPORT_SECONDS = 20.0
"""While jobs finish, the result files and report.html are rewritten at most this often."""


@dataclass
class CompareOutcome:
    """What :func:`run_compare` produced. ``complete`` is False when it stopped early."""

    folder: Path
    rows: list[dict[str, Any]]
    summaries: list[SolverSummary]
    jobs: int
    resumed: int
    complete: bool

    def _repr_html_(self) -> str:
        from evosoko.experiment.notebook import comparison_html

        return comparison_html(self)

    def to_pandas(self) -> pandas.DataFrame:
        """The tidy table of its results (:func:`evosoko.results`) as a pandas DataFrame."""
        from evosoko.experiment.tidy import results

        return results(self).to_pandas()


ProgressCallback = Callable[[int, int, dict | None], None]
"""``progress(done, total, row)``: ``row`` is None for the first call (jobs already done)."""


def compare_folder(
    config: CompareConfig, out: str | PathLike[str] | None, parent: str | Path = "runs"
) -> Path:
    """``out`` if given, else a new folder under ``parent`` named like a run's."""
    return output_folder(config.compare.name, out, parent)


def run_compare(
    config: CompareConfig,
    folder: str | Path,
    *,
    progress: ProgressCallback | None = None,
    stop_after: int | None = None,
    plots: bool = True,
    strict: bool = False,
) -> CompareOutcome:
    """Run (or resume) the comparison in ``folder`` and write its files.

    Jobs already in ``folder/journal.jsonl`` are not run again. A folder that holds a
    different comparison (other than in ``[parallel]``) is refused with a :class:`ConfigError`
    naming the keys that differ. ``stop_after``: stop after that many new jobs (the files then
    describe the jobs done so far; ``complete`` is False). ``strict``: an invalid level in the
    level file is an error, not a warning.
    """
    folder = Path(folder)
    stored = folder / CONFIG_FILE
    check_same_experiment(folder, stored, load_compare_config, config, "compare", "comparison")
    levels = comparison_levels(config.compare, config._source, strict=strict)
    if not levels:
        raise ConfigError("the comparison selects no levels", config.compare.levels)
    jobs = plan_jobs(config, levels)
    check_backend_reachable(config.parallel)  # before anything is written
    make_output_folder(folder)
    if config.tracking.enabled:
        require_mlflow(*source_line(config, ("tracking", "enabled")))
    with FolderLock(folder):  # one process writes a comparison's folder
        check_same_experiment(folder, stored, load_compare_config, config, "compare", "comparison")
        tracker = experiment_tracker(config, folder, "compare")
        outcome = None
        try:
            outcome = _run_locked(
                config, folder, levels, jobs, progress, stop_after, plots, tracker
            )
            return outcome
        finally:
            if tracker is not None:
                _end_tracking(tracker, folder, outcome)


def _end_tracking(tracker: MlflowTracker, folder: Path, outcome: CompareOutcome | None) -> None:
    """Log each solver's summary, then end the MLflow run (never raises)."""

    def log_summaries() -> None:
        for summary in outcome.summaries if outcome is not None else []:
            tracker.log_totals(
                {
                    f"{summary.solver}/solve_rate": summary.solved / summary.runs
                    if summary.runs
                    else None,
                    f"{summary.solver}/solved": summary.solved,
                    f"{summary.solver}/runs": summary.runs,
                    f"{summary.solver}/median_seconds": summary.median_seconds,
                    f"{summary.solver}/ert_seconds": summary.ert_seconds,
                }
            )

    tracker.end_experiment(folder, outcome.complete if outcome else None, log_summaries)


def _run_locked(
    config: CompareConfig,
    folder: Path,
    levels: list,
    jobs: list[Job],
    progress: ProgressCallback | None,
    stop_after: int | None,
    plots: bool,
    tracker: MlflowTracker | None = None,
) -> CompareOutcome:
    """Run the jobs of a comparison whose folder this process holds locked."""
    write_text_atomic(folder / CONFIG_FILE, dump_compare_config(config))
    level_of = {entry.index: entry.level for entry in levels}
    rows: dict[str, dict] = {}
    counts = {"resumed": 0, "done": 0}
    report_due = Throttle(REPORT_SECONDS)

    def on_result(job: Job, result: dict, resumed: bool) -> None:
        rows[job.key] = result_row(job, result, level_of[job.payload["level_index"]])
        counts["done"] += 1
        counts["resumed"] += resumed
        if progress is not None and not resumed:
            progress(counts["done"], len(jobs), rows[job.key])
        if tracker is not None and not resumed:
            tracker.log_metrics({"jobs_done": counts["done"]}, counts["done"])
        if not resumed and report_due.due():  # the files and report.html show the progress
            done = [rows[job.key] for job in jobs if job.key in rows]
            write_compare_files(folder, config, done, len(jobs), plots=False, results=results)

    warm_up = functools.partial(
        warm_up_for,
        [ga_config(s, config.compare.budget) for s in config.solver if isinstance(s, GASolver)],
        [s.algorithm for s in config.solver if isinstance(s, SearchSolver)],
    )
    warm_up()  # compiled once here, before any job's clock; forked workers inherit it
    backend = make_backend(config.parallel, warm_up=warm_up)
    journal = Journal(folder / JOURNAL_FILE)
    results = ResultsRewriter(folder / RESULTS_FILE)  # says so if the file is not the journal's
    if progress is not None:
        already = len([job for job in jobs if job.key in journal.finished()])
        progress(already, len(jobs), None)
    try:
        run_jobs(
            jobs, run_job, backend, journal=journal, on_result=on_result, stop_after=stop_after
        )
    finally:
        ordered = [rows[job.key] for job in jobs if job.key in rows]
        summaries = write_compare_files(
            folder, config, ordered, len(jobs), plots=plots, results=results
        )
        write_comparison_ioh(folder / IOH_DIR, config, ordered, level_of)
    complete = len(ordered) == len(jobs) and all(row["status"] != "error" for row in ordered)
    return CompareOutcome(folder, ordered, summaries, len(jobs), counts["resumed"], complete)


def write_compare_files(
    folder: Path,
    config: CompareConfig,
    rows: list[dict],
    total_jobs: int,
    *,
    plots: bool = True,
    results: ResultsRewriter | None = None,
) -> list[SolverSummary]:
    """Write ``results.csv``, ``summary.md``, ``summary.json`` and (optionally) the plots.
    The summaries are those of ``results.csv`` as written, so that the report, which reads
    it back, shows the same figures. ``results``: what writes ``results.csv`` (by default a
    new :class:`~evosoko.experiment.journal_results.ResultsRewriter`)."""
    budget = config.compare.budget
    budgets = unit_budgets(budget)
    (results or ResultsRewriter(folder / RESULTS_FILE)).write(results_csv(rows))
    written = read_results_csv(folder / RESULTS_FILE)
    summaries = summarise(written, budget.seconds, budgets)
    uncertainty = comparison_uncertainty(
        written, budget.seconds, budgets, [s.label for s in config.solver]
    )
    write_text_atomic(
        folder / SUMMARY_MD,
        summary_markdown(config, summaries, len(rows), total_jobs, uncertainty),
    )
    write_json_atomic(
        folder / SUMMARY_JSON,
        summary_json(folder, config, summaries, len(rows), total_jobs, uncertainty),
    )
    if plots and rows:
        from evosoko.experiment.plots.compare import draw_compare

        labels = [s.label for s in config.solver]
        draw_compare(folder, rows, budget.seconds, budgets, labels, clock=budget.clock)
    refresh_report(folder)
    return summaries
