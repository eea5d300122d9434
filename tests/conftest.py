"""Suite-wide test settings and fixtures."""

import pytest
from hypothesis import HealthCheck, settings

# Timing is not what these tests check (speed lives in benchmarks/): no per-example deadline,
# which the first call of a numba kernel or a loaded 2-core CI machine would otherwise exceed.
settings.register_profile("evosoko", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("evosoko")


@pytest.fixture(scope="module")
def cluster():
    """A Dask LocalCluster of two single-threaded worker processes on 127.0.0.1 (loopback
    only), one per test module that asks for it; skips without ``distributed``."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as local_cluster:
        yield local_cluster
