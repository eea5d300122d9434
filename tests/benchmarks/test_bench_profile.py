"""``benchmarks/bench_profile.py``: perf's samples of a search, named by compiled function."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_profile import shares, short_name

REPORT = """# Samples: 24K of event 'cpu-clock'
# Event count (approx.): 24958000000
#
# Overhead       Samples  Symbol
# ........  ............  ......
#
    20.21%          5044  [.] _ZN7evosoko7sokoban5reach7exploreB3v23B40c8tJTIeFIjxE5ArrayIbLi1E1C8
    17.87%          4460  [.] _ZN7evosoko6search11push_kernel13_expand_chunkB3v61B40c8tJTIeE596L
     6.37%          1590  [.] _ZN7evosoko7sokoban5reach7exploreB3v80B40c8tJTIeFIjxE5ArrayIbLi1E1C8
     0.63%           157  [.] NRT_incref
     0.52%           130  [k] clear_page_erms
"""


def test_a_mangled_name_reads_as_the_python_name():
    mangled = "_ZN7evosoko6search11push_kernel13_expand_chunkB3v61B40c8tJTIeE596LevelArrays"
    assert short_name(mangled) == "evosoko.search.push_kernel._expand_chunk"
    assert short_name("NRT_incref") == "NRT_incref"


def test_the_specializations_of_a_function_add_up():
    samples, by_name = shares(REPORT)
    assert samples == 5044 + 4460 + 1590 + 157 + 130
    assert list(by_name)[:2] == [
        "evosoko.sokoban.reach.explore",
        "evosoko.search.push_kernel._expand_chunk",
    ]
    assert by_name["evosoko.sokoban.reach.explore"] == pytest.approx(26.58)
    assert by_name["NRT_incref"] == pytest.approx(0.63)
    assert by_name["clear_page_erms"] == pytest.approx(0.52)


@pytest.mark.slow
def test_a_profile_of_push_astar_names_its_successor_loop():
    if shutil.which("perf") is None:
        pytest.skip("perf is not installed")
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_profile.py"), "--suite", "xsokoban",
         "--level", "23", "--algo", "push-astar", "--seconds", "3"],
        capture_output=True, check=False, text=True, timeout=900,
    )  # fmt: skip
    if completed.stderr.startswith("skipped"):
        pytest.skip(completed.stderr.strip())
    assert completed.returncode == 0, completed.stderr
    record = json.loads(completed.stdout.splitlines()[0])
    assert record["samples"] > 0
    assert any(name.startswith("evosoko.") for name in record["shares"])
