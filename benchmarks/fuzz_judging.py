"""How the fuzz campaign judges an input: accepted, refused cleanly, a crash, or data lost.

A *clean rejection* is an ``EvosokoError`` (one ``error:`` line and exit status 2 on the command
line); a *crash* is anything else: another exception, an exit status other than 0, 1, 2 (or
130/143 after a signal) or a traceback on stderr; a *silent loss* is data a command removed
without saying so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

from _common import REPO_ROOT


class Tally:
    """Inputs, clean rejections and crashes (with examples) of one kind of input."""

    def __init__(self) -> None:
        self.inputs = self.accepted = self.rejected = 0
        self.crashes: Counter[str] = Counter()
        self.losses: Counter[str] = Counter()

    def crash(self, what: str) -> None:
        self.crashes[what[:160]] += 1

    def lose(self, what: str) -> None:
        """Data lost without a word: rows gone after a resume that said nothing of them."""
        self.losses[what[:160]] += 1

    def as_dict(self) -> dict:
        return {
            "inputs": self.inputs,
            "accepted": self.accepted,
            "clean_rejections": self.rejected,
            "crashes": sum(self.crashes.values()),
            "crash_examples": [f"{count} x {what}" for what, count in self.crashes.most_common(5)],
            "silent_losses": sum(self.losses.values()),
            "loss_examples": [f"{count} x {what}" for what, count in self.losses.most_common(5)],
        }


def cli_environment(python_path: str = "") -> dict[str, str]:
    """The environment of an ``evosoko`` subprocess (``python_path``: folders put first)."""
    paths = [path for path in (python_path, str(REPO_ROOT)) if path]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "COLUMNS": "120"}


def cli(*args: str, timeout: float = 120, **options) -> subprocess.CompletedProcess:
    """``evosoko ARGS`` in a subprocess, its output captured
    (``options``: of ``subprocess.run``)."""
    return subprocess.run(
        [sys.executable, "-m", "evosoko.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=options.pop("env", cli_environment()),
        check=False,
        **options,
    )


def judge_cli(
    tally: Tally, completed: subprocess.CompletedProcess, name: str, signalled: bool = False
) -> None:
    """Count one command's outcome; ``signalled``: it was sent SIGINT or SIGTERM (exit 130 or
    143 is then a clean stop)."""
    tally.inputs += 1
    errors = [line for line in completed.stderr.splitlines() if line.startswith("error: ")]
    clean_error = completed.returncode == 2 and len(errors) == 1  # after warning: lines, maybe
    codes = (0, 1, 2, 130, 143) if signalled else (0, 1, 2)
    if "Traceback" in completed.stderr or completed.returncode not in codes:
        tally.crash(f"{name}: exit {completed.returncode}: {completed.stderr.strip()[-120:]}")
    elif completed.returncode == 2 and not clean_error:
        tally.crash(f"{name}: exit 2 without an error line: {completed.stderr[:80]}")
    elif completed.returncode == 2:
        tally.rejected += 1
    else:
        tally.accepted += 1
