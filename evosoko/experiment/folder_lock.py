"""One writer per folder: a lock file that a second process (a second ``--resume``) cannot take.

Run, compare and sweep folders are locked alike. The lock is ``<folder>/.lock``, held with
``fcntl.flock`` for as long as the process writes the folder, and holding the pid, host and
start time of its owner for the messages. The kernel drops a ``flock`` when its process dies,
however it dies (``kill -9`` too), so a lock file left by a dead process is recognised as
stale: it is taken over, with a warning naming the process that left it. Forked worker
processes close their copy of the descriptor at once, so that only the process that took the
lock holds it. On systems without ``fcntl`` the owner's pid is checked.

A *shared* lock (``shared=True``) is for writers that are meant to work on one folder
together (the processes of one Optuna study): any number of them hold it at once, and it
excludes every exclusive holder, as an exclusive lock excludes them.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import warnings
from pathlib import Path
from typing import Self

from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.experiment.clock import utc_now

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Linux or macOS
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".lock"
_HELD: set[int] = set()
"""Descriptors of the locks this process holds (closed in forked children)."""


def _close_in_child() -> None:
    for descriptor in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(descriptor)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


class FolderLock:
    """The lock of one folder; :meth:`acquire` takes it or raises :class:`EvosokoError`.

    As a context manager it is held for the block: ``with FolderLock(folder): ...``.
    """

    def __init__(self, folder: Path, *, shared: bool = False) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.shared = shared
        self._descriptor: int | None = None
        self._owner_pid = 0

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exception: object) -> None:
        self.release()

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._descriptor is not None

    def acquire(self) -> None:
        """Take the lock; an :class:`EvosokoError` names the process that holds it."""
        if self.held:
            return
        try:
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise EvosokoError(
                f"cannot create the lock file: {error.strerror or error}", str(self.path)
            ) from None
        try:
            if fcntl is not None:
                self._flock(descriptor)
            else:  # pragma: no cover - no fcntl
                self._check_owner_is_gone(descriptor)
            previous = _read_owner(descriptor)
            _write_owner(descriptor)
        except BaseException:
            os.close(descriptor)
            raise
        self._descriptor = descriptor
        self._owner_pid = os.getpid()
        _HELD.add(descriptor)
        if previous and previous.get("pid") and not _same_process(previous):
            if self.shared and _alive_here(previous):
                return  # a partner holding the shared lock too: not stale
            warnings.warn(
                EvosokoWarning(
                    f"took over a stale lock left by process {previous['pid']} "
                    f"on {previous.get('host', '?')}, which no longer runs",
                    str(self.path),
                ),
                stacklevel=2,
            )

    def release(self) -> None:
        """Give the lock up (idempotent); the lock file itself stays, empty."""
        if self._descriptor is None or self._owner_pid != os.getpid():
            self._descriptor = None  # a forked child: its copy was closed at the fork
            return
        descriptor, self._descriptor = self._descriptor, None
        _HELD.discard(descriptor)
        try:
            os.ftruncate(descriptor, 0)
        except OSError:
            pass  # a full disk cannot keep the lock from being released
        finally:
            os.close(descriptor)  # drops the flock

    def _flock(self, descriptor: int) -> None:
        kind = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        try:
            fcntl.flock(descriptor, kind | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EvosokoError(_busy_message(_read_owner(descriptor)), str(self.folder)) from None

    def _check_owner_is_gone(self, descriptor: int) -> None:  # pragma: no cover - no fcntl
        owner = _read_owner(descriptor)
        if owner and not self.shared and _alive_here(owner):
            raise EvosokoError(_busy_message(owner), str(self.folder))

    def __del__(self) -> None:
        self.release()


def _busy_message(owner: dict | None) -> str:
    who = "another evosoko process"
    if owner and owner.get("pid"):
        who += f" (pid {owner['pid']} on {owner.get('host', '?')}, since {owner.get('since', '?')})"
    return f"{who} is writing this folder; wait for it to end, or stop it, before resuming"


def _read_owner(descriptor: int) -> dict | None:
    try:
        os.lseek(descriptor, 0, os.SEEK_SET)
        text = os.read(descriptor, 4096).decode("utf-8", "replace")
        owner = json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) else None


def _write_owner(descriptor: int) -> None:
    record = {"pid": os.getpid(), "host": socket.gethostname(), "since": utc_now().isoformat()}
    try:
        os.ftruncate(descriptor, 0)
        os.lseek(descriptor, 0, os.SEEK_SET)
        os.write(descriptor, (json.dumps(record) + "\n").encode())
    except OSError:
        pass  # the flock is what excludes; the text only names the owner in messages


def _same_process(owner: dict) -> bool:
    return owner.get("pid") == os.getpid() and owner.get("host") == socket.gethostname()


def _alive_here(owner: dict) -> bool:
    """Whether the owner a lock file names is a live process of this host."""
    return owner.get("host") == socket.gethostname() and _alive(owner.get("pid"))


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
