"""Plots of run folders drawn together (:func:`draw_runs`), into ``plots/`` or the given folder:

- ``fitness_band``: best (solid) and mean (dashed) distance against generation and against
  evaluations, one colour per level: the level's curve, or over several runs of it (seeds,
  folders) its median with an inter-quartile band;
- ``diversity``: the population's diversity against generation, per level the same way.

Levels are never pooled: their distances have their own scales. A level's best distance stays
at 0 after it was solved; its mean distance and diversity end where its run ended (a solved
level's population is gone, so its last values would otherwise run on as a flat line).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from evosoko.experiment.analysis.metrics import Band, quantile_band
from evosoko.experiment.plots.style import colour, new_figure, save_figure, style_axes

__all__ = ["HOLD", "LEGEND_LEVELS", "draw_runs", "level_bands", "read_metrics"]

LEGEND_LEVELS = 12
"""Up to this many levels are named in the legend (more would hide the curves)."""


def read_metrics(run_dir: Path) -> list[dict[str, str]]:
    """The rows of a run folder's ``metrics.csv``."""
    with open(run_dir / "metrics.csv", encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


Curve = tuple[list[float], list[float]]
Rows = Sequence[dict[str, str]]

HOLD: dict[str, Literal["last", "zero", "none"]] = {
    "best": "zero",
    "mean": "none",
    "diversity": "none",
}
"""What a curve of each measure shows after its run ended (:func:`quantile_band`'s ``hold``)."""


def _by_level(runs: Sequence[Rows]) -> dict[str, list[Rows]]:
    """Each level's rows, one list per run that has it, levels in order of first appearance
    (a level is its title, else its index: the same level in several run folders meets)."""
    levels: dict[str, list[Rows]] = {}
    for rows in runs:
        mine: dict[str, list[dict[str, str]]] = {}
        for row in rows:
            mine.setdefault(row.get("level") or f"#{row['level_index']}", []).append(row)
        for name, level_rows in mine.items():
            levels.setdefault(name, []).append(level_rows)
    return levels


def level_bands(runs: Sequence[Rows], x: str, measure: str) -> dict[str, Band]:
    """Per level (in order of first appearance), the band of ``measure`` (a ``metrics.csv``
    column: ``best``, ``mean``, ``diversity``) against ``x`` over the runs that have it."""
    return {
        name: quantile_band(
            [([float(r[x]) for r in rows], [float(r[measure]) for r in rows]) for rows in runs_of],
            hold=HOLD[measure],
        )
        for name, runs_of in _by_level(runs).items()
    }


def draw_runs(
    run_dirs: Sequence[Path],
    out: Path,
    fmt: str = "png",
    *,
    metrics: Sequence[Rows] | None = None,
) -> list[Path]:
    """``fitness_band`` (best/mean distance against generation and evaluations) and
    ``diversity`` plots of run folders, per level (see the module docstring), into ``out``
    (``metrics``: their rows, when already read)."""
    runs = list(metrics) if metrics is not None else [read_metrics(Path(d)) for d in run_dirs]
    names = list(_by_level(runs))
    count = sum(len({r["level_index"] for r in rows}) for rows in runs)
    curves = f"{len(runs)} runs, {count} curves" if len(runs) > 1 else f"{count} curves"
    out.mkdir(parents=True, exist_ok=True)
    figure, panels = new_figure(2)
    for axes, x, xlabel in zip(
        panels, ("generation", "evaluations"), ("generation", "fitness evaluations")
    ):
        best, mean = level_bands(runs, x, "best"), level_bands(runs, x, "mean")
        for position, name in enumerate(names):
            _band(axes, best[name], position, _label(name, position))
            _band(axes, mean[name], position, None, "--")
        style_axes(
            axes,
            xlabel=xlabel,
            ylabel="distance to solved (0 = solved)",
            title=f"Best (solid) and mean (dashed) distance against {xlabel} ({curves})",
        )
        _legend(axes, len(names))
    paths = [save_figure(figure, out / "fitness_band", fmt)]
    figure, (axes,) = new_figure()
    diversity = level_bands(runs, "generation", "diversity")
    for position, name in enumerate(names):
        _band(axes, diversity[name], position, _label(name, position))
    style_axes(
        axes,
        xlabel="generation",
        ylabel="distinct positions per individual",
        title=f"Diversity per level ({curves})",
    )
    axes.set_ylim(bottom=0)
    _legend(axes, len(names))
    paths.append(save_figure(figure, out / "diversity", fmt))
    return paths


def _label(name: str, position: int) -> str | None:
    return name if position < LEGEND_LEVELS else None


def _legend(axes, levels: int) -> None:
    if levels == 0:
        return
    more = levels - LEGEND_LEVELS
    title = f"level ({more} more not named)" if more > 0 else "level"
    axes.legend(title=title, fontsize="small")


def _band(axes, band: Band, position: int, label: str | None, style: str = "-") -> None:
    """One level's curve (its median over several runs, with their 25-75 % band)."""
    if not band.curves:
        return
    axes.plot(band.x, band.median, style, color=colour(position), label=label)
    if band.curves > 1:
        axes.fill_between(
            band.x, band.lower, band.upper, color=colour(position), alpha=0.15, linewidth=0
        )
