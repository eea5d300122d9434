"""The clock of a search's time limit: wall seconds or the process's CPU seconds."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_levels import BUNDLED_SEEDS, shared
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.errors import ConfigError
from evosoko.search import clocks, solve
from evosoko.search.solver import warm_up
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


# ---- set-up inside the clock (issue 55, item 5) --------------------------------------------------
def _room(size: int):
    from evosoko.generate.stress import room_rows
    from evosoko.sokoban.build import level_from_rows

    rows = room_rows(size, size, player=(size - 2, 1), box=(size - 2, 3), goal=(size - 2, 4))
    return level_from_rows(rows, title=f"room {size}")


def _recording(monkeypatch, module, name: str) -> list[str]:
    """Wrap ``module.name`` to record how each call ended."""
    original, ends = getattr(module, name), []

    def wrapper(*args, **kwargs):
        try:
            value = original(*args, **kwargs)
        except clocks.OutOfTime:
            ends.append("out of time")
            raise
        ends.append("done")
        return value

    monkeypatch.setattr(module, name, wrapper)
    return ends


@pytest.mark.parametrize(
    ("module_name", "function", "settings"),
    [
        ("evosoko.search.search_run", "find_goal_room", None),
        ("evosoko.search.fess.run", "packing_order", {"goal_rooms": False}),
    ],
)
def test_long_set_up_reads_the_clock_and_ends_in_timeout(
    module_name, function, settings, monkeypatch
):
    """The goal room and the packing order walk every cell of a 300x300 room in Python: a
    clock that passes the limit on its fifth reading ends the search inside them, with
    ``timeout`` and nothing expanded."""
    import importlib

    from evosoko.search.settings import FessSettings

    chosen = None if settings is None else FessSettings(**settings)
    warm_up(["push-fess"], 300 * 300)  # its own searches call the functions watched
    ends = _recording(monkeypatch, importlib.import_module(module_name), function)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(1.0))
    result = solve(_room(300), "push-fess", time_limit=4.5, clock="cpu", settings=chosen)
    assert result.exhausted == "seconds" and result.expanded == 0
    assert ends == ["out of time"]


@pytest.mark.parametrize("algo", ["push-fess", "push-fess-bi", "push-wastar", "push-learned"])
def test_a_search_out_of_time_in_its_set_up_reports_timeout(algo, monkeypatch):
    """push-fess-bi ended in an AttributeError when its set-up used up the limit."""
    monkeypatch.setitem(clocks.CLOCKS, "cpu", _FakeClock(1000.0))
    result = solve(_room(200), algo, time_limit=100.0, clock="cpu")
    assert result.exhausted == "seconds" and result.solution is None


def test_push_fess_bi_side_searches_set_up_on_its_clock(monkeypatch):
    """The side searches (plain push-fess, the ball) have no limit of their own: their set-up
    reads push-fess-bi's clock, here one that passes the limit as the first of them starts."""
    from evosoko.search import bidirectional

    warm_up(["push-fess-bi"], 150 * 150)  # its own searches start side searches
    clock, ends = _Switch(), []
    original = bidirectional.SideSearch.__init__

    def starting(self, run, max_expansions, name):
        clock.jumped = True
        try:
            original(self, run, max_expansions, name)
        except clocks.OutOfTime:
            ends.append("out of time")
            raise
        ends.append("done")

    monkeypatch.setattr(bidirectional.SideSearch, "__init__", starting)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    result = solve(_room(150), "push-fess-bi", time_limit=1.0, clock="cpu")
    assert result.exhausted == "seconds" and result.expanded == 0
    assert ends == ["out of time"]


class _Switch:
    """A clock that stands still until ``jumped``, then reads far ahead."""

    jumped = False

    def __call__(self) -> float:
        return 1e9 if self.jumped else 0.0


def test_a_growth_of_the_store_that_cannot_end_in_time_is_not_started(monkeypatch):
    """Growing the store copies every node and is not cut short (0.15 s at 262,144 nodes of
    261 boxes): past the point where the last growth's rate says the next one would end after
    the limit, the search ends with ``timeout`` instead, within the limit."""
    from evosoko.search.search_run import SearchRun

    level = shared("xsokoban.txt", "screen.24")[0]
    clock = _FakeClock(0.0)  # stands still, but for the growths, each 30 s long
    original = SearchRun._grow

    def slow_growth(self):
        clock.now += 30.0
        original(self)

    monkeypatch.setattr(SearchRun, "_grow", slow_growth)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    result = solve(level, "push-bfs", time_limit=100.0, node_limit=10**6, clock="cpu")
    assert result.exhausted == "seconds"
    assert clock.now <= 100.0


@pytest.mark.parametrize("stage", ["for_level", "probabilities"])
def test_push_learned_reads_the_clock_inside_one_network_call(stage, monkeypatch):
    """On a board of a million cells one position's network call took 1.9-5 s, and the tables
    for the level 1.5-2.2 s: both go in pieces, the clock read between them. Here pieces of
    16 rows, and a clock that passes the limit as the stage starts: the stage itself ends."""
    from evosoko.learn import network

    monkeypatch.setattr(network, "PIECE_ROWS", 16, raising=False)  # before: one piece
    owner = network.DeadlockNet if stage == "for_level" else network.LevelNet
    clock, ends = _Switch(), []
    original = getattr(owner, stage)

    def watched(*args, **kwargs):
        clock.jumped = True
        try:
            value = original(*args, **kwargs)
        except Exception as error:
            ends.append(type(error).__name__)
            raise
        ends.append("done")
        return value

    monkeypatch.setattr(owner, stage, watched)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", clock)
    result = solve(_room(40), "push-learned", time_limit=1.0, clock="cpu")
    assert result.exhausted == "seconds" and result.expanded == 0
    assert ends == ["_OutOfTime"]
