"""ERT, the run-time ECDF, summaries and quantile bands against hand-computed cases."""

import math

import numpy as np
import pytest

from evosoko.experiment.analysis.metrics import (
    ecdf_steps,
    expected_running_time,
    median_or_none,
    quantile_band,
    runtime_ecdf,
    summarise,
)


def test_ert_counts_failures_at_the_full_budget():
    # successes 2 + 4, failures counted at 10 each (not the 1 and 3 they spent): 26 / 2
    costs = [2.0, 1.0, 4.0, 3.0]
    solved = [True, False, True, False]
    assert expected_running_time(costs, solved, budget=10) == pytest.approx(13.0)


def test_ert_all_solved_is_the_mean_cost():
    assert expected_running_time([1, 2, 6], [True, True, True], budget=100) == pytest.approx(3.0)


def test_ert_without_success_is_infinite_and_without_runs_undefined():
    assert expected_running_time([5, 5], [False, False], budget=10) == math.inf
    assert math.isnan(expected_running_time([], [], budget=10))


def test_ert_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        expected_running_time([1, 2], [True], budget=3)


def test_runtime_ecdf_counts_only_successes_within_each_budget():
    # 5 runs: solved at 1, 3, 3 and 7; one failure (which never counts)
    costs = [3, 1, 50, 7, 3]
    solved = [True, True, False, True, True]
    fractions = runtime_ecdf(costs, solved, [0, 1, 2, 3, 6.9, 7, 100])
    assert fractions.tolist() == pytest.approx([0, 0.2, 0.2, 0.6, 0.6, 0.8, 0.8])


def test_ecdf_steps_merge_ties_and_end_at_the_solve_rate():
    x, y = ecdf_steps([3, 1, 50, 7, 3], [True, True, False, True, True])
    assert x.tolist() == [1, 3, 7]
    assert y.tolist() == pytest.approx([0.2, 0.6, 0.8])
    empty_x, empty_y = ecdf_steps([4], [False])
    assert len(empty_x) == len(empty_y) == 0


def test_median_or_none_skips_missing_values():
    assert median_or_none([None, 4, 1, None, 3]) == 3
    assert median_or_none([None]) is None


def _row(solver, unit, solved, seconds, used, moves=None, pushes=None):
    return {
        "solver": solver,
        "unit": unit,
        "solved": solved,
        "seconds": seconds,
        "used": used,
        "moves": moves,
        "pushes": pushes,
    }


def test_summarise_per_solver_in_first_appearance_order():
    rows = [
        _row("ga", "evaluations", True, 1.0, 100, 30, 8),
        _row("bfs", "nodes", False, 10.0, 5000),
        _row("ga", "evaluations", False, 9.0, 1000),
        _row("ga", "evaluations", True, 3.0, 300, 40, 10),
        _row("bfs", "nodes", True, 2.0, 800, 20, 6),
    ]
    ga, bfs = summarise(rows, seconds_budget=10, unit_budgets={"evaluations": 1000, "nodes": None})
    assert (ga.solver, ga.runs, ga.solved) == ("ga", 3, 2)
    assert ga.solve_rate == pytest.approx(2 / 3)
    assert ga.median_seconds == 2.0 and ga.median_units == 200
    assert ga.ert_seconds == pytest.approx((1 + 10 + 3) / 2)
    assert ga.ert_units == pytest.approx((100 + 1000 + 300) / 2)
    assert (ga.median_moves, ga.median_pushes) == (35, 9)
    assert bfs.ert_seconds == pytest.approx((10 + 2) / 1)
    assert bfs.ert_units is None  # no node budget: no ERT in nodes


def test_quantile_band_holds_values_and_carries_the_last_one():
    # curve a: 4 until x=2, then 2; ends at x=2 and stays 2. curve b: 6, 3 at x=1, 0 at x=3.
    # curve c: 5 throughout (x=0..3).
    band = quantile_band([([0, 2], [4, 2]), ([0, 1, 3], [6, 3, 0]), ([0, 3], [5, 5])])
    assert band.x.tolist() == [0, 1, 2, 3]
    assert band.median.tolist() == pytest.approx([5, 4, 3, 2])
    assert band.lower.tolist() == pytest.approx([4.5, 3.5, 2.5, 1.0])
    assert band.upper.tolist() == pytest.approx([5.5, 4.5, 4.0, 3.5])
    assert band.curves == 3


def test_quantile_band_leaves_curves_out_before_their_start():
    band = quantile_band([([0, 1], [1, 1]), ([1, 2], [3, 3])])
    assert band.median.tolist() == pytest.approx([1, 2, 2])
    assert np.all(band.lower <= band.median) and np.all(band.median <= band.upper)
    assert quantile_band([]).curves == 0


def test_quantile_band_holds_a_solved_zero_but_ends_other_curves():
    # a: solved at x=2 (0 stays); b: out of budget at x=1 with 3 (leaves the band after x=1)
    curves = [([0, 2], [4, 0]), ([0, 1], [6, 3])]
    zero = quantile_band(curves, hold="zero")
    assert zero.x.tolist() == [0, 1, 2] and zero.median.tolist() == pytest.approx([5, 3.5, 0])
    none = quantile_band(curves, hold="none")
    assert none.median.tolist() == pytest.approx([5, 3.5, 0])  # a itself reaches x=2
    assert quantile_band([([0, 1], [6, 3])], hold="none").x.tolist() == [0, 1]
    later = quantile_band([([0, 1], [6, 3]), ([0, 5], [1, 1])], hold="none")
    assert later.median.tolist() == pytest.approx([3.5, 2, 1])  # x=5: only the second curve
