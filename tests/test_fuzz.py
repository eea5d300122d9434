"""Fuzzing, kept as tests: mutated level files, solution strings and configurations go to the
parsers and the command line, and every one is either accepted or refused cleanly.

Bounded in count and time (a few hundred inputs each, seeds fixed); ``benchmarks/fuzz_campaign.py``
runs the same generators at the scale of the issue-17 campaign, the command line in subprocesses.
A crash here is any exception other than :class:`EvosokoError` (or, from the command line, an
exit status other than 0, 1 and 2, or a traceback).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.config import load_config
from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.sokoban.formats import FORMATS, format_levels, parse_levels, read_levels
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import verify_solution
from tests.fuzz_inputs import REPO, mutated_configs, mutated_level_files, mutated_solutions

LEVEL_INPUTS = 300
SOLUTION_INPUTS = 400
CONFIG_INPUTS = 120
CLI_INPUTS = 24


def _read_or_refuse(path):
    """The levels of ``path``, or None when refused with an EvosokoError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        try:
            return read_levels(path)
        except EvosokoError:
            return None


def test_mutated_level_files_are_read_or_refused(tmp_path):
    accepted = refused = 0
    for name, data in mutated_level_files(LEVEL_INPUTS, seed=17):
        path = tmp_path / name
        path.write_bytes(data)
        levels = _read_or_refuse(path)
        if levels is None:
            refused += 1
            continue
        accepted += 1
        try:
            written = format_levels(levels)
        except EvosokoError:  # a title or note the writer refuses (a control character)
            continue
        again = parse_levels(written, "written.xsb")  # what is read writes back
        assert [level.key() for level in again] == [level.key() for level in levels], name
    assert accepted > 20 and refused > 20  # the mutations reach both sides


_TEXT = st.text(st.sampled_from("#@+$*.-_ 0123456789()|;:\n\tTitle\x1b[]/\ufeff\r"), max_size=120)


@settings(max_examples=300)
@given(text=_TEXT, format=st.sampled_from(FORMATS))
def test_any_text_in_any_format_is_parsed_or_refused(text, format):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        try:
            parse_levels(text, "fuzz.txt", format)
        except EvosokoError as error:
            assert error.path == "fuzz.txt"


def test_mutated_solution_strings_never_fool_verify():
    from evosoko.sokoban.formats import select_levels

    seeds = REPO / "levels" / "seeds.xsb"
    levels = select_levels(read_levels(seeds), ["seed000-example", "seed000-case3"])
    checked = 0
    for level in levels:
        for text in mutated_solutions(SOLUTION_INPUTS // 2, seed=level.box_count):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EvosokoWarning)
                try:
                    result = verify_solution(level, text)
                except EvosokoError:
                    continue
            checked += 1
            if result.valid:  # replayed independently, step by step
                board = Board(level)
                for letter in result.lurd:
                    assert board.step("udlr".index(letter.lower()))
                    assert board.history[-1].pushed == letter.isupper()
                assert board.is_solved() == result.solved
    assert checked > 100


def test_mutated_configurations_load_or_are_refused(tmp_path):
    accepted = refused = 0
    for name, data in mutated_configs(CONFIG_INPUTS, seed=5):
        path = tmp_path / name
        path.write_bytes(data)
        try:
            load_config(path)
            accepted += 1
        except EvosokoError as error:
            assert error.path == str(path)
            refused += 1
    assert accepted > 5 and refused > 30


@pytest.mark.parametrize(
    "command",
    [
        ["levels"],
        ["levels", "--json"],
        ["show", "-l", "1"],
        ["verify", "-l", "1", "--solution", "R"],
        ["solve", "-l", "1", "--algo", "push-astar", "--node-limit", "300"],
        ["solve", "-l", "1", "--algo", "bfs", "--node-limit", "300"],
    ],
    ids=["levels", "levels-json", "show", "verify", "push-astar", "bfs"],
)
def test_the_command_line_survives_mutated_level_files(tmp_path, command):
    runner = CliRunner()
    seed = len(command) * 31 + len(command[0])
    for name, data in mutated_level_files(CLI_INPUTS, seed=seed, most_steps=2):
        path = tmp_path / name
        path.write_bytes(data)
        result = runner.invoke(app, [command[0], str(path), *command[1:]])
        assert result.exit_code in (0, 1, 2), (name, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            name,
            repr(result.exception),
        )
        if result.exit_code == 2:
            errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
            assert len(errors) == 1, (name, result.stderr)
