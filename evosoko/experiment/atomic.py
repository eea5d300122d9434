"""Crash-safe file writes: a whole file is replaced atomically, a row is appended and flushed.

A reader (or a resumed run) therefore sees either the old or the new version of a file, never
a half-written one; an appended row can at worst be cut short, and the run folder repairs
that on resume.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Binary twin of :func:`write_text_atomic` (images)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_json_atomic(path: Path, data: Any) -> None:
    """``data`` as indented JSON, written atomically."""
    write_text_atomic(path, json.dumps(data, indent=2) + "\n")


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
