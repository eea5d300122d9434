"""Plots of a sweep folder, into ``plots/``:

- ``parameters``: per parameter, box plots of the evaluations each run spent (a failed run at
  the evaluation budget) for each value, the value's solve rate under its label; parameters
  with many distinct values (sampled ranges) show each trial's solve rate against the value;
- ``heatmap`` (grid searches over exactly two parameters): solve rate and median evaluations
  of every combination, the best trial and the trials tied with it outlined;
- ``history``: each trial's objective in trial order, and the best so far; the best trial and
  the trials tied with it (no paired test separates them) marked apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from evosoko.experiment.analysis.statistics import TieReport
from evosoko.experiment.plots.style import colour, new_figure, save_figure, style_axes
from evosoko.experiment.sweep.config import ParameterRange, SweepConfig
from evosoko.experiment.sweep.trials import Trial, objective_value, tie_report

__all__ = ["draw_sweep"]

MAX_BOXES = 12
"""Parameters with more distinct values get a scatter plot instead of box plots."""


def draw_sweep(
    folder: Path,
    config: SweepConfig,
    trials: Sequence[Trial],
    fmt: str = "png",
    out: Path | None = None,
    ties: TieReport | None = None,
) -> list[Path]:
    """Draw the sweep plots of the complete ``trials`` into ``out`` (default ``folder/plots``);
    ``ties``: the trials tied for best (default: computed from the trials' rows)."""
    out = out or folder / "plots"
    out.mkdir(parents=True, exist_ok=True)
    done = [trial for trial in trials if trial.status == "complete"]
    if not done:
        return []
    ties = ties or tie_report(config, list(trials))
    leaders = {ties.best, *ties.tied} if ties else set()
    paths = [_parameters(config, done, out, fmt), _history(config, trials, leaders, out, fmt)]
    if config.sweep.method == "grid" and len(config.parameters) == 2:
        paths.append(_heatmap(config, done, leaders, ties.best if ties else -1, out, fmt))
    return paths


def _tie_caption(leaders: set[int]) -> str:
    if len(leaders) > 1:
        return f"{len(leaders)} trials tie for best (no paired test separates them)"
    return "best trial (every other is worse by a paired test)"


def _spent(config: SweepConfig, row: dict) -> float:
    cap = config.sweep.budget.evaluations
    return row["evaluations"] if row["solved"] or cap is None else cap


def _label(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _parameters(config: SweepConfig, trials: list[Trial], out: Path, fmt: str) -> Path:
    keys = list(config.parameters)
    figure, panels = new_figure(len(keys), width=4.6, columns=3)
    for position, (axes, key) in enumerate(zip(panels, keys)):
        values = sorted({trial.params[key] for trial in trials}, key=lambda v: (str(type(v)), v))
        if len(values) <= MAX_BOXES:
            _boxes(axes, config, trials, key, values, position)
        else:
            _scatter(axes, config, trials, key, position)
    figure.suptitle(f"Sweep {config.sweep.name}: effect of each parameter")
    return save_figure(figure, out / "parameters", fmt)


def _boxes(axes, config, trials, key, values, position) -> None:
    data, labels = [], []
    for value in values:
        rows = [row for trial in trials if trial.params[key] == value for row in trial.rows]
        data.append([_spent(config, row) for row in rows] or [np.nan])
        rate = sum(row["solved"] for row in rows) / len(rows) if rows else 0.0
        labels.append(f"{_label(value)}\n{rate:.0%} solved")
    boxes = axes.boxplot(data, widths=0.6, patch_artist=True, medianprops={"color": "black"})
    for patch in boxes["boxes"]:
        patch.set_facecolor(colour(position))
        patch.set_alpha(0.5)
    axes.set_xticks(range(1, len(values) + 1), labels)
    if all(np.nanmin(d) > 0 for d in data if not np.all(np.isnan(d))):
        axes.set_yscale("log")
    style_axes(axes, xlabel=key, ylabel="evaluations per run (failures at budget)")


def _scatter(axes, config, trials, key, position) -> None:
    x = [trial.params[key] for trial in trials]
    y = [trial.solve_rate for trial in trials]
    axes.scatter(x, y, color=colour(position), alpha=0.7, s=18)
    spec = config.parameters[key]
    if isinstance(spec, ParameterRange) and spec.log:
        axes.set_xscale("log")
    axes.set_ylim(-0.02, 1.02)
    style_axes(axes, xlabel=key, ylabel="trial solve rate")


def _heatmap(
    config: SweepConfig, trials: list[Trial], leaders: set[int], best: int, out: Path, fmt: str
) -> Path:
    first, second = list(config.parameters)
    axes_values = config.grid_axes()
    rows_values, column_values = axes_values[first], axes_values[second]
    rate = np.full((len(rows_values), len(column_values)), np.nan)
    evaluations = np.full_like(rate, np.nan)
    outlined: list[tuple[int, int]] = []
    best_cell = None
    for trial in trials:
        i = rows_values.index(trial.params[first])
        j = column_values.index(trial.params[second])
        rate[i, j] = trial.solve_rate
        evaluations[i, j] = (
            trial.median_evaluations if trial.median_evaluations is not None else np.nan
        )
        if trial.number in leaders:
            outlined.append((i, j))
        if trial.number == best:
            best_cell = (i, j)
    figure, (axes,) = new_figure(
        width=1.6 + 1.1 * len(column_values), height=1.4 + 0.8 * len(rows_values)
    )
    image = axes.imshow(rate, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    axes.grid(False)
    for (i, j), value in np.ndenumerate(rate):
        if not np.isnan(value):
            text = f"{value:.0%}\n{evaluations[i, j]:,.0f} ev"
            axes.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=7,
                color="white" if value < 0.6 else "black",
            )
    axes.set_xticks(range(len(column_values)), [_label(v) for v in column_values])
    axes.set_yticks(range(len(rows_values)), [_label(v) for v in rows_values])
    if best_cell is not None and len(outlined) > 1:  # a tie: say which one best.toml holds
        i, j = best_cell
        axes.text(j, i + 0.32, "best.toml", ha="center", va="center", fontsize=6, color="red")
    for i, j in outlined:
        axes.add_patch(
            Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, edgecolor="red", linewidth=2)
        )
    style_axes(
        axes,
        xlabel=second,
        ylabel=first,
        title=f"Solve rate (median evaluations)\noutlined: {_tie_caption(set(leaders))}",
    )
    figure.colorbar(image, ax=axes, label="solve rate")
    return save_figure(figure, out / "heatmap", fmt)


def _history(
    config: SweepConfig, trials: Sequence[Trial], leaders: set[int], out: Path, fmt: str
) -> Path:
    budget = config.sweep.budget
    done = sorted((t for t in trials if t.status == "complete"), key=lambda t: t.number)
    numbers = [t.number for t in done]
    scores = [objective_value(t, budget) for t in done]
    figure, (axes,) = new_figure()
    lead = [n in leaders for n in numbers]
    if not all(lead):
        axes.scatter(
            [n for n, flag in zip(numbers, lead) if not flag],
            [v for v, flag in zip(scores, lead) if not flag],
            color=colour(0),
            s=16,
            alpha=0.7,
            label="trial",
        )
    axes.scatter(
        [n for n, flag in zip(numbers, lead) if flag],
        [v for v, flag in zip(scores, lead) if flag],
        color=colour(2),
        edgecolor="black",
        marker="D",
        s=34,
        zorder=3,
        label=_tie_caption(leaders),
    )
    axes.step(
        numbers, np.maximum.accumulate(scores), where="post", color=colour(1), label="best so far"
    )
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # trials are whole numbers
    style_axes(
        axes,
        xlabel="trial number",
        ylabel="objective (solve rate, ties: fewer evaluations)",
        title=f"Optimisation history ({config.sweep.method})",
    )
    axes.legend(loc="best")
    return save_figure(figure, out / "history", fmt)
