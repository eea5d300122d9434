"""evosoko plot: run, compare and sweep folders are recognised and drawn, PNG or SVG."""

from pathlib import Path

import pytest
from experiment_helpers import SEED_LEVELS, read_csv, tiny_config

from evosoko.errors import EvosokoError
from evosoko.experiment.compare import load_compare_config, run_compare
from evosoko.experiment.plotting import folder_kind, plot_folders
from evosoko.experiment.run import start_run
from evosoko.experiment.sweep import load_sweep_config, run_sweep

COMPARE = f"""
[compare]
levels = "{SEED_LEVELS}"
select = ["seed000-example", "seed000-case3"]
seeds = [1]
[compare.budget]
seconds = 20
evaluations = 300
[[solver]]
kind = "ga"
set = ["ga.population=20", "ga.offspring=20"]
[[solver]]
kind = "search"
algorithm = "push-astar"
"""

SWEEP = f"""
[sweep]
levels = "{SEED_LEVELS}"
select = ["seed000-example"]
seeds = [1]
set = ["ga.population=20", "ga.offspring=20"]
[sweep.budget]
evaluations = 200
[parameters]
"ga.tournament_size" = [2, 3]
"fitness.trim_to_best" = [true, false]
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("plot")
    runs = [
        start_run(tiny_config(base / "runs", f"run.seed={seed}", "output.plots=false")).run_dir
        for seed in (1, 2)
    ]
    (base / "compare.toml").write_text(COMPARE)
    compare = run_compare(
        load_compare_config(base / "compare.toml"), base / "cmp", plots=False
    ).folder
    (base / "sweep.toml").write_text(SWEEP)
    sweep = run_sweep(load_sweep_config(base / "sweep.toml"), base / "swp", plots=False).folder
    return base, [Path(r) for r in runs], compare, sweep


def test_folders_are_recognised(folders):
    base, runs, compare, sweep = folders
    assert [folder_kind(f) for f in (runs[0], compare, sweep)] == ["run", "compare", "sweep"]
    with pytest.raises(EvosokoError, match="not a run, compare or sweep folder"):
        folder_kind(base)
    with pytest.raises(EvosokoError, match="no such folder"):
        folder_kind(base / "missing")


def test_each_folder_gets_its_plots(folders):
    _, runs, compare, sweep = folders
    written = plot_folders([runs[0], compare, sweep])
    names = {(p.parent.parent.name, p.name) for p in written}
    assert (runs[0].name, "fitness_band.png") in names and (runs[0].name, "diversity.png") in names
    assert {n for f, n in names if f == compare.name} == {
        "ecdf_time.png",
        "ecdf_budget.png",
        "levels.png",
        "lengths.png",
    }
    assert {n for f, n in names if f == sweep.name} == {
        "parameters.png",
        "history.png",
        "heatmap.png",
    }
    assert all(p.stat().st_size > 1000 for p in written)


def test_runs_drawn_together_and_as_svg(folders, tmp_path):
    _, runs, compare, _ = folders
    written = plot_folders([*runs, compare], out=tmp_path / "plots", fmt="svg")
    assert {p.relative_to(tmp_path / "plots").as_posix() for p in written} >= {
        "fitness_band.svg",
        "diversity.svg",
        f"{compare.name}/ecdf_time.svg",
    }
    svg = (tmp_path / "plots" / "fitness_band.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "generation" in svg
    curves = sum(len({row["level_index"] for row in read_csv(run / "metrics.csv")}) for run in runs)
    assert f"({curves} curves)" in svg  # one curve per (run, level), across both runs


def test_bad_format_is_refused(folders):
    with pytest.raises(EvosokoError, match="unknown plot format"):
        plot_folders([folders[1][0]], fmt="jpg")
