"""``[compare.budget] clock = "cpu"``: every job's seconds are the CPU seconds of its process,
for the searches and the population of searches (another GA preset is refused)."""

from __future__ import annotations

import pytest

from evosoko.errors import ConfigError
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


def test_a_ga_preset_that_counts_wall_seconds_is_refused_at_the_clock_line(cpu_config, tmp_path):
    searches = '"searches.enabled=true", "searches.population=4", "searches.first_nodes=20"'
    text = CPU.replace(searches, '"ga.population=20"')
    cpu_config.write_text(text)
    with pytest.raises(ConfigError, match="'searches' counts wall seconds") as caught:
        run_compare(load_compare_config(cpu_config), tmp_path / "out")
    assert caught.value.line == text.splitlines().index('clock = "cpu"') + 1
    assert not (tmp_path / "out").exists()
