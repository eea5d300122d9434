"""XSB board rows, plain and run-length encoded (evosoko.sokoban.xsb via parse_levels)."""

from __future__ import annotations

import re

import pytest

from evosoko.errors import LevelFormatError
from evosoko.sokoban.formats import parse_levels
from evosoko.sokoban.xsb import is_board_line

ROOM = ["#######", "#     #", "# @$. #", "#     #", "#######"]


def rows_of(text: str, path: str = "t.xsb") -> list[list[str]]:
    return [level.rows() for level in parse_levels(text, path)]


@pytest.mark.parametrize(
    "line",
    ["####", "   #@$.#", "-###-", "_#_", "3#|#@$.#|3#", "2(#-)#", "(#)", "#@$x.#", "....#", "+"],
)
def test_board_lines(line):
    assert is_board_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "Author: X",
        "Copyright 2000 someone",
        "- a remark",
        "12",
        "2 boxes",
        "3. Push the box",
        "; #### comment",
        "'Duh!'",
        "(see above)",
        "Title: ####",
    ],
)
def test_text_lines(line):
    assert not is_board_line(line)


@pytest.mark.parametrize("floor", ["-", "_"])
def test_dash_and_underscore_are_floor(floor):
    text = "\n".join(row.replace(" ", floor) for row in ROOM)
    assert rows_of(text) == [ROOM]


def test_ragged_rows_and_leading_spaces_outside_the_board():
    text = "    #####\n    #   #\n  ###$  #\n  #  @ .#\n  ########\n"
    assert rows_of(text) == [["  #####", "  #   #", "###$  #", "#  @ .#", "########"]]


def test_a_line_of_spaces_separates_levels():
    text = "#####\n#@$.#\n#####\n   \n######\n#@*.$#\n######\n"
    assert len(rows_of(text)) == 2


def test_a_line_of_floor_only_is_a_separator_not_a_level():
    text = "#####\n#@$.#\n#####\n\n----------\n\n#####\n#.$@#\n#####\n"
    levels = parse_levels(text, "t.xsb")
    assert [level.origin.index for level in levels] == [1, 2]
    assert levels[1].origin.line == 7


def test_unknown_character_inside_a_board_line_names_line_and_column():
    text = "; x\n#####\n#@$x.#\n#####\n"
    with pytest.raises(LevelFormatError) as error:
        parse_levels(text, "bad.xsb")
    assert error.value.path == "bad.xsb"
    assert error.value.line == 3
    assert "unknown character 'x' in column 4" in error.value.message
    assert str(error.value).startswith("bad.xsb:3: level 1 (x):")


def test_a_tab_in_a_board_is_reported():
    with pytest.raises(LevelFormatError, match=r"'\\t' in column 1") as error:
        parse_levels("#####\n\t#@$.#\n#####\n", "tab.xsb")
    assert error.value.line == 2


# ---- run-length encoded boards -----------------------------------------------------------------
def test_one_line_run_length_board():
    (level,) = parse_levels("; r\n7#|#5-#|#-@$.-#|#5-#|7#\n", "r.xsb")
    assert level.rows() == ROOM
    assert level.title == "r"
    assert level.origin.line == 2


def test_run_length_board_over_several_lines_and_mixed_with_plain_rows():
    text = "7#\n#5-#|#-@$.-#\n#5 #\n#######\n"
    (level,) = parse_levels(text, "r.xsb")
    assert level.rows() == ROOM


def test_nested_groups():
    # 2(3(#-)#) is "#-#-#-#" twice: a 14-wide row of alternating walls
    text = "14#\n#12-#\n#@$.9-#\n2(3(#-)#)\n#12-#\n14#\n"
    (level,) = parse_levels(text, "r.xsb")
    assert level.rows()[3] == "# # # ## # # #"


@pytest.mark.parametrize(
    "line, words",
    [
        ("7#|#5-#|#-@$.-#|#5-#|7#2", "the count 2 at the end has nothing to repeat"),
        ("7#|#5-#|#-@$.-#|#5-#|2(7#", "unbalanced '('"),
        ("7#|#5-#|#-@$.-#)|#5-#|7#", "unbalanced ')'"),
        ("7#|#5-#|#-@$.-#|#5-#|7#(3)", "the count before ')'"),
    ],
)
def test_bad_run_length_encoding_names_file_line_and_column(line, words):
    with pytest.raises(LevelFormatError, match=re.escape(words)) as error:
        parse_levels(f"; t\n\n{line}\n", "r.xsb")
    assert error.value.path == "r.xsb"
    assert error.value.line == 3
    assert "column" in error.value.message
