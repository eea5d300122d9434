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
from evosoko.search.search_run import DEFAULT_MEMORY
from evosoko.search.solver import warm_up
from evosoko.search.store import NODES, Store


def _no_room(*_arguments, **_keywords):
    raise MemoryError


def test_a_store_that_finds_no_room_is_left_as_it_was(monkeypatch):
    store = Store(box_count=2)
    store.counters[NODES] = store.capacity - 1  # nearly full: the node arrays must grow
    before = (store.capacity, store.nodes, store.table, store.frontier)
    monkeypatch.setattr(store_module, "_resized", _no_room)
    with pytest.raises(MemoryError):
        store.grow()
    assert (store.capacity, store.nodes, store.table, store.frontier) == before


def test_a_store_that_grows_keeps_its_nodes():
    store = Store(box_count=2)
    store.nodes.boxes[:3] = [[1, 2], [3, 4], [5, 6]]
    store.counters[NODES] = store.capacity - 1
    capacity = store.capacity
    store.grow()
    assert store.capacity == 2 * capacity
    assert np.array_equal(store.nodes.boxes[:3], [[1, 2], [3, 4], [5, 6]])


GROWING = ["bfs", "dfs", "astar", "push-bfs", "push-astar", "push-greedy", "push-fess"]


@pytest.mark.parametrize("algo", [*GROWING, "push-fess-bi"])
def test_a_search_whose_store_finds_no_room_ends_at_memory_limit(monkeypatch, algo):
    level = quiet_level(lattice_rows(24, columns=6))
    warm_up([algo], level.cells)  # the warm-up grows a store of its own
    monkeypatch.setattr(Store, "grow", _no_room)
    result = solve(level, algo, node_limit=200_000, partial=2)
    if algo == "push-fess-bi":  # the pull searches end first, then push-fess itself
        assert result.status in ("memory-limit", "solved")
    else:
        assert result.status == "memory-limit"
    assert result.expanded > 0


def test_a_memory_error_anywhere_in_a_search_is_memory_limit(monkeypatch):
    level = quiet_level(lattice_rows(4, columns=2))
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
        app, ["solve", str(path), "--algo", algo, "--memory", "1", "--time-limit", "60", "--json"]
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
