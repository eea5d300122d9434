"""Out-of-plan as FESS defines it (:mod:`evosoko.search.fess.sealed`): the areas each packing
step seals, the boxes in them, the cell a state falls in, and searches with it on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tiny_levels import flood, microban, quiet_level, search_signature, tiny_levels

from evosoko.search import BidirectionalSettings, FessSettings, solve
from evosoko.search.fess import space as fs
from evosoko.search.fess.run import level_features
from evosoko.search.fess.sealed import sealed_count, sealed_steps
from evosoko.search.packing_order import out_of_plan_value, packing_order, packing_value
from evosoko.sokoban.solutions import verify_solution

# Three goals along the one-wide way between a room on the left and the player's room: filled
# from the far end, and the first one filled shuts the left room off from the other two.
SHUT = ["###########",
        "#   #######",
        "# $ ...   #",
        "#   ### $ #",
        "####### $@#",
        "###########"]  # fmt: skip


def _sealed_by(level, layer, cell, step) -> bool:
    """Whether the goals of layers 0..``step`` wall ``cell`` into floor without a later goal."""
    walls = {g for g in level.goal_cells.tolist() if layer[g] <= step}
    if cell in walls:
        return False
    return all(layer[c] <= step for c in flood(level, cell, walls))


def _out_of_plan_sealed(level, order, boxes) -> int:
    """The boxes in areas that the step in progress (the first layer with an empty goal) or an
    earlier one seals, the last step left out."""
    layer, layers = order.layer, order.layers
    filled = [sum(1 for b in boxes if layer[b] == k) for k in range(layers)]
    goals = [int((layer == k).sum()) for k in range(layers)]
    open_layer = next((k for k in range(layers) if filled[k] < goals[k]), None)
    if open_layer is None:  # every goal filled: no step to come
        return 0
    last = min(open_layer, layers - 2)
    return sum(any(_sealed_by(level, layer, b, k) for k in range(last + 1)) for b in boxes)


def test_the_first_goal_filled_seals_the_room_behind_it():
    level = quiet_level(SHUT)
    order = packing_order(level)
    doorway, middle, far = (level.cell(2, c) for c in (4, 5, 6))
    assert order.layers == 3
    assert (order.layer[doorway], order.layer[middle], order.layer[far]) == (0, 1, 2)
    sealed = sealed_steps(level.floor, level.deltas, order.layer, order.layers)
    left = {level.cell(r, c) for r in (1, 2, 3) for c in (1, 2, 3)}
    for cell in np.flatnonzero(level.floor).tolist():
        assert sealed[cell] == (0 if cell in left else order.layers), level.position(cell)
    inside, outside = level.cell(2, 2), level.cell(3, 8)
    boxes = np.array([inside, outside, level.cell(4, 8)], dtype=np.int64)
    assert sealed_count(sealed, 0, boxes) == 1  # the box in the left room must leave first
    assert sealed_count(sealed, 0, np.array([outside], dtype=np.int64)) == 0
    assert sealed_count(np.zeros(0, dtype=np.int64), 0, boxes) == 0  # off: none


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_the_sealed_steps_match_plain_python(level):
    order = packing_order(level)
    sealed = sealed_steps(level.floor, level.deltas, order.layer, order.layers)
    for cell in np.flatnonzero(level.floor).tolist():
        steps = [k for k in range(order.layers - 1) if _sealed_by(level, order.layer, cell, k)]
        assert sealed[cell] == min(steps, default=order.layers)
    assert (sealed[~level.floor] == order.layers).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4), st.data(), st.sampled_from(["layers", "sealed", "both"]))
def test_a_state_cell_counts_out_of_plan_as_the_knob_says(level, data, knob):
    order = packing_order(level)
    settings_ = FessSettings(room_links=0, out_of_plan=knob)
    _, features = level_features(level, settings_)
    space = fs.make_feature_space(1, level.box_count, order.layers, settings_)
    free = np.flatnonzero(level.floor).tolist()
    # at least one cell stays free, as the player's in a search
    boxes = sorted(data.draw(st.sets(st.sampled_from(free), max_size=len(free) - 1), label="b"))
    array = np.array(boxes, dtype=np.int64)
    layers_count = out_of_plan_value(order.layer, array, order.layers)
    sealed = _out_of_plan_sealed(level, order, boxes)
    count = {"layers": layers_count, "sealed": sealed, "both": layers_count + sealed}[knob]
    plan = packing_value(order.layer, array, order.layers) * fs.OUT_OF_PLAN_LIMIT + min(
        count, fs.OUT_OF_PLAN_LIMIT - 1
    )
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    deltas = np.array(level.deltas, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    cell = fs.state_cell(features, space.state, level.floor, occupied, deltas, array, queue, False)
    regions = fs.connectivity(
        level.floor,
        np.flatnonzero(level.floor),
        occupied,
        deltas,
        np.zeros_like(queue),
        1,
        queue,
        0,
    )
    assert cell == fs.cell_of(plan, regions, space.state[fs.CONNECTIVITY_CAP])
    assert 0 <= cell < len(space.root)


def test_only_the_knob_s_values_are_taken():
    with pytest.raises(ValidationError):
        FessSettings(out_of_plan="rooms")  # type: ignore[arg-type]
    assert FessSettings().out_of_plan == "layers"


@pytest.mark.parametrize("knob", ["sealed", "both"])
def test_searches_with_sealed_areas_solve_with_verified_solutions(knob):
    for level in microban("62", "98", "138"):
        for algo, settings_ in (
            ("push-fess", FessSettings(out_of_plan=knob)),
            ("push-fess-bi", BidirectionalSettings(out_of_plan=knob)),
        ):
            result = solve(level, algo, node_limit=200_000, settings=settings_)
            assert result.solved, (level.name, algo)
            check = verify_solution(level, result.solution)
            assert check.valid and check.solved
            assert (check.moves, check.pushes) == (result.moves, result.pushes)


def test_the_sealed_areas_change_the_order_of_a_real_search():
    (level,) = microban("99")
    plain = solve(level, "push-fess", node_limit=20_000)
    sealed = solve(
        level, "push-fess", node_limit=20_000, settings=FessSettings(out_of_plan="sealed")
    )
    assert search_signature(plain) != search_signature(sealed)
    again = solve(
        level, "push-fess", node_limit=20_000, settings=FessSettings(out_of_plan="layers")
    )
    assert search_signature(again) == search_signature(plain)
