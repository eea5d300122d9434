"""Tests of the foundation commands: levels, show, verify, and the error conventions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import DIRECTIONS
from evosoko.sokoban.rules import Board

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "levels" / "seeds.xsb"
INVALID_SEED = REPO.parent / "shared" / "levels" / "seeds" / "invalid-seed000-recognized.xsb"
EXAMPLE_SOLUTION = "LdrdL"  # seed000-example, found by breadth-first search


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_levels_json_lists_every_level_with_its_keys():
    result = invoke("levels", SEEDS, "--json")
    assert result.exit_code == 0
    records = json_lines(result.stdout)
    assert [r["level"] for r in records] == ["seed000-example", "seed000-case3", "seed004-blog"]
    assert [r["index"] for r in records] == [1, 2, 3]
    assert set(records[0]) == {
        "index",
        "level",
        "width",
        "height",
        "boxes",
        "rules",
        "select_index",
        "select_title",
    }
    assert (records[2]["select_index"], records[2]["select_title"]) == ("#3", "title:seed004-blog")
    assert (records[1]["width"], records[1]["height"], records[1]["boxes"]) == (8, 7, 5)


def test_levels_without_titles_are_named_by_index(tmp_path):
    path = tmp_path / "plain.xsb"
    path.write_text("#####\n#@$.#\n#####\n")
    (record,) = json_lines(invoke("levels", path, "--json").stdout)
    assert record["level"] == 1 and record["index"] == 1


def test_levels_table_names_the_titles():
    result = invoke("levels", SEEDS)
    assert result.exit_code == 0
    assert "seed000-case3" in result.stdout and "8×7" in result.stdout


def test_show_prints_the_board_by_title_and_by_index():
    by_title = invoke("show", SEEDS, "-l", "seed000-case3")
    by_index = invoke("show", SEEDS, "-l", "2")
    assert by_title.exit_code == by_index.exit_code == 0
    assert "#@ $.. #" in by_title.stdout
    assert by_title.stdout == by_index.stdout


def test_show_with_a_solution_draws_png_and_gif(tmp_path):
    png, gif = tmp_path / "board.png", tmp_path / "solution.gif"
    result = invoke(
        "show", SEEDS, "-l", "1", "--solution", EXAMPLE_SOLUTION, "--png", png, "--gif", gif
    )
    assert result.exit_code == 0, result.output
    assert "5 moves, 2 pushes: solved" in result.stdout
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size[0] > image.size[1] > 0
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames == len(EXAMPLE_SOLUTION) + 1


def test_gif_needs_a_solution(tmp_path):
    result = invoke("show", SEEDS, "-l", "1", "--gif", tmp_path / "x.gif")
    assert result.exit_code == 2 and "--solution" in result.stderr


def test_verify_accepts_a_correct_solution():
    result = invoke("verify", SEEDS, "-l", "seed000-example", "--solution", EXAMPLE_SOLUTION)
    assert result.exit_code == 0
    assert "OK" in result.stdout and "5 moves, 2 pushes" in result.stdout


def test_verify_json_reports_a_corrupted_solution_and_exits_1():
    corrupted = "LLdrdL"  # the doubled push drives the box into the wall
    result = invoke("verify", SEEDS, "-l", "1", "--solution", corrupted, "--json")
    assert result.exit_code == 1
    (record,) = json_lines(result.stdout)
    assert set(record) == {
        "index",
        "level",
        "kind",
        "valid",
        "solved",
        "moves",
        "pushes",
        "error",
    }
    assert record["kind"] == "solution"
    assert record["valid"] is False and record["solved"] is False
    assert record["error"].startswith("step 2 'L'") and record["moves"] == 1


def test_verify_reports_an_unfinished_solution_as_failed():
    result = invoke("verify", SEEDS, "-l", "1", "--solution", "Ldrd")
    assert result.exit_code == 1
    assert "FAILED" in result.stdout and "before every box is on a goal" in result.stdout


def test_verify_warns_about_case_and_still_accepts():
    result = invoke("verify", SEEDS, "-l", "1", "--solution", "ldrdl")
    assert result.exit_code == 0
    assert "warning:" in result.stderr and "wrong case" in result.stderr


def test_verify_reads_solutions_from_a_collection(tmp_path):
    solutions = tmp_path / "solutions.sok"
    board = "\n".join(line for line in SEEDS.read_text().splitlines()[4:11])
    solutions.write_text(f"{board}\nTitle: seed000-example\nSolution: {EXAMPLE_SOLUTION}\n")
    result = invoke("verify", SEEDS, "--solutions", solutions, "--json")
    assert result.exit_code == 0, result.output
    (record,) = json_lines(result.stdout)
    assert record["level"] == "seed000-example" and record["solved"] is True


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("levels", "missing.xsb"), "missing.xsb"),
        (("show", SEEDS, "-l", "no-such-title"), "no-such-title"),
        (("verify", SEEDS, "-l", "1", "--solution", "LdrdX"), "column 5"),
        (("verify", SEEDS, "-l", "1"), "--solution"),
        (("levels", SEEDS, "--format", "bogus"), "bogus"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(args, needle):
    result = invoke(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


def test_malformed_level_names_file_and_line(tmp_path):
    path = tmp_path / "bad.xsb"
    path.write_text("; one\n#####\n#@$.#\n#####\n\n; two\n#####\n#@$$#\n#.  #\n#####\n")
    result = invoke("levels", path, "--strict")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: {path}:7: level 2 (two): 2 boxes but 1 goals; they must be equal in number"
    )
    lenient = invoke("levels", path, "--json")  # without --strict: the valid level, a warning
    assert lenient.exit_code == 0
    assert [record["level"] for record in json_lines(lenient.stdout)] == ["one"]
    assert lenient.stderr.strip() == (
        f"warning: {path}:7: level 2 (two): 2 boxes but 1 goals; they must be equal in number "
        "(this level is left out)"
    )


def test_the_invalid_seed_board_is_rejected_by_the_console_script():
    if not INVALID_SEED.exists():
        pytest.skip("../shared/levels is absent")
    run = subprocess.run(
        [sys.executable, "-m", "evosoko.cli", "levels", str(INVALID_SEED)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert f"{INVALID_SEED}:4:" in run.stderr and "5 boxes but 2 goals" in run.stderr


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.startswith("evosoko ")


def shortest_solution(level) -> str:
    """A fewest-moves LURD solution by breadth-first search over positions, using only the rules."""
    start = Board(level)
    seen = {start.state()}
    queue = deque([(start.state(), "")])
    while queue:
        state, path = queue.popleft()
        for direction, letter in enumerate(DIRECTIONS):
            board = Board(level, state)
            boxes_before = board.occupied.copy()
            if not board.step(direction):
                continue
            pushed = not (board.occupied == boxes_before).all()
            next_path = path + (letter.upper() if pushed else letter)
            if board.is_solved():
                return next_path
            if board.state() not in seen:
                seen.add(board.state())
                queue.append((board.state(), next_path))
    raise AssertionError("the level has no solution")


def test_verify_accepts_a_solution_found_by_breadth_first_search():
    (level,) = select_levels(read_levels(SEEDS), ["seed000-example"])
    found = shortest_solution(level)
    result = invoke("verify", SEEDS, "-l", "seed000-example", "--solution", found, "--json")
    assert result.exit_code == 0, result.output
    (record,) = json_lines(result.stdout)
    assert record["valid"] and record["solved"] and record["moves"] == len(found)
    assert record["pushes"] == sum(letter.isupper() for letter in found)
    assert len(found) == len(EXAMPLE_SOLUTION)


def test_an_unwritable_png_is_one_error_line_naming_it(tmp_path):
    target = tmp_path / "no-such-folder" / "board.png"
    result = invoke("show", SEEDS, "-l", "1", "--png", target)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {target}: ")


def test_show_samples_a_gif_down_to_max_frames(tmp_path):
    gif = tmp_path / "short.gif"
    result = invoke(
        "show", SEEDS, "-l", "1", "--solution", EXAMPLE_SOLUTION, "--gif", gif, "--max-frames", "3"
    )
    assert result.exit_code == 0, result.output
    with Image.open(gif) as image:
        assert image.n_frames <= 3


def console_script() -> str:
    beside_python = Path(sys.executable).with_name("evosoko")
    found = str(beside_python) if beside_python.exists() else shutil.which("evosoko")
    if found is None:
        pytest.skip("the evosoko console script is not installed (pip install -e '.[dev]')")
    return found


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("verify", SEEDS, "-l", "1", "--solution", "LLdrdL"), 1, "FAILED"),
        (("show", SEEDS, "-l", "1", "--no-such-option"), 2, "No such option"),
        (("verify", SEEDS, "-l", "99", "--solution", "L"), 2, "error: "),
    ],
)
def test_the_console_script_exit_codes_and_no_traceback(args, code, needle):
    run = subprocess.run(
        [console_script(), *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert run.returncode == code
    assert "Traceback" not in run.stderr + run.stdout
    assert needle in run.stderr + run.stdout


@pytest.mark.parametrize("command", [(), ("learn",)])
def test_the_command_list_gives_each_command_its_summary_on_one_line(command):
    wide = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "300"})
    assert wide.exit_code == 0
    group = app
    for name in command:  # the sub-application listed under that name
        group = next(g.typer_instance for g in app.registered_groups if g.name == name)
    for info in group.registered_commands:
        summary = info.short_help
        assert summary and "\n" not in summary and "  " not in summary
        assert any(line.rstrip(" │").endswith(summary) for line in wide.stdout.splitlines())


def test_show_png_without_memory_for_the_picture_is_one_error_line(tmp_path, monkeypatch):
    """Issue 55, item 3: ``show --png`` of a 1000x1000 board under ``ulimit -v`` ended in a
    MemoryError traceback from sokoban/render.py."""
    from evosoko.sokoban import render

    def no_room(*_arguments, **_keywords):
        raise MemoryError

    monkeypatch.setattr(render, "_board_figure", no_room)
    board = tmp_path / "room.xsb"
    board.write_text("#####\n#@$.#\n#####\n")
    result = CliRunner().invoke(
        app, ["show", str(board), "-l", "1", "--png", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith("error: not enough memory to draw this 5x3 board")
    assert not (tmp_path / "x.png").exists()
