"""``benchmarks/bench_search.py``'s ``--levels``, ``--set`` and ``--memory``: what they take, and
one clear line when bad."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_search import ResultStore, level_indices, level_numbers, search_settings, suite_count

from evosoko.errors import EvosokoError
from evosoko.search import SearchSettings
from evosoko.search.search_run import DEFAULT_MEMORY


def test_level_numbers_take_ranges_and_single_numbers_in_order_each_once():
    assert level_numbers("1-3") == [1, 2, 3]
    assert level_numbers("31,60") == [31, 60]
    assert level_numbers("60-62, 4,61") == [60, 61, 62, 4]


@pytest.mark.parametrize("text", ["", "0", "a", "3-", "-3", "5-2", "1,,2", "1-2-3"])
def test_level_numbers_refuse_what_is_not_a_number_or_range(text):
    with pytest.raises(argparse.ArgumentTypeError):
        level_numbers(text)


def test_level_indices_keep_the_numbers_a_file_holds():
    assert level_indices(None, 3) == [0, 1, 2]
    assert level_indices([2, 5, 1], 3) == [1, 0]


def test_the_development_set_takes_the_first_20_of_each_file_but_all_of_sokevo():
    assert suite_count("large-dev", "large-dev/sven.xsb", 1623) == 20
    assert suite_count("large-dev", "large-dev/grigr2002.xsb", 12) == 12
    assert suite_count("large-dev", "large-dev/sokevo.xsb", 107) == 107
    assert suite_count("xsokoban", "xsokoban.txt", 90) == 90


def run_bench_search(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_search.py"), *arguments],
        check=False,
        capture_output=True,
        text=True,
    )


def test_a_bad_level_list_is_one_line_and_exit_2():
    done = run_bench_search("--levels", "31,x")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "'x' is not a level number or range" in done.stderr.splitlines()[-1]


def test_settings_are_keys_of_the_search_table_recorded_in_one_line():
    settings, line = search_settings(["fess.cluster_width=123", "fess.room_views=[0, 1]"])
    assert settings.fess.cluster_width == 123
    assert settings.fess.room_views == (0, 1)
    assert line == "fess.room_views=[0, 1] fess.cluster_width=123"
    assert search_settings([]) == (SearchSettings(), "")


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["nosuch.x=1"], "unknown key 'nosuch'"),
        (["fess.cluster_wide=1"], "did you mean 'fess.cluster_width'"),
        (["fess.cluster_width=0"], "fess.cluster_width: Input should be greater than or equal"),
        (["fess.CLUSTER_WIDTH=400"], "unknown key 'fess.CLUSTER_WIDTH'"),
    ],
)
def test_settings_refuse_what_the_search_table_lacks(overrides, message):
    with pytest.raises(EvosokoError, match=message):
        search_settings(overrides)


def test_a_bad_setting_is_one_line_and_exit_2():
    done = run_bench_search("--set", "fess.nope=1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("error: --set: unknown key 'fess.nope'")


def test_the_memory_is_a_key_of_the_results_and_old_lines_ran_with_the_default():
    line = {"suite": "xsokoban", "file": "xsokoban.txt", "index": 20, "algo": "push-fess-bi"}
    default = DEFAULT_MEMORY >> 20
    assert ResultStore.key(line) == ResultStore.key({**line, "memory": default})
    assert ResultStore.key({**line, "memory": 512}) != ResultStore.key(line)


def test_a_memory_below_one_mib_is_one_line_and_exit_2():
    done = run_bench_search("--memory", "0")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].endswith("argument --memory: must be at least 1, got 0")


def test_the_heuristic_reach_is_the_start_and_the_lowest_of_the_progress():
    import dataclasses

    from bench_search import heuristic_reach

    from evosoko.search import solve
    from evosoko.sokoban.build import level_from_rows
    from evosoko.sokoban.deadlocks import matching_cost

    level = level_from_rows(["#######", "#     #", "# $$. #", "#@  . #", "#######"], title="two")
    stopped = solve(level, "push-astar", node_limit=2)
    assert stopped.status == "budget"
    start_h = matching_cost(level, level.start.boxes)  # push-astar's heuristic: the matching
    reach = heuristic_reach(stopped)
    assert reach["h_start"] == start_h
    assert 0 < reach["h_lowest"] < start_h  # two expansions pushed a box nearer a goal
    assert heuristic_reach(solve(level, "push-astar")) == {"h_start": start_h, "h_lowest": 0}
    assert heuristic_reach(dataclasses.replace(stopped, progress=())) == {}  # none recorded
