"""push-fess: packing order, features, the per-cell pairing heaps and the search itself."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiny_levels import ROOM, flood, microban, quiet_level, tiny_levels

from evosoko.search import FessSettings, PushSettings, solve
from evosoko.search.fess import kernel as fk
from evosoko.search.fess import space as fs
from evosoko.search.fess.macros import IN_ORDER, OPEN, layer_states
from evosoko.search.packing_order import (
    by_goal_area,
    out_of_plan_value,
    packing_order,
    packing_value,
)
from evosoko.sokoban.analysis import pull_distances_from
from evosoko.sokoban.reach import Area, Pushed, explore, normalized_after_push
from evosoko.sokoban.rooms import room_links
from evosoko.sokoban.solutions import verify_solution
from evosoko.sokoban.successors import through_corridor
from evosoko.sokoban.symbols import UNREACHABLE

CONNECTIVITY_LIMIT = FessSettings().connectivity_limit
"""The connectivity values of the cells of a space made with the default settings."""

# A one-cell-wide dead end holding three goals: they can only be filled deepest first.
CORRIDOR = ["#########",
            "#...    #",
            "##### # #",
            "#   $$$ #",
            "#@      #",
            "#########"]  # fmt: skip


def test_a_dead_end_is_packed_from_its_far_end():
    level = quiet_level(CORRIDOR)
    order = packing_order(level)
    first, second, third = (level.cell(1, c) for c in (1, 2, 3))
    assert order.layers == 3
    assert (order.layer[first], order.layer[second], order.layer[third]) == (0, 1, 2)
    elsewhere = level.cell(3, 4)
    assert order.packing([first, elsewhere]) == 1
    assert order.packing([first, second, elsewhere]) == 2
    assert order.packing([first, second, third]) == 3
    # the doorway goal filled before the far ones counts for nothing: it walls them off
    assert order.packing([third, elsewhere]) == 0
    # and it is out of plan, as is the middle one once the far end is filled
    assert order.out_of_plan([third, elsewhere]) == 1
    assert order.out_of_plan([second, third]) == 2
    assert order.out_of_plan([first, third]) == 1
    assert order.out_of_plan([first, second, third]) == 0
    assert order.out_of_plan([first, elsewhere]) == 0


def test_a_player_walled_in_by_the_goals_packs_them_from_the_far_side():
    # filled, the two goals shut the player's start cell off; from there no box can be pulled
    # off, from the room beyond them the doorway goal can, then the inner one
    level = quiet_level(["########", "#@..   #", "####$$ #", "   #   #", "   #####"])
    order = packing_order(level)
    inner, doorway = level.cell(1, 2), level.cell(1, 3)
    assert order.layers == 2
    assert (order.layer[inner], order.layer[doorway]) == (0, 1)
    assert order.out_of_plan([doorway, level.cell(1, 5)]) == 1


# The top-left goal's box can be pulled off the goals along the top row only, into a corner
# no box starts from: it must be filled first, through the top row, before the other three.
POCKET = ["#######",
          "#.  $+#",
          "#.#$###",
          "#   $ #",
          "# $ . #",
          "#   ###",
          "#####"]  # fmt: skip


def test_a_goal_whose_box_no_start_could_bring_is_filled_first():
    level = quiet_level(POCKET)
    corner = level.cell(1, 1)
    others = [g for g in level.goal_cells.tolist() if g != corner]
    assert packing_order(level).layers == 1  # each box can be pulled off its goal
    order = packing_order(level, to_start=True)
    assert order.layers == 2
    assert order.layer[corner] == 0
    assert [int(order.layer[g]) for g in others] == [1, 1, 1]
    # the corner filled alone is in plan; another goal filled before it is not
    assert order.packing([corner, level.cell(3, 3)]) == 1
    assert order.out_of_plan([others[0], level.cell(3, 3)]) == 1


def test_goals_whose_boxes_go_back_to_the_starts_keep_their_order():
    # each goal's box, pulled off in turn, reaches the cells the boxes start on
    level = quiet_level(CORRIDOR)
    assert packing_order(level, to_start=True).layer.tolist() == packing_order(level).layer.tolist()


TWO_DEAD_ENDS = ["##########", "#..    ..#", "### $$ ###", "  # $$ #", "  #  @ #", "  ######"]


def test_each_goal_area_follows_its_own_plan():
    level = quiet_level(TWO_DEAD_ENDS)
    whole = packing_order(level)
    areas = by_goal_area(whole, level)
    left_far, left_door, right_door, right_far = (level.cell(1, c) for c in (1, 2, 7, 8))
    assert [int(whole.layer[g]) for g in (left_far, left_door, right_door, right_far)] == [
        0,
        1,
        1,
        0,
    ]
    # the left dead end filled, the right one's doorway too early
    boxes = [left_far, left_door, right_door, level.cell(3, 4)]
    # one plan: the right far end waits, so the left doorway is out of plan with the right's
    assert (whole.packing(boxes), whole.out_of_plan(boxes)) == (1, 2)
    # each area on its own: the left is packed, only the right doorway is out of plan
    assert (areas.packing(boxes), areas.out_of_plan(boxes)) == (2, 1)
    assert areas.layers == 4
    assert areas.ends.tolist() == [2, 2, 4, 4]


@pytest.fixture(scope="module")
def areas_levels():
    """Levels with goal areas of more than one layer: the hand-made one and Microban's."""
    return [quiet_level(TWO_DEAD_ENDS), *microban("3", "16", "24", "57", "96", "133", "152")]


def test_packing_macros_fill_the_open_layer_of_each_goal_area():
    level = quiet_level(TWO_DEAD_ENDS)
    whole = packing_order(level)
    areas = by_goal_area(whole, level)
    left_far, left_door = level.cell(1, 1), level.cell(1, 2)

    def states(order, boxes):
        features = fk.make_features(order, level.cells)
        boxes = np.array(boxes, dtype=np.int64)
        layers = features.goals_per_layer
        opened = layer_states(
            features.layer, layers, features.area_ends, boxes, features.counts, features.states
        )
        found = features.states[: len(layers)].tolist()
        assert opened == (OPEN in found)
        return found

    none_home = [level.cell(3, 4), level.cell(3, 5), level.cell(2, 4), level.cell(2, 5)]
    # one plan: the far ends of both dead ends first, then the doorways
    assert states(whole, none_home) == [OPEN, 0]
    # each area: its far end open, its doorway after it; a full area is in order throughout
    assert states(areas, none_home) == [OPEN, 0, OPEN, 0]
    assert states(areas, [left_far, left_door, *none_home[:2]]) == [IN_ORDER, IN_ORDER, OPEN, 0]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.data())
def test_goal_areas_count_as_each_area_alone(areas_levels, data):
    level = data.draw(st.one_of(st.sampled_from(areas_levels), tiny_levels(max_boxes=4)))
    whole = packing_order(level)
    areas = by_goal_area(whole, level)
    free = np.flatnonzero(level.floor).tolist()
    goals = level.goal_cells.tolist()
    placed = data.draw(st.sets(st.sampled_from(free), max_size=level.box_count), label="boxes")
    on_goals = data.draw(st.sets(st.sampled_from(goals)), label="on goals")  # goals more often
    boxes = np.array(sorted(placed | on_goals), np.int64)
    packing = out_of_plan = 0
    for area in _goal_areas(level):  # the whole level's layers, the other areas' goals left out
        alone = np.where(np.isin(np.arange(level.cells), list(area)), whole.layer, -1)
        packing += packing_value(alone, boxes, whole.layers)
        out_of_plan += out_of_plan_value(alone, boxes, whole.layers)
    assert (areas.packing(boxes), areas.out_of_plan(boxes)) == (packing, out_of_plan)
    features = fk.make_features(areas, level.cells)
    counts = features.counts
    walked = fs.packing_walk(features.layer, features.goals_per_layer, areas.ends, boxes, counts)
    assert (walked[0], walked[2]) == (packing, out_of_plan)


def _goal_areas(level) -> list[set[int]]:
    """The goals joined side by side, area by area (plain Python)."""
    goals = set(level.goal_cells.tolist())
    off_goals = set(np.flatnonzero(level.floor).tolist()) - goals
    areas = []
    while goals:
        area = flood(level, goals.pop(), off_goals)
        goals -= area
        areas.append(area)
    return areas


def test_scattered_goals_share_one_layer():
    level = quiet_level(["#######", "#.  . #", "# $$  #", "#@    #", "#######"])
    order = packing_order(level)
    assert order.layers == 1
    goals = level.goal_cells.tolist()
    assert order.packing([goals[1], level.cell(2, 2)]) == 1


def test_goal_room_layers_grow_towards_the_doorway():
    level = quiet_level(ROOM)
    order = packing_order(level)
    layers_by_column = {
        level.position(g)[1]: int(order.layer[g]) for g in level.goal_cells.tolist()
    }
    assert layers_by_column[1] <= layers_by_column[2]
    assert order.layers >= 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(), st.data())
def test_compiled_features_match_the_python_ones(level, data):
    order = packing_order(level)
    features = fk.make_features(order, level.cells)
    layer, goals_per_layer, counts = features.layer, features.goals_per_layer, features.counts
    stamp, mark = features.stamp, features.mark
    floor = level.floor
    free = np.flatnonzero(floor).tolist()
    boxes = sorted(data.draw(st.sets(st.sampled_from(free), max_size=len(free)), label="boxes"))
    array = np.array(boxes, dtype=np.int64)
    packing = packing_value(order.layer, array, order.layers)
    early = out_of_plan_value(order.layer, array, order.layers)
    filled = [sum(1 for b in boxes if order.layer[b] == k) for k in range(order.layers)]
    open_layer = next(
        (k for k in range(order.layers) if filled[k] < goals_per_layer[k]), order.layers
    )
    ends = features.area_ends
    walked = fs.packing_walk(layer, goals_per_layer, ends, array, counts)
    assert walked == (packing, open_layer, early)
    out_of_plan = min(early, fs.OUT_OF_PLAN_LIMIT - 1)
    plan = fs.plan_feature(
        layer, goals_per_layer, ends, array, counts, features.sealed, fs.LAYERS_BIT
    )
    assert plan == packing * fs.OUT_OF_PLAN_LIMIT + out_of_plan
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    stamp[0] += 1
    regions = fs.connectivity(
        floor,
        np.flatnonzero(floor),
        occupied,
        np.array(level.deltas, dtype=np.int64),
        mark,
        stamp[0],
        np.zeros_like(mark),
        0,
    )
    assert regions == _regions(level, set(boxes))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(), st.data(), st.integers(1, 4))
def test_a_state_cell_has_the_blocked_links_as_its_room_coordinate(level, data, values):
    order = packing_order(level)
    link = room_links(level.floor, level.deltas)[1]
    features = fk.make_features(order, level.cells, link=link)
    space = fs.make_feature_space(
        1, level.box_count, order.layers, FessSettings(room_links=values - 1)
    )
    free = np.flatnonzero(level.floor).tolist()
    # at least one cell stays free, as the player's in a search
    boxes = sorted(data.draw(st.sets(st.sampled_from(free), max_size=len(free) - 1), label="b"))
    array = np.array(boxes, dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    deltas = np.array(level.deltas, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    cell = fs.state_cell(features, space.state, level.floor, occupied, deltas, array, queue, False)
    blocked = len({int(link[b]) for b in boxes if link[b] >= 0})
    plan = packing_value(order.layer, array, order.layers) * fs.OUT_OF_PLAN_LIMIT + min(
        out_of_plan_value(order.layer, array, order.layers), fs.OUT_OF_PLAN_LIMIT - 1
    )
    rooms = plan * values + min(blocked, values - 1)
    assert cell == fs.cell_of(rooms, _regions(level, set(boxes)), CONNECTIVITY_LIMIT)
    assert 0 <= cell < len(space.root)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4), st.integers(1, 3))
def test_a_child_cell_is_the_same_when_its_player_region_is_walked(level, values):
    """Every push from the start, as push-fess makes its children: the cell counted with the
    player's region that the normalization walked is the cell with every region walked."""
    order = packing_order(level)
    _, link, ends = room_links(level.floor, level.deltas)
    features = fk.make_features(order, level.cells, link=link, ends=ends)
    settings = FessSettings(room_links=values - 1)
    space = fs.make_feature_space(1, level.box_count, order.layers, settings)
    floor, deltas = level.floor, np.array(level.deltas, dtype=np.int64)
    boxes = list(level.start.boxes)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    reach_mark = np.zeros(level.cells, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    player = level.start.player
    _, smallest = explore(floor, occupied, deltas, player, reach_mark, 1, queue, queue[:0])
    for box, d in itertools.product(boxes, range(4)):
        target = box + int(deltas[d])
        if reach_mark[box - deltas[d]] != 1 or not floor[target] or occupied[target]:
            continue
        child = np.array(sorted(target if b == box else b for b in boxes), dtype=np.int64)
        occupied[box], occupied[target] = False, True
        walk = fs.player_walk(features, queue)
        pushed = Pushed(box, target, d)
        normalized_after_push(floor, occupied, deltas, Area(reach_mark, 1, smallest), pushed, walk)
        walked = bool(walk.mark[box] == walk.stamp)
        cells = [
            fs.state_cell(features, space.state, floor, occupied, deltas, child, queue, known)
            for known in (walked, False)
        ]
        assert cells[0] == cells[1]
        occupied[box], occupied[target] = True, False


def test_a_box_in_the_corridor_to_the_goals_is_a_hotspot():
    level = quiet_level(CORRIDOR)
    hotspots = fs.hotspot_table(level.floor, level.deltas, level.goal_cells)
    doorway, outside, beside = level.cell(1, 4), level.cell(3, 4), level.cell(3, 6)
    count = fs.hotspot_count
    assert count(hotspots, np.array([doorway, outside], dtype=np.int64)) == 1
    assert count(hotspots, np.array([outside, beside], dtype=np.int64)) == 0
    assert count(hotspots, np.array([doorway], dtype=np.int64)) == 0
    assert count(fs.no_hotspots(level.cells), np.array([doorway, outside], dtype=np.int64)) == 0


def _hindered(level, wall, box):
    """Whether a lone box on ``box`` reaches a goal, but not with a wall on ``wall``."""
    walled = np.array(level.floor, dtype=np.bool_)
    walled[wall] = False
    goals = level.goal_cells.tolist()
    free = [pull_distances_from(level, g)[box] for g in goals]
    blocked = [pull_distances_from(level, g, walled)[box] for g in goals if g != wall]
    return min(free) < UNREACHABLE and min(blocked, default=UNREACHABLE) >= UNREACHABLE


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4), st.data(), st.integers(1, 3))
def test_the_hotspot_coordinate_counts_boxes_that_cut_others_off(level, data, values):
    order = packing_order(level)
    hotspots = fs.hotspot_table(level.floor, level.deltas, level.goal_cells)
    features = fk.make_features(order, level.cells, hotspots=hotspots)
    space = fs.make_feature_space(
        1, level.box_count, order.layers, FessSettings(room_links=0, hotspots=values - 1)
    )
    free = np.flatnonzero(level.floor).tolist()
    boxes = sorted(data.draw(st.sets(st.sampled_from(free), max_size=len(free) - 1), label="b"))
    array = np.array(boxes, dtype=np.int64)
    hot = sum(any(_hindered(level, a, b) for b in boxes if b != a) for a in boxes)
    assert fs.hotspot_count(hotspots, array) == hot
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    deltas = np.array(level.deltas, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    cell = fs.state_cell(features, space.state, level.floor, occupied, deltas, array, queue, False)
    plan = fs.plan_feature(
        features.layer,
        features.goals_per_layer,
        features.area_ends,
        array,
        features.counts,
        features.sealed,
        space.state[fs.OUT_OF_PLAN],
    )
    expected = fs.cell_of(
        plan * values + min(hot, values - 1), _regions(level, set(boxes)), CONNECTIVITY_LIMIT
    )
    assert cell == expected
    assert 0 <= cell < len(space.root)


def _regions(level, boxes):
    seen, count = set(), 0
    for cell in np.flatnonzero(level.floor).tolist():
        if cell in boxes or cell in seen:
            continue
        count += 1
        seen |= flood(level, cell, boxes)
    return count


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 50)), min_size=1, max_size=60))
def test_pairing_heaps_pop_each_cell_in_key_order_and_cycle_through_cells(entries):
    space = fs.make_feature_space(len(entries), 0, 1, FessSettings(alternate=0))
    for node, (cell, key) in enumerate(entries):
        fs.heap_insert(space, cell, node, key)
    popped: dict[int, list[int]] = {}
    visits = []
    while True:
        cell = fs.next_cell(space)
        if cell < 0:
            break
        visits.append(cell)
        node = fs.heap_pop(space, cell)
        popped.setdefault(cell, []).append(entries[node][1])
    for cell, keys in popped.items():
        assert keys == sorted(k for c, k in entries if c == cell)
    assert sum(map(len, popped.values())) == len(entries)
    # while two cells hold states, neither is visited twice in a row
    assert all(
        a != b or len({c for c, _ in entries}) == 1 or _only_one_left(visits, i, entries)
        for i, (a, b) in enumerate(itertools.pairwise(visits))
    )


def _only_one_left(visits, i, entries):
    remaining = {c: sum(1 for cc, _ in entries if cc == c) for c, _ in entries}
    for cell in visits[: i + 1]:
        remaining[cell] -= 1
    return sum(1 for n in remaining.values() if n > 0) == 1


def _popped_keys(space, entries, cell_of_entry):
    for node, entry in enumerate(entries):
        fs.heap_insert(space, cell_of_entry(entry), node, entry[-1])
    keys = []
    while (cell := fs.next_cell(space)) >= 0:
        keys.append(entries[fs.heap_pop(space, cell)][-1])
    return keys


def _space_cell(plan, room, regions, values):
    return (plan * values + room) * CONNECTIVITY_LIMIT + regions


CELL_ENTRIES = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=50
)


@settings(max_examples=60, deadline=None)
@given(CELL_ENTRIES, st.integers(0, 1))
def test_a_view_with_a_lower_room_cap_cycles_as_a_space_of_fewer_room_values(cells, cap):
    entries = [(*cell, key) for key, cell in enumerate(cells)]  # distinct keys, as in order
    seen_as_one = _popped_keys(
        fs.make_feature_space(len(entries), 0, 1, _views(room_links=2, room_views=(cap,))),
        entries,
        lambda e: _space_cell(e[0], e[1], e[2], 3),
    )
    fewer_values = _popped_keys(
        fs.make_feature_space(len(entries), 0, 1, _views(room_links=cap)),
        entries,
        lambda e: _space_cell(e[0], min(e[1], cap), e[2], cap + 1),
    )
    assert seen_as_one == fewer_values


@settings(max_examples=60, deadline=None)
@given(CELL_ENTRIES, st.lists(st.integers(0, 2), min_size=1, max_size=3))
def test_views_taking_turns_pop_every_state_once(cells, caps):
    entries = [(*cell, key) for key, cell in enumerate(cells)]
    space = fs.make_feature_space(len(entries), 0, 1, _views(room_links=2, room_views=tuple(caps)))
    popped = _popped_keys(space, entries, lambda e: _space_cell(e[0], e[1], e[2], 3))
    assert sorted(popped) == list(range(len(entries)))


def _views(**settings) -> FessSettings:
    """push-fess settings of a cycle through the cells that does not alternate."""
    return FessSettings(alternate=0, **settings)


def test_room_views_must_be_caps_up_to_room_links():
    with pytest.raises(ValueError, match="room_views"):
        FessSettings(room_links=1, room_views=(2,))


def test_push_fess_solves_microban_levels_with_verified_solutions():
    for level in microban("1", "10", "60", "100"):
        result = solve(level, "push-fess", node_limit=200_000)
        assert result.status == "solved", level.name
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert (check.moves, check.pushes) == (result.moves, result.pushes)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels())
@pytest.mark.parametrize("algo", ["push-fess", "push-fess-bi"])
def test_push_fess_agrees_with_plain_push_bfs_on_solvability(algo, level):
    reference = solve(
        level, "push-bfs", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
    )
    result = solve(level, algo)
    assert result.status == reference.status
    if result.solved:
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert result.pushes >= reference.pushes


@pytest.mark.parametrize("rows", [CORRIDOR, ROOM])
def test_push_fess_solves_goal_areas(rows):
    level = quiet_level(rows)
    result = solve(level, "push-fess")
    assert result.solved
    assert verify_solution(level, result.solution).solved


def test_box_paths_take_the_fewest_pushes_round_corners():
    from evosoko.search.box_paths import box_path_pushes

    level = quiet_level(["#######", "#     #", "# $   #", "#@  # #", "#   #.#", "#######"])
    occupied = np.zeros(level.cells, dtype=np.bool_)
    box = level.start.boxes[0]
    occupied[box] = True
    deltas = np.array(level.deltas, dtype=np.int64)
    goal = int(level.goal_cells[0])
    for last in range(4):
        pushes = box_path_pushes(
            level.floor, level.dead_squares, occupied, deltas, box, level.start.player, goal, last
        )
        if pushes is not None:
            break
    assert pushes is not None
    assert len(pushes) == level.push_distance[0, box]
    cell = box
    for pushed, direction in pushes:  # a chain of pushes of the one box, ending on the goal
        assert pushed == cell
        cell = pushed + level.deltas[direction]
    assert cell == goal


@pytest.mark.parametrize(
    "change",
    [
        {"pack_macros": 2},
        {"cell_weights": (0, 1)},
        {"alternate": 0},
        {"corridor_macros": False},
        {"room_links": 0},
        {"room_links": 1},
        {"hotspots": 2},
    ],
)
def test_every_setting_gives_verified_solutions(change):
    settings = FessSettings(**change)
    for level in [*microban("1", "10", "60"), quiet_level(CORRIDOR)]:
        result = solve(level, "push-fess", node_limit=200_000, settings=settings)
        assert result.solved, level.name
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved
        assert (check.moves, check.pushes) == (result.moves, result.pushes)


@pytest.mark.parametrize("weights", [(-1, -1), (0, 1), (1, 1)])
def test_the_key_within_a_cell_is_the_priority_unless_cell_weights_are_set(weights):
    space = fs.make_feature_space(4, 4, 1, FessSettings(cell_weights=weights))
    g, h, moves = 7, 5, 20
    node_key = fs.priority(g, h, moves, 1, 3)
    expected = node_key if weights[0] < 0 else fs.priority(g, h, moves, *weights)
    assert fs.cell_key(space, g, h, moves, node_key) == expected


def test_corridor_macros_push_through_and_stop_at_goals_and_corners():
    # a one-wide corridor from column 4 to 7 of row 2, a goal at its end
    level = quiet_level(["#########", "#   #####", "#@$    .#", "#   #####", "#########"])
    occupied = np.zeros(level.cells, dtype=np.bool_)
    deltas = np.array(level.deltas, dtype=np.int64)
    floor, dead, goals = level.floor, level.dead_squares, level.goals
    right = 3

    def extra(column):
        source = level.cell(2, column)
        occupied[:] = False
        occupied[source + 1] = True
        return through_corridor(floor, dead, goals, occupied, deltas, right, source, source + 1)

    assert extra(2) == 0  # the box is not in the corridor yet
    assert extra(3) == 0  # the box is, but the player behind it is not
    assert extra(4) == 2  # pushed on to the goal at the end
    occupied[level.cell(2, 6)] = True
    source = level.cell(2, 4)
    occupied[source + 1] = True
    assert through_corridor(floor, dead, goals, occupied, deltas, right, source, source + 1) == 0


def test_partial_paths_are_the_closest_state_then_the_best_state_of_each_cell():
    """Partial plans of every kind: the frontier state of lowest ``h`` first (the position
    closest to solved), then the best state of each other cell, in different cells and lowest
    ``h`` first, then the lowest-``h`` states of the rest of the frontier."""
    from evosoko.evolve.descriptors import FessCells
    from evosoko.evolve.push_replay import push_tables

    (level,) = microban("144")
    result = solve(level, "push-fess", node_limit=400, partial=60)
    assert not result.solved and len(result.partial) == 60
    cells_of = FessCells(level, push_tables(level)).of_boxes
    cells = [cells_of(np.array(path.state.boxes, dtype=np.int64)) for path in result.partial]
    h = [path.h for path in result.partial]
    assert h[0] == min(h)
    rest = next(i for i in range(2, len(h)) if h[i] < h[i - 1])  # where the cells end
    assert rest >= 20 and len(set(cells[1:rest])) == rest - 1
    assert h[1:rest] == sorted(h[1:rest]) and h[rest:] == sorted(h[rest:])
    assert len({path.state for path in result.partial}) == 60


def test_the_deadlock_tests_read_a_packing_macro_as_its_last_push():
    """After a packing macro the box it carried stands in front of the player, in the
    direction of ``last_push`` of its step: the corral tests look at the right box."""
    from evosoko.search import ALGORITHMS
    from evosoko.search.fess.macros import PACK_MACRO_STEP, last_push
    from evosoko.search.fess.run import FeatureSpaceRun

    (level,) = microban("60")
    settings = FessSettings(pack_macros=2)
    run = FeatureSpaceRun(
        level, ALGORITHMS["push-fess"], "matching", None, 3_000, settings, 0, 1 << 30
    )
    run.search()
    store = run.store
    steps, actual = store.field("step"), store.field("actual")
    boxes, parents = store.field("boxes"), store.field("parent")
    macros = np.flatnonzero((steps >= PACK_MACRO_STEP) & (steps < PACK_MACRO_STEP + 4))
    assert len(macros) > 0
    for node in macros:
        code = last_push(int(steps[node]))
        assert 0 <= code < 4
        box = int(actual[node]) + level.deltas[code]
        assert box in set(boxes[node].tolist()) - set(boxes[parents[node]].tolist())
    assert last_push(7) == 7  # two pushes up: read as they are
