"""Connecting to a Dask cluster: an existing scheduler, or a local cluster started for a run.

Dask is optional (``pip install 'evosoko[dask]'``): nothing here imports it at module level, and
:func:`require_distributed` turns its absence into a :class:`ConfigError` that says what to
install. :class:`DaskConnection` holds the client (and the local cluster it started, if any)
and releases both on :meth:`~DaskConnection.close`.

A local cluster listens on the loopback interface only (its HTTP server on any free port, so
that two clusters do not collide); its workers are single-threaded processes (the numba
kernels hold the GIL), restarted by their nanny when one dies, and they ignore Ctrl-C, which
this process handles by closing the cluster.
"""

from __future__ import annotations

import logging
from types import ModuleType
from typing import TYPE_CHECKING, Any

from evosoko.errors import ConfigError, EvosokoError

if TYPE_CHECKING:
    from evosoko.parallel.backends import BackendSettings

__all__ = [
    "CONNECT_TIMEOUT",
    "DaskConnection",
    "check_backend_reachable",
    "check_scheduler",
    "require_distributed",
]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
"""Seconds to wait for a scheduler to answer."""

INSTALL_HINT = "pip install 'evosoko[dask]' (or pip install 'dask[distributed]')"


def require_distributed() -> ModuleType:
    """The ``distributed`` module; a :class:`ConfigError` naming the extra when it is missing."""
    try:
        import distributed
    except ImportError as error:
        raise ConfigError(
            f"parallel.backend 'dask' needs Dask, which cannot be imported ({error}): "
            + INSTALL_HINT
        ) from None
    return distributed


def check_backend_reachable(parallel: BackendSettings) -> None:
    """For ``parallel.backend == "dask"`` with an ``address``: make sure Dask is installed and
    a scheduler answers there (an :class:`EvosokoError` otherwise), so that a run finds out
    before it creates its folder. Other backends need no check."""
    if parallel.backend == "dask" and parallel.address:
        check_scheduler(parallel.address)


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """Connect to the scheduler at ``address`` and leave; :class:`EvosokoError` naming the
    address when none answers within ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`)."""
    DaskConnection(address, timeout=CONNECT_TIMEOUT if timeout is None else timeout).close()


class DaskConnection:
    """A ``distributed.Client`` on ``address``, or on a ``LocalCluster`` of ``local_workers``.

    Exactly one of ``address`` and ``local_workers`` must be given. An unreachable scheduler
    raises an :class:`EvosokoError` naming the address.
    """

    def __init__(
        self,
        address: str | None = None,
        local_workers: int | None = None,
        *,
        timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        if (address is None) == (local_workers is None):
            raise ValueError("give exactly one of address and local_workers")
        distributed = require_distributed()
        self.cluster: Any = None
        if local_workers is not None:
            self.cluster = distributed.LocalCluster(
                n_workers=local_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",  # its HTTP server: loopback, any free port
            )
            address = self.cluster.scheduler_address
            log.info("started a local Dask cluster of %d workers at %s", local_workers, address)
        try:
            self.client: Any = distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as error:
            self._close_cluster()
            raise EvosokoError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        self.address = address
        if self.cluster is not None:
            self._leave_interrupts_to_this_process()

    def worker_threads(self) -> int:
        """Threads over all workers connected now (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def close(self) -> None:
        """Close the client, then the local cluster if this connection started one."""
        try:
            self.client.close()
        finally:
            self._close_cluster()

    def _leave_interrupts_to_this_process(self) -> None:
        """Local workers ignore Ctrl-C; this process stops the run and closes the cluster."""
        from evosoko.parallel.dask_plugins import IGNORE_INTERRUPTS, IgnoreInterrupts

        try:
            self.client.register_plugin(IgnoreInterrupts(), name=IGNORE_INTERRUPTS)
        except BaseException:
            self.close()
            raise

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
