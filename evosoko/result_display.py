"""How a :class:`~evosoko.result.Result` shows itself in a notebook (``Result._repr_html_``):
a small table (status, solution length, cost, time), the GA's fitness chart (best so far, best
and mean of each generation) and an animated GIF of its solution, or of the GA's best prefix
when it did not solve the level.

It sits beside the result, below the GA and the experiments: it draws with the board's pictures
(:mod:`evosoko.sokoban.render`) and the fitness chart (:mod:`evosoko.fitness_chart`), and its
small HTML pieces (:func:`html_table`, :func:`html_image`, :data:`NOTEBOOK_STYLE`) serve the
notebook views of runs and comparisons too (:mod:`evosoko.experiment.notebook`). Images are
embedded as base64 data; every text from a file (titles) is escaped.
"""

from __future__ import annotations

import base64
import html
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evosoko.sokoban.render import board_png
from evosoko.text import level_caption, plain

if TYPE_CHECKING:
    from evosoko.result import Result
    from evosoko.sokoban.level import Level

GIF_FRAMES = 200
"""Most frames of an inline animation (longer solutions are sampled)."""

NOTEBOOK_STYLE = (
    "<style>.evosoko table{border-collapse:collapse;margin:4px 0}"
    ".evosoko td,.evosoko th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}"
    ".evosoko th{text-align:left}.evosoko img{vertical-align:top;margin:4px}</style>"
)


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
        ("status", str(result.stop)),
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
    parts = [html_table(rows, header=None)]
    if len(result.history) > 1:
        parts.append(html_image("png", history_png(result)))
    lurd = result.solution or (result.best.lurd if result.best is not None else None)
    if result.level is not None:
        if lurd:
            parts.append(html_image("gif", solution_gif(result.level, lurd)))
        else:
            parts.append(html_image("png", board_png(result.level)))
    return NOTEBOOK_STYLE + f'<div class="evosoko">{"".join(parts)}</div>'


def history_png(result: Result) -> bytes:
    """The fitness chart of a GA result's history (one level: best so far, best and mean)."""
    from evosoko.fitness_chart import fitness_chart_png

    index = result.index if result.index is not None else 1
    history = result.history
    label = plain(level_caption(index, result.level_name))  # no control characters
    series = {
        label: {
            "generation": [float(stats.generation) for stats in history],
            "best": [float(stats.best_distance) for stats in history],
            "mean": [float(stats.mean_distance) for stats in history],
        }
    }
    return fitness_chart_png(series)


def _level_label(result: Result) -> str:
    if result.index is None or result.level_name == str(result.index):
        return result.level_name
    return f"{result.index}: {result.level_name}"


def html_table(rows: Iterable[Sequence[str]], header: Sequence[str] | None) -> str:
    """An HTML table of ``rows``, every cell escaped; with ``header`` None, the first cell of
    each row is its heading."""
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


def html_image(kind: str, data: bytes) -> str:
    """An ``<img>`` holding ``data`` (a ``png`` or ``gif`` file's bytes) as base64."""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img src="data:image/{kind};base64,{encoded}"/>'
