"""Reading boards from pictures: every tile set, scales, crops; bad pictures are errors."""

from __future__ import annotations

import random

import numpy as np
import pytest
from learn_levels import seed_level, starter_levels
from PIL import Image

from evosoko.errors import LevelFormatError
from evosoko.learn.data import random_positions, with_start
from evosoko.learn.screenshots import (
    consistent_labels,
    find_grid,
    import_picture,
    load_cell_classifier,
    makes_a_level,
    read_board,
)
from evosoko.learn.tilesets import DRAWN, TILE_SETS, draw_board, picture


def _boards(count: int, seed: int):
    levels = starter_levels()
    picker = random.Random(seed)
    rng = np.random.default_rng(seed)
    for number in range(count):
        level = levels[picker.randrange(len(levels))]
        states, _ = random_positions(level, picker, 1, 10)
        state = states[0] if states else level.start
        tile_set = TILE_SETS[number % len(TILE_SETS)]
        cell = 16 + (48 * number) // max(1, count - 1)
        crop = tuple(int(v) for v in rng.integers(0, 4, size=4))
        image = picture(draw_board(level, state, cell, tile_set), rng, 0, (0, 0, 0), crop, 2.0)
        yield tile_set, cell, image, with_start(level, state).rows()


def _misread(count: int, seed: int, with_size: bool) -> list[tuple[str, int]]:
    classifier = load_cell_classifier()
    misread = []
    for tile_set, cell, image, rows in _boards(count, seed):
        size = (max(map(len, rows)), len(rows)) if with_size else None
        if read_board(image, size, classifier).rows != rows:
            misread.append((tile_set, cell))
    return misread


@pytest.mark.parametrize("with_size", [False, True])
def test_rendered_boards_are_read_cell_for_cell(with_size):
    # one board per tile set (the renderer's four palettes, the two looks drawn for the test),
    # 16 to 64 pixels per cell, cropped by up to 3 pixels on each side, noisy
    assert _misread(len(TILE_SETS), 7, with_size) == []


@pytest.mark.slow
@pytest.mark.parametrize("with_size", [False, True])
def test_many_rendered_boards_are_read_cell_for_cell(with_size):
    assert _misread(36, 11, with_size) == []


def test_the_drawn_tile_sets_look_unlike_the_renderer():
    level = seed_level("seed000-case3")
    ours = draw_board(level, None, 20, "evosoko")
    for name in DRAWN:
        drawn = draw_board(level, None, 20, name)
        assert drawn.shape == ours.shape
        assert np.abs(drawn.astype(int) - ours.astype(int)).mean() > 30


def test_import_writes_a_valid_level(tmp_path):
    level = seed_level("seed000-case3")
    path = tmp_path / "board.png"
    Image.fromarray(draw_board(level, None, 30, "crates")).save(path)
    read, _ = import_picture(path, title="shot")
    assert read.rows() == level.rows()


def test_an_invalid_board_is_an_error_naming_what_was_read(tmp_path):
    level = seed_level("seed000-case3")
    image = draw_board(level, None, 30, "evosoko")
    image = image[:, : image.shape[1] // 2]  # half a board: boxes and goals no longer match
    path = tmp_path / "half.png"
    Image.fromarray(image).save(path)
    with pytest.raises(LevelFormatError, match="recognised") as error:
        import_picture(path)
    assert "half.png" in str(error.value)


@pytest.mark.parametrize("content", [b"", b"GIF89a broken"])
def test_a_file_that_is_no_picture_is_an_error(tmp_path, content):
    path = tmp_path / "x.png"
    path.write_bytes(content)
    with pytest.raises(LevelFormatError, match="x.png"):
        import_picture(path)


def _scores(*rows):
    """Summed log-probabilities of groups from rows of class probabilities."""
    return np.log(np.array(rows, dtype=float))


def test_groups_take_their_likeliest_classes_when_those_make_a_level():
    # outside, floor, wall, goal, box, box_on_goal, player, player_on_goal
    scores = _scores(
        [0.01, 0.9, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01],  # floor
        [0.01, 0.01, 0.9, 0.02, 0.02, 0.02, 0.01, 0.01],  # wall
        [0.01, 0.01, 0.01, 0.9, 0.03, 0.02, 0.01, 0.01],  # goal
        [0.01, 0.01, 0.01, 0.02, 0.9, 0.03, 0.01, 0.01],  # box
        [0.01, 0.01, 0.01, 0.02, 0.02, 0.01, 0.9, 0.02],  # player
    )
    sizes = np.array([10, 20, 2, 2, 1])
    assert consistent_labels(scores, sizes).tolist() == [1, 2, 3, 4, 6]


def test_a_group_misread_against_the_level_rules_is_relabelled_at_least_cost():
    # the lone player cell is read as a box on goal: no player, and boxes outnumber goals
    scores = _scores(
        [0.01, 0.9, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01],  # floor
        [0.01, 0.01, 0.9, 0.02, 0.02, 0.02, 0.01, 0.01],  # wall
        [0.01, 0.01, 0.01, 0.9, 0.03, 0.02, 0.01, 0.01],  # goal
        [0.01, 0.01, 0.01, 0.02, 0.9, 0.03, 0.01, 0.01],  # box
        [0.01, 0.01, 0.05, 0.02, 0.02, 0.5, 0.09, 0.3],  # player on goal, misread
    )
    sizes = np.array([10, 20, 2, 3, 1])
    assert makes_a_level(scores.argmax(axis=1), sizes) is False
    labels = consistent_labels(scores, sizes)
    assert labels.tolist() == [1, 2, 3, 4, 7] and makes_a_level(labels, sizes)
    sizes[3] = 2  # with as many boxes as goals, the player stands on floor
    assert consistent_labels(scores, sizes).tolist() == [1, 2, 3, 4, 6]
    # a tile that many cells show cannot be the player: it stays what it most likely is
    sizes[4] = 3
    assert makes_a_level(scores.argmax(axis=1), sizes) is False
    assert consistent_labels(scores, sizes).tolist() == scores.argmax(axis=1).tolist()


@pytest.mark.parametrize(
    ("title", "tile_set", "cell", "noise"),
    [
        ("seed000-case3", "crates", 19, 2.0),
        ("seed000-case3", "crates", 49, 2.0),
        ("seed000-example", "pastel", 47, 6.0),
        ("seed000-example", "evosoko", 57, 0.0),
    ],
)
def test_the_grid_is_the_tile_grid_not_a_multiple_or_a_brick_joint(title, tile_set, cell, noise):
    # brick walls repeat their joints at a third and a quarter of a cell; a grid of twice the
    # cell size repeats too: the reader's earlier grid finder fell for both on these boards
    level = seed_level(title)
    rng = np.random.default_rng(0)
    image = picture(draw_board(level, None, cell, tile_set), rng, noise=noise)
    image = image[3:, 1:-2]  # cropped: the edges are 3 and 1 pixels into the first cells
    grid = find_grid(image)
    assert abs(grid.cell - cell) < 0.6
    assert abs((grid.left + 1) % cell) < 1.6 or abs((grid.left + 1) % cell - cell) < 1.6
    assert abs((grid.top + 3) % cell) < 1.6 or abs((grid.top + 3) % cell - cell) < 1.6
    assert (grid.columns, grid.rows) == (level.width, level.height)
