"""One board size limit for every format, checked before anything that large is allocated.

Reproductions of issue 17: a plain 2 MB board took 16 s and 1 GB to list (run-length boards
were capped, plain ones were not); an RLE count of 4,301 digits was a traceback.
"""

from __future__ import annotations

import tracemalloc

import pytest

from evosoko.errors import LevelFormatError
from evosoko.generate.stress import room_rows
from evosoko.sokoban import formats
from evosoko.sokoban.build import MAX_BOARD_CELLS, level_from_rows
from evosoko.sokoban.formats import parse_levels, read_levels

TOO_WIDE = MAX_BOARD_CELLS + 2  # one row of floor between two walls, one cell too many


def _one_row(width: int) -> str:
    return "#" * width + "\n#@" + " " * (width - 4) + "$.#\n" + "#" * width + "\n"


def _grid_row(width: int) -> str:
    return "0" * width + "\n0" + "8" + "1" * (width - 5) + "420\n" + "0" * width + "\n"


def _num_row(width: int) -> str:
    return "1" * width + "\n1" + "4" + "0" * (width - 5) + "231\n" + "1" * width + "\n"


@pytest.mark.parametrize(
    ("text", "format", "line"),
    [
        (_one_row(TOO_WIDE // 3 + 1), "xsb", 3),
        (f"{TOO_WIDE}#\n#@$.#\n", "xsb", 1),
        ("#" * 10 + "\n" + "#@$.#\n" * (MAX_BOARD_CELLS // 10), "xsb", MAX_BOARD_CELLS // 10 + 1),
        (_grid_row(TOO_WIDE // 3 + 1), "grid", 3),
        (_num_row(TOO_WIDE // 3 + 1), "num", 3),
    ],
    ids=["plain", "run-length", "tall", "grid", "num"],
)
def test_a_board_past_the_limit_is_one_error_naming_its_line(text, format, line):
    tracemalloc.start()
    try:
        with pytest.raises(LevelFormatError, match="the board is too large") as caught:
            parse_levels(text, "big.txt", format)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.line == line
    assert peak < 40 * len(text) + (64 << 20)  # never a cells-sized array of objects


def test_a_plain_two_megabyte_board_is_refused_quickly(tmp_path):
    path = tmp_path / "row.xsb"
    path.write_text(_one_row(2_000_002))
    with pytest.raises(LevelFormatError, match="2,000,002 columns x 1 rows"):
        read_levels(path)


def test_a_board_at_the_limit_is_read():
    side = 1000
    rows = room_rows(side, side, player=(1, 1), box=(500, 500), goal=(500, 501))
    level = level_from_rows(rows)
    assert level.cells == side * side == MAX_BOARD_CELLS
    assert level.floor.sum() == (side - 2) ** 2


def test_level_from_rows_checks_the_limit_before_building():
    with pytest.raises(LevelFormatError, match="too large"):
        level_from_rows(["#" * 2000] * 600)


@pytest.mark.parametrize("digits", [8, 4_301, 100_000])
def test_an_enormous_run_length_count_is_a_clean_error(digits):
    with pytest.raises(LevelFormatError, match="bad run-length encoding in column 1"):
        parse_levels("9" * digits + "#\n#@$.#\n")


def test_counts_with_leading_zeros_are_read_as_numbers():
    level = parse_levels("00000005#\n#@$.#\n5#\n")[0]
    assert level.width == 5


def test_a_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.xsb"
    path.write_text("#####\n#@$.#\n#####\n" * 10)
    monkeypatch.setattr(formats, "MAX_FILE_BYTES", 100)
    with pytest.raises(LevelFormatError, match="the file is too large: 180 bytes"):
        read_levels(path)


def test_binary_data_names_the_line_of_its_first_nul(tmp_path):
    path = tmp_path / "binary.xsb"
    path.write_bytes(b"#####\n#@$.#\n##\0##\n")
    with pytest.raises(LevelFormatError, match="NUL") as caught:
        read_levels(path)
    assert caught.value.line == 3


def test_pictures_of_large_boards_are_drawn_with_smaller_cells(tmp_path, monkeypatch):
    """A 500x500 board took 21 GB and 49 s to draw at 32 pixels per cell."""
    from PIL import Image

    from evosoko.sokoban import render
    from evosoko.sokoban.solutions import replay_states

    level = level_from_rows(room_rows(60, 50, player=(1, 1), box=(25, 30), goal=(25, 31)))
    monkeypatch.setattr(render, "MAX_IMAGE_PIXELS", 60 * 50 * 10 * 10)
    monkeypatch.setattr(render, "MAX_GIF_PIXELS", 60 * 50 * 10 * 10 * 5)
    assert render.fitted_cell_pixels(level, 32) == 10
    render.save_png(level, tmp_path / "board.png")
    with Image.open(tmp_path / "board.png") as image:
        assert image.size == (600, 500)
    states = replay_states(level, "d" * 23 + "r" * 28 + "R")
    frames = render.save_gif(level, states, tmp_path / "walk.gif", max_frames=400)
    assert frames == 5  # the frames the pixel budget holds
    assert (
        render.fitted_cell_pixels(
            level_from_rows(room_rows(1000, 1000, (1, 1), (5, 5), (5, 6))), 32
        )
        == 4
    )
