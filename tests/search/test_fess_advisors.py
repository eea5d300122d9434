"""FESS's advisors in push-fess (:mod:`evosoko.search.fess.advisors`): which moves they propose,
what a state's key within its cell becomes, and that searches with them still solve."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tiny_levels import microban, search_signature

from evosoko.search import FessSettings, SearchSettings, solve
from evosoko.search.fess import advisors as fa
from evosoko.search.fess import space as fs
from evosoko.search.store import F_LIMIT, priority
from evosoko.sokoban.solutions import verify_solution

BOXES = 6
ALL = ("packing", "connectivity", "rooms", "hotspots")


def _space(capacity=8, **change) -> fs.FeatureSpace:
    knobs = {"room_links": 2, "hotspots": 2, "advice_weight": 1, **change}
    return fs.make_feature_space(capacity, BOXES, 3, FessSettings(**knobs))


def _cell(space, packing, out_of_plan, hot, rooms, regions):
    """The cell of these coordinates, laid out as ``state_cell`` lays them out."""
    state = space.state
    plan = packing * fs.OUT_OF_PLAN_LIMIT + out_of_plan
    plan = (plan * state[fs.HOT_VALUES] + hot) * state[fs.ROOM_VALUES] + rooms
    return fs.cell_of(plan, regions, state[fs.CONNECTIVITY_CAP])


coordinates = st.tuples(
    st.integers(0, BOXES),
    st.integers(0, fs.OUT_OF_PLAN_LIMIT - 1),
    st.integers(0, 2),
    st.integers(0, 2),
    st.integers(1, 8),
)


@settings(max_examples=200, deadline=None)
@given(coordinates, coordinates)
def test_the_improved_coordinates_are_read_off_the_two_cells(parent, child):
    space = _space()
    better = fa.improved_features(space.state, _cell(space, *parent), _cell(space, *child))
    assert bool(better & fa.PACKING) == (child[0] > parent[0])
    assert bool(better & fa.HOTSPOTS) == (child[2] < parent[2])
    assert bool(better & fa.ROOMS) == (child[3] < parent[3])
    assert bool(better & fa.CONNECTIVITY) == (child[4] < parent[4])
    assert _cell(space, *child) < len(space.root)


def test_a_move_no_advisor_proposes_adds_the_weight_per_move_on_the_path():
    space = _space(advice_weight=3)
    key = priority(7, 5, 20, 100, 300)
    parent = _cell(space, 1, 0, 1, 1, 2)
    same, fewer_regions = _cell(space, 1, 0, 1, 1, 2), _cell(space, 1, 0, 1, 1, 1)
    per_move = (3 * 100) << fa.F_SHIFT  # 3 pushes at push-fess's g weight, in f
    assert fa.advised_key(space, 0, parent, 1, same, key) == key + per_move
    assert fa.advised_key(space, 1, parent, 2, same, key) == key + 2 * per_move
    assert fa.advised_key(space, 2, parent, 3, fewer_regions, key) == key + 2 * per_move
    assert space.advice[1:4].tolist() == [1, 2, 2]
    assert fa.advised_key(space, 3, -1, 4, same, key) == key + 2 * per_move  # a packing macro


def test_only_the_advisors_listed_propose_moves():
    space = _space(advisors=("packing",))
    parent = _cell(space, 1, 0, 1, 1, 2)
    key = priority(7, 5, 20, 100, 300)
    advised = fa.advised_key(space, 0, parent, 1, _cell(space, 2, 0, 1, 1, 2), key)
    assert advised == key and space.advice[1] == 0
    for child in (_cell(space, 1, 0, 0, 0, 1), _cell(space, 0, 0, 1, 1, 2)):
        assert fa.advised_key(space, 0, parent, 1, child, key) > key
        assert space.advice[1] == 1
    assert _space(advisors=("packing", "packing")).state[fs.ADVISORS] == fa.PACKING
    no_packing = _space(advisors=("rooms",))
    assert fa.advised_key(no_packing, 0, -1, 1, parent, key) > key  # nor a packing macro


def test_once_each_advisor_proposes_the_first_move_it_finds():
    space = _space(advice_once=True)
    parent = _cell(space, 1, 0, 1, 1, 2)
    fewer_regions = _cell(space, 1, 0, 1, 1, 1)
    both = _cell(space, 1, 0, 1, 0, 1)
    key = 0
    assert fa.advised_key(space, 0, parent, 1, fewer_regions, key) == key  # connectivity's
    assert fa.advised_key(space, 0, parent, 2, fewer_regions, key) > key  # it proposed one
    assert fa.advised_key(space, 0, parent, 3, both, key) == key  # room connectivity's
    assert fa.advised_key(space, 0, parent, 4, both, key) > key
    assert fa.advised_key(space, 5, parent, 6, fewer_regions, key) == key  # the next expansion
    assert space.advice[1:7].tolist() == [0, 1, 0, 1, 0, 0]


def test_advisors_off_leave_the_key_and_store_no_counts():
    space = _space(advice_weight=0)
    assert len(space.advice) == 0
    assert fa.advised_key(space, 0, 5, 1, 9, 12345) == 12345
    grown = fs.grown_feature_space(_space(capacity=4), 10)
    assert len(grown.advice) == 10


def test_the_key_saturates_instead_of_wrapping():
    space = _space(advice_weight=64)
    space.advice[0] = F_LIMIT // 6400
    key = priority(F_LIMIT - 10, 3, 4, 1, 1)
    assert fa.advised_key(space, 0, 0, 1, 0, key) == priority(F_LIMIT, 3, 4, 1, 1)


def test_the_knobs_are_checked_and_read_from_toml_arrays():
    with pytest.raises(ValidationError):
        FessSettings(advisors=("explorer",))  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        FessSettings(advice_weight=65)
    table = SearchSettings.model_validate({"fess_bi": {"advisors": ["packing", "rooms"]}})
    assert table.fess_bi.advisors == ("packing", "rooms")
    assert FessSettings().advisors == ALL and FessSettings().advice_weight == 0


@pytest.mark.parametrize(
    "change",
    [
        {"advice_weight": 2},
        {"advice_weight": 8, "advice_once": True, "hotspots": 1},
        {"advice_weight": 2, "pack_macros": 2, "advisors": ("packing", "connectivity")},
    ],
)
def test_searches_with_advisors_solve_with_verified_solutions(change):
    for level in microban("1", "10", "60"):
        result = solve(level, "push-fess", node_limit=200_000, settings=FessSettings(**change))
        assert result.solved, level.name
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert (check.moves, check.pushes) == (result.moves, result.pushes)


def test_the_advisors_change_the_order_of_a_real_search():
    (level,) = microban("144")
    plain = solve(level, "push-fess", node_limit=20_000)
    advised = solve(level, "push-fess", node_limit=20_000, settings=FessSettings(advice_weight=4))
    assert search_signature(plain) != search_signature(advised)
    again = solve(level, "push-fess", node_limit=20_000, settings=FessSettings(advice_weight=0))
    assert search_signature(again) == search_signature(plain)
