"""The fitness chart: per level, the distance to solved against the generation, as a PNG.

Each level's series holds its ``generation``, the generation's ``best`` and ``mean`` distance;
the chart adds the best so far (what the results report). Up to :data:`SMALL_MULTIPLES` levels
get one panel each (best so far, best and mean); more share one panel (best so far). It is
drawn from a run's metrics rows (:mod:`evosoko.experiment.plots.fitness`, ``fitness.png``) and
from a result's history in a notebook (:mod:`evosoko.result_display`), so it reads neither: it
imports nothing of evosoko, and matplotlib only when it draws (never ``pyplot``: a notebook
keeps its own backend).
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Mapping, Sequence

Series = Mapping[str, Mapping[str, Sequence[float]]]
"""``{"level 2 seed000-case3": {"generation": [...], "best": [...], "mean": [...]}}``, levels
in the order they are drawn."""

SMALL_MULTIPLES = 12
"""Up to this many levels get one panel each (best and mean); more share one panel (best)."""


OUTLIER_RATIO = 100
"""A panel switches to a symlog axis when its mean exceeds this many times its best."""


def chart_curves(series: Series) -> dict[str, dict[str, list[float]]]:
    """The curves the chart draws: each level's series with its ``best_so_far`` added (the
    running minimum of ``best``, which never rises)."""
    return {
        label: {
            "generation": list(values["generation"]),
            "best": list(values["best"]),
            "mean": list(values["mean"]),
            "best_so_far": list(itertools.accumulate(values["best"], min)),
        }
        for label, values in series.items()
    }


def fitness_chart_png(series: Series) -> bytes:
    """The chart of ``series`` (see the module docstring) as PNG bytes."""
    from matplotlib.figure import Figure

    curves = chart_curves(series)
    if len(curves) <= SMALL_MULTIPLES:
        figure = _small_multiples(Figure, curves)
    else:
        figure = _one_panel(Figure, curves)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


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
            marker=marker,
            markersize=9,
        )
        panel.plot(generations, values["best"], label="best of generation", marker=marker)
        panel.plot(generations, values["mean"], label="mean", alpha=0.7, marker=marker)
        _scale_for_outliers(panel, values)
        panel.set_title(label, fontsize=9)
        panel.set_xlabel("generation")
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))  # no generation 0.5
        if len(set(generations)) == 1:  # a level solved at once: one tick, not -0.045..0.045
            panel.set_xlim(generations[0] - 0.5, generations[0] + 0.5)
            panel.set_xticks(generations[:1])
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
