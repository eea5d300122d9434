"""Progress over the jobs of a comparison or sweep: a rich bar on a terminal, lines otherwise.

:func:`make_job_progress` returns a callable ``progress(done, total, detail)`` for
:func:`evosoko.experiment.compare.runner.run_compare` and
:func:`evosoko.experiment.sweep.runner.run_sweep` (``detail``: a finished job's row, a short text,
or None for the jobs done before a resume), and a ``close()`` to release the terminal.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from evosoko.text import level_caption, plain

__all__ = ["JobProgress", "describe_job", "make_job_progress"]


def describe_job(detail: Any) -> str:
    """A short line about a finished job (a compare row) or the text given."""
    if isinstance(detail, dict):
        seed = "" if detail.get("seed") is None else f" seed {detail['seed']}"
        outcome = "solved" if detail["solved"] else detail["status"]
        return (
            f"{detail['solver']} on {level_caption(detail['level_index'], detail['level'])}{seed}: "
            f"{outcome} ({detail['seconds']:.2f} s, {detail['used']:,} {detail['unit']})"
        )
    return "" if detail is None else str(detail)


class JobProgress:
    """``progress(done, total, detail)``: a bar (rich), a line per job (plain) or nothing."""

    def __init__(self, mode: str, stream: IO[str]) -> None:
        self.mode = mode
        self.stream = stream
        self._bar: tuple[Progress, TaskID] | None = None  # the bar and its one task

    def __call__(self, done: int, total: int, detail: Any = None) -> None:
        if self.mode == "quiet":
            return
        if self.mode == "lines":
            if detail is not None:
                print(
                    plain(f"[{done}/{total}] {describe_job(detail)}"), file=self.stream, flush=True
                )
            elif done:
                print(f"[{done}/{total}] done before: resuming", file=self.stream, flush=True)
            return
        if self._bar is None:
            bar = Progress(
                TextColumn("jobs"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[detail]}", markup=False),  # titles are not markup
                console=Console(file=self.stream, emoji=False),
            )
            bar.start()
            self._bar = bar, bar.add_task("jobs", total=total, completed=done, detail="")
        bar, task = self._bar
        detail_text = plain(describe_job(detail))[:60]
        bar.update(task, total=total, completed=done, detail=detail_text)

    def close(self) -> None:
        """Stop drawing (idempotent)."""
        if self._bar is not None:
            self._bar[0].stop()
            self._bar = None


def make_job_progress(*, quiet: bool, stream: IO[str] | None = None) -> JobProgress:
    """A bar when ``stream`` (stdout) is a terminal, one line per job otherwise, or nothing."""
    stream = stream or sys.stdout
    if quiet:
        return JobProgress("quiet", stream)
    return JobProgress("bar" if stream.isatty() else "lines", stream)
