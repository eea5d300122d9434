"""How a run and a comparison show themselves in a notebook (``RunReport._repr_html_``,
``CompareOutcome._repr_html_``): a run as its table of levels and its fitness plot, a
comparison as its summary table with the intervals of ``summary.json``. The HTML pieces are
those of a result's display (:mod:`evosoko.result_display`); every text from a file is
escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.result_display import NOTEBOOK_STYLE, html_image, html_table

if TYPE_CHECKING:
    from evosoko.experiment.compare.runner import CompareOutcome
    from evosoko.experiment.run.runner import RunReport


def run_html(report: RunReport) -> str:
    """A run as HTML: its folder and status, a row per finished level and its fitness plot."""
    header = (
        f"<p><b>{html.escape(str(report.status))}</b>: "
        f"<code>{html.escape(str(report.run_dir))}</code></p>"
    )
    columns = ("index", "level", "status", "generations", "evaluations", "seconds", "moves")
    lines = [
        (
            str(r.index),
            r.level_name,
            r.status,
            f"{r.generations}",
            f"{r.cost:,}",
            _number(r.seconds, ".3g"),
            "" if r.moves is None else f"{r.moves} ({r.pushes} pushes)",
        )
        for r in report.results
    ]
    parts = [header, html_table(lines, header=columns)]
    plot = Path(report.run_dir) / "plots" / "fitness.png"
    if plot.is_file():
        parts.append(html_image("png", plot.read_bytes()))
    return NOTEBOOK_STYLE + f'<div class="evosoko">{"".join(parts)}</div>'


def comparison_html(outcome: CompareOutcome) -> str:
    """A comparison as HTML: a row per solver (runs, solve rate, medians, ERT), each figure
    with its 95 % interval from the folder's ``summary.json`` when it has one."""
    columns = ("solver", "runs", "solved", "solve rate", "median s", "ERT s", "median moves")
    intervals = _comparison_intervals(outcome.folder)
    lines = []
    for s in outcome.summaries:
        ci = intervals.get(s.solver, {})
        lines.append(
            (
                s.solver,
                str(s.runs),
                str(s.solved),
                f"{100 * s.solve_rate:.0f}%" + _bracket(ci.get("solve_rate"), ".0%"),
                _number(s.median_seconds, ".3g") + _bracket(ci.get("median_seconds"), ".3g"),
                _number(s.ert_seconds, ".3g") + _bracket(ci.get("ert_seconds"), ".3g"),
                _number(s.median_moves, ".0f") + _bracket(ci.get("median_moves"), ".0f"),
            )
        )
    state = "" if outcome.complete else f" ({len(outcome.rows)} of {outcome.jobs} jobs)"
    header = f"<p><code>{html.escape(str(outcome.folder))}</code>{html.escape(state)}</p>"
    note = "<p>[low, high]: 95 % confidence interval over levels; paired tests in summary.md</p>"
    table = html_table(lines, header=columns)
    return NOTEBOOK_STYLE + f'<div class="evosoko">{header}{table}{note if intervals else ""}</div>'


def _comparison_intervals(folder: Path) -> dict[str, dict[str, list]]:
    """Per solver, its figures' intervals as ``summary.json`` stores them ({} without one)."""
    import json

    path = Path(folder) / "summary.json"
    try:
        solvers = json.loads(path.read_text())["solvers"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {s["solver"]: s.get("intervals") or {} for s in solvers if "solver" in s}


def _bracket(interval: Sequence | None, spec: str) -> str:
    """`` [low, high]`` after a figure; nothing when the interval is unknown."""
    if not interval or any(value is None for value in interval):
        return ""
    return f" [{_number(interval[0], spec)}, {_number(interval[1], spec)}]"


def _number(value: Any, spec: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    return format(value, spec)
