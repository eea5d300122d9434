"""Tests of the progress displays: which one is chosen, and what they print."""

from __future__ import annotations

import io

from rich.console import Console

from evosoko.config import BudgetConfig
from evosoko.evolve.engine import GenerationStats
from evosoko.experiment.progress import (
    LineProgress,
    NoProgress,
    RichProgress,
    describe_result,
    make_progress,
)
from evosoko.experiment.records import LevelResult

SOLVED = LevelResult(2, "case3", True, "solved", 4, 400, 1.25, 34, 10, "uuLL", 0.0, 0)
UNSOLVED = LevelResult(3, "blog", False, "seconds", 90, 9000, 60.0, None, None, None, 3.0, 1)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def stats(generation: int) -> GenerationStats:
    return GenerationStats(
        generation, 100 * generation, 3.0, 7.5, 1.0, 20, False, 0.5, 0, 0, 0.1 * generation + 0.01
    )


def test_make_progress_picks_by_terminal_and_quiet():
    assert isinstance(make_progress(quiet=True, stream=Terminal()), NoProgress)
    assert isinstance(make_progress(quiet=False, stream=io.StringIO()), LineProgress)
    assert isinstance(make_progress(quiet=False, stream=Terminal()), RichProgress)


def test_result_lines():
    assert describe_result(SOLVED) == (
        "level 2 case3: solved (34 moves, 10 pushes) after 4 generations, 400 evaluations, 1.2 s"
    )
    assert "not solved (stopped by seconds; best distance 3)" in describe_result(UNSOLVED)


def test_line_progress_prints_one_line_per_level():
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.start(2, 0, BudgetConfig())
    progress.level_started(2, "case3")
    progress.generation(stats(1))
    progress.level_finished(SOLVED)
    progress.stop()
    assert stream.getvalue() == describe_result(SOLVED) + "\n"


def test_rich_progress_runs_and_prints_results():
    stream = Terminal()
    progress = RichProgress(Console(file=stream, width=120))
    progress.start(2, 1, BudgetConfig(generations=10))
    progress.level_started(3, "blog")
    for generation in range(3):
        progress.generation(stats(generation))
    progress.level_finished(UNSOLVED)
    progress.stop()
    assert "level 3 blog: not solved" in stream.getvalue()
