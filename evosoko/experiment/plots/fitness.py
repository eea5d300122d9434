"""Plots of a run, drawn from its metrics rows with matplotlib's Agg backend (no display)."""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Sequence
from pathlib import Path

from evosoko.experiment.atomic import write_bytes_atomic
from evosoko.experiment.records import level_caption
from evosoko.text import plain

SMALL_MULTIPLES = 12
"""Up to this many levels get one panel each (best and mean); more share one panel (best)."""


OUTLIER_RATIO = 100
"""A panel switches to a symlog axis when its mean exceeds this many times its best."""


def plot_fitness(rows: Sequence[dict[str, str]], path: Path) -> None:
    """Write :func:`fitness_png` of ``rows`` to ``path``."""
    write_bytes_atomic(path, fitness_png(rows))


def fitness_png(rows: Sequence[dict[str, str]]) -> bytes:
    """Distance against generation, per level, as a PNG: the best so far (what
    the results report), the generation's best and its mean. Past ``SMALL_MULTIPLES`` levels,
    one panel shows each level's best so far."""
    from matplotlib.figure import Figure  # no pyplot: a notebook keeps its own backend

    series = _series_by_level(rows)
    if len(series) <= SMALL_MULTIPLES:
        figure = _small_multiples(Figure, series)
    else:
        figure = _one_panel(Figure, series)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def _series_by_level(rows: Sequence[dict[str, str]]) -> dict[str, dict[str, list[float]]]:
    """``{"level 2 seed000-case3": {"generation", "best", "mean", "best_so_far": [...]}}`` in
    run order."""
    series: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        label = plain(level_caption(row["level_index"], row["level"]))  # no control characters
        columns = series.setdefault(label, {"generation": [], "best": [], "mean": []})
        for key in columns:
            columns[key].append(float(row[key]))
    for columns in series.values():
        columns["best_so_far"] = list(itertools.accumulate(columns["best"], min))
    return series


def _small_multiples(figure_class, series: dict[str, dict[str, list[float]]]):
    from matplotlib.ticker import MaxNLocator

    count = max(1, len(series))
    columns = min(3, count)
    rows = math.ceil(count / columns)
    figure = figure_class(figsize=(4.2 * columns, 3.2 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    for panel, (label, values) in zip(axes.flat, series.items()):
        marker = "o" if len(values["generation"]) < 3 else None
        generations = values["generation"]
        panel.plot(
            generations,
            values["best_so_far"],
            color="0.35",
            linewidth=3.5,
            alpha=0.45,
            label="best so far",
            zorder=1,
        )
        panel.plot(generations, values["best"], label="best of generation", marker=marker)
        panel.plot(generations, values["mean"], label="mean", alpha=0.7, marker=marker)
        _scale_for_outliers(panel, values)
        panel.set_title(label, fontsize=9)
        panel.set_xlabel("generation")
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))  # no generation 0.5
        panel.set_ylabel("distance to solved (lower is better)")
        panel.legend(fontsize=8)
    for panel in list(axes.flat)[len(series) :]:
        panel.set_axis_off()
    if not series:
        axes.flat[0].text(0.5, 0.5, "no generations recorded", ha="center", va="center")
    return figure


def _scale_for_outliers(panel, values: dict[str, list[float]]) -> None:
    """A symmetric-log y axis when the mean is dominated by huge (unreachable) distances."""
    if max(values["mean"], default=0) > OUTLIER_RATIO * (max(values["best"], default=0) + 1):
        panel.set_yscale("symlog", linthresh=10)


def _one_panel(figure_class, series: dict[str, dict[str, list[float]]]):
    from matplotlib.ticker import MaxNLocator

    figure = figure_class(figsize=(8, 5), layout="constrained")
    panel = figure.subplots()
    for values in series.values():
        panel.plot(values["generation"], values["best_so_far"], linewidth=0.8, alpha=0.5)
    panel.set_title(f"best distance so far, per level ({len(series)} levels)")
    panel.set_xlabel("generation")
    panel.xaxis.set_major_locator(MaxNLocator(integer=True))
    panel.set_ylabel("distance to solved (lower is better)")
    return figure
