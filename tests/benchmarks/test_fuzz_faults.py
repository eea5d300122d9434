"""The fault families of the fuzz campaign (issue 55, item 7) at a small scale: slow suite.

``python -m pytest -m slow tests/benchmarks/test_fuzz_faults.py``; the whole campaign is
``python benchmarks/fuzz_campaign.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import fuzz_faults

pytestmark = pytest.mark.slow


def _clean(tally) -> None:
    summary = tally.as_dict()
    assert summary["inputs"] > 0
    assert summary["crashes"] == 0, summary["crash_examples"]
    assert summary["silent_losses"] == 0, summary["loss_examples"]


def test_the_three_resume_cases_of_issue_55_lose_nothing(tmp_path):
    names = ["summary-levels-empty", "checkpoint-generation-3", "summary-status-completed"]
    tally = fuzz_faults.folder_semantics(tmp_path, names, islands_only=True)
    _clean(tally)
    assert tally.rejected == 2 and tally.accepted == 1  # two refused, one resumed and said so


def test_hostile_plugin_names_are_one_error_line(tmp_path):
    tally = fuzz_faults.plugin_names(tmp_path)
    _clean(tally)
    assert tally.rejected == tally.inputs


def test_commands_under_a_memory_limit_end_cleanly(tmp_path):
    _clean(fuzz_faults.resource_limits(tmp_path))


def test_a_second_compare_or_sweep_is_refused_and_the_first_resumes_after_sigterm(tmp_path):
    _clean(fuzz_faults.concurrent(tmp_path))


def test_sigterm_to_run_compare_and_sweep_stops_cleanly_and_resumes(tmp_path):
    _clean(fuzz_faults.sigterm(tmp_path, seed=17))
