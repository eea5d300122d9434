"""The digit grid and numeric matrix formats (evosoko.sokoban.grids via parse_levels)."""

from __future__ import annotations

import re

import pytest

from evosoko.errors import LevelFormatError
from evosoko.sokoban.formats import parse_levels
from evosoko.sokoban.grids import is_grid_line, is_num_line

GRID = "000000\n011b10\n016510\n014210\n000000\n"
GRID_ROWS = ["######", "#  + #", "# *$ #", "# $. #", "######"]


def test_grid_flags_and_overlays():
    (level,) = parse_levels(GRID, "g.grid")
    assert level.rows() == GRID_ROWS


@pytest.mark.parametrize(
    "middle, below, cell",
    [
        ("0124110", "0181110", "."),
        ("0134110", "0191110", "."),
        ("0164210", "0181110", "*"),
        ("0174310", "0191110", "*"),
        ("01a4110", "0111110", "+"),
        ("01B4110", "0111110", "+"),
    ],
)
def test_grid_overlays_with_and_without_the_floor_flag(middle, below, cell):
    (level,) = parse_levels(f"0000000\n{middle}\n{below}\n0000000\n", "g.grid")
    assert level.rows()[1][2] == cell


def test_several_grid_levels_with_comment_titles():
    text = f"; one\n{GRID}\n; two\n\n{GRID}"
    assert [level.title for level in parse_levels(text, "g.grid")] == ["one", "two"]


@pytest.mark.parametrize(
    "board, line, words",
    [
        ("000000\n011b10\n016510\n014211\n000000\n", 4, "outermost ring"),
        ("000000\n011b10\n016510\n014210\n000100\n", 5, "outermost ring"),
        ("000000\n01c010\n012010\n000000\n", 2, "box and player on one cell at column 3 ('c')"),
        ("000000\n  01c010\n012010\n000000\n", 2, "box and player on one cell at column 5 ('c')"),
        ("000000\n011b10\n01651\n014210\n000000\n", 3, "this row has 5 cells but the first has 6"),
        ("000000\n011b10\n0165x0\n014210\n000000\n", 3, "unknown character 'x' in column 5"),
    ],
)
def test_grid_errors_name_the_line(board, line, words):
    with pytest.raises(LevelFormatError, match=re.escape(words)) as error:
        parse_levels("; title\n" + board, "g.grid")
    assert error.value.path == "g.grid"
    assert error.value.line == line + 1


NUM = "1111100000\n1423100000\n1111100000\n0000000000\n"


def test_num_codes_and_padding_outside_the_walls():
    (level,) = parse_levels(NUM, "n.num")
    assert level.rows() == ["#####", "#@$.#", "#####"]
    (level,) = parse_levels("1111111\n1453001\n1000021\n1111111\n", "n.num")
    assert level.rows() == ["#######", "#@*.  #", "#    $#", "#######"]
    (level,) = parse_levels("11111\n16201\n11111\n", "n.num")
    assert level.rows() == ["#####", "#+$ #", "#####"]


def test_num_padding_that_the_player_can_reach_is_an_open_level():
    with pytest.raises(LevelFormatError, match="walk off the board") as error:
        parse_levels("1111100000\n1423000000\n1111100000\n", "n.num")
    assert error.value.line == 2


@pytest.mark.parametrize("code", ["7", "8", "9"])
def test_num_unknown_code(code):
    with pytest.raises(LevelFormatError, match=f"unknown cell code '{code}' in column 3") as error:
        parse_levels(f"11111\n14{code}31\n11111\n", "n.num")
    assert error.value.line == 2


def test_several_num_levels_separated_by_blank_lines():
    levels = parse_levels(f"{NUM}\n\n; second\n{NUM}", "n.num")
    assert [(level.origin.index, level.origin.line, level.title) for level in levels] == [
        (1, 1, None),
        (2, 8, "second"),
    ]


def test_board_line_tests():
    assert is_grid_line("0000") and is_grid_line("  08a40")
    assert not is_grid_line("Author: X") and not is_grid_line("a000") and not is_grid_line("0 grid")
    assert is_num_line("1111") and not is_num_line("; 1") and not is_num_line("")
