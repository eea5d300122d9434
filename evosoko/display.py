"""How evosoko's objects show themselves in Jupyter: boards as images, results as tables with
their fitness curve and an animation of what they play.

- a :class:`~evosoko.sokoban.level.Level` is a PNG of its board (``Level._repr_png_``);
- a :class:`~evosoko.result.Result` is a small table (status, solution length, cost, time),
  the GA's fitness curve (best so far, best and mean of each generation) and an animated GIF of
  its solution, or of the GA's best prefix when it did not solve the level;
- a run (``evosoko.run``, ``evosoko.open_run``) is its table of levels and its fitness plot;
- a comparison (``evosoko.compare``) is its summary table.

Images are embedded as base64 data, so a saved notebook shows them without the files. Every
text from a file (titles) is escaped. Nothing here touches ``pyplot``: a notebook keeps its own
matplotlib backend. The functions also serve scripts: :func:`board_png` and
:func:`solution_gif` return the image bytes.
"""

from __future__ import annotations

import base64
import html
import math
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evosoko.experiment.compare import CompareOutcome
    from evosoko.experiment.run import RunReport
    from evosoko.result import Result
    from evosoko.sokoban.level import Level, State

GIF_FRAMES = 200
"""Most frames of an inline animation (longer solutions are sampled)."""

_STYLE = (
    "<style>.evosoko table{border-collapse:collapse;margin:4px 0}"
    ".evosoko td,.evosoko th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}"
    ".evosoko th{text-align:left}.evosoko img{vertical-align:top;margin:4px}</style>"
)


def board_png(level: Level, state: State | None = None, cell_pixels: int = 24) -> bytes:
    """The board in ``state`` (default: the start) as PNG bytes."""
    from evosoko.sokoban.render import save_png

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.png"
        save_png(level, path, state, cell_pixels=cell_pixels)
        return path.read_bytes()


def solution_gif(level: Level, lurd: str, fps: float = 10, max_frames: int = GIF_FRAMES) -> bytes:
    """An animated GIF of ``lurd`` played from the start of ``level`` (sampled past
    ``max_frames`` positions)."""
    from evosoko.sokoban.render import save_gif
    from evosoko.sokoban.solutions import replay_states

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solution.gif"
        save_gif(level, replay_states(level, lurd), path, fps=fps, max_frames=max_frames)
        return path.read_bytes()


def result_html(result: Result) -> str:
    """A result as HTML: its table, fitness curve and animation (see the module docstring)."""
    rows = [
        ("level", _level_label(result)),
        ("solver", result.solver),
        ("status", result.status),
    ]
    if result.solved:
        rows.append(("solution", f"{result.moves} moves, {result.pushes} pushes"))
    elif result.best is not None:
        best = result.best
        rows.append(("best prefix", f"{best.moves} moves, {best.pushes} pushes"))
        rows.append(("distance", str(best.distance)))
    if result.generations is not None:
        rows.append(("generations", f"{result.generations:,}"))
    rows.append((result.unit, f"{result.cost:,}"))
    rows.append(("seconds", f"{result.seconds:.3f}"))
    parts = [_table(rows, header=None)]
    if len(result.history) > 1:
        parts.append(_image("png", _history_png(result)))
    lurd = result.solution or (result.best.lurd if result.best is not None else None)
    if result.level is not None:
        if lurd:
            parts.append(_image("gif", solution_gif(result.level, lurd)))
        else:
            parts.append(_image("png", board_png(result.level)))
    return _STYLE + f'<div class="evosoko">{"".join(parts)}</div>'


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
    parts = [header, _table(lines, header=columns)]
    plot = Path(report.run_dir) / "plots" / "fitness.png"
    if plot.is_file():
        parts.append(_image("png", plot.read_bytes()))
    return _STYLE + f'<div class="evosoko">{"".join(parts)}</div>'


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
    table = _table(lines, header=columns)
    return _STYLE + f'<div class="evosoko">{header}{table}{note if intervals else ""}</div>'


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


def _history_png(result: Result) -> bytes:
    from evosoko.experiment.plots.fitness import fitness_png
    from evosoko.experiment.records import metrics_row

    index = result.index if result.index is not None else 1
    rows = [metrics_row(index, result.level_name, stats) for stats in result.history]
    return fitness_png(rows)


def _level_label(result: Result) -> str:
    if result.index is None or result.level_name == str(result.index):
        return result.level_name
    return f"{result.index}: {result.level_name}"


def _table(rows: Iterable[Sequence[str]], header: Sequence[str] | None) -> str:
    head = ""
    if header is not None:
        head = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
    body = "".join(
        "<tr>"
        + "".join(
            f"<th>{html.escape(str(cell))}</th>"
            if header is None and number == 0
            else f"<td>{html.escape(str(cell))}</td>"
            for number, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table>{head}{body}</table>"


def _image(kind: str, data: bytes) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img src="data:image/{kind};base64,{encoded}"/>'


def _number(value: Any, spec: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    return format(value, spec)
