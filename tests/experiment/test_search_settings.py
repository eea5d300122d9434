"""Search settings in experiment files: a compare ``[search]`` table and ``[[solver]]`` rows of
differently tuned searches, and a sweep over a search's knobs (issue 50)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.errors import ConfigError
from evosoko.experiment.compare.config import dump_compare_config, load_compare_config
from evosoko.experiment.compare.files import read_results_csv
from evosoko.experiment.compare.jobs import job_settings, plan_jobs, search_payload
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.files import read_index_csv
from evosoko.experiment.sweep.runner import run_sweep
from evosoko.search import FessSettings, PushSettings
from evosoko.search.settings import SearchSettings

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"

COMPARE = f"""
[compare]
name = "tuned"
levels = "{SEEDS}"
select = ["seed000-case3", "seed000-example"]

[compare.budget]
seconds = 30.0
nodes = 20000

[search.fess]
cluster_limit = 3000
alternate = 4

[[solver]]
kind = "search"
algorithm = "push-fess"

[[solver]]
kind = "search"
name = "fess-alternate-2"
algorithm = "push-fess"
search.fess.alternate = 2

[[solver]]
kind = "search"
algorithm = "push-wastar"
weight = 5.0
"""


def _write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_row_lays_its_search_table_over_the_files(tmp_path):
    config = load_compare_config(_write(tmp_path, COMPARE, "compare.toml"))
    shipped, tuned, weighted = config.solver
    assert (shipped.settings.alternate, shipped.settings.cluster_limit) == (4, 3000)
    assert (tuned.settings.alternate, tuned.settings.cluster_limit) == (2, 3000)
    assert weighted.settings == PushSettings(weight=5.0)


def test_the_written_comparison_reads_back_equal(tmp_path):
    config = load_compare_config(_write(tmp_path, COMPARE, "compare.toml"))
    text = dump_compare_config(config)
    again = load_compare_config(_write(tmp_path, text, "again.toml"))
    assert again.model_dump() == config.model_dump()
    assert [solver.settings for solver in again.solver] == [s.settings for s in config.solver]
    # a row that sets a default back over the file's value keeps it when written
    row = COMPARE.replace("search.fess.alternate = 2", "search.fess.alternate = 3")
    config = load_compare_config(_write(tmp_path, row, "row.toml"))
    text = dump_compare_config(config)
    assert load_compare_config(_write(tmp_path, text, "row-again.toml")).solver[1].settings == (
        config.solver[1].settings
    )


def test_default_settings_keep_the_job_keys_of_before_the_settings_models():
    assert search_payload(PushSettings()) == {"weight": 3.0, "freeze": True, "corrals": True}
    assert search_payload(None) == {"weight": 3.0, "freeze": True, "corrals": True}
    payload = {"algorithm": "push-fess", **search_payload(FessSettings(cluster_limit=10))}
    assert payload["settings"] == {"cluster_limit": 10}
    assert job_settings(payload) == FessSettings(cluster_limit=10)


def test_rows_of_different_settings_are_different_jobs(tmp_path):
    config = load_compare_config(_write(tmp_path, COMPARE, "compare.toml"))
    from evosoko.experiment.compare.jobs import comparison_levels

    jobs = plan_jobs(config, comparison_levels(config.compare))
    keys = {job.key.rsplit("|", 1)[1] for job in jobs[:2]}
    other = {job.key.rsplit("|", 1)[1] for job in jobs[2:4]}
    assert not keys & other


def test_results_and_summary_report_every_rows_settings(tmp_path):
    config = load_compare_config(_write(tmp_path, COMPARE, "compare.toml"))
    outcome = run_compare(config, tmp_path / "out", plots=False)
    assert outcome.complete
    rows = read_results_csv(tmp_path / "out" / "results.csv")
    by_solver = {row["solver"]: row["settings"] for row in rows}
    assert by_solver == {
        "push-fess": "fess.alternate=4 fess.cluster_limit=3000",
        "fess-alternate-2": "fess.alternate=2 fess.cluster_limit=3000",
        "push-wastar": "push.weight=5.0",
    }
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "- fess-alternate-2 (push-fess): `fess.alternate=2 fess.cluster_limit=3000`" in summary


@pytest.mark.parametrize(
    "row, message",
    [
        ("search.fess.cluster_limt = 3", "did you mean 'solver.0.search.fess.cluster_limit'"),
        ("search.fess.alternate = -1", "greater than or equal to 0"),
        ('weight = 2.0\nalgorithm = "mcts"', "weight does not apply to mcts"),
    ],
)
def test_a_bad_row_setting_names_the_key(tmp_path, row, message):
    text = f"""
[compare]
levels = "{SEEDS}"

[[solver]]
kind = "search"
{row if "algorithm" in row else row + chr(10) + 'algorithm = "push-fess"'}
"""
    with pytest.raises(ConfigError, match=message):
        load_compare_config(_write(tmp_path, text, "bad.toml"))


SWEEP = f"""
[sweep]
name = "fess-knobs"
algorithm = "push-fess"
levels = "{SEEDS}"
select = ["seed000-case3", "seed000-example"]

[sweep.budget]
seconds = 30.0
nodes = 5000

[parameters]
"search.fess.alternate" = [2, 3]
"search.fess.corral_deadlocks" = [0, 200]
"""


def test_a_sweep_tunes_a_searchs_knobs_and_writes_them_in_best_toml(tmp_path):
    config = load_sweep_config(_write(tmp_path, SWEEP, "sweep.toml"))
    outcome = run_sweep(config, tmp_path / "out", plots=False)
    assert outcome.complete and outcome.best is not None
    index = read_index_csv(tmp_path / "out" / "index.csv")
    assert [(r["search.fess.alternate"], r["search.fess.corral_deadlocks"]) for r in index] == [
        ("2", "0"),
        ("2", "200"),
        ("3", "0"),
        ("3", "200"),
    ]
    assert all(r["runs"] == "2" for r in index)  # a deterministic search runs once per level
    results = (tmp_path / "out" / "results.csv").read_text(encoding="utf-8").splitlines()
    assert results[0].endswith(",unit") and results[1].endswith(",nodes")
    best = load_config(tmp_path / "out" / "best.toml")
    assert best.search.fess.alternate == outcome.best.params["search.fess.alternate"]
    header = (tmp_path / "out" / "best.toml").read_text(encoding="utf-8")
    assert "median nodes" in header and "--algo push-fess --config best.toml" in header


@pytest.mark.parametrize(
    "change, message",
    [
        (('"search.fess.alternate"', '"ga.population"'), "not a key of the \\[search\\] table"),
        (('"search.fess.alternate"', '"search.fess.alternat"'), "did you mean"),
        (("nodes = 5000", "evaluations = 5000"), "seconds and nodes, not evaluations"),
        (('algorithm = "push-fess"', 'algorithm = "push-fesss"'), "unknown search algorithm"),
    ],
)
def test_a_bad_search_sweep_is_a_config_error(tmp_path, change, message):
    text = SWEEP.replace(*change)
    with pytest.raises(ConfigError, match=message):
        load_sweep_config(_write(tmp_path, text, "sweep.toml"))


def test_a_ga_sweep_takes_no_node_budget(tmp_path):
    text = SWEEP.replace('algorithm = "push-fess"\n', "").replace(
        '"search.fess.alternate" = [2, 3]', '"ga.population" = [10, 20]'
    )
    with pytest.raises(ConfigError, match="budget.nodes bounds a search sweep"):
        load_sweep_config(_write(tmp_path, text, "sweep.toml"))


def test_the_run_configuration_holds_the_search_table():
    config = load_config(None, ["search.fess.cluster_limit=3000"])
    assert config.search.fess.cluster_limit == 3000
    assert "search" not in tomllib.loads(load_config().to_toml())  # defaults: not written
    with pytest.raises(ConfigError, match="did you mean 'search.fess.cluster_limit'"):
        load_config(None, ["search.fess.cluster_limt=3000"])
    assert SearchSettings() == load_config().search
