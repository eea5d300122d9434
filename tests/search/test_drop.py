"""A full store drops open leaves and goes on (``on_full = "drop"``, evosoko.search.drop)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiny_levels import SHARED_LEVELS, microban, quiet_level
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.generate.stress import lattice_rows
from evosoko.search import ALGORITHMS, search_run, solve
from evosoko.search.drop import NO_KEY, drop_states
from evosoko.search.fess.space import heap_insert, make_feature_space
from evosoko.search.search_run import RESTART_WEIGHT_SPREAD, restart_weight
from evosoko.search.settings import FessSettings, PushSettings, settings_for
from evosoko.search.solver import _run_class, warm_up
from evosoko.search.store import (
    FRONT_SIZE,
    HEAP,
    NODES,
    RESUME_NODE,
    Store,
    find_slot,
    frontier_pop,
    frontier_push,
    rehash,
)
from evosoko.sokoban.solutions import verify_solution


def _random_store(seed: int, nodes: int = 300) -> tuple[Store, np.ndarray]:
    """A store of ``nodes`` states in a random search tree: each node's parent an earlier
    closed node (or, now and then, a later one, as an improved path makes it), open nodes in
    the frontier heap with random keys (some twice, some closed ones stale). Returns the store
    and each node's frontier key (:data:`NO_KEY`: none)."""
    rng = np.random.default_rng(seed)
    store = Store(box_count=3, capacity=512)
    count = nodes
    closed = rng.random(count) < 0.35
    closed[0] = True
    parent = np.full(count, -1, dtype=np.int32)
    for node in range(1, count):
        expanded = np.flatnonzero(closed[:node])
        parent[node] = rng.choice(expanded)
    for node in rng.choice(np.arange(1, count), size=count // 20, replace=False):
        later = np.flatnonzero(closed[node + 1 :]) + node + 1
        if len(later) and not _is_ancestor(parent, node, later[0]):
            parent[node] = later[0]
    store.nodes.parent[:count] = parent
    store.nodes.closed[:count] = closed
    store.nodes.boxes[:count] = rng.integers(0, 30000, size=(count, 3))
    store.nodes.g[:count] = np.arange(count)
    store.nodes.hash[:count] = rng.integers(0, 1 << 62, size=count, dtype=np.uint64)
    store.counters[NODES] = count
    rehash(store.table, store.nodes.hash, count)
    keys = np.full(count, NO_KEY, dtype=np.int64)
    for node in range(count):
        if not closed[node] or rng.random() < 0.1:
            key = int(rng.integers(0, 1000))
            frontier_push(store.frontier, store.counters, HEAP, key, node)
            keys[node] = key if not closed[node] else NO_KEY
            if rng.random() < 0.2:
                frontier_push(store.frontier, store.counters, HEAP, key + 5, node)
    return store, keys


def _is_ancestor(parent: np.ndarray, node: int, other: int) -> bool:
    while other >= 0:
        if other == node:
            return True
        other = parent[other]
    return False


def _rows(store: Store) -> list[tuple[int, ...]]:
    nodes = store.nodes
    return [
        (*nodes.boxes[k], int(nodes.g[k]), int(nodes.hash[k]), int(nodes.closed[k]))
        for k in range(store.size)
    ]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.1, 0.25, 1.0]))
def test_a_drop_keeps_every_path_and_the_best_open_states(seed, share):
    store, keys = _random_store(seed)
    count = store.size
    rows = _rows(store)
    parent = store.nodes.parent[:count].copy()
    closed = store.nodes.closed[:count].astype(bool)
    store.counters[RESUME_NODE] = int(np.flatnonzero(closed)[-1])
    resume = int(store.counters[RESUME_NODE])
    has_child = np.zeros(count, dtype=bool)
    has_child[parent[parent >= 0]] = True
    open_leaves = np.flatnonzero(~closed & ~has_child)
    pending = open_leaves[:3].astype(np.int64)  # successors of the expansion in progress
    held = pending.copy()
    new_id = drop_states(store, share, pending=pending)
    assert new_id is not None
    dropped = np.flatnonzero(new_id < 0)
    assert len(dropped) <= share * store.capacity
    # only leaves go, never the node 0, the expansion in progress or its successors
    assert not has_child[dropped].any()
    assert 0 not in dropped and resume not in dropped and not set(held) & set(dropped)
    assert store.counters[RESUME_NODE] == new_id[resume]
    assert list(pending) == list(new_id[held])
    # dead ends (expanded leaves) go first, the worst by priority (here: the largest g, the
    # node's number); open leaves go only when those are too few (all but the best one gone),
    # and the dropped ones are the worst: no kept open leaf has a larger key
    dead_ends = [k for k in np.flatnonzero(closed & ~has_child) if k not in (0, resume)]
    kept_dead = [k for k in dead_ends if new_id[k] >= 0]
    dropped_dead = [k for k in dropped if closed[k]]
    assert not kept_dead or not dropped_dead or max(kept_dead) < min(dropped_dead)
    kept_leaves = [k for k in open_leaves if new_id[k] >= 0 and k not in held]
    dropped_open = [k for k in dropped if not closed[k]]
    assert not kept_leaves or not dropped_open or max(keys[kept_leaves]) <= min(keys[dropped_open])
    if dropped_open:
        assert len(kept_dead) <= 1
    # every kept node moved with its fields; its parent is the renumbered parent
    kept = np.flatnonzero(new_id >= 0)
    assert store.size == len(kept)
    assert _rows(store) == [rows[k] for k in kept]
    for old in kept:
        new = new_id[old]
        assert store.nodes.parent[new] == (new_id[parent[old]] if parent[old] >= 0 else -1)
        node = int(new)
        for _ in range(count):  # the path to the root holds only kept nodes
            if node < 0:
                break
            node = int(store.nodes.parent[node])
        assert node == -1
        slot = find_slot(store.nodes, store.table, store.nodes.hash[new], store.nodes.boxes[new], 0)
        assert store.table[slot] == new
    # the frontier is a heap of the kept open states, each at its key
    popped = []
    while store.counters[FRONT_SIZE] > 0:
        popped.append(int(frontier_pop(store.frontier, store.counters, HEAP)))
    assert sorted(set(popped)) == sorted(int(new_id[k]) for k in kept if not closed[k])
    popped_keys = [keys[np.flatnonzero(new_id == node)[0]] for node in dict.fromkeys(popped)]
    assert popped_keys == sorted(popped_keys)


@pytest.mark.parametrize("share", [0.5, 1.0])
def test_a_drop_by_cells_keeps_the_best_state_of_every_cell(share):
    rng = np.random.default_rng(7)
    store = Store(box_count=2, capacity=256)
    count = 200
    store.nodes.parent[1:count] = 0
    store.nodes.closed[0] = 1
    store.nodes.hash[:count] = rng.integers(0, 1 << 62, size=count, dtype=np.uint64)
    store.counters[NODES] = count
    rehash(store.table, store.nodes.hash, count)
    space = make_feature_space(256, 2, 1, FessSettings())
    cell = rng.integers(0, 5, size=count)
    key = rng.integers(0, 50, size=count)
    for node in range(1, count):
        heap_insert(space, int(cell[node]), node, int(key[node]))
    best = {c: int(key[1:][cell[1:] == c].min()) for c in range(5)}
    new_id = drop_states(store, share, space=space)
    assert new_id is not None
    assert 0 < np.count_nonzero(new_id < 0) <= share * 256
    for c in range(5):
        root = space.root[c]
        assert root >= 0 and space.key[root] == best[c]
        members = [k for k in range(1, count) if cell[k] == c]
        kept = [k for k in members if new_id[k] >= 0]
        assert space.size[c] == len(kept)
        if share == 1.0:  # room for every candidate: each cell keeps its best alone
            assert len(kept) == 1
        assert sorted(space.key[new_id[kept]]) == sorted(key[kept])


@pytest.mark.parametrize(
    ("algo", "model", "title"),
    [("push-wastar", PushSettings, "117"), ("push-fess", FessSettings, "143")],
)
def test_a_search_that_needs_drops_still_solves_its_level(algo, model, title):
    (level,) = microban(title)
    memory = 1 << 20  # the store's least: 4,096 states, doubled once
    stopped = solve(level, algo, memory_limit=memory, settings=model(on_full="stop"))
    assert stopped.status == "memory-limit"
    run = _run_class(ALGORITHMS[algo])(
        level, ALGORITHMS[algo], "matching", None, None, model(), 0, memory
    )
    status = run.search()
    assert status == "solved" and run.drops > 0
    result = run.result(status, 0)
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved


@pytest.mark.parametrize("algo", ["push-bfs", "push-astar"])
def test_an_optimal_search_still_stops_at_its_memory_limit(algo):
    level = quiet_level(lattice_rows(16, columns=8))
    warm_up([algo], level.cells)
    settings = PushSettings(on_full="drop")
    run = _run_class(ALGORITHMS[algo])(
        level, ALGORITHMS[algo], "matching", None, None, settings, 0, 1 << 20
    )
    assert not run.may_drop()
    assert run.search() == "memory-limit" and run.drops == 0


def test_push_fess_bi_drops_states_only_once_its_pull_searches_are_gone():
    """The meeting stays exact among the states held: no pull search is left to meet a
    dropped state (their memory went to push-fess first)."""
    level = quiet_level(lattice_rows(16, columns=8))
    algo = ALGORITHMS["push-fess-bi"]
    warm_up([algo.name], level.cells)
    # without packing macros, which solve the open lattice at once
    settings = settings_for(algo.name).model_copy(update={"pack_macros": 0})
    run = _run_class(algo)(level, algo, "matching", None, 150_000, settings, 0, 8 << 20)
    pulls_at_drops = []
    dropped_room = run._dropped_room

    def noted() -> bool:
        pulls_at_drops.append(len(run.pulls))
        return dropped_room()

    run._dropped_room = noted  # type: ignore[method-assign]
    run.search()
    assert run.drops > 0 and not any(pulls_at_drops)


def test_a_restart_weighs_h_by_the_seed_and_the_restart_alone():
    drawn = {seed: [restart_weight(300, seed, k) for k in range(1, 30)] for seed in (0, 1)}
    assert drawn == {seed: [restart_weight(300, seed, k) for k in range(1, 30)] for seed in (0, 1)}
    assert drawn[0] != drawn[1] and len(set(drawn[0])) > 20
    every = drawn[0] + drawn[1]
    assert min(every) >= 300 / RESTART_WEIGHT_SPREAD and max(every) <= 300 * RESTART_WEIGHT_SPREAD
    assert min(every) < 250 and max(every) > 400  # spread over the whole range


RESTARTING = "108"
"""A Microban level whose push-fess, at 1 MiB, empties its frontier through drops."""


def test_a_search_whose_drops_empty_its_frontier_restarts_and_solves():
    (level,) = microban(RESTARTING)
    memory = 1 << 20
    stopped = solve(level, "push-fess", memory_limit=memory, settings=FessSettings(restarts=0))
    assert stopped.status == "memory-limit" and stopped.drops > 0 and stopped.restarts == 0
    result = solve(level, "push-fess", memory_limit=memory)
    assert result.status == "solved" and result.restarts > 0 and result.drops >= stopped.drops
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    assert result.as_dict()["restarts"] == result.restarts > 0


@pytest.mark.slow
def test_drops_and_restarts_do_not_depend_on_how_the_calls_are_cut(monkeypatch):
    (level,) = microban(RESTARTING)
    outcomes = []
    for cut in (None, 1, 5):
        if cut is not None:  # calls of `cut` expansions, cut inside expansions as well
            monkeypatch.setattr(search_run, "_next_chunk", lambda chunk, elapsed, cut=cut: cut)
            monkeypatch.setattr(
                search_run, "_next_work_limit", lambda *arguments, units=100 * cut: units
            )
        result = solve(level, "push-fess", memory_limit=1 << 20)
        trace = [(expanded, h) for expanded, _seconds, h in result.progress]
        outcomes.append((result.status, result.expanded, result.drop_counts(), result.solution))
        outcomes[-1] += (trace,)
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert outcomes[0][2]["restarts"] > 0


def test_the_json_line_counts_the_drops_and_restarts():
    (level,) = microban(RESTARTING)
    arguments = ["solve", str(SHARED_LEVELS / "microban.txt"), "-l", f"title:{RESTARTING}"]
    arguments += ["--algo", "push-fess", "--memory", "1", "--json"]
    records = []
    for extra in ([], ["--set", "fess.restarts=0"]):
        output = CliRunner().invoke(app, arguments + extra)
        records.append(json.loads(output.stdout))
        assert output.exit_code == (0 if not extra else 1), output.output
    restarted, stopped = records
    assert restarted["status"] == "solved" and restarted["restarts"] > 0
    assert restarted["drops"] > 0 and restarted["dropped"] > 0
    assert stopped["status"] == "memory-limit" and stopped["restarts"] == 0 < stopped["drops"]
    assert verify_solution(level, restarted["solution"]).solved
