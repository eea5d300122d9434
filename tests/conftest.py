"""Suite-wide test settings."""

from hypothesis import HealthCheck, settings

# Timing is not what these tests check (speed lives in benchmarks/): no per-example deadline,
# which the first call of a numba kernel or a loaded 2-core CI machine would otherwise exceed.
settings.register_profile("evosoko", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("evosoko")
