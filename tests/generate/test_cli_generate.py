"""``evosoko generate``: writes a loadable collection with solutions; bad arguments exit 2."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def run(*arguments: str):
    return runner.invoke(app, ["generate", *arguments])


def test_generate_writes_certified_levels_with_solutions_in_notes(tmp_path):
    out = tmp_path / "new.xsb"
    result = run(
        "--method",
        "reverse",
        "--size",
        "7x7",
        "--boxes",
        "2",
        "--count",
        "3",
        "--min-pushes",
        "2",
        "--max-pushes",
        "9",
        "--seed",
        "4",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    levels = read_levels(out)
    assert [level.title for level in levels] == ["reverse-01", "reverse-02", "reverse-03"]
    for level in levels:
        notes = dict(level.notes)
        check = verify_solution(level, notes["Solution"])
        assert check.solved and 2 <= check.pushes == int(notes["Pushes"]) <= 9
    assert "wrote 3 levels" in result.output


def test_append_adds_distinct_levels_with_their_own_titles(tmp_path):
    out = tmp_path / "set.xsb"
    common = ["--size", "7x7", "--boxes", "2", "--count", "2", "--seed", "1", "--out", str(out)]
    assert run("--method", "mask", "--title", "a", *common).exit_code == 0
    result = run("--method", "mask", "--title", "b", "--append", *common)
    assert result.exit_code == 0, result.output
    levels = read_levels(out)
    assert [level.title for level in levels] == ["a-01", "a-02", "b-01", "b-02"]
    assert len({tuple(level.rows()) for level in levels}) == 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--size", "8x"], "size '8x' is not of the form WIDTHxHEIGHT"),
        (["--boxes", "40"], "40 boxes do not fit a 8x8 room"),
        (["--method", "maze"], "unknown generation method 'maze'"),
        (["--min-pushes", "9", "--max-pushes", "3"], "--max-pushes 3 is below --min-pushes 9"),
    ],
)
def test_bad_arguments_print_one_error_line_and_exit_2(tmp_path, arguments, message):
    defaults = {"--method": "reverse", "--size": "8x8", "--boxes": "3", "--count": "2"}
    for flag, value in zip(arguments[::2], arguments[1::2]):
        defaults[flag] = value
    flat = [part for pair in defaults.items() for part in pair]
    result = run(*flat, "--out", str(tmp_path / "x.xsb"))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert not (tmp_path / "x.xsb").exists()


def test_an_impossible_band_is_a_failed_run_exit_1(tmp_path):
    out = tmp_path / "none.xsb"
    result = run(
        "--method",
        "mask",
        "--size",
        "6x6",
        "--boxes",
        "1",
        "--count",
        "2",
        "--min-pushes",
        "100",
        "--out",
        str(out),
    )
    assert result.exit_code == 1
    assert "error: generated only 0 of 2 levels in 1000 attempts" in result.output
    assert not out.exists()


def test_count_must_be_positive(tmp_path):
    result = run(
        "--method",
        "mask",
        "--size",
        "8x8",
        "--boxes",
        "1",
        "--count",
        "0",
        "--out",
        str(tmp_path / "x.xsb"),
    )
    assert result.exit_code == 2 and "error: --count must be at least 1, got 0" in result.output


@pytest.mark.slow
def test_documented_commands_rebuild_the_starter_set(tmp_path):
    readme = (REPO / "levels" / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^evosoko generate .*$", readme, flags=re.MULTILINE)
    assert len(commands) == 3
    out = tmp_path / "starter.xsb"
    for command in commands:
        arguments = shlex.split(command)[2:]
        arguments[arguments.index("--out") + 1] = str(out)
        result = run(*arguments)
        assert result.exit_code == 0, result.output
    assert out.read_bytes() == (REPO / "levels" / "starter.xsb").read_bytes()
