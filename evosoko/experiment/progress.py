"""What a run shows while it works: rich progress bars on a terminal, plain lines otherwise.

:class:`RichProgress` draws an overall bar (levels) and one bar for the level in progress
(generation, best distance, evaluations per second) and prints a line per finished level above
them. :class:`LineProgress` prints only those lines (for logs and pipes); :class:`NoProgress`
prints nothing. :func:`make_progress` picks one.
"""

from __future__ import annotations

import sys
from typing import IO, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from evosoko.config import BudgetConfig
from evosoko.evolve.engine import GenerationStats
from evosoko.experiment.records import LevelResult, level_caption
from evosoko.text import plain, plain_text


class RunProgress(Protocol):
    """The progress callbacks of a run (all of them cheap)."""

    def compiling(self) -> None:
        """Kernels are being compiled (a first run on this machine), before the run starts."""

    def start(self, levels: int, done: int, budget: BudgetConfig) -> None:
        """The run starts with ``levels`` levels, ``done`` of them finished before (resume),
        and ``budget`` per level."""

    def level_started(self, index: int, name: str) -> None:
        """A level starts (or resumes)."""

    def generation(self, stats: GenerationStats) -> None:
        """A generation of the current level ended."""

    def level_finished(self, result: LevelResult) -> None:
        """The current level ended."""

    def stop(self) -> None:
        """The run ended (or stopped); release the terminal."""


def describe_result(result: LevelResult) -> str:
    """One line about a finished level,
    e.g. ``level 2 seed000-case3: solved in 4 generations ...``."""
    head = f"{level_caption(result.index, result.level)}: "
    counts = (
        f"{result.generations} generations, {result.evaluations} evaluations, "
        f"{result.seconds:.1f} s"
    )
    if result.solved:
        return head + f"solved ({result.moves} moves, {result.pushes} pushes) after {counts}"
    return head + (
        f"not solved (stopped by {result.stop_reason}; "
        f"best distance {result.best_distance:g}) after {counts}"
    )


COMPILING = "compiling kernels, first run only (they are cached for the next runs) ..."


class NoProgress:
    """Shows nothing."""

    def compiling(self) -> None:
        pass

    def start(self, levels: int, done: int, budget: BudgetConfig) -> None:
        pass

    def level_started(self, index: int, name: str) -> None:
        pass

    def generation(self, stats: GenerationStats) -> None:
        pass

    def level_finished(self, result: LevelResult) -> None:
        pass

    def stop(self) -> None:
        pass


class LineProgress(NoProgress):
    """Prints one line per finished level to ``stream``."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def compiling(self) -> None:
        print(COMPILING, file=self.stream, flush=True)

    def level_finished(self, result: LevelResult) -> None:
        print(plain(describe_result(result)), file=self.stream, flush=True)


class RichProgress:
    """Live bars for the run and the current level (see the module docstring)."""

    def __init__(self, console: Console | None = None) -> None:
        self.budget = BudgetConfig()
        self.progress = Progress(
            TextColumn("{task.description}", markup=False),  # a level's title is not markup
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}", markup=False),
            TimeElapsedColumn(),
            console=console,
        )
        self._overall: TaskID | None = None
        self._level: TaskID | None = None

    def compiling(self) -> None:
        self.progress.console.print(COMPILING, highlight=False, markup=False)

    def start(self, levels: int, done: int, budget: BudgetConfig) -> None:
        self.budget = budget
        self.progress.start()
        self._overall = self.progress.add_task("levels", total=levels, completed=done, detail="")

    def level_started(self, index: int, name: str) -> None:
        total, _ = self._bar_measure()
        self._level = self.progress.add_task(
            plain(level_caption(index, name)), total=total, detail=""
        )

    def generation(self, stats: GenerationStats) -> None:
        if self._level is None:
            return
        _, measure = self._bar_measure()
        completed = {"generations": stats.generation, "evaluations": stats.evaluations}.get(
            measure, int(stats.seconds)
        )
        rate = stats.evaluations / stats.seconds if stats.seconds > 0 else 0.0
        detail = (
            f"gen {stats.generation}  best {stats.best_distance:g}  "
            f"{stats.evaluations} evals  {rate:,.0f}/s"
        )
        self.progress.update(self._level, completed=completed, detail=detail)

    def level_finished(self, result: LevelResult) -> None:
        if self._level is not None:
            self.progress.remove_task(self._level)
            self._level = None
        if self._overall is not None:
            self.progress.advance(self._overall)
        self.progress.console.print(plain_text(describe_result(result)), highlight=False)

    def stop(self) -> None:
        self.progress.stop()

    def _bar_measure(self) -> tuple[int | None, str]:
        """What the level bar counts: the first budget limit that is set."""
        budget = self.budget
        if budget.generations is not None:
            return budget.generations, "generations"
        if budget.evaluations is not None:
            return budget.evaluations, "evaluations"
        return (int(budget.seconds) if budget.seconds else None), "seconds"


def make_progress(*, quiet: bool, stream: IO[str] | None = None) -> RunProgress:
    """Rich bars when ``stream`` (stdout) is a terminal, plain lines otherwise, nothing if quiet."""
    stream = stream or sys.stdout
    if quiet:
        return NoProgress()
    if stream.isatty():
        return RichProgress(Console(file=stream, emoji=False))
    return LineProgress(stream)
