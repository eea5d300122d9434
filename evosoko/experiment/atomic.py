"""Crash-safe file writes: a whole file is replaced atomically, a row is appended and flushed.

A reader (or a resumed run) therefore sees either the old or the new version of a file, never
a half-written one; an appended row can at worst be cut short, and the run folder repairs
that on resume.
"""

from __future__ import annotations

from pathlib import Path

from evosoko.atomic import write_bytes_atomic, write_json_atomic, write_text_atomic

__all__ = ["LineAppender", "write_bytes_atomic", "write_json_atomic", "write_text_atomic"]


class LineAppender:
    """An open text file that takes whole lines, each flushed to the OS as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115 (kept open)

    def write_line(self, line: str) -> None:
        """Append ``line`` (without its newline) and flush."""
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()
