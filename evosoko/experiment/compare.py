"""``evosoko compare``: solvers × levels × seeds under one budget per level, resumably.

A comparison file (TOML) has a ``[compare]`` table (name, level file, selection, seeds,
budget), a ``[parallel]`` table (the job backend) and one ``[[solver]]`` table per solver:

- ``kind = "ga"``: a GA preset, ``config`` = a run configuration file (default: the built-in
  defaults) and ``set`` = ``KEY=VALUE`` overrides on it; run once per seed.
- ``kind = "search"``: a classical search, ``algorithm`` (``bfs``, ``astar``, ``push-astar``,
  ...) with ``heuristic``, ``weight`` and pruning switches; deterministic searches run once
  per level, the shuffling ``random`` once per seed.

Every job gets the same wall-clock budget (``budget.seconds``) and its solver's own budget
(``budget.evaluations`` for the GA, ``budget.nodes`` expanded for search). The output folder
holds ``compare.toml`` (the resolved comparison), ``journal.jsonl`` (one line per finished job:
a rerun skips those), ``results.csv`` (one row per job), ``summary.md`` / ``summary.json``
(per solver: solve rate, median time to solve, ERT, median moves and pushes, each with its
95 % interval, and paired tests between solvers), ``ioh/`` (the runs in IOHprofiler's format,
:mod:`evosoko.experiment.ioh`) and ``plots/``.
A job's key holds a digest of its settings, so changing a solver or the budget reruns it.
Every stored solution is replay-verified here, in the parent process.

The settings live in :mod:`evosoko.experiment.compare_config`, the jobs in
:mod:`evosoko.experiment.compare_jobs`; this module runs them and writes the summaries.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evosoko.errors import ConfigError
from evosoko.experiment.atomic import write_json_atomic, write_text_atomic
from evosoko.experiment.compare_config import (
    CompareBudget,
    CompareConfig,
    CompareSettings,
    GASolver,
    JobsParallel,
    SearchSolver,
    dump_compare_config,
    load_compare_config,
)
from evosoko.experiment.compare_jobs import (
    UNITS,
    LevelEntry,
    comparison_levels,
    ga_config,
    plan_jobs,
    result_row,
    run_job,
)
from evosoko.experiment.ioh import IOH_DIR, write_comparison_ioh
from evosoko.experiment.metrics import SolverSummary, summarise
from evosoko.experiment.report import Throttle, refresh_report
from evosoko.experiment.runfolder import make_output_folder, output_folder
from evosoko.experiment.settings import check_same_experiment
from evosoko.experiment.statistics import (
    Interval,
    Uncertainty,
    comparison_uncertainty,
    methods_markdown,
    paired_tests_markdown,
)
from evosoko.experiment.warmup import warm_up_for
from evosoko.parallel.backends import make_backend
from evosoko.parallel.dask_cluster import check_backend_reachable
from evosoko.parallel.jobs import Job, Journal, run_jobs

__all__ = [
    "RESULT_COLUMNS",
    "UNITS",
    "CompareBudget",
    "CompareConfig",
    "CompareOutcome",
    "CompareSettings",
    "GASolver",
    "JobsParallel",
    "LevelEntry",
    "SearchSolver",
    "comparison_levels",
    "dump_compare_config",
    "ga_config",
    "load_compare_config",
    "plan_jobs",
    "result_row",
    "run_compare",
    "run_job",
]

CONFIG_FILE = "compare.toml"
JOURNAL_FILE = "journal.jsonl"
RESULTS_FILE = "results.csv"
SUMMARY_MD = "summary.md"
SUMMARY_JSON = "summary.json"
PLOTS_DIR = "plots"

RESULT_COLUMNS = (
    "solver",
    "kind",
    "level_index",
    "level",
    "seed",
    "status",
    "solved",
    "seconds",
    "unit",
    "used",
    "moves",
    "pushes",
    "solution",
)
"""``seconds``/``used``: wall time and evaluations (GA) or expanded nodes (search) spent, i.e.
the time and cost to solve when ``solved`` is 1; ``seed`` is empty for deterministic search."""


REPORT_SECONDS = 20.0
"""While jobs finish, the result files and report.html are rewritten at most this often."""


# ---- running ------------------------------------------------------------------------------------


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
        from evosoko.display import comparison_html

        return comparison_html(self)


ProgressCallback = Callable[[int, int, dict | None], None]
"""``progress(done, total, row)``: ``row`` is None for the first call (jobs already done)."""


def compare_folder(
    config: CompareConfig, out: str | Path | None, parent: str | Path = "runs"
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
    check_same_experiment(
        folder,
        load_compare_config(stored) if stored.is_file() else None,
        config,
        "compare",
        "comparison",
    )
    levels = comparison_levels(config.compare, config._source, strict=strict)
    if not levels:
        raise ConfigError("the comparison selects no levels", config.compare.levels)
    jobs = plan_jobs(config, levels)
    check_backend_reachable(config.parallel)  # before anything is written
    make_output_folder(folder)
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
        if not resumed and report_due.due():  # the files and report.html show the progress
            done = [rows[job.key] for job in jobs if job.key in rows]
            write_compare_files(folder, config, done, len(jobs), plots=False)

    warm_up = functools.partial(
        warm_up_for,
        [ga_config(s, config.compare.budget) for s in config.solver if isinstance(s, GASolver)],
        [s.algorithm for s in config.solver if isinstance(s, SearchSolver)],
    )
    warm_up()  # compiled once here, before any job's clock; forked workers inherit it
    backend = make_backend(config.parallel, warm_up=warm_up)
    journal = Journal(folder / JOURNAL_FILE)
    if progress is not None:
        already = len([job for job in jobs if job.key in journal.finished()])
        progress(already, len(jobs), None)
    try:
        run_jobs(
            jobs, run_job, backend, journal=journal, on_result=on_result, stop_after=stop_after
        )
    finally:
        ordered = [rows[job.key] for job in jobs if job.key in rows]
        summaries = write_compare_files(folder, config, ordered, len(jobs), plots=plots)
        write_comparison_ioh(folder / IOH_DIR, config, ordered, level_of)
    complete = len(ordered) == len(jobs) and all(row["status"] != "error" for row in ordered)
    return CompareOutcome(folder, ordered, summaries, len(jobs), counts["resumed"], complete)


def write_compare_files(
    folder: Path, config: CompareConfig, rows: list[dict], total_jobs: int, *, plots: bool = True
) -> list[SolverSummary]:
    """Write ``results.csv``, ``summary.md``, ``summary.json`` and (optionally) the plots."""
    budget = config.compare.budget
    unit_budgets = {"evaluations": budget.evaluations, "nodes": budget.nodes}
    summaries = summarise(rows, budget.seconds, unit_budgets)
    uncertainty = comparison_uncertainty(
        rows, budget.seconds, unit_budgets, [s.label for s in config.solver]
    )
    write_text_atomic(folder / RESULTS_FILE, results_csv(rows))
    write_text_atomic(
        folder / SUMMARY_MD,
        summary_markdown(config, summaries, len(rows), total_jobs, uncertainty),
    )
    write_json_atomic(
        folder / SUMMARY_JSON,
        summary_json(folder, config, summaries, len(rows), total_jobs, uncertainty),
    )
    if plots and rows:
        from evosoko.experiment.figures import draw_compare

        draw_compare(folder, rows, budget.seconds, unit_budgets, [s.label for s in config.solver])
    refresh_report(folder)
    return summaries


def results_csv(rows: list[dict]) -> str:
    """``results.csv`` text: a header, then one line per job."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in rows:
        writer.writerow([_cell(row[column]) for column in RESULT_COLUMNS])
    return buffer.getvalue()


def read_results_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a ``results.csv`` with typed values (the inverse of :func:`results_csv`)."""
    rows = []
    with open(path, encoding="utf-8", newline="") as stream:
        for raw in csv.DictReader(stream):
            rows.append(
                {
                    **raw,
                    "level_index": int(raw["level_index"]),
                    "seed": int(raw["seed"]) if raw["seed"] else None,
                    "solved": raw["solved"] == "1",
                    "seconds": float(raw["seconds"]),
                    "used": int(raw["used"]),
                    "moves": int(raw["moves"]) if raw["moves"] else None,
                    "pushes": int(raw["pushes"]) if raw["pushes"] else None,
                    "solution": raw["solution"] or None,
                }
            )
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def summary_markdown(
    config: CompareConfig,
    summaries: list[SolverSummary],
    done: int,
    total: int,
    uncertainty: Uncertainty | None = None,
) -> str:
    """``summary.md``: the setting, a table with one line per solver (each figure with its
    95 % interval [low, high]), the paired tests between solvers and how they were made."""
    intervals = uncertainty.intervals if uncertainty else {}
    settings, budget = config.compare, config.compare.budget
    limits = [f"{budget.seconds:g} s"]
    if budget.evaluations:
        limits.append(f"{budget.evaluations:,} evaluations (GA)")
    if budget.nodes:
        limits.append(f"{budget.nodes:,} expanded nodes (search)")
    lines = [
        f"# Comparison: {settings.name}",
        "",
        f"Levels: {_level_description(settings)}; seeds {', '.join(map(str, settings.seeds))} "
        "(stochastic solvers); budget per job: " + ", ".join(limits) + ".",
        "",
        (
            "| solver | runs | solved | solve rate | median s to solve | ERT s | ERT (own unit) "
            "| median moves | median pushes |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        ci = intervals.get(s.solver)
        ert_units = "–" if s.ert_units is None else f"{_number(s.ert_units)} {s.unit}"
        if s.ert_units is not None and ci:
            ert_units += _bracket(ci.ert_units)
        lines.append(
            f"| {s.solver} | {s.runs} | {s.solved} "
            f"| {100 * s.solve_rate:.0f}%{_bracket(ci and ci.solve_rate, percent=True)} "
            f"| {_number(s.median_seconds, 3)}{_bracket(ci and ci.median_seconds, 3)} "
            f"| {_number(s.ert_seconds, 3)}{_bracket(ci and ci.ert_seconds, 3)} | {ert_units} "
            f"| {_number(s.median_moves)}{_bracket(ci and ci.median_moves)} "
            f"| {_number(s.median_pushes)}{_bracket(ci and ci.median_pushes)} |"
        )
    lines += [
        "",
        "Medians are over solved runs. ERT (expected running time) = the total cost of all runs, "
        "a failed run counted at the full budget of that measure (" + "; ".join(limits) + ") even "
        "when another limit stopped it first, divided by the number of solved runs. "
        "[low, high]: the 95 % confidence interval.",
    ]
    if uncertainty and uncertainty.tests:
        lines += ["", *paired_tests_markdown(uncertainty.tests)]
    if uncertainty:
        lines += ["", *methods_markdown()]
    if done < total:
        lines += ["", f"**Incomplete:** {done} of {total} jobs finished; resume to finish."]
    return "\n".join(lines) + "\n"


def _bracket(interval: Interval | None, digits: int = 0, *, percent: bool = False) -> str:
    """`` [low, high]`` after a figure, or nothing when the interval is unknown."""
    if not interval or not interval.known:
        return ""
    if percent:
        return f" [{100 * interval.low:.0f}%, {100 * interval.high:.0f}%]"
    return f" [{_number(interval.low, digits)}, {_number(interval.high, digits)}]"


def _level_description(settings: CompareSettings) -> str:
    text = Path(settings.levels).name
    if settings.select:
        text += f" (selected: {len(settings.select)})"
    if settings.first:
        text += f", first {settings.first}"
    return text


def _number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "∞"
    if digits == 0:
        return f"{value:,.0f}" if abs(value) >= 10 else f"{value:g}"
    return f"{value:.{digits}g}" if value < 1000 else f"{value:,.0f}"


def summary_json(
    folder: Path,
    config: CompareConfig,
    summaries: list[SolverSummary],
    done: int,
    total: int,
    uncertainty: Uncertainty | None = None,
) -> dict[str, Any]:
    """The summary as JSON-ready data (``--json`` prints it); infinities become None.
    ``intervals``: per solver, ``[low, high]`` of each figure; ``paired_tests``: one object
    per test (see :class:`evosoko.experiment.statistics.PairedTest`)."""
    intervals = uncertainty.intervals if uncertainty else {}

    def finite(value: float | None) -> float | None:
        return None if value is None or not math.isfinite(value) else value

    return {
        "compare_dir": str(folder),
        "name": config.compare.name,
        "jobs": total,
        "finished": done,
        "solvers": [
            {
                "solver": s.solver,
                "unit": s.unit,
                "runs": s.runs,
                "solved": s.solved,
                "solve_rate": s.solve_rate,
                "median_seconds": s.median_seconds,
                "median_units": s.median_units,
                "ert_seconds": finite(s.ert_seconds),
                "ert_units": finite(s.ert_units),
                "median_moves": s.median_moves,
                "median_pushes": s.median_pushes,
                "intervals": intervals[s.solver].as_dict() if s.solver in intervals else None,
            }
            for s in summaries
        ],
        "paired_tests": [test.as_dict() for test in uncertainty.tests] if uncertainty else [],
    }
