"""Plots of a comparison folder (:func:`draw_compare`), into ``plots/``:

- ``ecdf_time``: fraction of runs solved against time (wall-clock or CPU, the budget's clock),
  log x (the run-time ECDF as COCO and IOHprofiler draw it; a curve ends at its solver's solve
  rate);
- ``ecdf_budget``: the same against each solver's own budget (evaluations, expanded nodes);
- ``levels``: a strip per solver of the fraction of runs that solved each level;
- ``lengths``: solution moves and pushes per solver, side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from evosoko.experiment.analysis.metrics import ecdf_steps
from evosoko.experiment.plots.style import colour, new_figure, save_figure, style_axes
from evosoko.text import plain

__all__ = ["draw_compare"]

UNIT_LABELS = {
    "evaluations": "fitness evaluations",
    "nodes": "expanded search nodes",
    "iterations": "mcts iterations",
}


# ---- comparisons -------------------------------------------------------------------------------


TIME_LABELS = {"wall": "wall-clock time (s, log scale)", "cpu": "CPU time (s, log scale)"}
"""The time axis's label per budget clock."""


def draw_compare(
    folder: Path,
    rows: Sequence[dict],
    seconds_budget: float,
    unit_budgets: Mapping[str, float | None],
    solvers: Sequence[str] | None = None,
    fmt: str = "png",
    out: Path | None = None,
    clock: str = "wall",
) -> list[Path]:
    """Draw the comparison plots of ``rows`` into ``out`` (default ``folder/plots``);
    ``clock``: what the rows' seconds count (the budget's ``clock``)."""
    out = out or folder / "plots"
    out.mkdir(parents=True, exist_ok=True)
    order = list(solvers) if solvers else list(dict.fromkeys(r["solver"] for r in rows))
    order = [s for s in order if any(r["solver"] == s for r in rows)]
    by_solver = {s: [r for r in rows if r["solver"] == s] for s in order}
    return [
        _ecdf_time(by_solver, seconds_budget, TIME_LABELS[clock], out, fmt),
        _ecdf_budget(by_solver, unit_budgets, out, fmt),
        _level_strip(by_solver, rows, out, fmt),
        _lengths(by_solver, out, fmt),
    ]


def _ecdf_curve(axes, costs, solved, limit, position, label) -> None:
    x, y = ecdf_steps(costs, solved)
    low = x[0] if len(x) else limit
    xs = np.concatenate([[low], x, [max(limit, x[-1] if len(x) else limit)]])
    ys = np.concatenate([[0.0], y, [y[-1] if len(y) else 0.0]])
    axes.step(xs, ys, where="post", color=colour(position), label=f"{label} ({ys[-1]:.0%})")


def _ecdf_time(by_solver: dict, budget: float, xlabel: str, out: Path, fmt: str) -> Path:
    figure, (axes,) = new_figure()
    smallest = min(
        [
            r["seconds"]
            for runs in by_solver.values()
            for r in runs
            if r["solved"] and r["seconds"] > 0
        ]
        or [budget / 1000]
    )
    for position, (solver, runs) in enumerate(by_solver.items()):
        costs = [max(r["seconds"], smallest) for r in runs]  # log axis: no zero times
        _ecdf_curve(axes, costs, [r["solved"] for r in runs], budget, position, solver)
    axes.axvline(budget, color="0.5", linestyle=":", linewidth=1)
    axes.set_xscale("log")
    axes.set_ylim(0, 1.02)
    style_axes(
        axes,
        xlabel=xlabel,
        ylabel="fraction of runs solved",
        title="Solved runs against time (run-time ECDF)",
    )
    axes.legend(loc="upper left")
    return save_figure(figure, out / "ecdf_time", fmt)


def _ecdf_budget(
    by_solver: dict, unit_budgets: Mapping[str, float | None], out: Path, fmt: str
) -> Path:
    units = list(dict.fromkeys(runs[0]["unit"] for runs in by_solver.values()))
    figure, panels = new_figure(len(units))
    for axes, unit in zip(panels, units):
        spent = [r["used"] for runs in by_solver.values() for r in runs if r["unit"] == unit]
        limit = unit_budgets.get(unit) or max(spent + [1])
        for position, (solver, runs) in enumerate(by_solver.items()):
            if runs[0]["unit"] != unit:
                continue
            costs = [max(r["used"], 1) for r in runs]
            _ecdf_curve(axes, costs, [r["solved"] for r in runs], limit, position, solver)
        if unit_budgets.get(unit):
            axes.axvline(limit, color="0.5", linestyle=":", linewidth=1)
        axes.set_xscale("log")
        axes.set_ylim(0, 1.02)
        style_axes(
            axes,
            xlabel=f"{UNIT_LABELS.get(unit, unit)} (log scale)",
            ylabel="fraction of runs solved",
            title=f"Solved runs against {unit}",
        )
        axes.legend(loc="upper left")
    return save_figure(figure, out / "ecdf_budget", fmt)


def _level_strip(by_solver: dict, rows: Sequence[dict], out: Path, fmt: str) -> Path:
    levels = sorted({(r["level_index"], r["level"]) for r in rows})
    column = {index: position for position, (index, _) in enumerate(levels)}
    grid = np.full((len(by_solver), len(levels)), np.nan)
    for row_number, runs in enumerate(by_solver.values()):
        for index in {r["level_index"] for r in runs}:
            flags = [r["solved"] for r in runs if r["level_index"] == index]
            grid[row_number, column[index]] = sum(flags) / len(flags)
    width = min(14.0, 2.5 + 0.18 * len(levels))
    figure, (axes,) = new_figure(width=width, height=1.2 + 0.35 * len(by_solver))
    image = axes.imshow(grid, aspect="auto", cmap="Greens", vmin=0, vmax=1, interpolation="nearest")
    axes.grid(False)
    axes.set_yticks(range(len(by_solver)), list(by_solver))
    if len(levels) <= 60:
        names = [plain(name) for _, name in levels]  # titles: no control characters
        axes.set_xticks(range(len(levels)), names, rotation=90, fontsize=6)
    named = any(str(name) != str(index) for index, name in levels)  # ticks: titles, not indices
    style_axes(
        axes, xlabel="level (title)" if named else "level", ylabel="solver", title="Who solved what"
    )
    figure.colorbar(image, ax=axes, label="runs solved", fraction=0.03)  # a share, 0 to 1
    return save_figure(figure, out / "levels", fmt)


def _lengths(by_solver: dict, out: Path, fmt: str) -> Path:
    figure, panels = new_figure(2, width=max(4.0, 1.0 + 0.7 * len(by_solver)))
    for axes, measure in zip(panels, ("moves", "pushes")):
        data = [
            [r[measure] for r in runs if r["solved"] and r[measure] is not None]
            for runs in by_solver.values()
        ]
        positions = [p for p, values in enumerate(data, start=1) if values]
        if positions:
            boxes = axes.boxplot(
                [data[p - 1] for p in positions],
                positions=positions,
                widths=0.6,
                patch_artist=True,
                medianprops={"color": "black"},
            )
            for patch, p in zip(boxes["boxes"], positions):
                patch.set_facecolor(colour(p - 1))
                patch.set_alpha(0.5)
        else:  # an empty frame would look like a drawing that failed
            axes.text(0.5, 0.5, "no run solved", ha="center", va="center", transform=axes.transAxes)
            axes.set_yticks([])
        axes.set_xticks(range(1, len(by_solver) + 1), list(by_solver), rotation=30, ha="right")
        axes.set_xlim(0.4, len(by_solver) + 0.6)
        style_axes(
            axes,
            xlabel="solver",
            ylabel=f"solution length ({measure})",
            title=f"Solution {measure} (solved runs)",
        )
    return save_figure(figure, out / "lengths", fmt)


# ---- runs --------------------------------------------------------------------------------------
