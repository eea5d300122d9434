"""What a run shows while it works: rich progress bars on a terminal, plain lines otherwise.

A progress display is a callback on the loop (:class:`~evosoko.evolve.callbacks.Callback`)
that also hears when the run starts and stops. :class:`RichProgress` draws an overall bar
(levels) and one bar for the level in progress (generation, best distance, evaluations per
second) and prints a line per finished level above them. :class:`LineProgress` prints only
those lines (for logs and pipes); :class:`NoProgress` prints nothing. :func:`make_progress`
picks one.
"""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from evosoko.budget import Budget
from evosoko.evolve.callbacks import Callback, Generation
from evosoko.result import Result
from evosoko.text import level_caption, plain, plain_text

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level


def describe_result(result: Result) -> str:
    """One line about a finished level,
    e.g. ``level 2 seed000-case3: solved in 4 generations ...``."""
    where = result.index if result.index is not None else result.level_name
    head = f"{level_caption(where, result.level_name)}: "
    counts = (
        f"{result.generations} generations, {result.evaluations} evaluations, "
        f"{seconds_text(result.seconds)} s"
    )
    if result.solved:
        return head + f"solved ({result.moves} moves, {result.pushes} pushes) after {counts}"
    return head + (
        f"not solved ({result.stop}; best distance {result.best_distance:g}) after {counts}"
    )


def seconds_text(seconds: float) -> str:
    """Seconds for a person: two significant digits below 10 s (``0.039``, not ``0.0``), one
    decimal above."""
    return f"{seconds:.2g}" if seconds < 9.95 else f"{seconds:.1f}"


COMPILING = "compiling kernels, first run only (they are cached for the next runs) ..."
STOPPING = (
    "stopping after the current generation (or compilation); the run stays resumable."
    " Ctrl-C again stops at once."
)


class RunProgress(Callback):
    """A progress display: a callback that also hears when the run starts and stops; this
    one shows nothing."""

    def compiling(self) -> None:
        """Kernels are being compiled (a first run on this machine), before the run starts."""

    def start(self, levels: int, done: int, budget: Budget) -> None:
        """The run starts with ``levels`` levels, ``done`` of them finished before (resume),
        and ``budget`` per level."""

    def stopping(self) -> None:
        """A stop was asked for (a first Ctrl-C): the run ends after the current generation."""

    def stop(self) -> None:
        """The run ended (or stopped); release the terminal."""


NoProgress = RunProgress


class LineProgress(RunProgress):
    """Prints one line per finished level to ``stream``."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def compiling(self) -> None:
        print(COMPILING, file=self.stream, flush=True)

    def stopping(self) -> None:
        print(STOPPING, file=self.stream, flush=True)

    def on_level_end(self, result: Result) -> None:
        if result.status != "interrupted":
            print(plain(describe_result(result)), file=self.stream, flush=True)


class RichProgress(RunProgress):
    """Live bars for the run and the current level (see the module docstring)."""

    def __init__(self, console: Console | None = None) -> None:
        self.budget = Budget()
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

    def stopping(self) -> None:
        self.progress.console.print(STOPPING, highlight=False, markup=False)

    def start(self, levels: int, done: int, budget: Budget) -> None:
        self.budget = budget
        self.progress.start()
        self._overall = self.progress.add_task("levels", total=levels, completed=done, detail="")

    def on_level_start(self, level: Level) -> None:
        total, _ = self._bar_measure()
        caption = plain(level_caption(level.index or 1, level.name))
        self._level = self.progress.add_task(caption, total=total, detail="")

    def on_generation(self, generation: Generation) -> None:
        stats = generation.stats
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

    def on_level_end(self, result: Result) -> None:
        if self._level is not None:
            self.progress.remove_task(self._level)
            self._level = None
        if result.status == "interrupted":
            return
        if self._overall is not None:
            self.progress.advance(self._overall)
        self.progress.console.print(plain_text(describe_result(result)), highlight=False)

    def stop(self) -> None:
        self.progress.stop()

    def _bar_measure(self) -> tuple[int | None, str]:
        """What the level bar counts: the first budget limit that is set."""
        measure, limit = self.budget.measure()
        return (None if limit is None else int(limit)), measure


def make_progress(*, quiet: bool, stream: IO[str] | None = None) -> RunProgress:
    """Rich bars when ``stream`` (stdout) is a terminal, plain lines otherwise, nothing if quiet."""
    stream = stream or sys.stdout
    if quiet:
        return NoProgress()
    if stream.isatty():
        return RichProgress(Console(file=stream, emoji=False))
    return LineProgress(stream)
