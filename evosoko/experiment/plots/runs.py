"""Plots of run folders drawn together (:func:`draw_runs`), into ``plots/`` or the given folder:

- ``fitness_band``: best and mean distance against generation and against evaluations, the
  median with an inter-quartile band across every (run, level) curve;
- ``diversity``: the population's diversity against generation, banded the same way.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from evosoko.experiment.analysis.metrics import quantile_band
from evosoko.experiment.plots.style import colour, new_figure, save_figure, style_axes

__all__ = ["draw_runs", "read_metrics"]


def read_metrics(run_dir: Path) -> list[dict[str, str]]:
    """The rows of a run folder's ``metrics.csv``."""
    with open(run_dir / "metrics.csv", encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


Curve = tuple[list[float], list[float]]


def _curves(runs: Sequence[Sequence[dict[str, str]]], x: str, y: str) -> list[Curve]:
    """One (x, y) curve per (run, level)."""
    curves: list[Curve] = []
    for rows in runs:
        by_level: dict[str, Curve] = {}
        for row in rows:
            xs, ys = by_level.setdefault(row["level_index"], ([], []))
            xs.append(float(row[x]))
            ys.append(float(row[y]))
        curves.extend(by_level.values())
    return curves


def draw_runs(
    run_dirs: Sequence[Path],
    out: Path,
    fmt: str = "png",
    *,
    metrics: Sequence[Sequence[dict[str, str]]] | None = None,
) -> list[Path]:
    """``fitness`` (best/mean distance against generation and evaluations, median and IQR band
    across every run and level) and ``diversity`` plots of run folders, into ``out``
    (``metrics``: their rows, when already read)."""
    runs = list(metrics) if metrics is not None else [read_metrics(Path(d)) for d in run_dirs]
    count = sum(len({r["level_index"] for r in rows}) for rows in runs)
    curves = f"{len(runs)} runs, {count} curves" if len(runs) > 1 else f"{count} curves"
    out.mkdir(parents=True, exist_ok=True)
    figure, panels = new_figure(2)
    for axes, x, xlabel in zip(
        panels, ("generation", "evaluations"), ("generation", "fitness evaluations")
    ):
        for position, measure in enumerate(("best", "mean")):
            _band(axes, _curves(runs, x, measure), position, f"{measure} distance")
        style_axes(
            axes,
            xlabel=xlabel,
            ylabel="distance to solved (0 = solved)",
            title=f"Fitness against {xlabel} ({curves})",
        )
        axes.legend()
    paths = [save_figure(figure, out / "fitness_band", fmt)]
    figure, (axes,) = new_figure()
    _band(axes, _curves(runs, "generation", "diversity"), 2, "diversity")
    style_axes(
        axes,
        xlabel="generation",
        ylabel="distinct positions per individual",
        title=f"Diversity ({curves})",
    )
    axes.set_ylim(bottom=0)
    axes.legend()
    paths.append(save_figure(figure, out / "diversity", fmt))
    return paths


def _band(axes, curves, position: int, label: str) -> None:
    band = quantile_band(curves)
    if not band.curves:
        return
    axes.plot(band.x, band.median, color=colour(position), label=f"{label} (median)")
    if band.curves > 1:
        axes.fill_between(
            band.x,
            band.lower,
            band.upper,
            color=colour(position),
            alpha=0.2,
            linewidth=0,
            label=f"{label} (25–75 %)",
        )
