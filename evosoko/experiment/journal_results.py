"""``results.csv`` of a comparison or sweep, written again from its journal, never silently.

A comparison or sweep resumes from ``journal.jsonl`` and writes ``results.csv`` again from the
jobs it holds. A file on disk with rows the journal does not give (edited, damaged, or written
by another version of evosoko) is replaced like any other, and the first rewrite of the
process says so in one warning naming the file. Rows of failed jobs (status ``error``) are not
journaled, so they run again and may change; rows the journal gives that the file lacks (a
process killed between a job's journal line and the next rewrite) are no damage.
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

from evosoko.errors import EvosokoWarning
from evosoko.experiment.atomic import write_text_atomic


class ResultsRewriter:
    """Writes ``results.csv`` at ``path``, comparing the file found there when it was made
    with the first text written (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._found = path.read_bytes() if path.is_file() else None

    def write(self, text: str) -> None:
        """Replace the file with ``text`` (atomically); warn on the first call when the file
        found had rows that ``text`` does not hold."""
        found, self._found = self._found, None
        problem = None if found is None else _unjournaled(found, text)
        if problem is not None:
            warnings.warn(
                EvosokoWarning(f"{problem}: written again from journal.jsonl", str(self.path)),
                stacklevel=2,
            )
        write_text_atomic(self.path, text)


def _unjournaled(found: bytes, text: str) -> str | None:
    """What in the file ``found`` the journal's ``text`` does not give, or None."""
    try:
        lines = found.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return "not UTF-8 text"
    header, *rows = text.splitlines()
    if not lines or lines[0] != header:
        return "its header is not the one evosoko writes"
    columns = header.split(",")
    status = columns.index("status") if "status" in columns else None
    given = set(rows)
    foreign = [
        line
        for line in lines[1:]
        if line not in given and not _failed(line, status)  # failed jobs run again
    ]
    if not foreign:
        return None
    return f"{len(foreign)} row{'s' if len(foreign) > 1 else ''} not in the journal"


def _failed(line: str, status: int | None) -> bool:
    """Whether the row ``line`` is a failed job's (its ``status`` column is ``error``)."""
    if status is None:
        return False
    cells = next(csv.reader([line]), [])
    return len(cells) > status and cells[status] == "error"
