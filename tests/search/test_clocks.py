"""The clock of a search's time limit: wall seconds or the process's CPU seconds."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_levels import BUNDLED_SEEDS, shared
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.errors import ConfigError
from evosoko.search import clocks, solve
from evosoko.sokoban.formats import read_levels

GIVEN_HOLES = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"
SEARCHES = ["bfs", "push-astar", "push-idastar", "push-fess", "push-learned", "mcts"]


@pytest.mark.parametrize("algo", SEARCHES)
def test_a_cpu_clock_budget_ends_the_search_with_timeout(algo):
    level = shared("xsokoban.txt", "screen.24")[0]  # far beyond a tenth of a CPU second
    result = solve(level, algo, time_limit=0.1, clock="cpu")
    assert result.exhausted == "seconds"
    assert result.solution is None


class _FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("algo", SEARCHES)
def test_the_time_limit_counts_the_chosen_clock(algo, monkeypatch):
    """A CPU clock that stands still never ends a search; one that jumps ends it at its first
    reading, long before the node limit: the budget reads the chosen clock."""
    level = shared("xsokoban.txt", "screen.24")[0]
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(0.0))
    still = solve(level, algo, time_limit=0.01, node_limit=300, clock="cpu")
    node_limit = "iterations" if algo == "mcts" else "nodes"  # MCTS's node limit counts these
    assert still.exhausted == node_limit
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(1000.0))
    jumping = solve(level, algo, time_limit=100.0, node_limit=10**6, clock="cpu")
    assert jumping.exhausted == "seconds"
    assert solve(level, algo, time_limit=100.0, node_limit=300).exhausted == node_limit


def test_given_holes_searches_take_the_clock_too(monkeypatch):
    level = max(read_levels(GIVEN_HOLES), key=lambda level: level.box_count * level.cells)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(1000.0))
    assert solve(level, "push-bfs", time_limit=100.0, clock="cpu").exhausted == "seconds"
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(0.0))
    assert solve(level, "push-bfs", time_limit=0.01, clock="cpu").status == "solved"


def test_an_unknown_clock_is_a_config_error():
    level = shared("xsokoban.txt", "screen.01")[0]
    with pytest.raises(ConfigError, match="unknown clock 'sundial'"):
        solve(level, "push-astar", time_limit=1, clock="sundial")  # type: ignore[arg-type]


def test_the_cli_takes_a_clock_and_refuses_an_unknown_one():
    runner = CliRunner()
    solved = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), "-l", "2", "--clock", "cpu"])
    assert solved.exit_code == 0, solved.output
    assert "solved" in solved.stdout
    bad = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), "-l", "2", "--clock", "sundial"])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: ") and "Traceback" not in bad.output


@pytest.mark.parametrize("algo", ["bfs", "push-astar", "push-fess"])
def test_a_search_told_to_end_ends_as_if_out_of_time(algo):
    level = read_levels(BUNDLED_SEEDS)[0]
    clocks.end_searches_when(lambda: True)
    try:
        result = solve(level, algo, time_limit=None, partial=4)
    finally:
        clocks.end_searches_when(None)
    assert result.exhausted == "seconds" and result.solution is None
    assert solve(level, algo).solved  # and the next search runs as usual
