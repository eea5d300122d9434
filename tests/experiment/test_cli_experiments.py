"""The compare, sweep and plot commands: files written, summaries printed, bad input exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from evosoko.cli import app

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"


def invoke(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


COMPARE = f"""
[compare]
name = "tiny"
levels = "{SEEDS}"
select = ["seed000-example"]
seeds = [1]

[compare.budget]
seconds = 5
evaluations = 2000
nodes = 20000

[[solver]]
kind = "ga"
name = "ga-pushes"
set = ["ga.population=20", "ga.offspring=20"]

[[solver]]
kind = "search"
algorithm = "push-astar"
"""

SWEEP = f"""
[sweep]
name = "mini"
method = "grid"
levels = "{SEEDS}"
select = ["seed000-example"]
seeds = [1]
set = ["ga.population=20", "ga.offspring=20"]

[sweep.budget]
evaluations = 400
seconds = 10

[parameters]
"ga.tournament_size" = [2, 3]
"""


def test_compare_prints_its_summary_and_plot_redraws_it(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", write(tmp_path, "c.toml", COMPARE), "--out", out, "--quiet", "--json"
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary and (out / "results.csv").exists() and (out / "summary.md").exists()
    again = invoke("compare", tmp_path / "c.toml", "--out", out)
    assert again.exit_code == 0 and "push-astar" in again.stdout  # resumed: nothing re-run
    plotted = invoke("plot", out, "--out", tmp_path / "plots")
    assert plotted.exit_code == 0 and "wrote" in plotted.stdout
    assert list((tmp_path / "plots").rglob("*.png"))


def test_sweep_writes_index_and_best_config(tmp_path):
    out = tmp_path / "sw"
    result = invoke("sweep", write(tmp_path, "s.toml", SWEEP), "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert (out / "index.csv").exists() and (out / "best.toml").exists()


def test_compare_config_typo_is_one_error_line(tmp_path):
    path = write(tmp_path, "bad.toml", COMPARE.replace("seeds = [1]", "sedes = [1]"))
    result = invoke("compare", path)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}:") and "sedes" in lines[0]


def test_plot_of_a_folder_that_is_not_an_output_is_an_error(tmp_path):
    result = invoke("plot", tmp_path)
    assert result.exit_code == 2 and result.stderr.startswith("error: ")
