"""Crash-safe file writes, shared by every layer: a file is either its old or its new version.

Text goes to a temporary file beside the target, is flushed to disk, then renamed over the
target with ``os.replace``; the temporary file never outlives a failure. A target that cannot be
written (missing folder, no permission) raises :class:`EvosokoError` naming it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError


class WriteFailed(EvosokoError):
    """A file could not be written (a full disk, no permission, a missing folder); the old
    version of the file is intact."""


@contextmanager
def atomic_path(path: str | os.PathLike, error: type[EvosokoError] = WriteFailed) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` when the body succeeds.

    An OSError becomes ``error`` (an :class:`EvosokoError` kind) naming the target.
    """
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as problem:
        raise error(f"cannot write this file: {problem.strerror or problem}", str(target)) from None
    finally:
        with contextlib.suppress(OSError):  # e.g. the target's "folder" is a regular file
            temporary.unlink(missing_ok=True)


def write_bytes_atomic(
    path: str | os.PathLike, data: bytes, error: type[EvosokoError] = WriteFailed
) -> None:
    """Write ``data`` to ``path`` atomically, synced to disk before the rename."""
    with atomic_path(path, error) as temporary, open(temporary, "wb") as file:
        _write_synced(file, data)


def write_text_atomic(
    path: str | os.PathLike, text: str, error: type[EvosokoError] = WriteFailed
) -> None:
    """Write ``text`` (UTF-8, LF line endings) to ``path`` atomically."""
    with (
        atomic_path(path, error) as temporary,
        open(temporary, "w", encoding="utf-8", newline="\n") as file,
    ):
        _write_synced(file, text)


def _write_synced(file, data) -> None:
    file.write(data)
    file.flush()
    os.fsync(file.fileno())


def write_json_atomic(path: str | os.PathLike, data: Any) -> None:
    """``data`` as indented JSON, written atomically."""
    write_text_atomic(path, json.dumps(data, indent=2) + "\n")
