"""What ``evosoko evolve-levels`` shows while it runs: a bar on a terminal, lines otherwise.

A progress display is a generation listener (:class:`~evosoko.levelgen.loop.Loop`) that also
hears when the run starts, when a stop is asked for (a first Ctrl-C) and when it ends.
"""

from __future__ import annotations

import sys
from typing import IO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from evosoko.levelgen.evolution import LevelEvolution


class LevelsProgress:
    """Shows nothing (the quiet display); the others override what they show."""

    def start(self, generations: int | None, done: int) -> None:
        """The run starts (``done`` generations were scored before a resume)."""

    def stopping(self) -> None:
        """A stop was asked for: the run ends once the current generation is scored."""

    def stop(self) -> None:
        """The run ended; release the terminal."""

    def on_generation(self, evolution: LevelEvolution) -> None:
        """A generation was scored."""


def status_line(evolution: LevelEvolution) -> str:
    """``generation 12: pushes best 41, median 37 · 280 certified, 31.2 CPU s``."""
    stats = evolution.stats()
    first = evolution.settings.objective[0].label
    best, median = stats.get(f"best_{first}"), stats.get(f"median_{first}")
    shown = "no feasible level yet" if best is None else f"{first} best {best:g}, median {median:g}"
    cells = f" · {len(evolution.population)} cells" if evolution.settings.archive_run else ""
    return (
        f"generation {evolution.generation}: {shown}{cells} · {evolution.certifications} "
        f"certified, {evolution.cpu_seconds:.1f} CPU s"
    )


class LineProgress(LevelsProgress):
    """One line per generation (for logs and pipes)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def stopping(self) -> None:
        self.stream.write("stopping after the generation being scored (Ctrl-C again: at once)\n")
        self.stream.flush()

    def on_generation(self, evolution: LevelEvolution) -> None:
        self.stream.write(status_line(evolution) + "\n")
        self.stream.flush()


class BarProgress(LevelsProgress):
    """A rich bar over the generations with the status line beside it."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("evolving levels"),
            BarColumn(),
            TextColumn("{task.fields[line]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.task = self.progress.add_task("levels", total=None, line="")

    def start(self, generations: int | None, done: int) -> None:
        total = None if generations is None else generations + 1
        self.progress.update(self.task, total=total, completed=done)
        self.progress.start()

    def stopping(self) -> None:
        self.progress.update(self.task, line="stopping after this generation")

    def stop(self) -> None:
        self.progress.stop()

    def on_generation(self, evolution: LevelEvolution) -> None:
        self.progress.update(self.task, completed=evolution.scored, line=status_line(evolution))


def make_levels_progress(*, quiet: bool, stream: IO[str] | None = None) -> LevelsProgress:
    """A bar when ``stream`` (stdout) is a terminal, lines otherwise, nothing if quiet."""
    stream = stream or sys.stdout
    if quiet:
        return LevelsProgress()
    if stream.isatty():
        return BarProgress(Console(file=stream, emoji=False))
    return LineProgress(stream)
