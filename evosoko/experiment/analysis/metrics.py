"""Performance measures of the field: expected running time, run-time ECDFs, summaries, bands.

- :func:`expected_running_time` (ERT, as in COCO): the total cost spent over all runs, a failed
  run counted at the full budget, divided by the number of successful runs (``inf`` if none).
- :func:`runtime_ecdf`: the fraction of runs that succeeded within each budget (the empirical
  cumulative distribution of the run time, as COCO and IOHprofiler draw it); failures never
  count, so the curve ends at the solve rate.
- :func:`summarise`: per-solver solve rate, medians and ERT from the rows of a comparison.
- :func:`quantile_band`: the median and inter-quartile band of several step curves (fitness
  against generation or evaluations) on a common grid.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "Band",
    "SolverSummary",
    "ecdf_steps",
    "expected_running_time",
    "median_or_none",
    "quantile_band",
    "runtime_ecdf",
    "summarise",
]


def expected_running_time(costs: Sequence[float], solved: Sequence[bool], budget: float) -> float:
    """ERT: (sum of the successes' costs + ``budget`` per failure) / number of successes.

    ``costs[i]`` is what run ``i`` spent (its time to solve when ``solved[i]``); a failure
    counts at ``budget`` whatever it spent, so stopping early (an exhausted search) is not
    rewarded. Returns ``inf`` when no run succeeded, ``nan`` for no runs at all.
    """
    if len(costs) != len(solved):
        raise ValueError("costs and solved differ in length")
    if not costs:
        return math.nan
    successes = sum(1 for flag in solved if flag)
    if successes == 0:
        return math.inf
    total = sum(float(cost) if flag else float(budget) for cost, flag in zip(costs, solved))
    return total / successes


def runtime_ecdf(
    costs: Sequence[float], solved: Sequence[bool], budgets: Sequence[float]
) -> np.ndarray:
    """Fraction of all runs solved with cost ``<= b``, for each budget ``b`` in ``budgets``."""
    if len(costs) != len(solved):
        raise ValueError("costs and solved differ in length")
    grid = np.asarray(budgets, dtype=float)
    if not costs:
        return np.zeros_like(grid)
    successes = np.sort(np.array([c for c, s in zip(costs, solved) if s], dtype=float))
    return np.searchsorted(successes, grid, side="right") / len(costs)


def ecdf_steps(costs: Sequence[float], solved: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    """The corners of the run-time ECDF: sorted success costs and the fraction solved there.

    ``y[i]`` is the fraction of all runs solved at cost ``x[i]`` (ties give one point with the
    higher fraction); draw it as a post-step curve.
    """
    if len(costs) != len(solved):
        raise ValueError("costs and solved differ in length")
    successes = np.sort(np.array([c for c, s in zip(costs, solved) if s], dtype=float))
    if not len(costs) or not len(successes):
        return np.zeros(0), np.zeros(0)
    x, counts = np.unique(successes, return_counts=True)
    return x, np.cumsum(counts) / len(costs)


def median_or_none(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None (None when there are none)."""
    present = [float(v) for v in values if v is not None]
    return float(np.median(present)) if present else None


@dataclass(frozen=True)
class SolverSummary:
    """One solver over all its runs: counts, solve rate, medians over solved runs, ERT.

    ``ert_seconds`` uses the wall-clock budget; ``ert_units`` the solver's own budget
    (``unit``: evaluations or nodes) and is None when that budget is unlimited.
    """

    solver: str
    unit: str
    runs: int
    solved: int
    median_seconds: float | None
    median_units: float | None
    ert_seconds: float
    ert_units: float | None
    median_moves: float | None
    median_pushes: float | None

    @property
    def solve_rate(self) -> float:
        """Solved runs / runs (0 for no runs)."""
        return self.solved / self.runs if self.runs else 0.0


def summarise(
    rows: Sequence[dict],
    seconds_budget: float,
    unit_budgets: Mapping[str, float | None],
) -> list[SolverSummary]:
    """Per solver (in order of first appearance) summaries of comparison rows.

    Each row needs ``solver``, ``unit``, ``solved`` (bool), ``seconds``, ``used`` (evaluations
    or nodes spent), ``moves``, ``pushes``. ``unit_budgets`` maps a unit to its budget.
    """
    by_solver: dict[str, list[dict]] = {}
    for row in rows:
        by_solver.setdefault(row["solver"], []).append(row)
    summaries = []
    for solver, runs in by_solver.items():
        unit = runs[0]["unit"]
        flags = [bool(r["solved"]) for r in runs]
        solved_runs = [r for r in runs if r["solved"]]
        unit_budget = unit_budgets.get(unit)
        summaries.append(
            SolverSummary(
                solver=solver,
                unit=unit,
                runs=len(runs),
                solved=len(solved_runs),
                median_seconds=median_or_none(r["seconds"] for r in solved_runs),
                median_units=median_or_none(r["used"] for r in solved_runs),
                ert_seconds=expected_running_time(
                    [r["seconds"] for r in runs], flags, seconds_budget
                ),
                ert_units=None
                if unit_budget is None
                else expected_running_time([r["used"] for r in runs], flags, unit_budget),
                median_moves=median_or_none(r["moves"] for r in solved_runs),
                median_pushes=median_or_none(r["pushes"] for r in solved_runs),
            )
        )
    return summaries


@dataclass(frozen=True)
class Band:
    """Median and inter-quartile range of several curves on the grid ``x``."""

    x: np.ndarray
    median: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    curves: int


def quantile_band(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]],
    points: int = 200,
    *,
    hold: Literal["last", "zero", "none"] = "last",
) -> Band:
    """Median and 25-75 % band across step curves ``(x, y)`` (x increasing).

    Each curve holds its value until its next point. After its end it keeps its last value
    (``hold="last"``), keeps it only when that is 0 (``"zero"``: a run that stopped because it
    solved stays solved, one that ran out of budget leaves the band), or leaves the band
    (``"none"``: a population's mean or diversity means nothing once the run stopped). The grid
    spans the smallest first x to the largest last x, with ``points`` points (every distinct x
    when there are fewer); grid points no curve covers are left out.
    """
    cleaned = [(np.asarray(x, float), np.asarray(y, float)) for x, y in curves if len(x)]
    if not cleaned:
        empty = np.zeros(0)
        return Band(empty, empty, empty, empty, 0)
    distinct = np.unique(np.concatenate([x for x, _ in cleaned]))
    if len(distinct) > points:
        distinct = np.unique(np.linspace(distinct[0], distinct[-1], points))
    values = np.full((len(cleaned), len(distinct)), np.nan)
    for row, (x, y) in enumerate(cleaned):
        index = np.searchsorted(x, distinct, side="right") - 1
        covered = index >= 0
        if hold == "none" or (hold == "zero" and y[-1] != 0):
            covered &= distinct <= x[-1]
        values[row, covered] = y[index[covered]]
    kept = ~np.all(np.isnan(values), axis=0)
    distinct, values = distinct[kept], values[:, kept]
    lower, median, upper = np.nanquantile(values, [0.25, 0.5, 0.75], axis=0)
    return Band(distinct, median, lower, upper, len(cleaned))
