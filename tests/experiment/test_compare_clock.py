"""``[compare.budget] clock = "cpu"``: every job's seconds are the CPU seconds of its process,
for the searches and every GA preset (the population of searches, the hybrid, a plain GA)."""

from __future__ import annotations

import pytest
from experiment_helpers import stable_records

from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.jobs import comparison_levels, plan_jobs
from evosoko.experiment.compare.runner import run_compare
from evosoko.search import clocks
from tests.fake_clock import FakeClock
from tests.search.tiny_levels import SHARED_LEVELS, shared

CPU = f"""
[compare]
name = "cpu"
levels = "{SHARED_LEVELS / "microban.txt"}"
select = ["title:144"]
seeds = [1]

[compare.budget]
seconds = 100.0
clock = "cpu"
evaluations = 8
nodes = 300

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "searches"
set = ["searches.enabled=true", "searches.population=4", "searches.first_nodes=20"]

[[solver]]
kind = "search"
algorithm = "push-fess"
"""


@pytest.fixture
def cpu_config(tmp_path):
    shared("microban.txt", "144")  # skips without the shared levels
    path = tmp_path / "cpu.toml"
    path.write_text(CPU)
    return path


def test_every_job_carries_the_cpu_clock_and_a_wall_budget_keeps_its_keys(cpu_config, tmp_path):
    config = load_compare_config(cpu_config)
    jobs = plan_jobs(config, comparison_levels(config.compare))
    assert [job.payload["clock"] for job in jobs] == ["cpu", "cpu"]
    keys = {}
    for name, text in {"wall": CPU.replace('"cpu"', '"wall"'), "unset": CPU}.items():
        if name == "unset":
            text = text.replace('clock = "cpu"\n', "")
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        wall = load_compare_config(path)
        wall_jobs = plan_jobs(wall, comparison_levels(wall.compare))
        assert all("clock" not in job.payload for job in wall_jobs)
        keys[name] = [job.key for job in wall_jobs]
    assert keys["wall"] == keys["unset"]
    assert not set(keys["wall"]) & {job.key for job in jobs}  # another clock, other jobs


def test_the_jobs_seconds_count_on_the_cpu_clock(cpu_config, tmp_path, monkeypatch):
    """A CPU clock that stands still leaves each job to its own unit's budget; one that jumps
    ends every job on its seconds, the population of searches and the search alike."""
    config = load_compare_config(cpu_config)
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(0.0))
    still = run_compare(config, tmp_path / "still", plots=False)
    assert {row["solver"]: row["exhausted"] for row in still.rows} == {
        "searches": "evaluations",
        "push-fess": "nodes",
    }
    assert "100 CPU-s" in (tmp_path / "still" / "summary.md").read_text()
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(1000.0))
    jumping = run_compare(config, tmp_path / "jumping", plots=False)
    assert [row["exhausted"] for row in jumping.rows] == ["seconds", "seconds"]


SEARCHES = '"searches.enabled=true", "searches.population=4", "searches.first_nodes=20"'
HYBRID = '"ga.population=20", "ga.offspring=20", "hybrid.enabled=true", "hybrid.node_budget=50"'
PLAIN = '\n[[solver]]\nkind = "ga"\nname = "plain"\nset = ["ga.population=20"]\n'


@pytest.fixture
def hybrid_config(cpu_config):
    """The CPU comparison with the hybrid for the population of searches, and a plain GA."""
    text = CPU.replace(SEARCHES, HYBRID).replace('name = "searches"', 'name = "hybrid"') + PLAIN
    cpu_config.write_text(text.replace("evaluations = 8", "evaluations = 60"))
    return cpu_config


def test_every_ga_preset_counts_cpu_seconds_the_hybrid_included(
    hybrid_config, tmp_path, monkeypatch
):
    """A plain GA and the hybrid (its seeding search, generations and memetic searches) stop
    on their evaluations under a CPU clock that stands still, on their seconds under one that
    jumps."""
    config = load_compare_config(hybrid_config)
    jobs = plan_jobs(config, comparison_levels(config.compare))
    assert [job.payload["clock"] for job in jobs] == ["cpu"] * 3
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(0.0))
    still = run_compare(config, tmp_path / "still", plots=False)
    stops = {row["solver"]: row["exhausted"] for row in still.rows}
    assert stops == {"hybrid": "evaluations", "push-fess": "nodes", "plain": "evaluations"}
    monkeypatch.setitem(clocks.CLOCKS, "cpu", FakeClock(1000.0))
    jumping = run_compare(config, tmp_path / "jumping", plots=False)
    assert {row["solver"]: row["exhausted"] for row in jumping.rows} == dict.fromkeys(
        stops, "seconds"
    )


def test_processes_give_the_serial_records_under_a_cpu_budget(hybrid_config, tmp_path):
    """The real CPU clock, 100 CPU-s a job: every job ends on its own unit, in a worker as in
    this process."""
    serial = run_compare(load_compare_config(hybrid_config), tmp_path / "serial", plots=False)
    assert [row["exhausted"] for row in serial.rows] == ["evaluations", "nodes", "evaluations"]
    pool = ["parallel.backend=processes", "parallel.workers=2"]
    processes = run_compare(
        load_compare_config(hybrid_config, pool), tmp_path / "pool", plots=False
    )
    assert stable_records(processes.rows) == stable_records(serial.rows)
