"""The one status vocabulary: its words, a stop's validation, and older files' words."""

from __future__ import annotations

import pytest

from evosoko.result import Result
from evosoko.status import LEGACY_WORDS, RESOURCES, STATUSES, Status, Stop, read_stop


def test_the_vocabulary_is_these_words():
    assert STATUSES == (
        "solved",
        "unsolvable",
        "budget",
        "memory-limit",
        "interrupted",
        "stopped",
        "error",
        "rejected",
    )
    assert RESOURCES == ("generations", "evaluations", "seconds", "nodes", "iterations")
    assert not set(STATUSES) & set(RESOURCES)  # so older words translate one to one
    assert not set(STATUSES) & set(LEGACY_WORDS)


def test_a_budget_stop_names_its_resource_and_no_other_stop_does():
    assert str(Stop.budget("evaluations")) == "budget: evaluations"
    assert str(Stop("solved")) == "solved" and Stop("solved").solved
    with pytest.raises(ValueError, match="exhausted resource"):
        Stop("budget")
    with pytest.raises(ValueError, match="exhausted resource"):
        Stop("solved", "seconds")
    with pytest.raises(ValueError):
        Stop("timeout")
    with pytest.raises(ValueError):
        Stop.budget("minutes")


@pytest.mark.parametrize(
    ("word", "unit", "stop"),
    [
        ("generations", "evaluations", Stop.budget("generations")),
        ("evaluations", "evaluations", Stop.budget("evaluations")),
        ("seconds", "evaluations", Stop.budget("seconds")),
        ("nodes", "nodes", Stop.budget("nodes")),
        ("timeout", "nodes", Stop.budget("seconds")),
        ("node-limit", "nodes", Stop.budget("nodes")),
        ("node-limit", "iterations", Stop.budget("iterations")),
        ("unsolvable", "nodes", Stop(Status.UNSOLVABLE)),
        ("interrupted", "evaluations", Stop(Status.INTERRUPTED)),
    ],
)
def test_older_words_read_as_todays(word, unit, stop):
    assert read_stop(word, unit=unit) == stop


def test_today_words_read_back_with_their_resource():
    assert read_stop("budget", "nodes") == Stop.budget("nodes")
    with pytest.raises(ValueError):
        read_stop("budget")
    with pytest.raises(ValueError):
        read_stop("gave up")


def _result(**changes) -> Result:
    values = {
        "level_name": "1",
        "solver": "ga",
        "status": "solved",
        "solution": "R",
        "moves": 1,
        "pushes": 1,
        "cost": 5,
        "unit": "evaluations",
        "seconds": 0.5,
    }
    return Result(**{**values, **changes})


def test_a_result_holds_only_the_vocabulary():
    budget = _result(status="budget", exhausted="seconds", solution=None)
    assert budget.stop == Stop.budget("seconds") and budget.status is Status.BUDGET
    assert "budget: seconds" in repr(budget)
    with pytest.raises(ValueError):
        _result(status="seconds")
    with pytest.raises(ValueError):
        _result(status="budget")


def test_a_result_written_before_the_vocabulary_reads_in_todays_words():
    old = _result(status="budget", exhausted="evaluations", solution=None).to_dict()
    old.pop("exhausted")
    old["status"] = "evaluations"
    assert Result.from_dict(old).stop == Stop.budget("evaluations")
    search = {**old, "status": "node-limit", "unit": "iterations"}
    assert Result.from_dict(search).stop == Stop.budget("iterations")
    again = _result(status="budget", exhausted="nodes", solution=None)
    assert Result.from_dict(again.to_dict()) == again
