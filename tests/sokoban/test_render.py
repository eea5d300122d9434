"""Tests of board pictures: text, PNG and GIF, and the frame sampling of long solutions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from PIL import Image, ImageSequence

from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.sokoban import render
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.level import State

# Row 0 begins with two cells outside the walls; the box stands right of the player.
ROWS = [
    "  #####",
    "###   #",
    "#@$  .#",
    "#     #",
    "#######",
]
CELL = 20


@pytest.fixture(scope="module")
def level():
    return level_from_rows(ROWS, title="render")


def solved_state(level) -> State:
    """The box pushed three cells right onto the goal, the player behind it."""
    return State.of(level.cell(2, 4), [level.cell(2, 5)])


def pixel(image: Image.Image, row: float, column: float) -> tuple[int, int, int]:
    """RGB at the point ``(row, column)`` in cell units (0.5 = the centre of the first cell)."""
    return image.convert("RGB").getpixel((int(column * CELL), int(row * CELL)))


def assert_colour(actual, name: str) -> None:
    expected = np.array(to_rgb(render.COLOURS[name])) * 255
    assert np.abs(np.array(actual) - expected).max() <= 3, (actual, name)


# ---- text ---------------------------------------------------------------------------------------
def test_board_text_is_the_xsb_rows_of_the_state(level):
    assert render.board_text(level).splitlines() == [row.rstrip() for row in ROWS]
    assert render.board_text(level, solved_state(level)).splitlines()[2] == "#   @*#"


def test_styled_board_has_the_same_text_with_a_style_per_cell_kind(level):
    text = render.styled_board(level, solved_state(level))
    assert text.plain == render.board_text(level, solved_state(level))
    styles = {text.plain[span.start : span.end]: span.style for span in text.spans}
    assert styles["*"] == render.TEXT_STYLES["*"]
    assert styles["@"] == render.TEXT_STYLES["@"]
    assert styles["#"] == render.TEXT_STYLES["#"]
    assert render.TEXT_STYLES["*"] != render.TEXT_STYLES["$"]


# ---- PNG ----------------------------------------------------------------------------------------
def test_png_is_cell_pixels_per_cell_and_draws_each_kind_of_cell(level, tmp_path):
    path = tmp_path / "start.png"
    render.save_png(level, path, cell_pixels=CELL)
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (level.width * CELL, level.height * CELL)
        assert pixel(image, 0.5, 0.5) == (255, 255, 255)  # outside the walls: blank
        assert_colour(pixel(image, 0.5, 2.5), "wall")
        assert_colour(pixel(image, 3.1, 3.1), "floor")
        assert_colour(pixel(image, 2.5, 1.5), "player")
        assert_colour(pixel(image, 2.5, 2.5), "box")
        assert_colour(pixel(image, 2.5, 5.5), "goal")


def test_png_of_the_solved_state_colours_the_box_on_its_goal(level, tmp_path):
    path = tmp_path / "solved.png"
    render.save_png(level, path, solved_state(level), cell_pixels=CELL)
    with Image.open(path) as image:
        assert_colour(pixel(image, 2.5, 5.5), "box_on_goal")
        assert_colour(pixel(image, 2.5, 4.5), "player")
        assert_colour(pixel(image, 2.5, 2.5), "floor")


def test_an_unwritable_target_is_an_evosoko_error_naming_it(level, tmp_path):
    target = tmp_path / "missing-folder" / "board.png"
    with pytest.raises(EvosokoError, match="missing-folder/board.png") as caught:
        render.save_png(level, target)
    assert caught.value.path == str(target)


def test_a_failed_drawing_keeps_the_old_file_and_leaves_no_temporary(level, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    target = tmp_path / "board.png"
    target.write_bytes(b"old picture")

    def broken_savefig(self, path, **kwargs):
        with open(path, "wb") as file:
            file.write(b"half a picture")
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(Figure, "savefig", broken_savefig)
    with pytest.raises(RuntimeError, match="drawing failed"):
        render.save_png(level, target)
    assert target.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["board.png"]


# ---- GIF ----------------------------------------------------------------------------------------
def walk(level, cells: list[tuple[int, int]]) -> list[State]:
    """States of the player walking through ``cells`` with the box left where it is."""
    return [State.of(level.cell(r, c), level.start.boxes) for r, c in cells]


def test_gif_has_one_frame_per_state_and_holds_the_last(level, tmp_path):
    states = walk(level, [(2, 1), (3, 1), (3, 2), (3, 3), (3, 4)])
    path = tmp_path / "walk.gif"
    frames = render.save_gif(level, states, path, fps=5, cell_pixels=CELL)
    assert frames == len(states)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.size == (level.width * CELL, level.height * CELL)
        durations = [frame.info["duration"] for frame in ImageSequence.Iterator(image)]
        assert durations == [200] * 4 + [200 + render.FINAL_FRAME_HOLD_MS]
        image.seek(len(states) - 1)
        assert_colour(pixel(image, 3.5, 4.5), "player")


def test_a_long_solution_is_sampled_down_to_max_frames_ending_on_the_final_position(
    level, tmp_path
):
    there_and_back = [(3, c) for c in range(1, 6)] + [(3, c) for c in range(4, 0, -1)]
    states = walk(level, there_and_back * 6 + [(1, 5)])
    path = tmp_path / "long.gif"
    with pytest.warns(EvosokoWarning, match="100 frames per second is out of 1..50; using 50"):
        frames = render.save_gif(level, states, path, fps=100, max_frames=10, cell_pixels=CELL)
    assert 2 <= frames <= 10
    with Image.open(path) as image:
        assert image.n_frames == frames
        assert image.info["duration"] == 1000 // render.MAX_FPS
        image.seek(frames - 1)
        assert_colour(pixel(image, 1.5, 5.5), "player")


def test_every_gif_frame_has_the_colours_of_the_png_of_its_position(tmp_path):
    """A box reaches a goal only in later frames: its colour (box on goal) must be the PNG's in
    them, not the nearest colour of the first frame's palette (which has no box on a goal)."""
    from evosoko.sokoban.solutions import replay_states

    rows = ["#########", "#@$.  $.#", "#       #", "#########"]
    level = level_from_rows(rows, title="two goals")
    states = replay_states(level, "RdrrruR")  # the first box onto a goal, then the second
    assert all(box in level.goal_cells for box in states[-1].boxes)
    path = tmp_path / "solution.gif"
    assert render.save_gif(level, states, path, cell_pixels=CELL) == len(states)
    cells = [(r + 0.5, c + 0.5) for r in range(level.height) for c in range(level.width)]
    edges = [(r + 0.18, c + 0.5) for r in range(level.height) for c in range(level.width)]
    with Image.open(path) as gif:
        for number, frame in enumerate(ImageSequence.Iterator(gif)):
            png_path = tmp_path / f"frame-{number}.png"
            render.save_png(level, png_path, states[number], cell_pixels=CELL)
            with Image.open(png_path) as png:
                decoded, drawn = frame.convert("RGB"), png.convert("RGB")
                for row, column in cells + edges:
                    assert pixel(decoded, row, column) == pixel(drawn, row, column), (
                        number,
                        row,
                        column,
                    )
        gif.seek(len(states) - 1)
        box = level.position(states[-1].boxes[0])
        assert_colour(pixel(gif, box[0] + 0.5, box[1] + 0.5), "box_on_goal")


def test_a_gif_needs_states(level, tmp_path):
    with pytest.raises(ValueError):
        render.save_gif(level, [], tmp_path / "empty.gif")


@given(step_count=st.integers(0, 5000), max_frames=st.integers(2, 600))
def test_frame_steps_start_and_end_on_the_ends_within_the_cap(step_count, max_frames):
    steps = render.gif_frame_steps(step_count, max_frames)
    assert steps[0] == 0 and steps[-1] == step_count
    assert len(steps) <= max_frames
    gaps = np.diff(steps)
    assert (gaps > 0).all()
    if step_count + 1 <= max_frames:
        assert steps == list(range(step_count + 1))
    elif len(gaps):
        assert (gaps[:-1] == gaps[0]).all() and gaps[-1] <= gaps[0]


def test_frame_steps_need_room_for_two_frames():
    with pytest.raises(ValueError):
        render.gif_frame_steps(10, max_frames=1)
