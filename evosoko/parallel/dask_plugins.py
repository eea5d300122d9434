"""Dask worker plugins: Ctrl-C reaching only the parent of a local cluster, and warm-ups.

Ctrl-C in a terminal sends SIGINT to the whole process group, so the worker processes of a
local cluster would each die with a ``KeyboardInterrupt`` traceback while the parent is
already stopping the run (writing what finished, then closing the cluster). Workers that
ignore SIGINT leave that to the parent. This module imports ``distributed``; only
:class:`evosoko.parallel.dask_cluster.DaskConnection` imports it, for the clusters it starts.
"""

from __future__ import annotations

import logging
import signal
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from distributed import WorkerPlugin

from evosoko.parallel.worker_lifetime import exit_with_parent

if TYPE_CHECKING:
    from evosoko.parallel.dask_cluster import DaskConnection

__all__ = [
    "IGNORE_INTERRUPTS",
    "IgnoreInterrupts",
    "WarmUpPlugin",
    "register_warm_up",
    "unregister_warm_up",
]

log = logging.getLogger(__name__)

IGNORE_INTERRUPTS = "evosoko-ignore-interrupts"
"""The plugin's name on the cluster."""


class IgnoreInterrupts(WorkerPlugin):
    """Each worker process of a local cluster (restarted ones too) ignores SIGINT and ends
    when the process that started the cluster dies."""

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        exit_with_parent()


WARM_UP_PLUGIN = "evosoko-warm-up"
"""The name prefix of :class:`WarmUpPlugin` registrations."""


class WarmUpPlugin(WorkerPlugin):
    """Runs a warm-up function (compiling kernels) on every worker as it joins."""

    def __init__(self, warm_up: Callable[[], None]) -> None:
        self.warm_up = warm_up

    def setup(self, worker: Any) -> None:
        self.warm_up()


def register_warm_up(connection: DaskConnection, warm_up: Callable[[], None]) -> str:
    """Run ``warm_up`` on every worker of ``connection`` (now, and on those that join later);
    returns the plugin's name, for :func:`unregister_warm_up`."""
    name = f"{WARM_UP_PLUGIN}-{uuid.uuid4().hex}"
    connection.client.register_plugin(WarmUpPlugin(warm_up), name=name)
    return name


def unregister_warm_up(connection: DaskConnection, name: str) -> None:
    """Remove the warm-up plugin from the workers of an existing cluster (a local cluster goes
    away with the connection)."""
    if connection.cluster is None and connection.client.status == "running":
        try:
            connection.client.unregister_worker_plugin(name)
        except Exception as error:  # noqa: BLE001 - the scheduler may be gone; still disconnect
            log.warning("could not remove the warm-up from the Dask workers: %s", error)
