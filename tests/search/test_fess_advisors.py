"""FESS's advisors in push-fess (:mod:`evosoko.search.fess.advisors`): which moves they propose,
what a state's key within its cell becomes, and that searches with them still solve."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tiny_levels import microban, quiet_level, search_signature, tiny_levels

from evosoko.search import ALGORITHMS, FessSettings, SearchSettings, solve
from evosoko.search.drop import heap_cells
from evosoko.search.fess import advisors as fa
from evosoko.search.fess import space as fs
from evosoko.search.fess.run import level_features
from evosoko.search.solver import _run_class
from evosoko.search.store import F_LIMIT, priority
from evosoko.sokoban.reach import Area, Pushed, Walk, explore, normalized_after_push
from evosoko.sokoban.solutions import verify_solution

BOXES = 6
ALL = ("packing", "connectivity", "rooms", "hotspots")
EVERY = (*ALL, "explorer", "opener")


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


@pytest.mark.parametrize(("best", "counts"), [(False, [0, 1, 0]), (True, [1, 0, 0])])
def test_held_children_go_in_with_the_first_or_the_best_proposal(best, counts):
    space = _space(advice_once=True, advice_best=best)
    children = fa.held_children(2)
    for node, h, bits in ((1, 9, fa.CONNECTIVITY), (2, 5, fa.CONNECTIVITY), (3, 7, 3)):
        fa.hold_child(children, node, 4, 100 * node, h, bits)
    fa.insert_children(space, children, 0)
    assert space.advice[1:4].tolist() == counts  # best: connectivity's is node 2, of least h
    assert children.size[0] == 0 and space.size[4] == 3
    per_move = 100 << fa.F_SHIFT
    assert space.key[1:4].tolist() == [100 * n + c * per_move for n, c in zip((1, 2, 3), counts)]


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
        FessSettings(advisors=("wanderer",))  # type: ignore[arg-type]
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
        {"advice_weight": 2, "advice_once": True, "advisors": ("explorer", "opener")},
        {"advice_weight": 2, "advice_once": True, "advice_best": True, "advisors": EVERY},
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


@pytest.mark.parametrize(
    "change",
    [
        {"advice_weight": 2, "pack_macros": 2, "hotspots": 2, "room_links": 2},
        {"advice_weight": 2, "room_views": (0, 1), "out_of_plan": "both", "corridor_macros": True},
    ],
)
def test_each_state_a_cells_heap_holds_lies_in_that_cell(change):
    """The advisors compare children with the cell of the heap their parent came from: each
    state a heap holds, however it got there (a push, a macro, a path improved while it
    waited), must lie in that heap's cell."""
    (level,) = microban("144")
    algo = ALGORITHMS["push-fess"]
    run = _run_class(algo)(level, algo, "matching", None, 3000, FessSettings(**change), 0, 1 << 28)
    assert run.search() == "node-limit"
    space, features, store = run.space, run.features, run.store
    floor, deltas = run.tab.floor, run.tab.deltas
    queue = np.zeros(level.cells, dtype=np.int64)
    cells = heap_cells(space, store.size)
    held = np.flatnonzero(cells >= 0)
    assert len(held) > 1000
    for node in held.tolist():
        boxes = store.field("boxes")[node].astype(np.int64)
        occupied = np.zeros(level.cells, dtype=np.bool_)
        occupied[boxes] = True
        cell = fs.state_cell(features, space.state, floor, occupied, deltas, boxes, queue, False)
        assert cell == cells[node], node


# ---- the explorer and the opener: what a push does, against plain Python ----------------------
def _flood(level, start, occupied) -> set[int]:
    """The free floor the player reaches from ``start``, in plain Python."""
    seen, todo = {start}, [start]
    while todo:
        cell = todo.pop()
        for delta in level.deltas:
            near = cell + delta
            if level.floor[near] and not occupied[near] and near not in seen:
                seen.add(near)
                todo.append(near)
    return seen


def _regions(level, occupied) -> int:
    """Separate regions of free floor, in plain Python."""
    seen: set[int] = set()
    count = 0
    for cell in np.flatnonzero(level.floor & ~occupied):
        if int(cell) not in seen:
            seen |= _flood(level, int(cell), occupied)
            count += 1
    return count


def _expected(level, start, hotspots, box, direction):
    """(explorer, opener) for pushing ``box`` one cell in ``direction`` from ``start`` (player,
    boxes), by the advisors' definitions in plain Python."""
    deltas, dead, (player, boxes) = level.deltas, level.dead_squares, start
    before = np.zeros(level.cells, dtype=bool)
    before[list(boxes)] = True
    target = box + deltas[direction]
    after = before.copy()
    after[box], after[target] = False, True
    children = [target if b == box else b for b in boxes]
    region, reached = _flood(level, player, before), _flood(level, box, after)
    new = reached - region - {box}
    explorer = any(
        cell + deltas[k] in children
        and level.floor[cell + 2 * deltas[k]]
        and not after[cell + 2 * deltas[k]]
        and not dead[cell + 2 * deltas[k]]
        for cell in new
        for k in range(4)
    )
    row, hinders = hotspots.row, hotspots.hinders
    hindered = [
        sum(row[a] >= 0 and row[b] >= 0 and bool(hinders[row[a], row[b]]) for b in boxes)
        for a in boxes
    ]
    if max(hindered, default=0) == 0:
        return explorer, False
    hot = boxes[hindered.index(max(hindered))]
    pushable = any(
        hot - deltas[k] in region
        and level.floor[hot + deltas[k]]
        and not before[hot + deltas[k]]
        and not dead[hot + deltas[k]]
        for k in range(4)
    )
    beside = any(box == hot + deltas[k] for k in range(4))
    cap = FessSettings().connectivity_limit
    kept = min(_regions(level, after), cap) <= min(_regions(level, before), cap)
    return explorer, kept and (box == hot or (beside and not pushable))


def _features(level, advisors):
    """(settings, features) of the advisors on, no room coordinate, no corral tests."""
    knobs = FessSettings(advice_weight=1, advisors=advisors, room_links=0)
    return knobs, level_features(level, knobs, corral_deadlocks=0)[1]


def _advice(level, start, box, direction, advisors, features=None):
    """(explorer, opener) as ``move_advice`` gives them for pushing ``box`` in ``direction``
    from ``start`` (player, boxes), with the cells of the search's features and the opener's
    box noted by ``parent_advice``."""
    knobs, made = _features(level, advisors)
    features = made if features is None else features
    space = fs.make_feature_space(4, len(start[1]), 1, knobs)
    floor, dead = np.asarray(level.floor), np.asarray(level.dead_squares)
    deltas = np.asarray(level.deltas, dtype=np.int64)
    boxes = np.array(start[1], dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    mark, norm, queue = (np.zeros(level.cells, dtype=np.int64) for _ in range(3))
    _, smallest = explore(floor, occupied, deltas, start[0], mark, 1, queue, queue[:0])
    region = Area(mark, 1, smallest)
    parent = fa.parent_advice(
        features, space.state, floor, dead, occupied, deltas, boxes, region, queue, -1
    )
    target = box + deltas[direction]
    occupied[box], occupied[target] = False, True
    child = np.where(boxes == box, target, boxes)
    pushed = Pushed(box, target, direction)
    walk = Walk(norm, 1, queue)
    normalized_after_push(floor, occupied, deltas, region, pushed, walk)
    cell = fs.state_cell(features, space.state, floor, occupied, deltas, child, queue, False)
    bits = fa.move_advice(
        space.state, floor, dead, occupied, deltas, child, region, walk, pushed, 1, (parent, cell)
    )
    return bool(bits & fa.EXPLORER), bool(bits & fa.OPENER)


def _pushes(level, start):
    """The single pushes from ``start`` (player, boxes) onto live free floor: (box, direction)."""
    player, boxes = start
    occupied = np.zeros(level.cells, dtype=bool)
    occupied[list(boxes)] = True
    region = _flood(level, player, occupied)
    for box in sorted(boxes):
        for k, delta in enumerate(level.deltas):
            target = box + delta
            free = level.floor[target] and not occupied[target]
            if box - delta in region and free and not level.dead_squares[target]:
                yield box, k


def _start(level):
    return level.start.player, level.start.boxes


# The player is shut in the corner: pushed right, the box lets it down into the lower room,
# where it can push the other box, which it could not before.
SHUT = ["#######",
        "#@ $ .#",
        "### ###",
        "#.$   #",
        "#######"]  # fmt: skip
# The same with the lower room open to the player already.
OPEN = ["#######",
        "#@ $ .#",
        "#     #",
        "#.$   #",
        "#######"]  # fmt: skip
# A box in the doorway of the goal room cuts the other box off from the goals: the opener's box.
GATE = ["#########",
        "#.  #   #",
        "#.  $ $ #",
        "#   #  @#",
        "#########"]  # fmt: skip
LEFT, RIGHT = 2, 3  # direction indices of u d l r


def test_the_explorer_proposes_the_push_that_opens_a_room_with_a_new_push():
    shut, open_room = quiet_level(SHUT), quiet_level(OPEN)
    box = shut.cell(1, 3)
    assert _advice(shut, _start(shut), box, RIGHT, ("explorer",)) == (True, False)
    assert _advice(shut, _start(shut), box, RIGHT, ("packing",)) == (False, False)  # off
    assert _advice(open_room, _start(open_room), box, RIGHT, ("explorer",)) == (False, False)


def test_the_opener_proposes_the_push_of_the_box_that_hinders_the_others():
    gate, open_room = quiet_level(GATE), quiet_level(OPEN)
    hot, other = gate.cell(2, 4), gate.cell(2, 6)
    _, features = _features(gate, ("opener",))
    assert features.hotspots.hinders[features.hotspots.row[hot], features.hotspots.row[other]]
    assert _advice(gate, _start(gate), hot, LEFT, ("opener",)) == (False, True)
    assert _advice(gate, _start(gate), other, LEFT, ("opener",)) == (False, False)
    assert _advice(gate, _start(gate), hot, LEFT, ("packing", "explorer"))[1] is False
    assert _advice(open_room, _start(open_room), open_room.cell(1, 3), RIGHT, ("opener",)) == (
        False,
        False,
    )  # no box hinders another


@settings(max_examples=150, deadline=None)
@given(tiny_levels(max_boxes=3))
def test_the_explorer_and_opener_bits_are_their_definitions_on_tiny_levels(level):
    _, features = _features(level, ("explorer", "opener"))
    for box, direction in _pushes(level, _start(level)):
        got = _advice(level, _start(level), box, direction, ("explorer", "opener"), features)
        assert got == _expected(level, _start(level), features.hotspots, box, direction)


def test_the_explorer_and_opener_bits_are_their_definitions_on_microban_positions():
    rng = np.random.default_rng(53)
    proposed = [0, 0]
    for level in microban("10", "40", "60", "80", "100"):
        _, features = _features(level, ("explorer", "opener"))
        floor = np.flatnonzero(level.floor)
        for _ in range(40):
            picked = rng.choice(floor, size=level.box_count + 1, replace=False)
            start = (int(picked[0]), tuple(int(b) for b in picked[1:]))
            for box, direction in _pushes(level, start):
                got = _advice(level, start, box, direction, ("explorer", "opener"), features)
                assert got == _expected(level, start, features.hotspots, box, direction)
                proposed = [proposed[0] + got[0], proposed[1] + got[1]]
    assert min(proposed) >= 10  # both advisors propose moves here
