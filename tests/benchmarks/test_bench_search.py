"""``benchmarks/bench_search.py``'s ``--levels``: ranges and lists, and one clear line when bad."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_search import level_indices, level_numbers


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


def test_a_bad_level_list_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_search.py"), "--levels", "31,x"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "'x' is not a level number or range" in done.stderr.splitlines()[-1]
