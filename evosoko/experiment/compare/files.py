"""The files of a comparison folder: their names, ``results.csv`` (one row per job), and the
summaries ``summary.md`` and ``summary.json``, written and read back.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from evosoko.experiment.analysis.markdown import methods_markdown, paired_tests_markdown
from evosoko.experiment.analysis.metrics import SolverSummary
from evosoko.experiment.analysis.statistics import Interval, SolverIntervals, Uncertainty
from evosoko.experiment.compare.config import (
    CompareConfig,
    CompareSettings,
    SearchSolver,
)
from evosoko.experiment.run.records import csv_cell
from evosoko.search.settings import family_of, settings_text
from evosoko.status import read_stop

__all__ = [
    "RESULT_COLUMNS",
    "read_results_csv",
    "results_csv",
    "summary_json",
    "summary_markdown",
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
    "exhausted",
    "solved",
    "seconds",
    "unit",
    "used",
    "moves",
    "pushes",
    "solution",
    "settings",
)
"""``status``: a word of :mod:`evosoko.status`, ``exhausted`` the resource of a ``budget``
stop (empty otherwise); ``seconds``/``used``: seconds on the budget's clock and evaluations
(GA), expanded nodes (search) or iterations (mcts) spent, i.e. the time and cost to solve when
``solved`` is 1; ``seed`` is empty for deterministic search; ``settings``: a search's knobs
that differ from the defaults, as ``key=value`` words of the ``[search]`` table (``-``: none;
empty for a GA)."""


def results_csv(rows: list[dict]) -> str:
    """``results.csv`` text: a header, then one line per job."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in rows:
        writer.writerow([csv_cell(row[column], ".4f") for column in RESULT_COLUMNS])
    return buffer.getvalue()


def read_results_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a ``results.csv`` with typed values (the inverse of :func:`results_csv`); a file
    written before the status vocabulary has its words read in today's (``timeout`` is a
    ``budget`` stop of seconds, ...: :func:`evosoko.status.read_stop`)."""
    rows = []
    with open(path, encoding="utf-8", newline="") as stream:
        for raw in csv.DictReader(stream):
            rows.append(
                {
                    **raw,
                    **_stop_columns(raw),
                    "level_index": int(raw["level_index"]),
                    "seed": int(raw["seed"]) if raw["seed"] else None,
                    "solved": raw["solved"] == "1",
                    "seconds": float(raw["seconds"]),
                    "used": int(raw["used"]),
                    "moves": int(raw["moves"]) if raw["moves"] else None,
                    "pushes": int(raw["pushes"]) if raw["pushes"] else None,
                    "solution": raw["solution"] or None,
                    "settings": raw.get("settings", ""),
                }
            )
    return rows


def _stop_columns(raw: dict[str, str]) -> dict[str, Any]:
    """``status`` and ``exhausted`` of a row in today's vocabulary (an unknown word as it is)."""
    try:
        stop = read_stop(raw["status"], raw.get("exhausted") or None, unit=raw["unit"])
    except ValueError:
        return {"status": raw["status"], "exhausted": raw.get("exhausted") or None}
    return {"status": stop.status, "exhausted": stop.exhausted}


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
    limits = [f"{budget.seconds:g} {'CPU-s' if budget.clock == 'cpu' else 's'}"]
    if budget.evaluations:
        limits.append(f"{budget.evaluations:,} evaluations (GA)")
    if budget.nodes:
        limits.append(f"{budget.nodes:,} {_node_budget_text(config)}")
    lines = [
        f"# Comparison: {settings.name}",
        "",
        f"Levels: {_level_description(settings)}; seeds {', '.join(map(str, settings.seeds))} "
        "(stochastic solvers); budget per job: " + ", ".join(limits) + ".",
        "",
        "| " + " | ".join(SUMMARY_COLUMNS) + " |",
        "|---|" + "---:|" * (len(SUMMARY_COLUMNS) - 1),
    ]
    for s in summaries:
        cells = summary_cells(s, intervals.get(s.solver))
        lines.append("| " + " | ".join(text for text, _ in cells) + " |")
    lines += [
        "",
        "Medians are over solved runs. ERT (expected running time) = the total cost of all runs, "
        "a failed run counted at the full budget of that measure (" + "; ".join(limits) + ") even "
        "when another limit stopped it first, divided by the number of solved runs. "
        "[low, high]: the 95 % confidence interval.",
    ]
    lines += _settings_lines(config)
    if uncertainty and uncertainty.tests:
        lines += ["", *paired_tests_markdown(uncertainty.tests)]
    if uncertainty:
        lines += ["", *methods_markdown()]
    if done < total:
        lines += ["", f"**Incomplete:** {done} of {total} jobs finished; resume to finish."]
    return "\n".join(lines) + "\n"


SUMMARY_COLUMNS = (
    "solver",
    "runs",
    "solved",
    "solve rate",
    "median s to solve",
    "ERT s",
    "ERT (own unit)",
    "median moves",
    "median pushes",
)
"""The columns of a comparison's summary table (summary.md and the report)."""


def summary_cells(
    s: SolverSummary, ci: SolverIntervals | None
) -> list[tuple[str, float | str | None]]:
    """One solver's row of the summary table: each figure as text with its 95 % interval
    ``[low, high]`` (as summary.md and the report show it), and the figure to sort by."""
    ert_units = "–" if s.ert_units is None else f"{_number(s.ert_units)} {s.unit}"
    if s.ert_units is not None and ci:
        ert_units += _bracket(ci.ert_units)
    return [
        (s.solver, s.solver),
        (str(s.runs), s.runs),
        (str(s.solved), s.solved),
        (
            f"{100 * s.solve_rate:.0f}%{_bracket(ci.solve_rate if ci else None, percent=True)}",
            s.solve_rate,
        ),
        (
            f"{_number(s.median_seconds, 3)}{_bracket(ci.median_seconds if ci else None, 3)}",
            s.median_seconds,
        ),
        (
            f"{_number(s.ert_seconds, 3)}{_bracket(ci.ert_seconds if ci else None, 3)}",
            s.ert_seconds,
        ),
        (ert_units, s.ert_units),
        (f"{_number(s.median_moves)}{_bracket(ci.median_moves if ci else None)}", s.median_moves),
        (
            f"{_number(s.median_pushes)}{_bracket(ci.median_pushes if ci else None)}",
            s.median_pushes,
        ),
    ]


def solver_settings(config: CompareConfig) -> dict[str, str]:
    """Each search solver's settings where they differ from the defaults, as ``key=value``
    words of the ``[search]`` table (``-``: the defaults)."""
    return {
        solver.label: settings_text(
            solver.settings, f"{family_of(solver.algorithm)}." if solver.settings else ""
        )
        for solver in config.solver
        if isinstance(solver, SearchSolver)
    }


def _settings_lines(config: CompareConfig) -> list[str]:
    """The settings of every search solver, for ``summary.md``."""
    settings = solver_settings(config)
    if not settings:
        return []
    lines = ["", "Search settings (the [search] keys that differ from the defaults):", ""]
    algorithms = {s.label: s.algorithm for s in config.solver if isinstance(s, SearchSolver)}
    for label, text in settings.items():
        shown = "the defaults" if text == "-" else f"`{text}`"
        lines.append(f"- {label} ({algorithms[label]}): {shown}")
    return lines


def _bracket(interval: Interval | None, digits: int = 0, *, percent: bool = False) -> str:
    """`` [low, high]`` after a figure, or nothing when the interval is unknown."""
    if not interval or not interval.known:
        return ""
    if percent:
        return f" [{100 * interval.low:.0f}%, {100 * interval.high:.0f}%]"
    return f" [{_number(interval.low, digits)}, {_number(interval.high, digits)}]"


def _node_budget_text(config: CompareConfig) -> str:
    """What ``budget.nodes`` bounds in this comparison: expanded nodes, mcts's iterations."""
    units = {s.unit for s in config.solver if isinstance(s, SearchSolver)}
    if units == {"iterations"}:
        return "iterations (mcts)"
    if "iterations" in units:
        return "expanded nodes (search; mcts: iterations)"
    return "expanded nodes (search)"


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
    per test (see :class:`evosoko.experiment.analysis.statistics.PairedTest`)."""
    intervals = uncertainty.intervals if uncertainty else {}
    settings = solver_settings(config)

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
                "settings": settings.get(s.solver),
            }
            for s in summaries
        ],
        "paired_tests": [test.as_dict() for test in uncertainty.tests] if uncertainty else [],
    }
