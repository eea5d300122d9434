"""The compiled Hungarian matching equals sokoban.deadlocks.matching_cost (scipy)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_microban import microban

from evosoko.sokoban import deadlocks
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.matching import (
    matching_cost,
    matching_from_duals,
    matching_kernel,
    matching_update,
    store_potentials,
)


@pytest.mark.parametrize("title", ["3", "36", "93", "144", "153"])
def test_matching_equals_the_scipy_reference(title):
    level = microban(title)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(7)
    costs = set()
    samples = [np.array(level.start.boxes)] + [
        rng.choice(floor_cells, size=level.box_count, replace=False) for _ in range(200)
    ]
    for boxes in samples:
        cost = matching_cost(level.push_distance, boxes)
        assert cost == deadlocks.matching_cost(level, boxes)
        costs.add(cost >= UNREACHABLE)
    assert costs == {True, False}  # deadlocked and matchable positions both occurred


@st.composite
def _moves(draw):
    """A random cost matrix (some pairs unreachable), a start position and box moves."""
    boxes = draw(st.integers(1, 9))
    cells = draw(st.integers(boxes + 1, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    costs = rng.integers(0, 25, size=(boxes, cells)).astype(np.int64)
    costs[rng.random((boxes, cells)) < draw(st.sampled_from([0.0, 0.2, 0.5]))] = 2 * UNREACHABLE
    start = np.sort(rng.choice(cells, size=boxes, replace=False)).astype(np.int64)
    moves = [(int(rng.integers(boxes)), int(rng.integers(cells))) for _ in range(12)]
    return costs, start, moves


def _matched(costs, boxes, potential_type):
    """Each box's goal, the goals' potentials and the work of the full matching of ``boxes``."""
    n = len(boxes)
    assignment = np.zeros(n, dtype=np.int16)
    potentials = np.zeros(n, dtype=potential_type)
    work = np.zeros((6, n + 1), dtype=np.int64)
    matching_kernel(costs, boxes, assignment, work)
    store_potentials(work, potentials)
    return assignment, potentials, work


@settings(max_examples=300, deadline=None)
@given(_moves())
def test_matching_update_gives_the_full_matchings_cost_move_after_move(case):
    costs, boxes, moves = case
    n = len(boxes)
    assignment, potentials, work = _matched(costs, boxes, np.int32)
    for row, target in moves:
        if target in boxes:
            continue
        moved_boxes = boxes.copy()
        moved_boxes[row] = target
        order = np.argsort(moved_boxes)
        boxes, assignment = moved_boxes[order], assignment[order].copy()
        moved = int(np.flatnonzero(boxes == target)[0])
        cost = matching_update(costs, boxes, assignment, potentials, moved, work)
        assert min(cost, UNREACHABLE) == matching_cost(costs, boxes)
        assert sorted(assignment.tolist()) == list(range(n))
        assert cost == sum(min(costs[assignment[r], boxes[r]], UNREACHABLE) for r in range(n))
        assert np.abs(potentials).max(initial=0) <= UNREACHABLE


@settings(max_examples=300, deadline=None)
@given(_moves(), st.integers(1, 4), st.booleans())
def test_matching_from_duals_gives_the_full_matchings_cost_from_any_goal_potentials(
    case, moved, from_zero
):
    costs, boxes, moves = case
    n = len(boxes)
    assignment, potentials, work = _matched(costs, boxes, np.int64)
    if from_zero:  # any potentials of the goals do
        potentials[:] = 0
    for step in range(0, len(moves), moved):
        boxes = boxes.copy()
        for row, target in moves[step : step + moved]:
            if target not in boxes:
                boxes[row] = target
        boxes = np.sort(boxes)
        cost = matching_from_duals(costs, boxes, assignment, potentials, work)
        assert min(cost, UNREACHABLE) == matching_cost(costs, boxes)
        assert sorted(assignment.tolist()) == list(range(n))
        capped = np.minimum(costs[:, boxes], UNREACHABLE)  # [goal, box]
        assert cost == sum(capped[assignment[r], r] for r in range(n))
        reduced = capped.T - work[0, 1:, None] - work[1, None, 1:]
        assert reduced.min() >= 0  # feasible duals, tight on the matching
        assert all(reduced[r, assignment[r]] == 0 for r in range(n))
        store_potentials(work, potentials)
