"""Crash-safe file writes: a whole file is replaced atomically, a row is appended and flushed.

A reader (or a resumed run) therefore sees either the old or the new version of a file, never
a half-written one; an appended row can at worst be cut short, and the run folder repairs
that on resume.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from evosoko.atomic import WriteFailed, write_bytes_atomic, write_json_atomic, write_text_atomic

__all__ = [
    "LineAppender",
    "WriteFailed",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]


class LineAppender:
    """An open text file that takes whole lines, each flushed to the OS as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            cut = _ends_without_newline(path)
            self._file = open(path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115
            if cut:  # a line cut short by a crash or a full disk: end it, it stays on its own
                self._file.write("\n")
        except OSError as error:
            raise WriteFailed(
                f"cannot open this file: {error.strerror or error}", str(path)
            ) from None

    def write_line(self, line: str) -> None:
        """Append ``line`` (without its newline) and flush; :class:`WriteFailed` when the
        disk refuses it (the line may then be cut short: a resume drops such a line)."""
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as error:
            raise WriteFailed(
                f"cannot write this file: {error.strerror or error}", str(self.path)
            ) from None

    def close(self) -> None:
        """Close the file (idempotent; a flush refused by the disk is given up)."""
        if not self._file.closed:
            with contextlib.suppress(OSError):
                self._file.close()


def _ends_without_newline(path: Path) -> bool:
    try:
        with open(path, "rb") as file:
            file.seek(0, 2)
            if file.tell() == 0:
                return False
            file.seek(-1, 2)
            return file.read(1) != b"\n"
    except FileNotFoundError:
        return False
