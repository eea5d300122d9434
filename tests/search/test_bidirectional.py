"""push-fess-bi: the pull search and the meeting of the two searches."""

from __future__ import annotations

import itertools
import random
import time

import numpy as np
import pytest
from tiny_levels import ROOM, SHARED_LEVELS, microban, quiet_level

from evosoko.search import (
    ALGORITHMS,
    BidirectionalSettings,
    FessSettings,
    bidirectional,
    solve,
    solver,
)
from evosoko.search.bidirectional import BidirectionalRun, PullSearch
from evosoko.search.fess.macros import PACK_MACRO_STEP
from evosoko.search.pull_kernel import start_distances
from evosoko.search.store import EXPANDED, GOAL_MACRO_STEP, NODES, SOLUTION
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import State
from evosoko.sokoban.matching import matching_cost
from evosoko.sokoban.patterns import STORED
from evosoko.sokoban.solutions import verify_solution
from evosoko.sokoban.symbols import UNREACHABLE


def _pulled_states(level, steps: int) -> PullSearch:
    tab = level_arrays(level)
    pull = PullSearch(level, tab, level.cells, 300, 1 << 20)
    for _ in range(steps):
        pull.step()
    return pull


def test_start_distances_count_pushes_of_a_lone_box_from_each_start_cell():
    level = quiet_level(["######", "#@$ .#", "## ###", "######"])
    tab = level_arrays(level)
    (distance,) = start_distances(np.asarray(tab.floor), tab.deltas, level.start.boxes)
    box = level.start.boxes[0]
    assert distance[box] == 0
    assert distance[box + 1] == 1 and distance[box + 2] == 2
    assert distance[box - 1] == 1  # pushed back from the right
    # the pocket below: a box can get in only with the player standing in the wall above
    assert distance[level.cell(2, 2)] == UNREACHABLE


@pytest.mark.parametrize("name", ["1", "2", "6", "16"])
def test_every_pulled_state_is_pushed_back_to_the_solved_position(name):
    (level,) = microban(name)
    pull = _pulled_states(level, 20)
    store = pull.store
    assert store.size > len(level.goal_cells)
    boxes, actual, parents = store.field("boxes"), store.field("actual"), store.field("parent")
    for node in range(0, store.size, max(1, store.size // 60)):
        start = State(player=int(actual[node]), boxes=tuple(sorted(int(b) for b in boxes[node])))
        lurd = pull.pushes_back(node, start.player)
        check = verify_solution(level, lurd, start=start)
        assert check.valid and check.solved
        assert check.pushes == _depth(parents, node)


def _depth(parents, node: int) -> int:
    depth = 0
    while parents[node] >= 0:
        node = int(parents[node])
        depth += 1
    return depth


def test_pulled_boxes_stay_on_cells_a_start_box_can_reach():
    level = quiet_level(ROOM)
    pull = _pulled_states(level, 50)
    for row in pull.store.field("boxes")[len(pull.store.field("boxes")) // 2 :]:
        assert pull.live[row].all()
        # and each box has a start cell of its own it can come from
        assert matching_cost(pull.distance, row) < UNREACHABLE


def test_pulled_states_carry_the_full_matching_of_their_boxes():
    # each child's matching is updated from its parent's; it must equal the matching computed
    # from scratch, on a level with several boxes where the best matching changes as they move
    pull = _pulled_states(quiet_level(ROOM), 40)
    boxes, h = pull.store.field("boxes"), pull.store.field("h")
    assert len(h) > 100
    for row, value in zip(boxes, h):
        assert value == matching_cost(pull.distance, row)


def _run(level, share: float, **settings) -> BidirectionalRun:
    # the pull search alone beside push-fess
    settings = BidirectionalSettings(backward_share=share, ball_nodes=0, **settings)
    run = _bidirectional(level, settings)
    run.status = run.search()
    return run


def test_the_searches_meet_and_the_pulls_finish_the_solution():
    level = quiet_level(ROOM)
    run = _run(level, 0.9)
    assert run.status == "solved"
    assert run.meeting is not None  # the pull search did part of the work
    result = run.result(run.status, 0)
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved and check.pushes == result.pushes
    assert result.expanded > run.store.counters[EXPANDED]  # both searches' states count


def test_without_a_pull_search_it_is_push_fess():
    level = quiet_level(ROOM)
    run = _run(level, 0.0, plain_nodes=0)
    assert run.status == "solved" and run.meeting is None
    alone = solve(level, "push-fess")
    assert run.result(run.status, 0).pushes == alone.pushes


def test_push_fess_bi_tests_the_cluster_deadlocks_push_fess_leaves_off():
    path = SHARED_LEVELS / "xsokoban.txt"
    if not path.is_file():
        pytest.skip(f"no shared levels at {SHARED_LEVELS}")
    level = read_levels(path)[3]
    # its push-fess alone, without the plain sides
    alone = BidirectionalSettings(backward_share=0.0, plain_room_caps=())
    assert not solve(level, "push-fess", node_limit=20_000).solved
    result = solve(level, "push-fess-bi", node_limit=20_000, settings=alone)
    assert result.solved and result.expanded < 5_000
    without = alone.model_copy(update={"cluster_deadlocks": 0})
    assert not solve(level, "push-fess-bi", node_limit=20_000, settings=without).solved


def test_when_push_fess_runs_out_of_memory_the_pull_search_gives_up_its_half():
    level = quiet_level(ROOM)
    run = _bidirectional(level, BidirectionalSettings(pull_weights=("own",)))
    assert run._prepare() is None
    run._add_root()
    capacity = run.store.capacity
    run.max_nodes = capacity  # push-fess's half is full
    (pull,) = run.pulls
    pull.max_nodes = 4 * capacity
    pull.step()
    expanded = int(pull.store.counters[EXPANDED])
    run.store.counters[NODES] = capacity - 1
    assert run.make_room()
    assert run.pulls == () and run.max_nodes == 5 * capacity
    assert run.store.capacity == 2 * capacity
    assert run.result("timeout", 0).expanded == expanded  # its work still counts
    run.store.counters[NODES] = 2 * capacity - 1
    run.max_nodes = 2 * capacity
    assert not run.make_room()  # nothing left to give


@pytest.mark.parametrize("name", ["1", "4"])
def test_the_ball_around_the_start_and_the_pull_search_meet(name):
    (level,) = microban(name)
    run = _prepared(level)
    pull, ball = run.pulls[0], run.ball
    for _ in range(10_000):  # both sides cover the small space long before
        pull.step()
        ball.step()
        if run._meet_side(ball):
            break
    forward_run, _, backward, met_pull = run.meeting
    assert forward_run is ball.run
    lurd = run._path(0)
    check = verify_solution(level, lurd)
    assert check.valid and check.solved
    if met_pull is not None:  # the pulls finish what the ball began
        assert backward >= 0 and check.pushes >= solve(level, "push-bfs").pushes


def _bidirectional(
    level, settings: BidirectionalSettings, node_limit: int | None = None
) -> BidirectionalRun:
    algorithm = ALGORITHMS["push-fess-bi"]
    return BidirectionalRun(level, algorithm, "matching", None, node_limit, settings, 0, 1 << 30)


def _prepared(level, **settings) -> BidirectionalRun:
    run = _bidirectional(level, BidirectionalSettings(**settings))
    assert run._prepare() is None
    run._add_root()
    return run


def test_plain_push_fess_beside_the_search_can_solve_the_level_itself():
    level = quiet_level(ROOM)
    run = _prepared(level)
    plain = run.plains[0]
    assert plain.run.settings.cluster_deadlocks == 0  # push-fess as it runs alone
    while plain.solution < 0 and not plain.finished:
        plain.step()
    assert run._meet_side(plain)
    forward_run, node, backward, pull = run.meeting
    assert forward_run is plain.run and node == plain.solution and backward == -1 and pull is None
    result = run.result("solved", 0)
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    assert result.pushes == solve(level, "push-fess").pushes  # the same search, the same path


def test_the_searches_from_the_start_share_push_fess_bi_s_deadlock_patterns():
    (level,) = microban("16")
    run = _prepared(level, deadlock_patterns=256)
    patterns = run.features.corral.patterns
    assert [plain.run.features.corral.patterns is patterns for plain in run.plains] == [True] * 2
    assert run.ball is not None and run.ball.run.scratch.deadlocks.players.shape[0] == 0
    plain = run.plains[0]
    while patterns.counts[STORED] == 0 and not plain.finished:
        plain.step()
    assert patterns.counts[STORED] > 0  # a plain search's proof, kept for them all
    assert int(run.store.counters[EXPANDED]) == 0
    unshared = _prepared(level, deadlock_patterns=0)
    assert unshared.features.corral.patterns.sizes.shape[0] == 0
    assert unshared.plains[0].run.features.corral.patterns.sizes.shape[0] == 0


def test_plain_push_fess_stops_at_its_expansions_and_keeps_its_states():
    (level,) = microban("16")
    assert _prepared(level, plain_nodes=0).plains == ()
    run = _prepared(level, plain_nodes=30, advice_weight=0)  # 30 do not solve it then
    plain = run.plains[0]
    for _ in range(1_000):
        plain.step()
    assert plain.finished and plain.solution < 0
    assert int(plain.store.counters[EXPANDED]) == 30
    stored = plain.store.size
    assert run.result("timeout", 0).expanded >= 30  # its work counts
    assert plain.store.size == stored > 30  # its states stay for the meeting


@pytest.mark.parametrize("name", ["1", "4"])
def test_a_pull_search_stops_at_its_expansions_and_its_states_still_meet(name):
    (level,) = microban(name)
    assert _prepared(level).pulls[0].max_expansions == 400_000  # the default
    assert _prepared(level, pull_nodes=0).pulls[0].max_expansions == 0  # until memory is full
    run = _prepared(level, pull_nodes=10, pull_weights=("own",), plain_nodes=3, ball_nodes=0)
    pull, plain = run.pulls[0], run.plains[0]
    for _ in range(100):
        pull.step()
    assert pull.finished and int(pull.store.counters[EXPANDED]) == 10
    stored = pull.store.size
    for _ in range(1_000):  # the plain side (3 expansions: not alone), then its own push-fess
        if run._meet_all():
            break
        if plain.finished:
            run._call_kernel()
        else:
            plain.step()
    _, _, backward, met_pull = run.meeting
    assert met_pull is pull and backward >= 0  # a meeting with the stopped search
    assert pull.store.size == stored and int(pull.store.counters[EXPANDED]) == 10
    check = verify_solution(level, run._path(0))
    assert check.valid and check.solved


@pytest.mark.parametrize("name", ["1", "4"])
def test_plain_push_fess_and_the_pull_search_meet(name):
    (level,) = microban(name)
    run = _prepared(level, plain_nodes=3)  # too few to solve it alone
    pull, plain = run.pulls[0], run.plains[0]
    for _ in range(10_000):
        pull.step()
        plain.step()
        if run._meet_side(plain):
            break
    forward_run, _, backward, met_pull = run.meeting
    assert forward_run is plain.run and met_pull is pull and backward >= 0
    check = verify_solution(level, run._path(0))
    assert check.valid and check.solved


@pytest.mark.parametrize("name", ["4", "16"])
def test_each_plain_push_fess_is_push_fess_with_its_room_cap(name):
    (level,) = microban(name)
    # without deadlock patterns, which the plain searches share with push-fess-bi's own
    run = _prepared(level, plain_room_caps=(1, 2), deadlock_patterns=0)
    assert [plain.run.settings.room_links for plain in run.plains] == [1, 2]
    for plain in run.plains:
        while plain.solution < 0 and not plain.finished:
            plain.step()
        room_links = plain.run.settings.room_links
        own = run.settings  # push-fess-bi's advisors and packing macros too
        knobs = ("advice_weight", "advice_once", "advice_best", "advisors", "pack_macros")
        advice = {knob: getattr(own, knob) for knob in knobs}
        alone = solve(level, "push-fess", settings=FessSettings(room_links=room_links, **advice))
        assert plain.solution >= 0 and alone.solved
        assert int(plain.store.counters[EXPANDED]) == alone.expanded
        assert plain.run._path(plain.solution) == alone.solution


@pytest.mark.parametrize("name", ["4", "16"])
def test_each_of_plain_searches_is_push_fess_with_its_own_settings(name):
    (level,) = microban(name)
    sides = [
        {"alternate": 6, "room_links": 0, "corral_deadlocks": 0},
        {"cell_weights": (1, 3), "connectivity_limit": 4, "pack_macros": 2},
    ]
    run = _prepared(level, plain_room_caps=(1,), plain_searches=sides, deadlock_patterns=0)
    assert len(run.plains) == 3  # after the one of plain_room_caps
    for plain, knobs in zip(run.plains[1:], sides, strict=True):
        while plain.solution < 0 and not plain.finished:
            plain.step()
        alone = solve(level, "push-fess", settings=FessSettings(**knobs))
        assert plain.solution >= 0 and alone.solved
        assert int(plain.store.counters[EXPANDED]) == alone.expanded
        assert plain.run._path(plain.solution) == alone.solution


def test_each_of_plain_searches_stops_at_its_own_expansions_and_memory():
    (level,) = microban("16")
    run = _prepared(level, plain_nodes=0, plain_searches=[{"nodes": 3}, {"nodes": 5}])
    for plain, nodes in zip(run.plains, (3, 5), strict=True):
        for _ in range(1_000):
            plain.step()
        assert plain.finished and plain.solution < 0
        assert int(plain.store.counters[EXPANDED]) == nodes
    alone = _prepared(level, plain_nodes=0, backward_share=0.0)
    one = _prepared(level, plain_nodes=0, backward_share=0.0, plain_searches=[{}])
    assert alone.max_nodes - one.max_nodes == bidirectional.side_memory(one) // one.bytes_per_node()


def test_push_fess_bi_with_plain_searches_solves_and_verifies():
    (level,) = microban("4")
    settings = BidirectionalSettings(plain_searches=[{"room_links": 0, "nodes": 1_000}])
    result = solve(level, "push-fess-bi", settings=settings)
    check = verify_solution(level, result.solution)
    assert result.solved and check.valid and check.solved


@pytest.mark.parametrize("name", ["1", "4"])
def test_pull_searches_of_several_weights_share_the_memory_and_each_can_meet(name):
    (level,) = microban(name)
    run = _prepared(level, pull_weights=("own", 5.0), plain_nodes=3)  # too few to solve alone
    first, second = run.pulls
    assert (first.weight, second.weight) == (300, 500)  # the search's own --weight 3, and 5
    assert first.max_nodes == second.max_nodes
    plain = run.plains[0]
    for _ in range(10_000):  # the second alone meets plain push-fess: its pulls end the path
        second.step()
        plain.step()
        if run._meet_side(plain):
            break
    forward_run, _, backward, met_pull = run.meeting
    assert met_pull is second and forward_run is plain.run and backward >= 0
    assert first.store.counters[EXPANDED] == 0
    check = verify_solution(level, run._path(0))
    assert check.valid and check.solved


def test_the_searches_take_turns_by_their_shares_of_the_work():
    (level,) = microban("139")
    settings = BidirectionalSettings(pull_weights=("own", 5.0))
    run = _bidirectional(level, settings, 3_000)
    assert run.search() == "solved"
    first, second = run.pulls
    assert first.store.counters[EXPANDED] > 0 and second.store.counters[EXPANDED] > 0
    assert run.result("solved", 0).expanded >= sum(
        int(pull.store.counters[EXPANDED]) for pull in run.pulls
    )
    total = run._total_cost()
    backward = (first.cost + second.cost + run.ball.cost) / total
    plain = sum(side.cost for side in run.plains) / total
    assert abs(backward - settings.backward_share) < 0.1
    assert abs(plain - settings.plain_share) < 0.1


def _stored(store) -> dict[tuple[tuple[int, ...], int], int]:
    """The states of a store, (sorted boxes, normalized player) -> pushes to reach them."""
    rows = zip(store.field("boxes").tolist(), store.field("player").tolist())
    return {(tuple(boxes), player): g for (boxes, player), g in zip(rows, store.field("g"))}


def _best_join(run: BidirectionalRun) -> int | None:
    """The fewest pushes of a solution the stores make now: a state a search from the start
    and a pull search both hold, or a side search's own solution (None: neither)."""
    joins = [int(side.store.nodes.g[side.solution]) for side in run.sides if side.solution >= 0]
    pulled = [_stored(pull.store) for pull in run.pulls]
    for store in (run.store, *(side.store for side in run.sides)):
        forward = _stored(store)
        for backward in pulled:
            joins += [forward[key] + backward[key] for key in forward.keys() & backward.keys()]
    return min(joins, default=None)


@pytest.mark.parametrize("name", ["1", "6", "16", "75", "84", "90"])
def test_no_meeting_is_missed_and_the_shortest_join_is_taken(name):
    """After every step, no state is held by both a search from the start and a pull search
    unless the search has ended there, and it ends at the join of fewest pushes the stores
    hold: a valid solution, no shorter than push-bfs's optimal one. (On 75, 84 and 90 the
    first meeting found made 40, 86 and 20 pushes where the stores held joins of 34, 82 and
    18.)"""
    (level,) = microban(name)
    run = _bidirectional(level, BidirectionalSettings(backward_share=0.6, plain_nodes=40))
    joins = []
    call_kernel = run._call_kernel

    def checked_call() -> int:
        code = call_kernel()
        if run.store.counters[SOLUTION] < 0:
            assert _best_join(run) is None
        elif run.meeting is not None and not joins:
            joins.append(_best_join(run))
        return code

    run._call_kernel = checked_call  # type: ignore[method-assign]
    status = run.search()
    assert status == "solved"
    result = run.result(status, 0)
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    if joins:
        assert result.pushes == joins[0]
    assert result.pushes >= solve(level, "push-bfs").pushes


@pytest.mark.parametrize(("name", "node_limit"), [("93", 2_000), ("98", 2_000), ("139", 1_000)])
def test_at_a_node_limit_the_search_is_the_same_whatever_the_clock_says(
    name, node_limit, monkeypatch
):
    """The turns of the searches and the size of their calls follow the work done, not the
    clock: with the clock running slow, fast or at random, the same level gives the same
    search. On 93 and 139 push-fess and a pull search meet, on 98 the ball and a pull search;
    139 ends at the node limit."""
    (level,) = microban(name)

    def outcome():
        run = _bidirectional(level, BidirectionalSettings(), node_limit)
        status = run.search()
        result = run.result(status, 0)
        pulled = tuple(int(pull.store.counters[EXPANDED]) for pull in run.pulls)
        sides = tuple(int(side.store.counters[EXPANDED]) for side in run.sides)
        return status, result.expanded, result.generated, result.solution, pulled, sides

    first = outcome()
    assert first == outcome()
    assert first[4][0] > 0 and first[5][0] > 0  # a pull search and the ball took part
    rng = random.Random(0)
    for clock in (lambda: rng.random() * 1e6, itertools.count(0, 1e-9).__next__):
        monkeypatch.setattr(time, "perf_counter", clock)
        monkeypatch.setattr(time, "process_time", clock)
        assert outcome() == first


def test_the_warm_up_calls_the_pull_kernel(monkeypatch):
    """The warm-up's search of 50 expansions ends before the pull searches' turn: without a
    call of their own, the first level that reached one compiled the kernel in its time."""
    calls = []
    pull_search = bidirectional.pull_search

    def counted(*arguments):
        calls.append(arguments[3])  # its expansions
        return pull_search(*arguments)

    monkeypatch.setattr(bidirectional, "pull_search", counted)
    monkeypatch.setattr(solver, "_WARMED", set())  # warm again
    solver.warm_up(["push-fess-bi"])
    assert calls and min(calls) > 0


def test_the_warm_up_calls_the_balls_kernel(monkeypatch):
    """The ball (push-bfs beside push-fess) compiles a push kernel of its own: the warm-up
    calls it, or the first level that reached the ball's turn compiled it in its time."""
    steps = []
    step = bidirectional.SideSearch.step

    def counted(search):
        steps.append((search.name, int(search.run.store.counters[EXPANDED])))
        step(search)
        steps.append((search.name, int(search.run.store.counters[EXPANDED])))

    monkeypatch.setattr(bidirectional.SideSearch, "step", counted)
    monkeypatch.setattr(solver, "_WARMED", set())  # warm again
    solver.warm_up(["push-fess-bi"])
    ball = [expanded for name, expanded in steps if name == "ball"]
    assert ball and ball[-1] > ball[0]


@pytest.mark.parametrize("name", ["1", "10", "60"])
@pytest.mark.parametrize("knob", ["pack_macros", "corridor_macros"])
def test_macros_run_in_push_fess_bi_and_its_plain_sides(name, knob):
    """``pack_macros`` and ``corridor_macros`` reach push-fess-bi's own push-fess and each plain
    push-fess beside it, and the solution, macros rebuilt push by push, replays; the packing
    macros' steps are stored."""
    (level,) = microban(name)
    value = 2 if knob == "pack_macros" else True
    run = _bidirectional(level, BidirectionalSettings(**{knob: value}), 200_000)
    status = run.search()
    assert status == "solved"
    check = verify_solution(level, run.result(status, 0).solution)
    assert check.valid and check.solved
    searches = [run, *(plain.run for plain in run.plains)]
    assert [getattr(search.settings, knob) for search in searches] == [value] * len(searches)
    if knob == "pack_macros":
        steps = np.concatenate([search.store.field("step") for search in searches])
        assert ((steps >= PACK_MACRO_STEP) & (steps < GOAL_MACRO_STEP)).any()


def test_found_by_names_the_search_that_found_the_solution():
    first, thirty_six = microban("1", "36")
    met = solve(thirty_six, "push-fess-bi", node_limit=2000)
    assert met.solved and met.found_by == "push-fess + pull (weight 3)"
    assert met.as_dict()["found_by"] == met.found_by
    plain = solve(first, "push-fess-bi", node_limit=2000)
    assert plain.found_by == "plain push-fess (room_links 1)"
    listed = BidirectionalSettings(
        plain_nodes=0, plain_searches=[{"room_links": 0}], backward_share=0
    )
    assert solve(first, "push-fess-bi", settings=listed).found_by == "plain_searches[0]"
    alone = BidirectionalSettings(plain_nodes=0, backward_share=0)
    assert solve(first, "push-fess-bi", settings=alone).found_by == "push-fess"
    assert solve(first, "push-fess").found_by is None


def test_parts_give_each_search_its_expansions_and_cpu_seconds():
    (thirty_six,) = microban("36")
    started = time.process_time()
    met = solve(thirty_six, "push-fess-bi", node_limit=2000)
    spent = time.process_time() - started
    names = [part.name for part in met.parts]
    assert names == [
        "push-fess",
        "pull (weight 3)",
        "pull (weight 10)",
        "ball",
        "plain push-fess (room_links 1)",
        "plain push-fess (room_links 2)",
    ]
    assert sum(part.expanded for part in met.parts) == met.expanded
    assert sum(part.generated for part in met.parts) == met.generated
    assert met.found_by == "push-fess + pull (weight 3)"  # the two that met have worked
    assert met.parts[0].expanded > 0 and met.parts[1].expanded > 0
    assert met.parts[1].cpu_seconds > 0
    assert 0 < sum(part.cpu_seconds for part in met.parts) <= spent
    assert met.as_dict()["parts"] == [part.as_dict() for part in met.parts]
    assert met.as_dict()["parts"][1]["name"] == "pull (weight 3)"
    assert solve(thirty_six, "push-fess", node_limit=200).parts == ()
