"""evosoko compare: its files, resuming after an interruption, backends, config errors."""

import json

import pytest
from experiment_helpers import stable_records
from report_folders import COMPARE, SEEDS, SWEEP

from evosoko.errors import ConfigError
from evosoko.experiment.compare import runner as compare
from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.files import read_results_csv
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.status import RESOURCES, STATUSES


@pytest.fixture
def tiny_config(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(COMPARE)
    return path


def test_compare_writes_results_summary_and_plots(tiny_config, tmp_path):
    outcome = run_compare(load_compare_config(tiny_config), tmp_path / "out")
    folder = tmp_path / "out"
    for name in ("compare.toml", "journal.jsonl", "results.csv", "summary.md", "summary.json"):
        assert (folder / name).is_file(), name
    for plot in ("ecdf_time", "ecdf_budget", "levels", "lengths"):
        assert (folder / "plots" / f"{plot}.png").stat().st_size > 1000
    rows = read_results_csv(folder / "results.csv")
    # GA: 2 levels x 2 seeds; each deterministic search: 2 levels once
    assert [r["solver"] for r in rows] == ["ga-small"] * 4 + ["bfs"] * 2 + ["push-astar"] * 2
    assert [r["seed"] for r in rows[:4]] == [1, 2, 1, 2] and rows[4]["seed"] is None
    bfs_case3 = rows[5]
    assert (bfs_case3["level"], bfs_case3["solved"], bfs_case3["moves"]) == (
        "seed000-case3",
        True,
        34,
    )
    assert all(r["unit"] == "evaluations" for r in rows[:4]) and rows[4]["unit"] == "nodes"
    assert all(r["used"] <= 600 + 20 for r in rows[:4])  # GA budget (one generation of slack)
    summary = (folder / "summary.md").read_text()
    # Two levels solved of two: Wilson's interval, not a bootstrap's point [100%, 100%].
    assert "| bfs | 2 | 2 | 100% [34%, 100%] |" in summary and "ERT" in summary
    assert "## Paired tests" in summary and "| ga-small | bfs | 2 |" in summary
    assert "Holm" in summary and "### How these figures were made" in summary
    data = json.loads((folder / "summary.json").read_text())
    bfs = next(s for s in data["solvers"] if s["solver"] == "bfs")
    assert bfs["intervals"]["solve_rate"] == [pytest.approx(0.3424, abs=1e-4), 1.0]
    assert len(data["paired_tests"]) == 6  # 3 pairs x (solved, cost)
    assert {t["measure"] for t in data["paired_tests"]} == {"solved", "seconds", "nodes"}
    assert outcome.complete and [s.solver for s in outcome.summaries] == [
        "ga-small",
        "bfs",
        "push-astar",
    ]
    saved = load_compare_config(folder / "compare.toml")
    assert saved.model_dump() == load_compare_config(tiny_config).model_dump()


def test_interrupted_compare_resumes_without_redoing_finished_jobs(
    tiny_config, tmp_path, monkeypatch
):
    config = load_compare_config(tiny_config)
    first = run_compare(config, tmp_path / "out", stop_after=3, plots=False)
    assert not first.complete and len(first.rows) == 3
    assert "Incomplete" in (tmp_path / "out" / "summary.md").read_text()

    ran = []
    real_job = compare.run_job

    def counting_job(payload):
        ran.append((payload["solver"], payload["level_index"], payload["seed"]))
        return real_job(payload)

    monkeypatch.setattr(compare, "run_job", counting_job)
    second = run_compare(config, tmp_path / "out", plots=False)
    assert second.complete and second.resumed == 3 and len(ran) == 8 - 3
    finished_first = {(r["solver"], r["level_index"], r["seed"]) for r in first.rows}
    assert finished_first.isdisjoint(ran)

    monkeypatch.setattr(compare, "run_job", real_job)
    uninterrupted = run_compare(config, tmp_path / "fresh", plots=False)
    assert stable_records(second.rows) == stable_records(uninterrupted.rows)


def test_a_folder_of_another_comparison_is_refused_and_left_as_it_was(tiny_config, tmp_path):
    run_compare(load_compare_config(tiny_config), tmp_path / "out", plots=False)
    stored = (tmp_path / "out" / "compare.toml").read_text()
    changed = load_compare_config(tiny_config, ["compare.budget.nodes=30000", "compare.first=1"])
    with pytest.raises(ConfigError) as error:
        run_compare(changed, tmp_path / "out", plots=False)
    assert "compare.first: unset in the folder, 1 here" in str(error.value)
    assert "compare.budget.nodes: 20000 in the folder, 30000 here" in str(error.value)
    assert f"evosoko compare --resume {tmp_path / 'out'}" in str(error.value)
    assert (tmp_path / "out" / "compare.toml").read_text() == stored
    # where the jobs run is not part of the experiment: it may change
    elsewhere = load_compare_config(tiny_config, ["parallel.backend=processes"])
    assert run_compare(elsewhere, tmp_path / "out", plots=False).resumed == 8


def test_processes_backend_gives_the_serial_results(tiny_config, tmp_path):
    # the GA's evaluations bind, not its wall seconds: a loaded machine cannot cut a job short
    unbound = "compare.budget.seconds=600"
    serial = run_compare(
        load_compare_config(tiny_config, [unbound]), tmp_path / "serial", plots=False
    )
    parallel_config = load_compare_config(
        tiny_config, [unbound, "parallel.backend=processes", "parallel.workers=2"]
    )
    parallel = run_compare(parallel_config, tmp_path / "processes", plots=False)
    assert stable_records(parallel.rows) == stable_records(serial.rows)


def test_unknown_key_is_named_with_line_and_suggestion(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text(COMPARE.replace('algorithm = "push-astar"', 'algoritm = "push-astar"'))
    with pytest.raises(ConfigError) as caught:
        load_compare_config(path)
    error = caught.value
    assert "solver.2.algoritm" in error.message and "did you mean" in error.message
    assert error.line == COMPARE.splitlines().index('algorithm = "push-astar"') + 1


@pytest.mark.parametrize("kind", ["compare", "sweep"])
def test_a_repeated_seed_is_an_error_at_its_line(tmp_path, kind):
    text, load = (COMPARE, load_compare_config) if kind == "compare" else (SWEEP, load_sweep_config)
    seeds_line = next(line for line in text.splitlines() if line.startswith("seeds = "))
    path = tmp_path / f"{kind}.toml"
    path.write_text(text.replace(seeds_line, "seeds = [3, 1, 3]"))
    with pytest.raises(ConfigError, match="seeds must be distinct") as caught:
        load(path)
    assert caught.value.line == text.splitlines().index(seeds_line) + 1


def test_unknown_algorithm_and_bad_ga_override_are_config_errors(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(COMPARE.replace('algorithm = "bfs"', 'algorithm = "bfss"'))
    with pytest.raises(ConfigError, match="unknown algorithm"):
        load_compare_config(path)
    path.write_text(COMPARE.replace("ga.population=20", "ga.populaton=20"))
    with pytest.raises(ConfigError, match="ga-small.*populaton") as caught:
        run_compare(load_compare_config(path), tmp_path / "out")
    assert caught.value.path == str(path) and caught.value.line is not None
    assert not (tmp_path / "out").exists()  # nothing written for a bad comparison


SLOW = f"""
[compare]
levels = "{SEEDS}"
select = ["seed000-case3", "seed004-blog"]
seeds = [1, 2, 3]

[compare.budget]
seconds = 2.0

[parallel]
backend = "processes"
workers = 2

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20", "fitness.length_objective=false"]
"""


def test_ctrl_c_keeps_finished_jobs_and_the_rest_run_on_resume(tmp_path, monkeypatch):
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "slow.toml").write_text(SLOW)
    folder = tmp_path / "out"
    script = (
        "from evosoko.experiment.compare.runner import run_compare\n"
        "from evosoko.experiment.compare.config import load_compare_config\n"
        f"run_compare(load_compare_config({str(tmp_path / 'slow.toml')!r}), {str(folder)!r})\n"
    )
    from tests.child_processes import start_interruptible

    child = start_interruptible(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        text=True,
    )
    journal = folder / "journal.jsonl"
    deadline = time.monotonic() + 60
    while not (journal.exists() and journal.read_text().count("\n") >= 1):
        assert child.poll() is None and time.monotonic() < deadline, "no job finished"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode != 0 and "KeyboardInterrupt" in stderr
    kept = journal.read_text().count("\n")
    assert 1 <= kept < 6

    ran = []
    real_job = compare.run_job
    monkeypatch.setattr(
        compare, "run_job", lambda payload: ran.append(payload) or real_job(payload)
    )
    config = load_compare_config(tmp_path / "slow.toml", ["parallel.backend=serial"])
    outcome = run_compare(config, folder, plots=False)
    assert outcome.complete and outcome.resumed == kept and len(ran) == 6 - kept


VOCABULARY_COMPARE = f"""
[compare]
name = "words"
levels = "{SEEDS}"
select = ["seed000-case3"]
seeds = [1]

[compare.budget]
seconds = 20
evaluations = 10
nodes = 40

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-tiny"
set = ["ga.population=10", "ga.offspring=10"]

[[solver]]
kind = "search"
algorithm = "bfs"

[[solver]]
kind = "search"
algorithm = "mcts"
"""


def test_a_compare_of_ga_and_search_rows_speaks_one_vocabulary(tmp_path):
    """Every row's status is a word of evosoko.status, and a budget's resource is in its own
    column: the GA's evaluations, the search's nodes, mcts's iterations."""
    path = tmp_path / "words.toml"
    path.write_text(VOCABULARY_COMPARE)
    run_compare(load_compare_config(path), tmp_path / "out")
    rows = read_results_csv(tmp_path / "out" / "results.csv")
    assert {row["status"] for row in rows} <= set(STATUSES)
    assert {row["exhausted"] for row in rows} <= {*RESOURCES, None}
    stops = {row["solver"]: (row["status"], row["exhausted"]) for row in rows}
    assert stops == {
        "ga-tiny": ("budget", "evaluations"),
        "bfs": ("budget", "nodes"),
        "mcts": ("budget", "iterations"),
    }
    journal = (tmp_path / "out" / "journal.jsonl").read_text().splitlines()
    assert {json.loads(line)["result"]["status"] for line in journal} == {"budget"}
