"""Shared helpers of the benchmark scripts: level data, timing, and the JSON + table report.

Every benchmark prints one JSON object on its first line (machine-readable, stable keys) and
then a small markdown table for people. Level data comes from ``../shared/levels`` next to the
repository; when that folder is absent a benchmark says so and exits with status 0.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from evosoko.errors import EvosokoError
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_LEVELS = REPO_ROOT.parent / "shared" / "levels"

T = TypeVar("T")


def require_shared_levels() -> Path:
    """The shared level folder; exits cleanly (status 0) with a message when it is absent."""
    if not SHARED_LEVELS.is_dir():
        print(f"skipped: no shared level folder at {SHARED_LEVELS}", file=sys.stderr)
        raise SystemExit(0)
    return SHARED_LEVELS


def load_level(relative_path: str, spec: str | int) -> Level:
    """One level of a shared collection, by 1-based index or title; bad data exits with status 2."""
    path = require_shared_levels() / relative_path
    try:
        chosen = f"#{spec}" if isinstance(spec, int) else spec  # a number is the index
        return select_levels(read_levels(path), [chosen])[0]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def positive(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    import argparse

    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def level_numbers(text: str) -> list[int]:
    """The 1-based level numbers of ``--levels``: comma-separated numbers and ranges
    (``1-40``, ``31,60-65``), in the order given, each once."""
    import argparse

    numbers: dict[int, None] = {}
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()) or int(first) < 1:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a level number or range (e.g. 1-40 or 31,60-65)"
            )
        end = int(last) if dash else int(first)
        if end < int(first):
            raise argparse.ArgumentTypeError(f"the range {part.strip()!r} is empty")
        numbers.update(dict.fromkeys(range(int(first), end + 1)))
    return list(numbers)


def best_time(action: Callable[[], T], repeats: int) -> tuple[float, T]:
    """The shortest wall time of ``repeats`` calls of ``action``, and the last call's value."""
    best = float("inf")
    value = None
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        value = action()
        best = min(best, time.perf_counter() - started)
    return best, value  # type: ignore[return-value]


def machine() -> dict[str, str | int]:
    """What the figures were measured on."""
    import os

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count() or 0,
    }


def markdown_table(columns: Sequence[tuple[str, str]], rows: Sequence[dict]) -> str:
    """A markdown table, one column per ``(header, key)``; floats get three significant digits."""

    def cell(value: object) -> str:
        return f"{value:.3g}" if isinstance(value, float) else str(value)

    lines = [
        "| " + " | ".join(header for header, _ in columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    lines += ["| " + " | ".join(cell(row[key]) for _, key in columns) + " |" for row in rows]
    return "\n".join(lines)


def report(summary: dict, columns: Sequence[tuple[str, str]], rows: Sequence[dict]) -> None:
    """Print ``summary`` as one JSON line, then ``rows`` as a markdown table."""
    print(json.dumps(summary))
    print()
    print(markdown_table(columns, rows))
