"""Worker plugin that lets Ctrl-C reach only the parent of a local Dask cluster.

Ctrl-C in a terminal sends SIGINT to the whole process group, so the worker processes of a
local cluster would each die with a ``KeyboardInterrupt`` traceback while the parent is
already stopping the run (writing what finished, then closing the cluster). Workers that
ignore SIGINT leave that to the parent. This module imports ``distributed``; only
:class:`evosoko.evolve.dask_cluster.DaskConnection` imports it, for the clusters it starts.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from distributed import WorkerPlugin

from evosoko.evolve.worker_lifetime import exit_with_parent

__all__ = ["IGNORE_INTERRUPTS", "IgnoreInterrupts"]

IGNORE_INTERRUPTS = "evosoko-ignore-interrupts"
"""The plugin's name on the cluster."""


class IgnoreInterrupts(WorkerPlugin):
    """Each worker process of a local cluster (restarted ones too) ignores SIGINT and ends
    when the process that started the cluster dies."""

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        exit_with_parent()
