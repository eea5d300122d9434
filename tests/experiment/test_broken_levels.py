"""A level collection with one invalid level: its valid levels are listed, solved and run, with
one warning line for the invalid one; selecting it, or --strict, is an error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app

# untitled levels; the 2nd has a typo ('x') on line 6
COLLECTION = """\
#######
#@ $ .#
#######

#######
#@ $x.#
#######

########
#@ $  .#
########
"""
WARNING = "6: level 2: unknown character 'x' in column 5 (this level is left out)"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    levels = tmp_path / "downloaded.xsb"
    levels.write_text(COLLECTION)
    config = tmp_path / "run.toml"
    config.write_text(
        f'[run]\nlevels = "{levels}"\n[run.budget]\ngenerations = 40\n'
        f'[parallel]\nbackend = "serial"\n[output]\ndir = "{tmp_path / "runs"}"\nplots = false\n'
    )
    return levels, config


def invoke(*args) -> object:
    return CliRunner().invoke(app, [str(arg) for arg in args])


def test_a_run_over_the_collection_runs_its_valid_levels(files):
    levels, config = files
    result = invoke("run", config, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"warning: {levels}:{WARNING}"
    summary = json.loads(result.stdout)
    assert [(entry["index"], entry["solved"]) for entry in summary["levels"]] == [
        (1, True),
        (3, True),
    ]
    # the solutions file keeps the file's positions: the invalid level holds its place
    solutions = Path(summary["run_dir"]) / "solutions.sok"
    check = invoke("verify", levels, "--solutions", solutions, "--json")
    assert check.exit_code == 0, check.output
    assert [json.loads(line)["index"] for line in check.stdout.splitlines()] == [1, 3]


def test_selecting_the_invalid_level_or_asking_for_strictness_is_an_error(files, tmp_path):
    levels, config = files
    for args in (("--set", "run.select=[2]"), ("--strict",)):
        result = invoke("run", config, *args)
        assert result.exit_code == 2, result.output
        assert f"error: {levels}:6: level 2: unknown character 'x'" in result.stderr
    assert not (tmp_path / "runs").exists()


def test_listing_and_solving_use_the_valid_levels(files):
    levels, _ = files
    listed = invoke("levels", levels, "--json")
    assert listed.exit_code == 0
    assert [json.loads(line)["index"] for line in listed.stdout.splitlines()] == [1, 3]
    assert listed.stderr.strip() == f"warning: {levels}:{WARNING}"
    solved = invoke("solve", levels, "--json")
    assert solved.exit_code == 0
    assert [json.loads(line)["status"] for line in solved.stdout.splitlines()] == ["solved"] * 2
    assert invoke("solve", levels, "-l", "2").exit_code == 2
    assert invoke("solve", levels, "--strict").exit_code == 2
