"""Reading a whole input file with its size bounded while it is read, so that no file hangs.

A regular file's size is known before it is read; a device (``/dev/zero``), a named pipe or
``/dev/stdin`` has none, and reading it to its end may never end. :func:`read_bounded` reads
at most ``limit`` bytes of anything and refuses more; a named pipe that no process writes is
opened without waiting for a writer and reads as empty.
"""

from __future__ import annotations

import os
import stat

from evosoko.errors import EvosokoError

CHUNK_BYTES = 1 << 20


def read_bounded(
    path: str | os.PathLike[str],
    limit: int,
    error: type[EvosokoError] = EvosokoError,
    too_large: str = "split it",
) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` of them.

    Every failure is an ``error`` naming the file: missing, a directory, unreadable, or more
    than ``limit`` bytes (checked while reading; ``too_large`` says what to do instead).
    """
    name = str(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error("no such file", name) from None
    except IsADirectoryError:
        raise error("is a directory, not a file", name) from None
    except OSError as problem:
        raise error(f"cannot read the file: {problem.strerror or problem}", name) from None
    try:
        return _read(descriptor, limit, name, error, too_large)
    finally:
        os.close(descriptor)


def _read(
    descriptor: int, limit: int, name: str, error: type[EvosokoError], too_large: str
) -> bytes:
    def refused(size: int | None) -> EvosokoError:
        told = f"{size:,} bytes, more" if size is not None else "more"
        return error(
            f"the file is too large: {told} than the {limit:,} bytes evosoko reads ({too_large})",
            name,
        )

    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise error("is a directory, not a file", name)
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:
            raise refused(status.st_size)
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)  # a pipe with a writer: wait for its data
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(descriptor, min(CHUNK_BYTES, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise refused(None)
    except OSError as problem:
        raise error(f"cannot read the file: {problem.strerror or problem}", name) from None
