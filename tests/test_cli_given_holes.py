"""The given-holes variant through the command line and the bundled collections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution
from tests.sokoban.given_holes_levels import SWAP, SWAP_SOLUTION

LEVELS = Path(__file__).resolve().parents[1] / "levels"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def swap_file(tmp_path):
    path = tmp_path / "swap.xsb"
    path.write_text(SWAP)
    return path


@pytest.mark.parametrize(
    "name, count",
    [("given-holes.xsb", 20), ("given-holes-random.xsb", 8), ("seed002-given-holes.xsb", 2)],
)
def test_bundled_given_holes_levels_carry_solutions_that_verify(name, count):
    levels = read_levels(LEVELS / name, strict=True)
    assert len(levels) == count
    for level in levels:
        assert level.pairing is not None
        notes = dict(level.notes)
        check = verify_solution(level, notes["Solution"])
        assert check.valid and check.solved and check.pushes == int(notes["Pushes"])


def test_levels_json_names_the_rules(swap_file):
    result = invoke("levels", swap_file, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["rules"] == "given-holes"
    table = invoke("levels", swap_file)
    assert "given-holes" in table.stdout


def test_verify_replays_under_the_variant(swap_file):
    good = invoke("verify", swap_file, "-l", "1", "--solution", SWAP_SOLUTION, "--json")
    assert good.exit_code == 0 and json.loads(good.stdout)["solved"]
    short = invoke("verify", swap_file, "-l", "1", "--solution", SWAP_SOLUTION[:-1])
    assert short.exit_code == 1
    assert "before every box has vanished into its hole" in short.stdout


def test_show_draws_png_and_gif_of_the_variant(swap_file, tmp_path):
    png, gif = tmp_path / "end.png", tmp_path / "swap.gif"
    result = invoke(
        "show", swap_file, "-l", "1", "--solution", SWAP_SOLUTION, "--png", png, "--gif", gif
    )
    assert result.exit_code == 0, result.stdout
    assert "Pairs 1-2 2-1" in result.stdout and "solved" in result.stdout
    with Image.open(gif) as image:
        assert image.n_frames == len(SWAP_SOLUTION) + 1


def test_solve_prints_a_push_optimal_solution(swap_file):
    result = invoke("solve", swap_file, "--json")
    assert result.exit_code == 0, result.stdout
    record = json.loads(result.stdout.splitlines()[0])
    assert record["status"] == "solved" and record["pushes"] == 9


def test_a_bad_pairing_is_one_error_line_with_file_and_line(tmp_path):
    path = tmp_path / "bad.xsb"
    path.write_text(SWAP.replace("Pairs: 1-2 2-1", "Pairs: 1-2 2-2"))
    result = invoke("levels", path)
    assert result.exit_code == 2
    assert f"error: {path}:9: level 1 (swap): Pairs: hole 2 is given to two boxes" in (
        result.stderr if result.stderr_bytes is not None else result.output
    )
