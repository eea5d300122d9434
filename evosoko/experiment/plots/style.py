"""One look for every experiment plot: sizes, fonts, grid, a fixed colour per series, saving.

Figures are made with matplotlib's object API on the Agg canvas (no display, no global
``pyplot`` state), so plotting is safe in worker processes and tests.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from evosoko.errors import EvosokoWarning
from evosoko.experiment.atomic import write_bytes_atomic

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = ["FORMATS", "colour", "new_figure", "save_figure", "style_axes"]

FORMATS = ("png", "svg")

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
"""Colours by series position, the same in every plot of one folder."""

RC: dict[RcKeyType, Any] = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "svg.hashsalt": "evosoko",  # stable SVG ids, so equal plots give equal files
    "svg.fonttype": "none",  # text stays text: smaller, searchable files
}


def colour(position: int) -> str:
    """The colour of the series at ``position`` (cycling through :data:`PALETTE`)."""
    return PALETTE[position % len(PALETTE)]


def new_figure(
    panels: int = 1, *, width: float = 5.0, height: float = 3.4, columns: int | None = None
) -> tuple[Figure, Sequence[Axes]]:
    """A figure with ``panels`` axes side by side (wrapping after ``columns``), constrained
    layout."""
    import matplotlib

    matplotlib.rcParams.update(RC)
    columns = min(panels, columns or panels)
    rows = -(-panels // columns)
    figure = Figure(figsize=(width * columns, height * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).flatten()
    for extra in axes[panels:]:
        extra.set_axis_off()
    return figure, list(axes[:panels])


def style_axes(axes: Axes, *, xlabel: str, ylabel: str, title: str | None = None) -> None:
    """Label both axes (with units) and set the title."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if title:
        axes.set_title(title)


def fit_texts(figure: Figure) -> None:
    """Widen ``figure`` until every title, label and legend lies inside it (a small figure,
    such as a heat map of a few cells, would cut a long title at both sides)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    for _ in range(4):
        canvas.draw()
        renderer = canvas.get_renderer()
        texts = [
            text.get_window_extent(renderer)
            for text in _labels(figure)
            if text is not None and text.get_visible() and text.get_text().strip()
        ]
        if not texts:
            return
        left = min(box.x0 for box in texts)
        right = max(box.x1 for box in texts)
        width = figure.bbox.width
        overflow = max(0.0, -left) + max(0.0, right - width)
        if overflow < 1:
            return
        figure.set_figwidth(figure.get_figwidth() * (width + 2 * overflow + 8) / width)


def _labels(figure: Figure) -> list[Any]:
    """The titles, axis labels and legend texts of ``figure`` (tick labels stay inside)."""
    suptitle = getattr(figure, "_suptitle", None)  # matplotlib keeps it private
    texts = [suptitle] if suptitle is not None else []
    for axes in figure.axes:
        texts += [
            axes.title,
            getattr(axes, "_left_title", None),
            getattr(axes, "_right_title", None),
        ]
        texts += [axes.xaxis.label, axes.yaxis.label]
        legend = axes.get_legend()
        if legend is not None:
            texts += list(legend.get_texts())
    return texts


def save_figure(figure: Figure, path_stem: Path, fmt: str = "png") -> Path:
    """Write ``figure`` to ``path_stem`` + ``.png``/``.svg`` atomically; returns the path."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown plot format {fmt!r}")
    path = path_stem.with_suffix(f".{fmt}")
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_texts(figure)  # draws the texts: its glyph warnings are reported with the rest
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    write_bytes_atomic(path, buffer.getvalue())
    _report(caught, path)
    return path


_MISSING_GLYPH = re.compile(r"Glyph \d+ \((.+)\) missing from font")


def _report(caught: list[warnings.WarningMessage], path: Path) -> None:
    """Matplotlib's one warning per missing glyph (a level title in another script) as one
    :class:`EvosokoWarning` naming the plot and the characters; other warnings as they came."""
    missing: list[str] = []
    for record in caught:
        found = _MISSING_GLYPH.search(str(record.message))
        if found is None:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
        elif found.group(1) not in missing:
            missing.append(found.group(1))
    if missing:
        shown = ", ".join(_character(name) for name in missing[:8])
        more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        warnings.warn(
            EvosokoWarning(
                f"the plot's font has no glyph for {shown}{more} (in a level title or a "
                "name); they are drawn as empty boxes",
                str(path),
            ),
            stacklevel=3,
        )


def _character(escaped: str) -> str:
    """``\\N{CJK UNIFIED IDEOGRAPH-6F22}`` as the character it names, or as it was given."""
    import unicodedata

    name = escaped.removeprefix("\\N{").removesuffix("}")
    try:
        return unicodedata.lookup(name)
    except KeyError:
        return escaped
