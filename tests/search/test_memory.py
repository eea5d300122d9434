"""Running out of memory ends a search at ``memory-limit``, never a traceback (issue 55, item 3).

Under ``ulimit -v 1500000``, ``evosoko solve`` of a 261-box board with bfs crashed in the
store's growth with a MemoryError: the memory limit had room the machine did not give. A
growth that finds no room leaves the store as it was and the search reports ``memory-limit``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import numpy as np
import pytest
from tiny_levels import REPO_ROOT, quiet_level
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.cli.solve import SEARCH_MEGABYTES
from evosoko.generate.stress import lattice_rows, room_rows
from evosoko.search import ALGORITHMS, solve
from evosoko.search import store as store_module
from evosoko.search.search_run import DEFAULT_MEMORY, table_bytes
from evosoko.search.settings import (
    BidirectionalSettings,
    FessSettings,
    PushSettings,
    SearchSettings,
    settings_for,
)
from evosoko.search.solver import _run_class, warm_up
from evosoko.search.store import NODES, NodeArrays, Store


def _no_room(*_arguments, **_keywords):
    raise MemoryError


@pytest.mark.parametrize("failing", [0, 5, 12])
def test_a_store_that_finds_no_room_is_left_as_it_was(monkeypatch, failing):
    """The arrays grow one by one; when the one numbered ``failing`` (the boxes, the hashes,
    the table) finds no room, those grown before it get their old length back."""
    store = Store(box_count=2)
    store.nodes.boxes[:3] = [[1, 2], [3, 4], [5, 6]]
    store.counters[NODES] = store.capacity - 1  # nearly full: the node arrays must grow
    before = (store.capacity, _identities(store))  # no reference kept: they may grow in place
    lengths = [len(array) for array in (*store.nodes, store.table)]
    table = store.table.copy()
    with_rows = store_module._with_rows

    def no_room_for_one(arrays, k, length):
        if k == failing and length > len(arrays[k]):
            raise MemoryError
        return with_rows(arrays, k, length)

    monkeypatch.setattr(store_module, "_with_rows", no_room_for_one)
    with pytest.raises(MemoryError):
        store.grow()
    assert (store.capacity, _identities(store)) == before
    assert [len(array) for array in (*store.nodes, store.table)] == lengths
    assert np.array_equal(store.nodes.boxes[:3], [[1, 2], [3, 4], [5, 6]])
    assert np.array_equal(store.table, table)


def _identities(store: Store) -> list[int]:
    return [id(array) for array in (*store.nodes, store.table, *store.frontier)]


def test_a_store_grows_in_place_unless_a_view_holds_an_array():
    store = Store(box_count=2)
    store.nodes.parent[:3] = [-1, 0, 0]
    store.counters[NODES] = store.capacity - 1
    before = _identities(store)
    view = store.field("parent")  # held here: its array is copied, not reallocated under it
    store.grow()
    after = _identities(store)
    parent = NodeArrays._fields.index("parent")
    assert [k for k in range(len(before)) if after[k] != before[k]] == [parent]
    assert len(store.nodes.parent) == store.capacity == 2 * len(view.base)
    assert list(view[:3]) == list(store.nodes.parent[:3]) == [-1, 0, 0]


STOPPING = SearchSettings(
    push=PushSettings(on_full="stop"),
    fess=FessSettings(on_full="stop"),
    fess_bi=BidirectionalSettings(on_full="stop"),
)
"""Every search ends at memory-limit when its store is full (by default the non-optimal ones
drop states and go on: tests/search/test_drop.py)."""
STOP_WORDS = [
    *(f"--set={family}.on_full=stop" for family in ("push", "fess", "fess_bi")),
    "--set=fess_bi.pack_macros=0",  # its packing macros solve the open lattices at once
]

GROWING = ["bfs", "dfs", "astar", "push-bfs", "push-astar", "push-greedy", "push-fess"]


@pytest.mark.parametrize("algo", [*GROWING, "push-fess-bi"])
def test_a_search_whose_store_finds_no_room_ends_at_memory_limit(monkeypatch, algo):
    level = quiet_level(lattice_rows(16, columns=8))
    warm_up([algo], level.cells)  # the warm-up grows a store of its own
    monkeypatch.setattr(Store, "grow", _no_room)
    result = solve(level, algo, node_limit=200_000, partial=2, settings=STOPPING)
    if algo == "push-fess-bi":  # the pull searches end first, then push-fess itself
        assert result.status in ("memory-limit", "solved")
    else:
        assert result.status == "memory-limit"
    assert result.expanded > 0


def test_a_memory_error_anywhere_in_a_search_is_memory_limit(monkeypatch):
    level = quiet_level(lattice_rows(16, columns=8))
    from evosoko.search import search_run

    warm_up(["push-astar"], level.cells)  # the warm-up runs a search of its own
    monkeypatch.setattr(search_run.SearchRun, "_run_kernel", _no_room)
    result = solve(level, "push-astar")
    assert result.status == "memory-limit" and result.solution is None


def test_the_default_of_memory_is_the_searches_default():
    assert SEARCH_MEGABYTES << 20 == DEFAULT_MEMORY


FILL_QUICKLY = [
    "bfs",
    "dfs",
    "random",
    "astar",
    "greedy",
    *GROWING[3:],
    "push-wastar",
    "push-fess-bi",
]
"""Searches that fill 1 MB of stored states within a second on a 24-box lattice; the others
(one iteration of IDA* at a time, a tree of rollouts, the guided searches' slow expansions)
are shown the limit by a board whose tables alone do not fit in it."""


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_memory_is_honoured_by_every_algorithm(tmp_path, algo):
    # --memory did not exist: every search had 2 GiB, whatever the machine had
    rows = lattice_rows(24, columns=6)
    if algo not in FILL_QUICKLY:
        rows = room_rows(120, 120, player=(1, 1), box=(30, 30), goal=(30, 45))
    path = tmp_path / "board.xsb"
    path.write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(
        app,
        ["solve", str(path), "--algo", algo, "--memory", "1", "--time-limit", "60", "--json"]
        + STOP_WORDS,
    )
    record = json.loads(result.stdout)
    assert record["status"] == "memory-limit", record
    assert result.exit_code == 1


def test_memory_below_one_megabyte_is_refused():
    path = REPO_ROOT / "levels" / "seeds.xsb"
    result = CliRunner().invoke(app, ["solve", str(path), "-l", "1", "--memory", "0"])
    assert result.exit_code == 2 and "--memory must be at least 1" in result.stderr


def _limit_address_space(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["bfs", "push-astar"])
def test_the_cli_under_an_address_space_limit_says_memory_limit(tmp_path, algo):
    # the case (261 boxes): a MemoryError traceback from the store's growth
    path = tmp_path / "lattice.xsb"
    path.write_text("\n".join(lattice_rows(261)) + "\n")
    limit = 800_000 * 1024  # ulimit -v 800000
    completed = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", "solve", str(path), "--algo", algo,
         "--time-limit", "30", "--memory", "100000", "--json"],
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        preexec_fn=_limit_address_space(limit),
    )  # fmt: skip
    assert "Traceback" not in completed.stderr, completed.stderr
    record = json.loads(completed.stdout)
    assert record["status"] == "memory-limit", record


def _held_bytes(run) -> int:
    """What a search holds for its states: every store's arrays and every feature space, and
    each search's per-level tables (:func:`~evosoko.search.search_run.table_bytes`)."""
    sides = [side.run for side in getattr(run, "sides", ())]
    stores = [run.store, *(side.store for side in sides)]
    stores += [pull.store for pull in getattr(run, "pulls", ())]
    held = sum(a.nbytes for store in stores for a in (*store.nodes, store.table, *store.frontier))
    spaces = [getattr(search, "space", None) for search in (run, *sides)]
    held += sum(a.nbytes for space in spaces if space is not None for a in space)
    return held + (1 + len(sides)) * table_bytes(run.level)


@pytest.mark.parametrize(
    ("algo", "on_full", "megabytes"),
    [
        ("push-astar", "stop", 8),
        ("push-fess-bi", "stop", 8),  # each side search's eighth holds 4,096 states, the least
        ("push-fess-bi", "drop", 8),
        ("push-wastar", "drop", 1),
    ],
)
def test_a_search_holds_no_more_than_its_memory_limit(algo, on_full, megabytes):
    """The stores of push-fess-bi (its own, its side searches', its pull searches') and its
    feature spaces, measured after every kernel call, stay within the memory limit up to
    memory-limit; so do push-A*'s. Before, push-fess-bi's side searches and feature spaces
    went past it: its own store left them an eighth of what remained, they took an eighth of
    the whole. A search that drops states when its store is full (``on_full = "drop"``) goes on
    past that point, and stays within the limit too."""
    level = quiet_level(lattice_rows(16, columns=8))
    warm_up([algo], level.cells)
    memory = megabytes << 20
    update: dict = {"on_full": on_full}
    if algo == "push-fess-bi":
        update["pack_macros"] = 0  # its packing macros solve the open lattice at once
    settings = settings_for(algo, None).model_copy(update=update)  # type: ignore[union-attr]
    node_limit = None if on_full == "stop" else DROP_NODE_LIMIT
    run = _run_class(ALGORITHMS[algo])(
        level, ALGORITHMS[algo], "matching", None, node_limit, settings, 0, memory
    )
    held = []
    call_kernel = run._call_kernel

    def measured_call() -> int:
        code = call_kernel()
        held.append(_held_bytes(run))
        return code

    run._call_kernel = measured_call  # type: ignore[method-assign]
    status = run.search()
    if on_full == "stop":
        assert status == "memory-limit"
    else:
        assert status in ("node-limit", "solved") and run.drops > 1
    assert memory // 2 < max(held) <= memory


DROP_NODE_LIMIT = 150_000
"""Expansions of the searches that drop states in the test above: several drops' worth."""
