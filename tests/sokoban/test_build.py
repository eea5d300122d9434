"""Validation of boards, as a parser reports it: message, file and line (evosoko.sokoban.build)."""

from __future__ import annotations

import warnings

import pytest

from evosoko.errors import EvosokoWarning, LevelFormatError
from evosoko.sokoban.formats import parse_levels


def rejection(text: str) -> LevelFormatError:
    with pytest.raises(LevelFormatError) as error:
        parse_levels(text, "v.xsb", strict=True)
    assert error.value.path == "v.xsb"
    return error.value


@pytest.mark.parametrize(
    "board, line, words",
    [
        # the first board line is line 3, after a title and a blank line
        ("#####\n# $.#\n#####", 3, "no player"),
        ("######\n#@$.@#\n######", 4, "2 players"),
        ("#####\n#@  #\n#####", 3, "no box"),
        ("######\n#@$$.#\n######", 3, "2 boxes but 1 goals"),
        ("#####\n#@$.#\n## ##", 5, "walk off the board at row 3, column 3"),
        ("########\n#@$.#$ #\n#  .# ##\n########", 4, "the box at row 2, column 6 is out of"),
        ("########\n#@$$#. #\n#  .# ##\n########", 4, "the goal at row 2, column 6 is out of"),
        ("#####\n#@$.#\n#~###", 5, "unknown character '~' in column 2"),
    ],
)
def test_each_invalid_board_is_named_by_file_level_and_line(board, line, words):
    error = rejection(f"; the title\n\n{board}\n")
    assert words in error.message
    assert error.message.startswith("level 1 (the title): ")
    assert error.line == line
    assert str(error).startswith(f"v.xsb:{line}: level 1 (the title): ")


def test_the_second_level_of_a_file_is_named_by_its_index():
    error = rejection("#####\n#@$.#\n#####\n\n#####\n#@$$#\n#####\n")
    assert error.message.startswith("level 2: ")
    assert error.line == 5


def test_a_solved_level_is_a_warning_naming_file_and_line():
    with pytest.warns(EvosokoWarning, match="already on a goal") as record:
        (level,) = parse_levels("; done\n#####\n#@* #\n#####\n", "v.xsb")
    assert (record[0].message.path, record[0].message.line) == ("v.xsb", 2)
    assert level.box_count == 1


def test_a_box_on_a_goal_walled_in_out_of_reach_is_part_of_the_wall():
    # Microban 155 decorates its walls with such boxes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (level,) = parse_levels("#######\n#*#@$.#\n#######\n", "v.xsb")
    assert level.rows() == ["#######", "###@$.#", "#######"]
    assert level.box_count == 1


def test_a_level_whose_every_box_is_walled_in_is_rejected():
    error = rejection("######\n#*#@ #\n######\n")
    assert "no box the player can reach" in error.message
