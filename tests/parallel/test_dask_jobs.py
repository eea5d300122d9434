"""Jobs on Dask: every job once, errors as results, killed workers survived, compare = serial.

One LocalCluster of two single-threaded worker processes on 127.0.0.1 (the ``cluster`` fixture
of tests/conftest.py) serves the module; the test that kills a worker has one of its own.
Job functions defined inside a test are pickled by value, so the workers need not import
this module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from evosoko.errors import ConfigError
from evosoko.experiment.compare.config import JobsParallel, load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep
from evosoko.parallel.backends import make_backend
from evosoko.parallel.jobs import Job, Journal, run_jobs
from tests.experiment.experiment_helpers import stable_records

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"

TINY = f"""
[compare]
name = "tiny-dask"
levels = "{SEEDS}"
select = ["seed000-example", "seed000-case3"]
seeds = [1, 2]

[compare.budget]
seconds = 3600  # never reached: evaluations and nodes end every job, whatever the load
evaluations = 400
nodes = 20000

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-small"
set = ["ga.population=20", "ga.offspring=20"]

[[solver]]
kind = "search"
algorithm = "push-astar"
"""

SWEEP = f"""
[sweep]
name = "mini-dask"
method = "grid"
levels = "{SEEDS}"
select = ["seed000-example", "seed000-case3"]
seeds = [1]
set = ["ga.population=20", "ga.offspring=20"]

[sweep.budget]
evaluations = 400
seconds = 30

[parameters]
"ga.mutation.replace_rate" = [0.01, 0.1]
"""


def backend_on(local_cluster):
    dask_backend = make_backend(
        JobsParallel(backend="dask", address=local_cluster.scheduler_address)
    )
    dask_backend.client.wait_for_workers(2, timeout=120)
    return dask_backend


@pytest.fixture
def backend(cluster):
    dask_backend = backend_on(cluster)
    yield dask_backend
    dask_backend.close()


def test_every_job_runs_once_and_errors_are_results(backend):
    def job(payload):
        if payload == 5:
            raise ValueError("five is not allowed")
        return {"double": 2 * payload}

    seen = dict(backend.imap_unordered(job, list(range(12))))
    assert sorted(seen) == list(range(12))
    assert seen[5]["error"] == "ValueError: five is not allowed"
    assert "Traceback" in seen[5]["traceback"]
    assert all(seen[p] == {"double": 2 * p} for p in seen if p != 5)
    assert dict(backend.imap_unordered(job, [])) == {}


def test_stopping_early_cancels_the_jobs_not_finished(backend):
    def slow_job(payload):
        import time

        time.sleep(0.2)
        return {"payload": payload}

    jobs = [Job(f"job-{i}", i) for i in range(20)]
    results = run_jobs(jobs, slow_job, backend, stop_after=3)
    assert len(results) == 3
    assert backend.client.status == "closed"  # run_jobs closed the backend


def test_a_worker_killed_in_a_job_does_not_lose_the_job(cluster_to_kill, tmp_path):
    backend = backend_on(cluster_to_kill)
    marker = tmp_path / "crash-once"
    marker.write_text("die")

    def job(payload):
        if payload == 3:
            try:
                os.remove(marker)
            except FileNotFoundError:
                pass
            else:
                os._exit(1)  # the worker dies in the middle of this job
        return {"square": payload * payload}

    journal = Journal(tmp_path / "journal.jsonl")
    jobs = [Job(f"job-{i}", i) for i in range(8)]
    results = run_jobs(jobs, job, backend, journal=journal)
    assert not marker.exists()
    assert results == {f"job-{i}": {"square": i * i} for i in range(8)}
    assert journal.finished() == results


def test_compare_with_jobs_on_dask_equals_serial(cluster, tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    serial = run_compare(load_compare_config(path), tmp_path / "serial", plots=False)
    on_dask = load_compare_config(
        path, ["parallel.backend=dask", f'parallel.address="{cluster.scheduler_address}"']
    )
    distributed_outcome = run_compare(on_dask, tmp_path / "dask", plots=False)
    assert distributed_outcome.complete and len(distributed_outcome.rows) == 6
    assert stable_records(distributed_outcome.rows) == stable_records(serial.rows)


def test_sweep_with_jobs_on_dask_equals_serial(cluster, tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP)
    serial = run_sweep(load_sweep_config(path), tmp_path / "serial", plots=False)
    on_dask = load_sweep_config(
        path, ["parallel.backend=dask", f'parallel.address="{cluster.scheduler_address}"']
    )
    distributed_outcome = run_sweep(on_dask, tmp_path / "dask", plots=False)
    assert distributed_outcome.complete and len(distributed_outcome.trials) == 2

    def scores(outcome):
        return [(trial.params, trial.rank_key()) for trial in outcome.trials]

    assert scores(distributed_outcome) == scores(serial)


def test_dask_job_settings_are_validated(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    with pytest.raises(ConfigError, match="exactly one of address or local_workers"):
        load_compare_config(path, ["parallel.backend=dask"])
    config = load_compare_config(path, ["parallel.backend=dask", "parallel.local_workers=2"])
    assert (config.parallel.local_workers, config.parallel.address) == (2, None)


def test_without_dask_the_job_backend_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ConfigError, match=r"evosoko\[dask\]"):
        make_backend(JobsParallel(backend="dask", local_workers=2))
