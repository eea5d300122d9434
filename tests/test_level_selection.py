"""Choosing levels by number on a collection whose titles are numbers that differ from their
positions (issue 24): its 5th level is titled "2", so ``2`` names two levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app

ROOM = "#######\n#@ $ .#\n#######\n"  # solved by rRR: 3 moves
LONGER = "########\n#@ $  .#\n########\n"  # rRRR: 4 moves


def collection() -> str:
    """Five levels titled 'a', (none), 'c', 'd' and '2'."""
    return f"; a\n{ROOM}\n{ROOM}\n; c\n{ROOM}\n; d\n{ROOM}\n; 2\n{LONGER}\n"


@pytest.fixture
def levels_file(tmp_path: Path) -> Path:
    path = tmp_path / "renumbered.xsb"
    path.write_text(collection())
    return path


def invoke(*args) -> object:
    return CliRunner().invoke(app, [str(arg) for arg in args])


def solved_index(result) -> int:
    (line,) = result.stdout.splitlines()
    return json.loads(line)["index"]


AMBIGUOUS = (
    "level 2 is ambiguous: index 2 is level #2 (untitled), title '2' is level #5 '2'; "
    "write #2 for the index or title:2 for the title"
)


@pytest.mark.parametrize("spec", ["2", " 2"])
def test_a_number_that_is_an_index_and_another_title_is_refused_naming_both(levels_file, spec):
    result = invoke("solve", levels_file, "-l", spec, "--json")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {levels_file}: {AMBIGUOUS}"
    assert result.stdout == ""


def test_both_explicit_spellings_select_the_intended_level(levels_file):
    assert solved_index(invoke("solve", levels_file, "-l", "#2", "--json")) == 2
    assert solved_index(invoke("solve", levels_file, "-l", "title:2", "--json")) == 5


def test_every_command_refuses_the_ambiguous_number(levels_file):
    for args in (
        ("show", levels_file, "-l", "2"),
        ("verify", levels_file, "-l", "2", "--solution", "RR"),
        ("solve", levels_file, "-l", "c", "-l", "2"),
    ):
        result = invoke(*args)
        assert result.exit_code == 2, args
        assert AMBIGUOUS in result.stderr
    verified = invoke("verify", levels_file, "-l", "title:2", "--solution", "rRRR", "--json")
    assert verified.exit_code == 0 and json.loads(verified.stdout)["index"] == 5


def test_unambiguous_numbers_keep_working(levels_file):
    assert solved_index(invoke("solve", levels_file, "-l", "3", "--json")) == 3
    assert solved_index(invoke("solve", levels_file, "-l", "5", "--json")) == 5


def test_levels_json_says_how_to_select_each_level(levels_file):
    records = [
        json.loads(line) for line in invoke("levels", levels_file, "--json").stdout.splitlines()
    ]
    assert [(r["select_index"], r["select_title"]) for r in records] == [
        ("#1", "title:a"),
        ("#2", None),
        ("#3", "title:c"),
        ("#4", "title:d"),
        ("#5", "title:2"),
    ]


def test_run_select_of_an_ambiguous_number_is_a_config_error_at_its_line(levels_file, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text(
        "[run]\n"
        f'levels = "{levels_file}"\n'
        "select = [2]\n"
        "[run.budget]\n"
        "generations = 2\n"
        f'[output]\ndir = "{tmp_path / "runs"}"\n'
    )
    result = invoke("run", config)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {config}:3: run.select: {AMBIGUOUS} (in {levels_file})"
    )
    assert not (tmp_path / "runs").exists()  # nothing written
    overridden = invoke("run", config, "--set", 'run.select=["2"]')
    assert overridden.exit_code == 2
    assert overridden.stderr.strip().startswith("error: --set: run.select: level 2 is ambiguous")


def test_run_select_with_the_explicit_spellings_runs_the_intended_levels(levels_file, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text(
        "[run]\n"
        f'levels = "{levels_file}"\n'
        'select = ["#2", "title:2"]\n'
        "[run.budget]\n"
        "generations = 30\n"
        "seconds = 60\n"
        '[parallel]\nbackend = "serial"\n'
        f'[output]\ndir = "{tmp_path / "runs"}"\nplots = false\n'
    )
    result = invoke("run", config, "--json", "--quiet")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [(level["index"], level["level"]) for level in summary["levels"]] == [(2, "2"), (5, "2")]
    assert [level["moves"] for level in summary["levels"]] == [3, 4]


def test_compare_select_of_an_ambiguous_number_is_a_config_error_at_its_line(levels_file, tmp_path):
    config = tmp_path / "cmp.toml"
    config.write_text(
        f'[compare]\nlevels = "{levels_file}"\nselect = ["a", 2]\n\n'
        '[[solver]]\nkind = "search"\nalgorithm = "bfs"\n'
    )
    result = invoke("compare", config, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {config}:3: compare.select: {AMBIGUOUS} (in {levels_file})"
    )
