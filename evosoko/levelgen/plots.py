"""The pictures of a level run: difficulty over generations, the front, the archive's heat map.

- ``difficulty.png``: per objective, the population's best and median against the generation
  (from ``metrics.csv``);
- ``front.png`` (two or more objectives): the final population in the plane of the first two
  objectives, its first Pareto front joined;
- ``archive.png`` (MAP-Elites): the archive's grid over its two features, each filled cell
  coloured by the first objective of its elite and labelled with it.

Each is drawn with the experiment plots' look (:mod:`evosoko.experiment.plots.style`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.ticker import MaxNLocator

from evosoko.experiment.plots.style import colour, new_figure, save_figure, style_axes
from evosoko.levelgen.config import LevelsSettings
from evosoko.levelgen.evolution import LevelEvolution


def draw_run_plots(
    folder: Path, rows: Sequence[dict[str, str]], evolution: LevelEvolution, fmt: str = "png"
) -> list[Path]:
    """Every plot of a run into ``folder``: the difficulty curves, and the front or the
    archive of the final population."""
    from deap import tools

    settings = evolution.settings
    drawn = []
    if rows:
        drawn.append(plot_difficulty(rows, settings, folder / "difficulty", fmt))
    population = evolution.population
    if settings.archive_run and population:
        cells = {
            individual.evaluation.cell: individual.evaluation.values[0] for individual in population
        }
        drawn.append(plot_archive(cells, settings, folder / "archive", fmt))
    elif len(settings.objective) >= 2 and population:
        front = {
            id(individual)
            for individual in tools.sortNondominated(
                population, len(population), first_front_only=True
            )[0]
        }
        points = [individual.evaluation.values[:2] for individual in population]
        on_front = [id(individual) in front for individual in population]
        drawn.append(plot_front(points, on_front, settings, folder / "front", fmt))
    return drawn


def plot_difficulty(
    rows: Sequence[dict[str, str]], settings: LevelsSettings, path_stem: Path, fmt: str = "png"
) -> Path:
    """``difficulty.png``: best and median of each objective against the generation."""
    labels = [table.label for table in settings.objective]
    figure, axes = new_figure(len(labels), width=4.6, height=3.2, columns=2)
    generations = [int(row["generation"]) for row in rows]
    for position, (label, panel) in enumerate(zip(labels, axes, strict=True)):
        for kind, style in (("best", "-"), ("median", "--")):
            values = [_float(row.get(f"{kind}_{label}")) for row in rows]
            panel.plot(generations, values, style, color=colour(position), label=kind)
        better = "larger" if settings.objective[position].maximizes else "smaller"
        style_axes(panel, xlabel="generation", ylabel=label, title=f"{label} ({better} is better)")
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))  # generations are whole
        panel.legend(loc="best")
    return save_figure(figure, path_stem, fmt)


def plot_front(
    points: Sequence[Sequence[float]],
    front: Sequence[bool],
    settings: LevelsSettings,
    path_stem: Path,
    fmt: str = "png",
) -> Path:
    """``front.png``: the population in the plane of the first two objectives, the first
    front joined in order of the first objective."""
    first, second = (table.label for table in settings.objective[:2])
    figure, (panel,) = new_figure(1, width=5.0, height=3.8)
    others = [point for point, on_front in zip(points, front, strict=True) if not on_front]
    best = sorted(
        (point for point, on_front in zip(points, front, strict=True) if on_front),
        key=lambda point: tuple(point),
    )
    if others:
        panel.scatter(
            [p[0] for p in others],
            [p[1] for p in others],
            s=16,
            color="#9a9a9a",
            label="population",
        )
    if best:
        panel.plot(
            [p[0] for p in best],
            [p[1] for p in best],
            "o-",
            color=colour(1),
            ms=5,
            label="first front",
        )
    style_axes(panel, xlabel=first, ylabel=second, title="the final population")
    panel.legend(loc="best")
    return save_figure(figure, path_stem, fmt)


def plot_archive(
    cells: dict[int, float], settings: LevelsSettings, path_stem: Path, fmt: str = "png"
) -> Path:
    """``archive.png``: the archive as a heat map of its elites' first objective."""
    import numpy as np

    archive = settings.archive
    rows_count, columns_count = archive.bins
    grid = np.full((rows_count, columns_count), np.nan)
    for cell, value in cells.items():
        grid[divmod(cell, columns_count)] = value
    figure, (panel,) = new_figure(1, width=5.6, height=4.2)
    (low_y, high_y), (low_x, high_x) = archive.ranges
    extent = (low_x, high_x, low_y, high_y)
    shown = np.ma.masked_invalid(grid)
    image = panel.imshow(shown, origin="lower", extent=extent, aspect="auto", cmap="viridis")
    step_x, step_y = (high_x - low_x) / columns_count, (high_y - low_y) / rows_count
    finite = grid[np.isfinite(grid)]
    middle = float(np.mean([finite.min(), finite.max()])) if finite.size else 0.0
    for (row, column), value in np.ndenumerate(grid):
        if not math.isnan(value):
            panel.text(
                low_x + (column + 0.5) * step_x,
                low_y + (row + 0.5) * step_y,
                f"{value:g}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if value < middle else "black",
            )
    label = settings.objective[0].label
    colour_bar = figure.colorbar(image, ax=panel)
    colour_bar.set_label(f"elite's {label}")
    y_name, x_name = archive.features
    filled = int(np.isfinite(grid).sum())
    style_axes(
        panel,
        xlabel=x_name,
        ylabel=y_name,
        title=f"archive: {filled} of {grid.size} cells filled",
    )
    panel.grid(False)
    return save_figure(figure, path_stem, fmt)


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan
