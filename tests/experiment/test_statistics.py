"""Confidence intervals, paired tests, Holm's adjustment and sweep ties, on known cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evosoko.experiment.analysis.metrics import expected_running_time
from evosoko.experiment.analysis.statistics import (
    ALPHA,
    Cost,
    compare_solvers,
    effective_runs,
    ert_interval,
    holm,
    median_interval,
    rate_interval,
    sign_test,
    signed_rank_test,
    solver_intervals,
    stable_seed,
    sweep_ties,
    weighted_median,
    wilson_interval,
)

# ---- rates ---------------------------------------------------------------------------------------


def test_wilson_known_values():
    # Textbook values (Newcombe 1998, Brown, Cai and DasGupta 2001).
    low, high = wilson_interval(5, 10).low, wilson_interval(5, 10).high
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10).low == 0.0
    assert wilson_interval(0, 10).high == pytest.approx(0.2775, abs=1e-4)


def test_a_full_solve_rate_has_an_interval_below_one():
    interval = wilson_interval(50, 50)
    assert interval.high == 1.0
    assert interval.low == pytest.approx(0.9287, abs=1e-4)  # not the bootstrap's [1, 1]


@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_scipy_and_holds_the_rate(case):
    successes, runs = case
    ours = wilson_interval(successes, runs)
    theirs = stats.binomtest(successes, runs).proportion_ci(method="wilson")
    assert ours.low == pytest.approx(theirs.low, abs=1e-9)
    assert ours.high == pytest.approx(theirs.high, abs=1e-9)
    assert ours.low <= successes / runs <= ours.high


def test_one_run_per_level_is_plain_wilson():
    flags = [[True]] * 30 + [[False]] * 20
    assert effective_runs(flags) == 50
    assert rate_interval(flags) == wilson_interval(30, 50)


def test_seeds_that_agree_on_their_level_count_as_one_run():
    one_each = [[True]] * 30 + [[False]] * 20
    three_each = [[True] * 3] * 30 + [[False] * 3] * 20
    assert effective_runs(three_each) == pytest.approx(50)
    assert rate_interval(three_each).low == pytest.approx(rate_interval(one_each).low)
    assert rate_interval(three_each).high == pytest.approx(rate_interval(one_each).high)


def test_seeds_that_vary_within_levels_narrow_the_interval():
    # Every level solved by exactly two of three seeds: no between-level variance at all.
    flags = [[True, True, False]] * 50
    assert effective_runs(flags) == 150
    assert rate_interval(flags) == wilson_interval(100, 150)


@given(st.lists(st.lists(st.booleans(), min_size=1, max_size=5), min_size=1, max_size=40))
def test_effective_runs_lie_between_one_and_all_runs(flags):
    runs = sum(map(len, flags))
    assert 0 < effective_runs(flags) <= runs
    interval = rate_interval(flags)
    rate = sum(map(sum, flags)) / runs
    assert 0 <= interval.low <= rate + 1e-12 and rate - 1e-12 <= interval.high <= 1


# ---- bootstrap -----------------------------------------------------------------------------------


@settings(max_examples=60)
@given(
    st.lists(st.integers(0, 50), min_size=1, max_size=12),
    st.lists(st.integers(0, 4), min_size=1, max_size=12),
)
def test_weighted_median_is_the_median_of_the_repeated_values(values, weights):
    size = min(len(values), len(weights))
    values = np.sort(np.array(values[:size], dtype=float))
    weights = np.array(weights[:size])
    got = weighted_median(values, weights[None, :])[0]
    if weights.sum() == 0:
        assert math.isnan(got)
    else:
        assert got == np.median(np.repeat(values, weights))


def test_ert_interval_holds_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(3)
    solved = [[bool(x) for x in rng.random(3) < 0.7] for _ in range(40)]
    costs = [[float(rng.uniform(1, 5)) if s else 10.0 for s in level] for level in solved]
    flat_costs = [c for level in costs for c in level]
    flat_solved = [s for level in solved for s in level]
    ert = expected_running_time(flat_costs, flat_solved, 10.0)
    first = ert_interval(costs, solved, seed=7)
    assert first.low < ert < first.high
    assert ert_interval(costs, solved, seed=7) == first


def test_ert_interval_reaches_infinity_when_a_resample_may_solve_nothing():
    solved = [[True]] + [[False]] * 9
    costs = [[1.0]] + [[10.0]] * 9
    interval = ert_interval(costs, solved, seed=1)
    assert interval.low < 100 and interval.high == math.inf
    assert not ert_interval([[10.0]] * 5, [[False]] * 5, seed=1).known  # no success: no CI


def test_median_interval_of_identical_levels_is_a_point():
    interval = median_interval([[4.0, 6.0]] * 10, seed=0)
    assert (interval.low, interval.high) == (5.0, 5.0)


def test_median_interval_covers_the_median_of_a_skewed_sample():
    rng = np.random.default_rng(11)
    values = [list(rng.lognormal(0, 1, 3)) for _ in range(60)]
    interval = median_interval(values, seed=stable_seed("x"))
    median = float(np.median([v for level in values for v in level]))
    assert interval.low < median < interval.high
    assert interval.high - interval.low < 1.0


# ---- tests ---------------------------------------------------------------------------------------


def test_sign_test_is_mcnemar_exact_on_binary_outcomes():
    first = [1] * 10 + [0] * 5 + [1] * 3
    second = [0] * 10 + [0] * 5 + [1] * 3
    result = sign_test(first, second)
    assert (result.first_better, result.second_better) == (10, 0)
    assert result.p_value == pytest.approx(2 * 0.5**10)
    assert sign_test([1, 0], [1, 0]).p_value == 1.0


def test_signed_rank_exact_p_value():
    # Five positive differences, no ties: the exact two-sided p-value is 2 / 2^5.
    result = signed_rank_test([2, 3, 4, 5, 6], [1, 1, 1, 1, 1])
    assert (result.first_better, result.second_better) == (0, 5)
    assert result.p_value == pytest.approx(2 / 32)
    assert result.median_difference == 3.0
    assert signed_rank_test([1, 2], [1, 2]).p_value == 1.0


@settings(max_examples=40)
@given(st.lists(st.integers(-30, 30).filter(bool), min_size=1, max_size=12, unique_by=abs))
def test_enumerated_signed_rank_matches_scipy_exact_without_ties(differences):
    ours = signed_rank_test(differences, [0] * len(differences)).p_value
    theirs = stats.wilcoxon(differences, method="exact").pvalue
    assert ours == pytest.approx(theirs)


def test_tied_differences_never_go_below_the_smallest_exact_p():
    assert signed_rank_test([5, 5, 5], [1, 1, 1]).p_value == pytest.approx(2 / 8)
    assert signed_rank_test([5] * 6, [1] * 6).p_value == pytest.approx(2 / 64)


def test_holm_known_case():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_holm_properties(p_values):
    adjusted = holm(p_values)
    assert all(p <= a <= 1 for p, a in zip(p_values, adjusted))
    assert min(adjusted) == pytest.approx(min(1.0, len(p_values) * min(p_values)))
    for i in range(len(p_values)):
        for j in range(len(p_values)):
            if p_values[i] < p_values[j]:
                assert adjusted[i] <= adjusted[j]


# ---- comparisons and sweeps ----------------------------------------------------------------------


def _rows(solver, unit, outcomes, seeds=(None,), cost=1.0):
    """Rows of a solver: ``outcomes[level]`` solved flags, one per seed."""
    return [
        {
            "solver": solver,
            "unit": unit,
            "level_index": level,
            "seed": seed,
            "solved": flag,
            "seconds": cost if flag else 10.0,
            "used": int(cost * 100) if flag else 1000,
            "moves": 20 + level,
            "pushes": 5 + level,
        }
        for level, flags in enumerate(outcomes, start=1)
        for seed, flag in zip(seeds, flags)
    ]


def test_compare_solvers_separates_a_clear_winner_and_not_equals():
    strong = _rows("strong", "nodes", [[True]] * 30, cost=0.5)
    weak = _rows("weak", "nodes", [[True]] * 10 + [[False]] * 20)
    twin = _rows("twin", "nodes", [[True]] * 10 + [[False]] * 20)
    tests = compare_solvers(strong + weak + twin, 10.0, {"nodes": 1000})
    by_pair = {(t.first, t.second, t.measure): t for t in tests}
    assert len(tests) == 6
    solved = by_pair[("strong", "weak", "solved")]
    assert (solved.first_better, solved.second_better, solved.levels) == (20, 0, 30)
    assert solved.significant and solved.p_adjusted >= solved.p_value
    assert by_pair[("strong", "weak", "nodes")].significant  # the shared unit is the cost
    assert not by_pair[("weak", "twin", "solved")].significant
    assert by_pair[("weak", "twin", "nodes")].p_value == 1.0


def test_compare_solvers_pairs_levels_and_averages_seeds():
    ga = _rows("ga", "evaluations", [[True, True, False]] * 12, seeds=(1, 2, 3))
    search = _rows("search", "nodes", [[False]] * 12)
    solved, cost = compare_solvers(ga + search, 10.0, {"evaluations": 1000, "nodes": 1000})
    assert solved.levels == 12  # levels, not 36 runs
    assert (solved.first_better, solved.second_better) == (12, 0)
    assert cost.measure == "seconds"  # different units: wall-clock time
    assert solved.p_value == pytest.approx(2 * 0.5**12)


def test_solver_intervals_are_reproducible_and_hold_the_estimates():
    rows = _rows(
        "ga", "evaluations", [[True, False, True]] * 8 + [[False] * 3] * 4, seeds=(1, 2, 3)
    )
    first = solver_intervals("ga", rows, 10.0, 1000)
    assert first == solver_intervals("ga", rows, 10.0, 1000)
    assert first.solve_rate.low < 16 / 36 < first.solve_rate.high
    assert first.median_moves.low <= np.median([r["moves"] for r in rows if r["solved"]])
    assert set(first.as_dict()) >= {"solve_rate", "ert_seconds", "median_pushes"}


def _trial_rows(trial, flags_per_level, evaluations):
    return [
        {"trial": trial, "level_index": level, "seed": seed, "solved": flag,
         "evaluations": evaluations if flag else 5000, "seconds": 1.0}
        for level, flags in enumerate(flags_per_level, start=1)
        for seed, flag in enumerate(flags)
    ]  # fmt: skip


def test_sweep_ties_keep_trials_the_data_cannot_separate():
    rng = np.random.default_rng(5)
    levels = [[bool(x) for x in rng.random(2) < 0.8] for _ in range(12)]
    rows = {
        0: _trial_rows(0, levels, 900),
        1: _trial_rows(1, levels, 1000),  # the same outcomes, 10 % more evaluations
        2: _trial_rows(2, [[False, False]] * 12, 0),  # solves nothing
    }
    report = sweep_ties(0, rows, Cost("evaluations", "evaluations", 5000))
    assert report.best == 0 and 2 not in report.tied
    assert report.p_against_best(2) <= ALPHA
    assert set(report.tests) == {1, 2}
    assert report.p_against_best(0) is None
    # Trial 1 differs only in cost, but on every level it solves: 12 levels are enough to tell.
    assert report.tied == [] and report.p_against_best(1) <= ALPHA


def test_a_trial_that_differs_on_one_level_ties_with_the_best():
    levels = [[True, True]] * 10 + [[True, False]] * 2
    worse = [[True, True]] * 9 + [[False, False]] + [[True, False]] * 2
    rows = {0: _trial_rows(0, levels, 1000), 1: _trial_rows(1, worse, 1000)}
    report = sweep_ties(0, rows, Cost("evaluations", "evaluations", 5000))
    assert report.tied == [1]
    solved, cost = report.tests[1]
    assert (solved.first_better, solved.second_better) == (1, 0)
    assert solved.p_value == 1.0 and cost.p_value == 1.0  # one level: p = 1 either way


def test_a_sweep_of_equal_trials_is_one_tie():
    levels = [[True, False]] * 6 + [[True, True]] * 6
    rows = {n: _trial_rows(n, levels, 1000) for n in range(4)}
    report = sweep_ties(2, rows, Cost("evaluations", "evaluations", 5000))
    assert report.tied == [0, 1, 3]


def test_a_table_on_too_few_levels_says_no_test_could_be_significant():
    from evosoko.experiment.analysis.markdown import paired_tests_markdown

    few = compare_solvers(
        _rows("a", "nodes", [[True]] * 3) + _rows("b", "nodes", [[False]] * 3), 10.0, {}
    )
    text = "\n".join(paired_tests_markdown(few))
    assert "| a | b | 3 | 3 : 0 | 0.5 |" in text  # 3 of 3 levels: p = 2/8, then Holm
    assert "With 3 levels no paired test can get there" in text
    many = compare_solvers(
        _rows("a", "nodes", [[True]] * 12) + _rows("b", "nodes", [[False]] * 12), 10.0, {}
    )
    text = "\n".join(paired_tests_markdown(many))
    assert "- a solves more levels than b (p = 0.00098)" in text  # 2 x 2/2^12 (Holm)
    assert "- a is faster than b" in text  # no shared budget: seconds
