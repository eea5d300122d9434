"""evosoko plot: run, compare and sweep folders are recognised and drawn, PNG or SVG."""

from pathlib import Path

import pytest
from experiment_helpers import SEED_LEVELS, read_csv, tiny_config

from evosoko.errors import EvosokoError
from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.plots.folders import folder_kind, plot_folders
from evosoko.experiment.run.runner import start_run
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep

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
    with pytest.raises(EvosokoError, match="not a run, compare, sweep or level run folder"):
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
    assert f"(2 runs, {curves} curves)" in svg  # one curve per (run, level), across both runs


def test_several_runs_give_one_band_figure_beside_them(folders):
    _, runs, _, _ = folders
    before = [sorted((run / "plots").iterdir()) for run in runs]
    written = plot_folders(runs)
    folder = written[0].parent
    assert folder.parent == runs[0].parent and folder.name.split("_")[1] == "plot"
    assert sorted(p.name for p in written) == ["diversity.png", "fitness_band.png", "runs.txt"]
    assert (folder / "runs.txt").read_text().split() == [str(run.resolve()) for run in runs]
    assert [sorted((run / "plots").iterdir()) for run in runs] == before  # left as they were


def test_the_plot_command_draws_runs_together(folders):
    from typer.testing import CliRunner

    from evosoko.cli import app

    _, runs, _, _ = folders
    result = CliRunner().invoke(app, ["plot", *map(str, runs)])
    assert result.exit_code == 0, result.output
    wrote = [line.split(" ", 1)[1] for line in result.stdout.splitlines()]
    assert len(wrote) == 3 and len({Path(p).parent for p in wrote}) == 1
    svg = CliRunner().invoke(
        app, ["plot", *map(str, runs), "--svg", "--out", str(runs[0].parent / "svg")]
    )
    assert svg.exit_code == 0 and (runs[0].parent / "svg" / "fitness_band.svg").is_file()


@pytest.mark.parametrize("where", ["under-a-file", "read-only"])
def test_plot_out_to_an_unwritable_place_is_one_error_line(folders, tmp_path, where):
    import os

    from typer.testing import CliRunner

    from evosoko.cli import app

    _, runs, compare, _ = folders
    if where == "under-a-file":
        (tmp_path / "file").write_text("not a folder")
        out = tmp_path / "file" / "plots"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only folders")
        (tmp_path / "locked").mkdir(mode=0o500)
        out = tmp_path / "locked" / "plots"
    for targets in (runs, [compare]):
        result = CliRunner().invoke(app, ["plot", *map(str, targets), "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert (
            "Traceback" not in result.output
            and result.exception is None
            or isinstance(result.exception, SystemExit)
        )
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(f"error: {out}") and "cannot create the output folder" in line


def test_a_malformed_metrics_file_is_one_error_naming_its_line(tmp_path, folders):
    import shutil

    _, runs, _, _ = folders
    broken = tmp_path / "broken-run"
    shutil.copytree(runs[0], broken)
    metrics = broken / "metrics.csv"
    lines = metrics.read_text().splitlines()
    lines[3] = lines[3].replace(lines[3].split(",")[4], "oops", 1)
    metrics.write_text("\n".join(lines) + "\n")
    with pytest.raises(EvosokoError) as error:
        plot_folders([broken], out=tmp_path / "out")
    assert error.value.path == str(metrics) and error.value.line == 4


def test_bad_format_is_refused(folders):
    with pytest.raises(EvosokoError, match="unknown plot format"):
        plot_folders([folders[1][0]], fmt="jpg")


def test_lengths_with_no_solved_run_say_so(tmp_path):
    from evosoko.experiment.plots.compare import _lengths

    unsolved = [{"solved": False, "moves": None, "pushes": None}]
    path = _lengths({"push-fess-bi": unsolved, "ga": unsolved}, tmp_path, "svg")
    assert path.read_text().count("no run solved") == 2
