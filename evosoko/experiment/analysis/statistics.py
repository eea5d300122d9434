"""How sure a comparison or a sweep can be: confidence intervals, paired tests, ties.

The unit of replication is the **level**: an experiment's levels are a sample of the levels
its conclusions are about, and a solver's runs on one level (its seeds) depend on that level
(a hard level defeats every seed). So every interval resamples levels, not runs (a cluster
bootstrap), and every test pairs two solvers level by level, a solver's seeds on a level
averaged first. Counting a level's seeds as independent evidence (pseudo-replication) would
make intervals too narrow and tests too eager. With a single level, its runs are the units.

- :func:`rate_interval`: the solve rate's Wilson score interval, on the *effective* number of
  runs when seeds cluster by level (Korn and Graubard's effective sample size: the number
  of independent runs that would give the rate the variance its levels give it). Wilson,
  not a bootstrap: at 50 of 50 solved a percentile bootstrap collapses to [100 %, 100 %]
  and BCa is undefined, while Wilson gives [92.9 %, 100 %]; it keeps close to its nominal
  coverage near 0 and 1 (Brown, Cai and DasGupta 2001).
- :func:`ert_interval`: ERT's BCa bootstrap interval over levels. BCa corrects the bias and
  skew of a ratio estimator; it is computed on 1 / ERT (solved runs per unit of cost, finite
  even when a resample solves nothing) and mapped back, which BCa allows because it respects
  monotone transformations. An upper end of ``inf`` means the data cannot rule out that the
  solver almost never succeeds.
- :func:`median_interval`: the percentile bootstrap interval of a median over levels
  (BCa's jackknife acceleration is unreliable for a median, Efron and Tibshirani 1993, 11.5).
- :func:`sign_test` (McNemar's exact test when each solver ran once per level; with seeds,
  the sign test on the levels' solve fractions), :func:`signed_rank_test` (Wilcoxon on the
  levels' mean costs, a failure counted at the budget) and :func:`holm` (Holm's step-down
  adjustment, which holds the chance of any false claim in a table of tests at alpha).
- :func:`compare_solvers` and :func:`sweep_ties` apply them to a comparison's and a sweep's
  job rows; :mod:`evosoko.experiment.analysis.markdown` writes them as text.

Every bootstrap draws from a generator seeded by what it describes, so the same rows give the
same summary on every machine.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats

__all__ = [
    "ALPHA",
    "CONFIDENCE",
    "RESAMPLES",
    "Cost",
    "Interval",
    "PairedTest",
    "SolverIntervals",
    "TieReport",
    "Uncertainty",
    "compare_solvers",
    "comparison_uncertainty",
    "effective_runs",
    "ert_interval",
    "holm",
    "level_groups",
    "median_interval",
    "paired_tests",
    "rate_interval",
    "sign_test",
    "signed_rank_test",
    "solver_intervals",
    "stable_seed",
    "sweep_ties",
    "weighted_median",
    "wilson_interval",
]

CONFIDENCE = 0.95
"""Confidence level of every interval."""
ALPHA = 0.05
"""Family-wise error rate of a table of tests (after Holm's adjustment)."""
RESAMPLES = 9999
"""Bootstrap resamples per interval."""
BATCH = 1000
"""Resamples drawn at once (bounds memory for large level sets)."""

SOLVED = "solved"
"""The ``measure`` of a test on solve outcomes (other tests name their cost unit)."""


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]``; ``nan`` ends when it cannot be computed."""

    low: float
    high: float

    @property
    def known(self) -> bool:
        """True when both ends are numbers (``inf`` included)."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    def as_list(self) -> list[float | None]:
        """``[low, high]`` for JSON: ends that are not finite become None."""
        return [_finite(self.low), _finite(self.high)]


UNKNOWN = Interval(math.nan, math.nan)


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


# ---- rates ---------------------------------------------------------------------------------------


def wilson_interval(successes: float, runs: float, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval of ``successes / runs`` (``runs`` may be fractional: an
    effective number of runs)."""
    if runs <= 0:
        return UNKNOWN
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    rate = successes / runs
    scale = 1 + z * z / runs
    centre = (rate + z * z / (2 * runs)) / scale
    half = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / scale
    low = 0.0 if successes <= 0 else max(0.0, centre - half)  # exact at the edges, no rounding
    high = 1.0 if successes >= runs else min(1.0, centre + half)
    return Interval(low, high)


def effective_runs(solved_by_level: Sequence[Sequence[bool]]) -> float:
    """How many independent runs the clustered outcomes are worth for estimating the rate.

    ``n p (1 - p) / v`` where ``v`` is the between-level variance of the rate (the
    cluster-robust estimate: squared deviations of each level's successes from its expected
    share, over ``n``^2), at most ``n``. One run per level gives ``n``; seeds that always
    agree on their level give the number of levels.
    """
    runs = sum(len(flags) for flags in solved_by_level)
    if runs == 0:
        return 0.0
    rate = sum(sum(map(bool, flags)) for flags in solved_by_level) / runs
    variance = sum(
        (sum(map(bool, flags)) - len(flags) * rate) ** 2 for flags in solved_by_level
    ) / (runs * runs)
    if variance <= 0 or rate in (0.0, 1.0):
        return float(runs)
    return float(min(runs, rate * (1 - rate) / variance))


def rate_interval(solved_by_level: Sequence[Sequence[bool]]) -> Interval:
    """The solve rate's Wilson interval on the effective number of runs (see the module)."""
    runs = sum(len(flags) for flags in solved_by_level)
    if runs == 0:
        return UNKNOWN
    rate = sum(sum(map(bool, flags)) for flags in solved_by_level) / runs
    effective = effective_runs(solved_by_level)
    return wilson_interval(rate * effective, effective)


# ---- bootstrap over levels -----------------------------------------------------------------------


def stable_seed(*parts: object) -> int:
    """A seed derived from ``parts`` (the same on every machine and Python run)."""
    text = "|".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little")


_RNG_KEYWORD = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def _unit_counts(indices: np.ndarray, units: int) -> np.ndarray:
    """How often each unit occurs in each resample: ``(..., k)`` indices -> ``(B, units)``."""
    flat = np.asarray(indices, dtype=np.intp).reshape(-1, np.shape(indices)[-1])
    offsets = (np.arange(flat.shape[0]) * units)[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * units)
    return counts.reshape(flat.shape[0], units).astype(float)


def _bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray], units: int, seed: int, method: str
) -> tuple[Interval, np.ndarray]:
    """Resample ``units`` with replacement; ``statistic(counts)`` maps a ``(B, units)`` array of
    multiplicities to ``B`` values. Returns the interval and the bootstrap distribution."""

    def on_indices(indices, axis=-1):
        shape = np.shape(indices)[:-1]
        return statistic(_unit_counts(indices, units)).reshape(shape)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate samples: handled below
        result = stats.bootstrap(
            (np.arange(units),),
            on_indices,
            vectorized=True,
            n_resamples=RESAMPLES,
            batch=BATCH,
            method=method,
            confidence_level=CONFIDENCE,
            **{_RNG_KEYWORD: np.random.default_rng(seed)},
        )
    distribution = np.asarray(result.bootstrap_distribution, dtype=float)
    low, high = result.confidence_interval
    if not (math.isnan(low) or math.isnan(high)):
        return Interval(float(low), float(high)), distribution
    present = distribution[~np.isnan(distribution)]
    if not len(present):
        return UNKNOWN, distribution
    tail = (1 - CONFIDENCE) / 2  # BCa undefined (no spread) or resamples without a value
    low, high = np.quantile(present, [tail, 1 - tail])
    return Interval(float(low), float(high)), distribution


def level_groups(rows: Sequence[dict]) -> list[list[dict]]:
    """Rows grouped by ``level_index`` (in order of first appearance); with a single level,
    one group per row (its runs are then the units)."""
    groups: dict[Any, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["level_index"], []).append(row)
    if len(groups) == 1:
        return [[row] for row in rows]
    return list(groups.values())


def ert_interval(costs_by_level: Sequence[Sequence[float]], solved_by_level, seed: int) -> Interval:
    """ERT's BCa interval over levels; ``costs_by_level`` already count failures at the budget.
    Unknown (``nan`` ends) for fewer than two levels or no success at all."""
    if len(costs_by_level) < 2:
        return UNKNOWN
    cost = np.array([sum(costs) for costs in costs_by_level], dtype=float)
    successes = np.array([sum(map(bool, flags)) for flags in solved_by_level], dtype=float)
    if successes.sum() == 0:  # ERT is infinite; resampling levels cannot say how sure that is
        return UNKNOWN

    def solved_per_cost(counts: np.ndarray) -> np.ndarray:
        spent = counts @ cost
        return np.divide(counts @ successes, spent, out=np.zeros(len(counts)), where=spent > 0)

    inverse, _ = _bootstrap(solved_per_cost, len(cost), seed, "BCa")
    if not inverse.known:
        return UNKNOWN
    return Interval(_reciprocal(inverse.high), _reciprocal(inverse.low))


def _reciprocal(value: float) -> float:
    return math.inf if value <= 0 else 1.0 / value


def weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Medians of ``values`` (sorted ascending) repeated ``weights[b]`` times, one per row of
    ``weights`` (integer multiplicities; ``nan`` for a row of zeros)."""
    cumulative = np.cumsum(weights, axis=1)
    total = cumulative[:, -1] if cumulative.shape[1] else np.zeros(len(weights))
    lower_rank = np.floor((total + 1) / 2)
    upper_rank = np.floor(total / 2) + 1
    lower = np.argmax(cumulative >= lower_rank[:, None], axis=1)
    upper = np.argmax(cumulative >= upper_rank[:, None], axis=1)
    medians = (values[lower] + values[upper]) / 2 if len(values) else np.full(len(weights), 0.0)
    return np.where(total > 0, medians, np.nan)


def median_interval(values_by_level: Sequence[Sequence[float]], seed: int) -> Interval:
    """The percentile bootstrap interval (over levels) of the median of all values."""
    if len(values_by_level) < 2 or not any(len(values) for values in values_by_level):
        return UNKNOWN
    values = np.array([v for group in values_by_level for v in group], dtype=float)
    owner = np.array([i for i, group in enumerate(values_by_level) for _ in group], dtype=np.intp)
    order = np.argsort(values, kind="stable")
    values, owner = values[order], owner[order]

    def median(counts: np.ndarray) -> np.ndarray:
        return weighted_median(values, counts[:, owner])

    interval, _ = _bootstrap(median, len(values_by_level), seed, "percentile")
    return interval


# ---- one solver's intervals ----------------------------------------------------------------------


@dataclass(frozen=True)
class SolverIntervals:
    """95 % intervals of a solver's summary figures (see :class:`metrics.SolverSummary`)."""

    solve_rate: Interval
    median_seconds: Interval
    ert_seconds: Interval
    ert_units: Interval
    median_moves: Interval
    median_pushes: Interval

    def as_dict(self) -> dict[str, list[float | None]]:
        """JSON-ready: ``{"solve_rate": [low, high], ...}``."""
        return {name: getattr(self, name).as_list() for name in self.__dataclass_fields__}


def solver_intervals(
    solver: str, rows: Sequence[dict], seconds_budget: float, unit_budget: float | None
) -> SolverIntervals:
    """Intervals of one solver's rows (``solved``, ``seconds``, ``used``, ``moves``,
    ``pushes``, ``level_index``); the bootstrap is seeded by the solver's name."""
    groups = level_groups(rows)
    flags = [[bool(row["solved"]) for row in group] for group in groups]
    seed = stable_seed(solver)

    def costs(key: str, budget: float) -> list[list[float]]:
        return [[float(r[key]) if r["solved"] else budget for r in group] for group in groups]

    def solved_values(key: str) -> list[list[float]]:
        return [
            [float(r[key]) for r in group if r["solved"] and r[key] is not None] for group in groups
        ]

    return SolverIntervals(
        solve_rate=rate_interval(flags),
        median_seconds=median_interval(solved_values("seconds"), seed + 1),
        ert_seconds=ert_interval(costs("seconds", seconds_budget), flags, seed + 2),
        ert_units=UNKNOWN
        if unit_budget is None
        else ert_interval(costs("used", unit_budget), flags, seed + 3),
        median_moves=median_interval(solved_values("moves"), seed + 4),
        median_pushes=median_interval(solved_values("pushes"), seed + 5),
    )


# ---- paired tests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    """A paired comparison's outcome: levels where the first or the second did better."""

    first_better: int
    second_better: int
    p_value: float
    median_difference: float | None = None


def sign_test(first: Sequence[float], second: Sequence[float]) -> Counted:
    """Two-sided exact sign test of paired values (higher is better): McNemar's exact test
    when the values are 0/1 outcomes. Ties carry no information and are left out."""
    higher = sum(1 for a, b in zip(first, second, strict=True) if a > b)
    lower = sum(1 for a, b in zip(first, second, strict=True) if a < b)
    if higher + lower == 0:
        return Counted(0, 0, 1.0)
    return Counted(higher, lower, float(stats.binomtest(higher, higher + lower).pvalue))


def signed_rank_test(first: Sequence[float], second: Sequence[float]) -> Counted:
    """Two-sided Wilcoxon signed-rank test of paired costs (lower is better). Zero
    differences are left out (Wilcoxon's treatment); the p-value is exact up to
    :data:`ENUMERATED` differences (every sign pattern) and up to 50 without ties (scipy's
    exact distribution), else the normal approximation.
    ``median_difference``: the median of ``first - second`` over the pairs."""
    differences = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    if len(differences) == 0:
        return Counted(0, 0, 1.0)
    median = float(np.median(differences))
    nonzero = differences[differences != 0]
    cheaper_first, cheaper_second = int((nonzero < 0).sum()), int((nonzero > 0).sum())
    if len(nonzero) == 0:
        return Counted(0, 0, 1.0, median)
    magnitudes = np.abs(nonzero)
    if len(nonzero) <= ENUMERATED:
        p_value = _enumerated_signed_rank_p(nonzero)
    else:
        exact = len(nonzero) <= 50 and len(np.unique(magnitudes)) == len(magnitudes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's note on coarse p-values
            p_value = stats.wilcoxon(nonzero, method="exact" if exact else "approx").pvalue
    return Counted(cheaper_first, cheaper_second, float(p_value), median)


ENUMERATED = 16
"""Up to this many pairs, the signed-rank test enumerates every sign pattern: exact even with
tied magnitudes, where the normal approximation undershoots the smallest possible p-value."""


def _enumerated_signed_rank_p(differences: np.ndarray) -> float:
    """Two-sided exact p-value of the signed-rank statistic (average ranks for ties) under
    the null that each difference's sign is a fair coin."""
    ranks = stats.rankdata(np.abs(differences))
    observed = ranks[differences > 0].sum()
    count = len(differences)
    patterns = (np.arange(2**count)[:, None] >> np.arange(count)) & 1
    sums = patterns @ ranks
    centre = ranks.sum() / 2
    extreme = np.abs(sums - centre) >= abs(observed - centre) - 1e-9
    return float(extreme.mean())


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: reject where ``<= alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class PairedTest:
    """One test between two solvers (or trials) over the levels both ran.

    ``measure``: ``"solved"`` (sign / McNemar test on the levels' solve fractions) or the
    cost unit (``"seconds"``, ``"evaluations"``, ``"nodes"``, ``"iterations"``: Wilcoxon
    signed-rank on the levels' mean cost, a failure counted at the budget). ``first_better`` /
    ``second_better``: levels where each solved more often, or cost less.
    ``median_difference``: cost tests only, first minus second. ``p_adjusted``: Holm-adjusted
    over every test of the table.
    """

    first: str
    second: str
    measure: str
    levels: int
    first_better: int
    second_better: int
    median_difference: float | None
    p_value: float
    p_adjusted: float = math.nan

    @property
    def significant(self) -> bool:
        """True when the adjusted p-value is at most :data:`ALPHA`."""
        return self.p_adjusted <= ALPHA

    @property
    def test(self) -> str:
        """The test's name."""
        return "sign (McNemar)" if self.measure == SOLVED else "Wilcoxon signed-rank"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "first": self.first,
            "second": self.second,
            "measure": self.measure,
            "test": self.test,
            "levels": self.levels,
            "first_better": self.first_better,
            "second_better": self.second_better,
            "median_difference": self.median_difference,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
        }


@dataclass(frozen=True)
class Cost:
    """How a run's cost is read for a test: ``key`` of the row, and a failure's cost."""

    unit: str
    key: str
    budget: float


def _per_level(rows: Sequence[dict], cost: Cost) -> dict[Any, tuple[float, float]]:
    """``level -> (solve fraction, mean cost)`` of one solver's rows."""
    grouped: dict[Any, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row["level_index"], []).append(row)
    return {
        level: (
            sum(bool(r["solved"]) for r in runs) / len(runs),
            sum(float(r[cost.key]) if r["solved"] else cost.budget for r in runs) / len(runs),
        )
        for level, runs in grouped.items()
    }


def paired_tests(
    first: str, first_rows: Sequence[dict], second: str, second_rows: Sequence[dict], cost: Cost
) -> tuple[PairedTest, PairedTest]:
    """The solve test and the cost test of two solvers over the levels both ran (unadjusted)."""
    a, b = _per_level(first_rows, cost), _per_level(second_rows, cost)
    shared = [level for level in a if level in b]
    solved = sign_test([a[k][0] for k in shared], [b[k][0] for k in shared])
    costs = signed_rank_test([a[k][1] for k in shared], [b[k][1] for k in shared])
    return (
        PairedTest(first, second, SOLVED, len(shared), solved.first_better, solved.second_better,
                   None, solved.p_value),
        PairedTest(first, second, cost.unit, len(shared), costs.first_better,
                   costs.second_better, costs.median_difference, costs.p_value),
    )  # fmt: skip


def _adjusted(tests: list[PairedTest]) -> list[PairedTest]:
    adjusted = holm([test.p_value for test in tests])
    return [PairedTest(**{**test.__dict__, "p_adjusted": p}) for test, p in zip(tests, adjusted)]


def compare_solvers(
    rows: Sequence[dict],
    seconds_budget: float,
    unit_budgets: Mapping[str, float | None],
    solvers: Sequence[str] | None = None,
) -> list[PairedTest]:
    """Both tests for every pair of solvers of a comparison, Holm-adjusted together.

    The cost is the pair's common unit when both count the same thing under a budget
    (evaluations for two GA presets, expanded nodes for two searches: machine-independent),
    else wall-clock seconds; a failure costs the budget of that unit.
    """
    by_solver: dict[str, list[dict]] = {}
    for row in rows:
        by_solver.setdefault(row["solver"], []).append(row)
    order = [s for s in (solvers or by_solver) if s in by_solver]
    tests: list[PairedTest] = []
    for first, second in combinations(order, 2):
        unit = by_solver[first][0]["unit"]
        shared_unit = unit == by_solver[second][0]["unit"] and unit_budgets.get(unit)
        cost = (
            Cost(unit, "used", float(unit_budgets[unit]))  # type: ignore[arg-type]
            if shared_unit
            else Cost("seconds", "seconds", seconds_budget)
        )
        tests.extend(paired_tests(first, by_solver[first], second, by_solver[second], cost))
    return _adjusted(tests)


@dataclass(frozen=True)
class Uncertainty:
    """A comparison's confidence intervals (per solver) and paired tests."""

    intervals: dict[str, SolverIntervals]
    tests: list[PairedTest]


def comparison_uncertainty(
    rows: Sequence[dict],
    seconds_budget: float,
    unit_budgets: Mapping[str, float | None],
    solvers: Sequence[str],
) -> Uncertainty:
    """Intervals for every solver's summary figures, both paired tests for every pair."""
    intervals = {}
    for solver in solvers:
        runs = [row for row in rows if row["solver"] == solver]
        if runs:
            unit_budget = unit_budgets.get(runs[0]["unit"])
            intervals[solver] = solver_intervals(solver, runs, seconds_budget, unit_budget)
    return Uncertainty(intervals, compare_solvers(rows, seconds_budget, unit_budgets, solvers))


# ---- sweeps --------------------------------------------------------------------------------------


@dataclass
class TieReport:
    """Which trials of a sweep the data cannot tell from the best one.

    ``best``: the top trial by point estimate; ``tied``: the other trials that no paired test
    separates from it (both Holm-adjusted p-values above :data:`ALPHA`), in trial order;
    ``tests``: per other trial, its two tests against the best.
    """

    best: int
    tied: list[int] = field(default_factory=list)
    tests: dict[int, tuple[PairedTest, PairedTest]] = field(default_factory=dict)

    def p_against_best(self, trial: int) -> float | None:
        """The smaller adjusted p-value of the trial's two tests against the best."""
        pair = self.tests.get(trial)
        return None if pair is None else min(test.p_adjusted for test in pair)


def sweep_ties(best: int, rows_by_trial: Mapping[int, Sequence[dict]], cost: Cost) -> TieReport:
    """Test every trial against ``best`` (both tests, Holm-adjusted over all of them).

    As racing methods (F-race, irace) keep every candidate not significantly worse than the
    best, a trial ties when neither test separates it: the tie set then holds every trial
    truly as good as the best with probability at least 1 - alpha.
    """
    others = [number for number in rows_by_trial if number != best]
    tests = [
        test
        for number in others
        for test in paired_tests(
            f"trial-{best}", rows_by_trial[best], f"trial-{number}", rows_by_trial[number], cost
        )
    ]
    adjusted = _adjusted(tests)
    report = TieReport(best)
    for position, number in enumerate(others):
        pair = (adjusted[2 * position], adjusted[2 * position + 1])
        report.tests[number] = pair
        if not any(test.significant for test in pair):
            report.tied.append(number)
    return report
