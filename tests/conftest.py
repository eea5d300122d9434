"""Suite-wide test settings and fixtures."""

import pytest
from hypothesis import HealthCheck, settings

# Timing is not what these tests check (speed lives in benchmarks/): no per-example deadline,
# which the first call of a numba kernel or a loaded 2-core CI machine would otherwise exceed.
settings.register_profile("evosoko", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("evosoko")


def two_worker_cluster():
    """A Dask LocalCluster of two single-threaded worker processes on 127.0.0.1 (loopback
    only); skips without ``distributed``."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    )


@pytest.fixture(scope="module")
def cluster():
    """One cluster of :func:`two_worker_cluster` per test module that asks for it. Tests that
    kill workers take :func:`cluster_to_kill`, so that no test waits on a restart."""
    with two_worker_cluster() as local_cluster:
        yield local_cluster


@pytest.fixture
def cluster_to_kill():
    """A cluster of :func:`two_worker_cluster` of the test's own, for a test that kills its
    workers."""
    with two_worker_cluster() as local_cluster:
        yield local_cluster
