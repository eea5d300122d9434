"""evosoko sweep: grid, random and Optuna searches, their files, resuming, config errors."""

import sys
import tomllib
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.errors import ConfigError
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.files import read_index_csv
from evosoko.experiment.sweep.runner import run_sweep
from evosoko.experiment.sweep.trials import plan_trials

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"

GRID = f"""
[sweep]
name = "mini"
method = "grid"
levels = "{SEEDS}"
select = ["seed000-example", "seed000-case3"]
seeds = [1, 2]
set = ["ga.population=20", "ga.offspring=20"]

[sweep.budget]
evaluations = 400
seconds = 30

[parameters]
"ga.mutation.replace_rate" = [0.01, 0.1]
"ga.tournament_size" = [2, 4]
"""

OPTUNA = GRID.replace('method = "grid"', 'method = "optuna"\ntrials = 3').replace(
    '"ga.mutation.replace_rate" = [0.01, 0.1]',
    '"ga.mutation.replace_rate" = { low = 0.001, high = 0.2, log = true }',
)


def _write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_grid_sweep_writes_index_results_best_and_plots(tmp_path):
    outcome = run_sweep(load_sweep_config(_write(tmp_path, GRID)), tmp_path / "out")
    folder = tmp_path / "out"
    index = read_index_csv(folder / "index.csv")
    assert [(r["ga.mutation.replace_rate"], r["ga.tournament_size"]) for r in index] == [
        ("0.01", "2"),
        ("0.01", "4"),
        ("0.1", "2"),
        ("0.1", "4"),
    ]
    assert all(r["status"] == "complete" and r["runs"] == "4" for r in index)
    rates = [float(r["solve_rate"]) for r in index]
    assert rates == [t.solve_rate for t in outcome.trials]
    results = (folder / "results.csv").read_text().splitlines()
    assert len(results) == 1 + 4 * 4  # header + trials x levels x seeds
    best = load_config(folder / "best.toml")
    assert best.ga.mutation.replace_rate == outcome.best.params["ga.mutation.replace_rate"]
    assert best.ga.tournament_size == outcome.best.params["ga.tournament_size"]
    assert (best.run.select, best.run.budget.evaluations, best.ga.population) == (
        ["#1", "#2"],
        400,
        20,
    )
    assert outcome.best.rank_key() == max(t.rank_key() for t in outcome.trials)
    stored = tomllib.loads((folder / "best.toml").read_text())["run"]["levels"]
    assert not Path(stored).is_absolute()  # relative to best.toml, so it travels
    assert (folder / stored).resolve() == SEEDS.resolve()
    for plot in ("parameters", "heatmap", "history"):
        assert (folder / "plots" / f"{plot}.png").stat().st_size > 1000


def test_best_toml_runs_on_another_machine(tmp_path):
    """The sweep folder and the levels copied elsewhere (another machine, another user): the
    best configuration still finds its level file and runs."""
    import shutil

    from evosoko.experiment.run.runner import start_run

    project = tmp_path / "project"
    (project / "levels").mkdir(parents=True)
    shutil.copy(SEEDS, project / "levels" / "seeds.xsb")
    sweep = GRID.replace(str(SEEDS), "../levels/seeds.xsb")
    (project / "configs").mkdir()
    run_sweep(
        load_sweep_config(_write(project / "configs", sweep)), project / "runs" / "sw", plots=False
    )
    moved = tmp_path / "elsewhere"
    shutil.copytree(project, moved)
    shutil.rmtree(project)
    config = load_config(moved / "runs" / "sw" / "best.toml", ["run.budget.evaluations=60"])
    assert Path(config.run.levels).resolve() == (moved / "levels" / "seeds.xsb").resolve()
    report = start_run(
        config.model_copy(
            update={
                "output": config.output.model_copy(
                    update={"dir": str(tmp_path / "r"), "plots": False}
                )
            }
        )
    )
    assert report.status == "completed" and len(report.results) == 2


def test_rerunning_a_finished_sweep_runs_no_job(tmp_path, monkeypatch):
    config = load_sweep_config(_write(tmp_path, GRID))
    first = run_sweep(config, tmp_path / "out", plots=False)
    from evosoko.experiment.sweep import runner as sweep

    monkeypatch.setattr(sweep, "run_job", lambda payload: pytest.fail("a finished job ran again"))
    second = run_sweep(config, tmp_path / "out", plots=False)
    assert [t.rank_key() for t in second.trials] == [t.rank_key() for t in first.trials]


def test_random_search_is_reproducible_and_stays_in_range(tmp_path):
    text = OPTUNA.replace('method = "optuna"\ntrials = 3', 'method = "random"\ntrials = 6')
    config = load_sweep_config(_write(tmp_path, text))
    first, again = plan_trials(config), plan_trials(config)
    assert [t.params for t in first] == [t.params for t in again] and len(first) == 6
    for trial in first:
        assert 0.001 <= trial.params["ga.mutation.replace_rate"] <= 0.2
        assert trial.params["ga.tournament_size"] in (2, 4)


def test_grid_axes_are_the_parameter_lists_and_plan_every_combination(tmp_path):
    config = load_sweep_config(_write(tmp_path, GRID))
    assert config.grid_axes() == {
        "ga.mutation.replace_rate": [0.01, 0.1],
        "ga.tournament_size": [2, 4],
    }
    assert [tuple(t.params.values()) for t in plan_trials(config)] == [
        (0.01, 2),
        (0.01, 4),
        (0.1, 2),
        (0.1, 4),
    ]
    ranged = load_sweep_config(_write(tmp_path, OPTUNA, "optuna.toml"))
    with pytest.raises(TypeError, match="not ranges"):
        ranged.grid_axes()


def test_optuna_study_resumes_from_its_journal(tmp_path):
    pytest.importorskip("optuna")
    config = load_sweep_config(_write(tmp_path, OPTUNA))
    partial = run_sweep(config, tmp_path / "out", stop_after=1, plots=False)
    assert not partial.complete and len(partial.trials) == 1
    assert (tmp_path / "out" / "optuna.journal").is_file()
    resumed = run_sweep(config, tmp_path / "out")
    assert resumed.complete and [t.number for t in resumed.trials] == [0, 1, 2]
    assert resumed.trials[0].params == partial.trials[0].params
    index = read_index_csv(tmp_path / "out" / "index.csv")
    assert [r["status"] for r in index] == ["complete"] * 3
    assert (tmp_path / "out" / "best.toml").is_file()
    assert (tmp_path / "out" / "plots" / "history.png").is_file()
    # optuna-dashboard opens a journal file as Optuna's journal storage: the study is there,
    # every trial with the parameters and value index.csv has
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    storage = JournalStorage(JournalFileBackend(str(tmp_path / "out" / "optuna.journal")))
    (summary,) = optuna.get_all_study_summaries(storage)
    assert summary.study_name == "mini" and summary.n_trials == 3
    study = optuna.load_study(study_name="mini", storage=storage)
    assert [t.number for t in study.trials] == [int(r["trial"]) for r in index]
    for trial, row in zip(study.trials, index, strict=True):
        assert trial.params["ga.tournament_size"] == int(row["ga.tournament_size"])
        assert trial.value == pytest.approx(float(row["objective"]), rel=1e-5)


def test_unknown_parameter_key_gets_a_suggestion(tmp_path):
    path = _write(tmp_path, GRID.replace('"ga.tournament_size"', '"ga.tournament_sise"'))
    with pytest.raises(ConfigError, match="did you mean 'ga.tournament_size'") as caught:
        load_sweep_config(path)
    assert caught.value.line == GRID.splitlines().index('"ga.tournament_size" = [2, 4]') + 1


def test_ranges_need_a_sampling_method_and_bad_values_fail_before_running(tmp_path):
    with pytest.raises(ConfigError, match="grid search needs lists"):
        load_sweep_config(_write(tmp_path, OPTUNA.replace('method = "optuna"', 'method = "grid"')))
    bad = _write(tmp_path, GRID.replace("[2, 4]", "[0, 4]"), "bad.toml")
    with pytest.raises(ConfigError, match="tournament_size"):
        run_sweep(load_sweep_config(bad), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_optuna_without_optuna_is_a_config_error_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)
    path = _write(tmp_path, OPTUNA)
    config = load_sweep_config(path)
    with pytest.raises(ConfigError, match=r"evosoko\[tune\]") as caught:
        run_sweep(config, tmp_path / "out", plots=False)
    assert caught.value.path == str(path) and caught.value.line == 4
    assert not (tmp_path / "out").exists()


TIED = GRID.replace(
    """"ga.mutation.replace_rate" = [0.01, 0.1]
"ga.tournament_size" = [2, 4]""",
    '"output.checkpoint_every" = [0, 7]',  # cannot change what the GA does: a true tie
)


def test_trials_that_cannot_differ_are_reported_as_a_tie(tmp_path):
    from typer.testing import CliRunner

    from evosoko.cli import app

    result = CliRunner().invoke(
        app, ["sweep", str(_write(tmp_path, TIED)), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert "tie for best: 2 trials" in result.stdout and "best.toml" in result.stdout
    folder = tmp_path / "out"
    index = read_index_csv(folder / "index.csv")
    assert [row["tied_with_best"] for row in index] == ["1", "1"]
    assert [row["solve_rate"] for row in index] == [index[0]["solve_rate"]] * 2
    assert index[0]["p_vs_best"] == "" and float(index[1]["p_vs_best"]) == 1.0
    low, high = float(index[0]["solve_rate_low"]), float(index[0]["solve_rate_high"])
    assert low <= float(index[0]["solve_rate"]) <= high
    assert (
        "# TIE: no paired test over the levels separates this trial from trial(s) 1"
        in (folder / "best.toml").read_text()
    )
    assert load_config(folder / "best.toml").output.checkpoint_every == 10  # still runs


def test_a_clear_winner_is_crowned_without_a_tie():
    from evosoko.experiment.analysis.statistics import PairedTest, TieReport
    from evosoko.experiment.sweep.files import tie_comment

    worse = PairedTest("trial-0", "trial-1", "solved", 30, 20, 0, None, 1e-6, 2e-6)
    report = TieReport(best=0, tied=[], tests={1: (worse, worse)})
    assert tie_comment(report).startswith("# No tie: every other trial is worse")
    assert tie_comment(TieReport(best=0)) == ""  # a single trial: nothing to say
