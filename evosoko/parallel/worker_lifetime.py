"""Worker processes that end when the process that started them dies.

A run's parent killed with ``kill -9`` cannot close its pool, and its workers would live on as
orphans (160 MB each, waiting forever for work). Every worker of the ``processes`` backend, of
the job pools of ``compare`` and ``sweep`` and of a local Dask cluster calls
:func:`exit_with_parent` when it starts. Two mechanisms, each enough on its own:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the moment its
  parent dies (strictly: the moment the parent's thread that started it ends, which in
  evosoko is the thread that owns the pool for its whole life);
- everywhere, a daemon thread that looks every half second whether the worker has been
  re-parented (its parent pid changed) and ends the process if so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
import time

__all__ = ["exit_with_parent"]

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 0.5
_started_for: set[int] = set()


def exit_with_parent(poll_seconds: float = POLL_SECONDS) -> None:
    """Make this process end when its parent process dies (see the module docstring).

    Call it in the worker, first thing; calling it again in the same process does nothing.
    """
    parent = os.getppid()
    if os.getpid() in _started_for:
        return
    _started_for.add(os.getpid())
    _kernel_signal_on_parent_death()
    if os.getppid() != parent:  # the parent died before we asked
        os._exit(1)
    watchdog = threading.Thread(
        target=_watch, args=(parent, poll_seconds), name="evosoko-parent-watchdog", daemon=True
    )
    watchdog.start()


def _kernel_signal_on_parent_death() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            log.debug("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
    except (OSError, AttributeError):  # no libc to load: the watchdog remains
        log.debug("prctl is not available; the parent watchdog alone ends orphaned workers")


def _watch(parent: int, poll_seconds: float) -> None:
    while True:
        time.sleep(poll_seconds)
        if os.getppid() != parent:
            os._exit(1)
