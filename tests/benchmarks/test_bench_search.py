"""``benchmarks/bench_search.py``'s ``--levels`` and ``--set``: what they take, and one clear line
when bad."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_search import apply_settings, level_indices, level_numbers, setting

from evosoko.errors import EvosokoError
from evosoko.search import fess


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


def test_a_setting_names_a_module_a_constant_and_a_literal():
    assert setting("fess.CLUSTER_WIDTH=400") == ("fess", "CLUSTER_WIDTH", 400)
    assert setting(" fess.ROOM_VIEWS = (1, 2) ") == ("fess", "ROOM_VIEWS", (1, 2))
    assert setting("fess.CLUSTER_WIDTH=None") == ("fess", "CLUSTER_WIDTH", None)


@pytest.mark.parametrize(
    "text", ["CLUSTER_WIDTH=400", "fess.CLUSTER_WIDTH", "fess.=1", "fess.X=abc"]
)
def test_a_setting_refuses_what_is_not_module_name_literal(text):
    with pytest.raises(argparse.ArgumentTypeError):
        setting(text)


def test_settings_change_the_constant_and_are_recorded_in_one_line(monkeypatch):
    monkeypatch.setattr(fess, "CLUSTER_WIDTH", fess.CLUSTER_WIDTH)  # restored after the test
    line = apply_settings([("fess", "CLUSTER_WIDTH", 123)])
    assert fess.CLUSTER_WIDTH == 123
    assert line == "fess.CLUSTER_WIDTH=123"
    assert apply_settings([]) == ""


@pytest.mark.parametrize(
    "settings, message",
    [
        ([("nosuch", "X", 1)], "no module 'nosuch'"),
        ([("fess", "CLUSTER_WIDE", 1)], "no constant 'CLUSTER_WIDE'"),
        ([("fess", "level_features", 1)], "no constant 'level_features'"),
    ],
)
def test_settings_refuse_what_the_search_package_lacks(settings, message):
    with pytest.raises(EvosokoError, match=message):
        apply_settings(settings)


def test_a_bad_setting_is_one_line_and_exit_2():
    done = run_bench_search("--set", "fess.NOPE=1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert (
        done.stderr.splitlines()[-1] == "error: --set: evosoko.search.fess has no constant 'NOPE'"
    )
