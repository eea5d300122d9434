"""Dask worker plugins: Ctrl-C left to the parent of a local cluster, and warm-ups.

Ctrl-C in a terminal sends SIGINT to the whole process group, so the worker processes of a
local cluster would each die with a ``KeyboardInterrupt`` traceback while the parent is
already stopping the run (writing what finished, then closing the cluster). Workers that
ignore SIGINT leave that to the parent. This module imports ``distributed``; only
:class:`~evosoko.parallel.dask_cluster.DaskConnection` (for the clusters it starts) and
:class:`~evosoko.parallel.dask_pool.DaskPool` import it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

from distributed import WorkerPlugin

from evosoko.parallel.worker_lifetime import exit_with_parent

__all__ = ["IGNORE_INTERRUPTS", "IgnoreInterrupts", "WarmUpPlugin"]

IGNORE_INTERRUPTS = "evosoko-ignore-interrupts"
"""The name of :class:`IgnoreInterrupts` on a cluster."""


class IgnoreInterrupts(WorkerPlugin):
    """Each worker process of a local cluster (restarted ones too) ignores SIGINT and ends
    when the process that started the cluster dies."""

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        exit_with_parent()


class WarmUpPlugin(WorkerPlugin):
    """Runs a warm-up function (compiling kernels) on every worker as it joins."""

    def __init__(self, warm_up: Callable[[], None]) -> None:
        self.warm_up = warm_up

    def setup(self, worker: Any) -> None:
        self.warm_up()
