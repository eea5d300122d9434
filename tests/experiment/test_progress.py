"""Tests of the progress displays: which one is chosen, and what they print."""

from __future__ import annotations

import io
import warnings

from rich.console import Console

from evosoko.budget import Budget
from evosoko.evolve.callbacks import Generation
from evosoko.experiment.run.progress import (
    STOPPING,
    LineProgress,
    NoProgress,
    RichProgress,
    describe_result,
    make_progress,
)
from evosoko.result import GenerationStats, Result
from evosoko.sokoban.formats import parse_levels
from evosoko.status import read_stop


def _result(index, name, status, generations, evaluations, seconds, solution, distance):
    moves, pushes = (34, 10) if solution else (None, None)
    stop = read_stop(status)
    return Result(
        level_name=name,
        solver="ga",
        status=stop.status,
        exhausted=stop.exhausted,
        solution=solution,
        moves=moves,
        pushes=pushes,
        cost=evaluations,
        unit="evaluations",
        seconds=seconds,
        index=index,
        generations=generations,
        fitness={"distance": distance},
    )


SOLVED = _result(2, "case3", "solved", 4, 400, 1.25, "uuLL", 0.0)
UNSOLVED = _result(3, "blog", "seconds", 90, 9000, 60.0, None, 3.0)


def _level(title):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse_levels(f"; {title}\n#####\n#@$.#\n#####\n")[0]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def stats(generation: int) -> GenerationStats:
    return GenerationStats(
        generation, 100 * generation, 3.0, 7.5, 1.0, 20, False, 0.5, 0, 0, 0.1 * generation + 0.01
    )


def test_make_progress_picks_by_terminal_and_quiet():
    assert type(make_progress(quiet=True, stream=Terminal())) is NoProgress
    assert isinstance(make_progress(quiet=False, stream=io.StringIO()), LineProgress)
    assert isinstance(make_progress(quiet=False, stream=Terminal()), RichProgress)


def test_result_lines():
    assert describe_result(SOLVED) == (
        "level 2 case3: solved (34 moves, 10 pushes) after 4 generations, 400 evaluations, 1.2 s"
    )
    assert "not solved (budget: seconds; best distance 3)" in describe_result(UNSOLVED)


def test_line_progress_prints_one_line_per_level():
    stream = io.StringIO()
    progress = LineProgress(stream)
    level = _level("case3")
    progress.start(2, 0, Budget(seconds=60))
    progress.on_level_start(level)
    progress.on_generation(Generation(level, stats(1)))
    progress.on_level_end(SOLVED)
    progress.stop()
    assert stream.getvalue() == describe_result(SOLVED) + "\n"


def test_an_interrupted_level_prints_no_result_line():
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.on_level_end(_result(2, "case3", "interrupted", 4, 400, 1.0, None, 2.0))
    assert stream.getvalue() == ""


def test_rich_progress_runs_and_prints_results():
    stream = Terminal()
    progress = RichProgress(Console(file=stream, width=120))
    level = _level("blog")
    progress.start(2, 1, Budget(generations=10))
    progress.on_level_start(level)
    for generation in range(3):
        progress.on_generation(Generation(level, stats(generation)))
    progress.on_level_end(UNSOLVED)
    progress.stop()
    assert "level 3 blog: not solved" in stream.getvalue()


def test_seconds_keep_two_significant_digits_below_ten():
    from evosoko.experiment.run.progress import seconds_text

    assert [seconds_text(s) for s in (0.039, 0.1, 1.234, 9.99, 123.44)] == [
        "0.039",
        "0.1",
        "1.2",
        "10.0",
        "123.4",
    ]


def test_both_displays_say_at_once_that_a_run_is_stopping():
    stream = io.StringIO()
    LineProgress(stream).stopping()
    assert stream.getvalue() == STOPPING + "\n"
    terminal = Terminal()
    rich = RichProgress(Console(file=terminal, width=200))
    rich.start(1, 0, Budget(generations=10))
    rich.stopping()
    rich.stop()
    assert "Ctrl-C again stops at once" in terminal.getvalue()
