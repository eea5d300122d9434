"""Titles and notes are plain text everywhere: no markup, no control characters (issue 17).

A title ``[/r/sokoban]`` crashed ``levels``, ``show``, ``verify`` and the ``solve`` table (a rich
markup error), ``[/]`` crashed a run in a terminal, ``[bold red]`` styled the output and escape
sequences reached the terminal raw (retitling the window, clearing the screen).
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.experiment.run.progress import RichProgress, describe_result
from evosoko.text import plain, plain_text

HOSTILE_TITLES = [
    "[/r/sokoban]",
    "[/]",
    "[bold red]loud[/bold red]",
    "\x1b]0;pwned\x07",
    "\x1b[2Jcleared",
    "tab\there",
    "right\u202eto left",
    ":smile: [link=https://x]click[/link]",
]
BOARD = "#####\n#@$.#\n#####\n"


def test_plain_escapes_control_characters_and_keeps_the_rest():
    assert plain("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert plain("a\nb\tc\r") == "a\\nb\\tc\\r"
    assert plain("right\u202eleft") == "right\\u202eleft"
    assert plain("[bold]Ünïcode ☃ 箱[/]") == "[bold]Ünïcode ☃ 箱[/]"
    assert plain(42) == "42"
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor")
    console.print(plain_text("[bold red]x[/bold red] :smile:"))
    assert "[bold red]x[/bold red] :smile:" in console.file.getvalue()


def _level_file(tmp_path, title):
    path = tmp_path / "hostile.xsb"
    path.write_text(f"; {title}\n{BOARD}", encoding="utf-8")
    return path


def _invoke(*args, terminal=True):
    env = {"FORCE_COLOR": "1", "TERM": "xterm-256color"} if terminal else {"NO_COLOR": "1"}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def _assert_safe(result, title):
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    text = result.stdout + (result.stderr if result.stderr_bytes is not None else "")
    for forbidden in ("\x1b]", "\x1b[2J", "\x07", "\u202e"):
        assert forbidden not in text
    assert plain(title).replace("\\", "") in text.replace("\\", "").replace("\n", "")


@pytest.mark.parametrize("title", HOSTILE_TITLES)
@pytest.mark.parametrize(
    "command",
    [
        ["levels"],
        ["show", "-l", "1"],
        ["verify", "-l", "1", "--solution", "R"],
        ["verify", "-l", "1", "--solution", "L"],  # FAILED line quotes the title
        ["solve", "-l", "1", "--algo", "push-astar"],
    ],
    ids=["levels", "show", "verify", "verify-failed", "solve"],
)
def test_commands_print_hostile_titles_literally(tmp_path, title, command):
    path = _level_file(tmp_path, title)
    result = _invoke(command[0], path, *command[1:])
    assert result.exit_code in (0, 1), result.output
    _assert_safe(result, title)


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_errors_quoting_a_title_are_plain(tmp_path, title):
    path = tmp_path / "broken.xsb"
    path.write_text(f"; {title}\n#####\n#@$ #\n#####\n", encoding="utf-8")
    result = _invoke("levels", path)
    assert result.exit_code == 2
    _assert_safe(result, title)
    assert "boxes but 0 goals" in result.output


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_json_output_keeps_the_title_exactly(tmp_path, title):
    path = _level_file(tmp_path, title)
    result = _invoke("levels", path, "--json")
    assert json.loads(result.stdout)["level"] == title.strip()


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_run_progress_bars_show_hostile_titles(tmp_path, title):
    from evosoko.budget import Budget
    from evosoko.result import Result
    from evosoko.sokoban.formats import read_levels

    level = read_levels(_level_file(tmp_path, title))[0]
    stream = io.StringIO()
    progress = RichProgress(Console(file=stream, force_terminal=True, width=200))
    progress.start(1, 0, Budget(generations=5))
    progress.on_level_start(level)
    result = Result(
        level_name=level.name,
        solver="ga",
        status="budget",
        exhausted="generations",
        solution=None,
        moves=None,
        pushes=None,
        cost=100,
        unit="evaluations",
        seconds=0.5,
        index=1,
        generations=5,
        fitness={"distance": 3.0},
    )
    progress.on_level_end(result)
    progress.stop()
    output = stream.getvalue()
    assert "\x1b]0;" not in output and "\x1b[2J" not in output
    assert plain(describe_result(result)) in output
