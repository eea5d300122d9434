"""Boards past 16-bit cell indices, long tunnel macros, expensive expansions and memory caps.

Reproductions of issue 17: a box at a cell index of 32,768 or more made ``solve`` segfault or
report ``unsolvable`` after one expansion (box cells were int16 in the store); a tunnel macro of
more than 1,024 pushes was read back as a goal macro; the memory cap said ``node-limit``; one
expansion of a 200-box level could run for seconds past ``--time-limit``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tiny_levels import REPO_ROOT, microban, quiet_level

from evosoko.errors import LevelFormatError
from evosoko.generate.stress import corridor_rows, lattice_rows, room_rows
from evosoko.search import ALGORITHMS, PushSettings, clocks, search_run, solve
from evosoko.search.fess import run as fess_module
from evosoko.search.fess.kernel import fess_search
from evosoko.search.store import SMALL_BOARD_CELLS, Store, cell_dtype
from evosoko.sokoban.arrays import dead_end_tunnels
from evosoko.sokoban.solutions import verify_solution

EVERY_ALGORITHM = list(ALGORITHMS)


def _check_solved(level, result):
    assert result.status == "solved", result
    check = verify_solution(level, result.solution)
    assert check.valid and check.solved
    assert (check.moves, check.pushes) == (result.moves, result.pushes)


def test_the_store_keeps_cells_past_16_bits_on_large_boards():
    assert cell_dtype(SMALL_BOARD_CELLS) == np.int16
    assert cell_dtype(SMALL_BOARD_CELLS + 1) == np.int32
    store = Store(2, cells=60_000)
    assert store.nodes.boxes.dtype == np.int32 and store.nodes.assign.dtype == np.int32
    assert store.nodes.step.dtype == np.int32  # step codes: long tunnel macros


QUICK_ON_BIG_BOARDS = ("bfs", "push-astar")
"""The algorithms the default suite runs on boards past 16 bits: each other one compiles its
kernels a second time, for 32-bit cells (about 110 CPU-s in all), so the rest are slow tests."""


@pytest.mark.parametrize(
    "algo",
    [
        algo if algo in QUICK_ON_BIG_BOARDS else pytest.param(algo, marks=pytest.mark.slow)
        for algo in EVERY_ALGORITHM
    ],
)
def test_a_20000_cell_row_is_solved_by_every_algorithm(algo):
    level = quiet_level(corridor_rows(20_000, pushes=2))
    assert max(level.start.boxes) >= 1 << 15
    result = solve(level, algo, time_limit=60)
    _check_solved(level, result)
    assert result.pushes == 2


@pytest.mark.parametrize("algo", ["bfs", "push-astar", "push-idastar"])
def test_a_box_past_cell_32768_in_a_room_is_pushed_home(algo):
    level = quiet_level(room_rows(200, 200, player=(196, 190), box=(197, 195), goal=(197, 197)))
    assert level.start.boxes[0] > 1 << 15
    _check_solved(level, solve(level, algo, time_limit=60))


@pytest.mark.parametrize("length", [1_100, 8_300])
def test_a_tunnel_macro_of_more_than_1024_pushes_decodes(length):
    # The box enters a dead-end tunnel and is pushed to its end in one macro step, whose
    # code 4 * (pushes - 1) + direction passed the goal-macro codes (4096) and int16 (8191).
    rows = ["#####", "#@  #", "# $ #", *(["## ##"] * length), "##.##", "#####"]
    level = quiet_level(rows)
    result = solve(level, "push-astar", time_limit=60)
    _check_solved(level, result)
    assert result.expanded <= 3  # the whole tunnel was one macro step


def test_the_cli_solves_a_large_board_without_crashing(tmp_path):
    path = tmp_path / "row.xsb"
    path.write_text("\n".join(corridor_rows(20_000)) + "\n")
    completed = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", "solve", str(path), "--algo", "bfs", "--json"],
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert completed.returncode == 0, completed.stderr
    record = json.loads(completed.stdout)
    assert record["status"] == "solved" and record["pushes"] == 1


def test_the_memory_cap_is_reported_as_memory_limit_not_node_limit():
    level = quiet_level(room_rows(60, 60, player=(1, 1), box=(30, 30), goal=(30, 45)))
    result = solve(level, "dfs", memory_limit=4 << 20)
    assert result.status == "memory-limit"
    assert result.expanded > 0


def test_tables_that_do_not_fit_the_memory_cap_are_not_built():
    level = quiet_level(room_rows(60, 60, player=(1, 1), box=(30, 30), goal=(30, 45)))
    needed = search_run.table_bytes(level)
    result = solve(level, "push-astar", memory_limit=needed)
    assert (result.status, result.expanded) == ("memory-limit", 0)
    assert solve(level, "push-astar", memory_limit=needed * 100).status == "solved"


def _counted(kernel):
    def counted(*arguments):
        _counted.calls += 1
        return kernel(*arguments)

    return counted


_counted.calls = 0


def test_expansions_cut_into_many_kernel_calls_give_the_same_search(monkeypatch):
    """With a work limit of one unit, a push-level kernel call stops after every successor and
    the next call goes on where it stopped: the search is the same, step for step."""
    levels = microban("1", "2", "3", "6")
    cases = [("push-astar", None, None), ("push-idastar", None, None), ("push-greedy", None, None)]
    cases += [("push-astar", None, 7), ("push-wastar", "push-distance", 5)]  # node limits
    cases += [("push-fess", None, None), ("push-fess", None, 9)]
    for algo, heuristic, node_limit in cases:
        normal = [
            solve(level, algo, heuristic, node_limit=node_limit, partial=3) for level in levels
        ]
        monkeypatch.setattr(search_run, "_FIRST_WORK_LIMIT", 1)
        monkeypatch.setattr(search_run, "_next_work_limit", lambda limit, done, seconds: 1)
        monkeypatch.setattr(
            search_run.push_kernel,
            "push_search",
            _counted(search_run.push_kernel.push_search),
        )
        monkeypatch.setattr(fess_module.fess_kernel, "fess_search", _counted(fess_search))
        sliced = [
            solve(level, algo, heuristic, node_limit=node_limit, partial=3) for level in levels
        ]
        monkeypatch.undo()
        for plain, cut in zip(normal, sliced):
            assert (plain.status, plain.solution, plain.partial) == (
                cut.status,
                cut.solution,
                cut.partial,
            )
            assert (plain.expanded, plain.generated, plain.duplicates) == (
                cut.expanded,
                cut.generated,
                cut.duplicates,
            )
        assert _counted.calls > sum(result.expanded for result in sliced)  # expansions were cut
        _counted.calls = 0


def test_a_time_limit_stops_a_search_inside_a_costly_expansion(monkeypatch):
    """One expansion of a 200-box level runs hundreds of full matchings: the kernel must
    return to the clock inside it. A fake clock that jumps 10 s per reading makes every check
    see the limit passed, so the search stops at the first check after its first call."""
    level = quiet_level(lattice_rows(200))
    solve(level, "push-astar", node_limit=1)  # tables and kernels ready
    readings = iter(range(0, 10**6, 10))
    monkeypatch.setitem(clocks.CLOCKS, "wall", lambda: float(next(readings)))
    monkeypatch.setattr(search_run, "_seconds_per_work_unit", lambda: 0.0)
    result = solve(level, "push-astar", time_limit=25)
    assert result.exhausted == "seconds"
    assert result.expanded <= 1 and result.generated < 4 * 200  # stopped within one expansion


def test_a_matching_that_cannot_end_in_time_is_not_started(monkeypatch):
    level = quiet_level(lattice_rows(40))
    monkeypatch.setattr(search_run, "_seconds_per_work_unit", lambda: 1.0)  # 64,000 s
    result = solve(level, "push-astar", time_limit=5)
    assert (result.exhausted, result.expanded) == ("seconds", 0)
    assert solve(level, "push-astar", heuristic="push-distance", node_limit=5).expanded == 5


def _dead_end_tunnels_reference(level):
    """The former quadratic Python walk, kept as the reference of the linear kernel."""
    floor, deltas = level.floor, level.deltas
    across = {0: (2, 3), 1: (2, 3), 2: (0, 1), 3: (0, 1)}
    table = np.zeros((4, level.cells), dtype=np.bool_)
    for direction in range(4):
        side_a, side_b = (deltas[k] for k in across[direction])
        for cell in np.flatnonzero(floor).tolist():
            current = cell
            while floor[current] and not floor[current + side_a] and not floor[current + side_b]:
                current += deltas[direction]
            table[direction, cell] = current != cell and not floor[current]
    return table


def _random_board(rng):
    """A random board with many one-wide runs, or None when it is not a valid level."""
    height, width = (int(n) for n in rng.integers(4, 14, size=2))
    grid = np.where(rng.random((height, width)) < 0.45, "#", " ")
    grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = "#"
    free = np.argwhere(grid == " ")
    if len(free) < 3:
        return None
    picks = rng.choice(len(free), size=3, replace=False)
    for (row, column), char in zip(free[picks], "@$."):
        grid[row, column] = char
    try:
        return quiet_level(["".join(row) for row in grid])
    except LevelFormatError:
        return None


def test_dead_end_tunnels_match_the_reference_walk():
    rng = np.random.default_rng(17)
    checked = 0
    for _ in range(600):
        level = _random_board(rng)
        if level is None:
            continue
        checked += 1
        assert np.array_equal(dead_end_tunnels(level), _dead_end_tunnels_reference(level))
    assert checked > 50


def test_push_distances_match_a_plain_breadth_first_search():
    from evosoko.sokoban.analysis import pull_distances_from

    level = microban("155")[0]
    floor, deltas = level.floor, level.deltas
    for goal in level.goal_cells.tolist():
        expected = {goal: 0}
        frontier = [goal]
        while frontier:
            following = []
            for box in frontier:
                for delta in deltas:
                    pulled, player = box + delta, box + 2 * delta
                    if floor[pulled] and floor[player] and pulled not in expected:
                        expected[pulled] = expected[box] + 1
                        following.append(pulled)
            frontier = following
        distances = pull_distances_from(level, goal)
        reached = {cell: int(d) for cell, d in enumerate(distances.tolist()) if d < 1_000_000}
        assert reached == expected


def test_no_false_unsolvable_on_a_big_board_with_every_pruning():
    level = quiet_level(room_rows(120, 300, player=(2, 2), box=(280, 60), goal=(280, 63)))
    for algo in ["push-bfs", "push-astar", "push-wastar", "push-greedy", "push-idastar"]:
        result = solve(level, algo, time_limit=60, settings=PushSettings())
        _check_solved(level, result)


def test_heap_keys_saturate_instead_of_wrapping():
    from evosoko.search.store import F_LIMIT, priority

    huge = priority(10**6, 10**7, 5, 100, 300)
    assert huge > 0 and huge >> 36 == F_LIMIT
    assert priority(3, 4, 5, 1, 1) < priority(3, 5, 5, 1, 1) < huge
