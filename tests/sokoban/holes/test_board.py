"""The given-holes rules variant: notation, validation, the rules, drawing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from PIL import Image

from evosoko.errors import LevelFormatError
from evosoko.sokoban import render
from evosoko.sokoban.formats import format_levels, parse_levels
from evosoko.sokoban.holes.board import (
    VANISHED,
    HolesBoard,
    HolesState,
    holes_rows,
    pairs_note,
)
from evosoko.sokoban.holes.render import FILLED_HOLE, pair_colour
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import replay_states, verify_solution
from tests.sokoban.given_holes_levels import SWAP, SWAP_SOLUTION, given_holes_levels, swap


# ---- the notation ------------------------------------------------------------------------------
def test_pairs_name_boxes_and_holes_in_reading_order():
    level = swap()
    # box 1 at row 3, column 3 belongs to hole 2 (row 5, column 6), box 2 to hole 1
    assert level.pairing.boxes == (level.cell(2, 2), level.cell(2, 4))
    assert level.pairing.holes == (level.cell(4, 5), level.cell(4, 2))
    assert level.pairing.goal_rows == (1, 0)


def test_a_level_without_rules_notes_is_standard():
    level = parse_levels("#####\n#@$.#\n#####\n", "plain.xsb")[0]
    assert level.pairing is None
    assert type(verify_solution(level, "R").final).__name__ == "State"


def test_given_holes_levels_are_written_back_unchanged():
    text = format_levels([swap()])
    again = format_levels(parse_levels(text, "again.xsb"))
    assert again == text
    assert "Rules: given-holes\nPairs: 1-2 2-1\n" in text
    assert parse_levels(text, "again.xsb")[0].pairing == swap().pairing


@settings(max_examples=60, deadline=None)
@given(given_holes_levels())
def test_round_trip_of_random_pairings(level):
    text = format_levels([level])
    read = parse_levels(text, "r.xsb")[0]
    assert read.pairing == level.pairing
    assert format_levels([read]) == text


@pytest.mark.parametrize(
    "notes, message, line",
    [
        ("Rules: given-holes\nPairs: 1-2 2-2", "hole 2 is given to two boxes (1 and 2)", 9),
        ("Rules: given-holes\nPairs: 1-2 1-1", "box 1 is given two holes (2 and 1)", 9),
        ("Rules: given-holes\nPairs: 1-2", "box 2 has no hole", 9),
        ("Rules: given-holes\nPairs: 1-2 3-1", "there is no box 3 (the board has 2)", 9),
        ("Rules: given-holes\nPairs: 1-3 2-1", "there is no hole 3 (the board has 2)", 9),
        ("Rules: given-holes\nPairs: 1-2 2:1", "'2:1' is not BOX-HOLE", 9),
        ("Rules: given-holes\nPairs: 1-1 2-2", None, None),
        ("Rules: given-holes", "needs a 'Pairs:' note", 8),
        ("Pairs: 1-2 2-1", "a 'Pairs:' note needs 'Rules: given-holes'", 8),
        ("Rules: sideways", "unknown rules 'sideways'", 8),
    ],
)
def test_bad_rules_notes_are_errors_at_their_line(notes, message, line):
    text = SWAP.split("Rules:")[0] + notes + "\n"
    if message is None:
        assert parse_levels(text, "ok.xsb", strict=True)[0].pairing.goal_rows == (0, 1)
        return
    with pytest.raises(LevelFormatError) as caught:
        parse_levels(text, "bad.xsb", strict=True)
    assert message in caught.value.message
    assert (caught.value.path, caught.value.line) == ("bad.xsb", line)


def test_a_box_may_not_start_in_its_own_hole():
    text = "#######\n#@* . #\n#  $  #\n#######\nRules: given-holes\nPairs: 1-1 2-2\n"
    with pytest.raises(LevelFormatError, match="box 1 starts in its own hole"):
        parse_levels(text, "own.xsb", strict=True)
    # in the other box's hole it is just standing on floor
    assert parse_levels(text.replace("1-1 2-2", "1-2 2-1"), "ok.xsb")[0].pairing is not None


def test_an_invalid_pairing_leaves_the_level_out_with_a_warning_naming_its_line():
    text = SWAP + "\n" + SWAP.replace("; swap", "; broken").replace("2-1", "2-2")
    with pytest.warns(UserWarning, match=r"swap.xsb:19: level 2 \(broken\): Pairs: hole 2"):
        levels = parse_levels(text, "swap.xsb")
    assert [level.title for level in levels] == ["swap"]


def test_pairs_note_is_the_canonical_spelling():
    assert pairs_note([1, 0, 2]) == "1-2 2-1 3-3"


# ---- the rules ---------------------------------------------------------------------------------
def test_a_box_pushed_into_another_box_hole_stays_on_it():
    level = swap()
    board = HolesBoard(level)
    for letter in "rrdRurDD":  # box 2 right to column 6, then down into box 1's hole: it stays
        assert board.step("udlr".index(letter.lower()))
    box2 = level.cell(4, 5)
    assert board.state().by_box == (level.cell(2, 2), box2)
    assert board.occupied[box2] and not board.is_solved()  # hole 1-of-box-1 is floor for box 2


def test_a_box_in_another_box_hole_stays_and_can_be_pushed_out_again():
    level = swap()
    check = verify_solution(level, "rDD")  # box 1 down into hole 1, which belongs to box 2
    assert check.valid and not check.solved
    assert check.final.by_box == (level.cell(4, 2), level.cell(2, 4))
    board = HolesBoard(level, check.final)
    board.player = level.cell(4, 1)
    assert board.step(3)  # pushed on, out of the wrong hole
    assert board.state().by_box[0] == level.cell(4, 3)


def test_vanishing_is_undone_by_undo():
    level = swap()
    board = HolesBoard(level)
    for letter in SWAP_SOLUTION:
        before = board.state()
        board.step("udlr".index(letter.lower()))
        if board.vanished_at[-1] >= 0:
            break
    assert board.vanished_at[-1] == 0 and board.state().by_box[0] == VANISHED
    assert not board.occupied[level.pairing.holes[0]]
    board.undo()
    assert board.state() == before
    assert board.occupied[before.by_box[0]] and board.owner[before.by_box[0]] == 0


@settings(max_examples=80, deadline=None)
@given(given_holes_levels(), st.lists(st.integers(0, 3), max_size=40))
def test_undo_restores_every_position_exactly(level, directions):
    board = HolesBoard(level)
    states = [board.state()]
    for direction in directions:
        if board.step(direction):
            states.append(board.state())
            assert board.state().remaining == int(board.occupied.sum())
    while board.history:
        board.undo()
        states.pop()
        assert board.state() == states[-1]
    assert board.state() == HolesState(level.start.player, level.start.boxes)


@settings(max_examples=80, deadline=None)
@given(given_holes_levels(), st.lists(st.integers(0, 3), max_size=40))
def test_without_vanishing_the_variant_moves_like_sokoban(level, directions):
    """Until the first box vanishes, every step is legal exactly when it is in Sokoban."""
    holes, plain = HolesBoard(level), Board(level)
    for direction in directions:
        legal = holes.step(direction)
        assert legal == plain.step(direction)
        if legal and holes.vanished_at[-1] >= 0:
            break
        assert holes.state().boxes == plain.state().boxes


def test_verify_replays_under_the_variant():
    level = swap()
    check = verify_solution(level, SWAP_SOLUTION)
    assert check.valid and check.solved and check.pushes == 9
    assert check.final.by_box == (VANISHED, VANISHED)
    # the same board read as plain Sokoban is not solved by it
    plain = parse_levels(SWAP.split("Rules:")[0], "plain.xsb")[0]
    assert not verify_solution(plain, SWAP_SOLUTION).solved


def test_filled_holes_print_as_floor():
    level = swap()
    final = replay_states(level, SWAP_SOLUTION)[-1]
    assert "." not in "".join(holes_rows(level, final))
    assert render.board_text(level, final).count(".") == 0


# ---- drawing -----------------------------------------------------------------------------------
CELL = 24


def _colour_near(image, cell_row, cell_column, colour, level, offset=(0.5, 0.5)):
    x = int((cell_column + offset[1]) * CELL)
    y = int((cell_row + offset[0]) * CELL)
    actual = np.array(image.convert("RGB").getpixel((x, y)))
    return np.abs(actual - np.array(to_rgb(colour)) * 255).max() <= 4


def test_png_draws_each_box_and_its_hole_in_the_pair_colour(tmp_path):
    level = swap()
    path = tmp_path / "start.png"
    render.save_png(level, path, cell_pixels=CELL)
    with Image.open(path) as image:
        # box 1 (row 3, column 3): its colour at a corner of the box, away from the number
        assert _colour_near(image, 2, 2, pair_colour(0), level, (0.25, 0.25))
        assert _colour_near(image, 2, 4, pair_colour(1), level, (0.25, 0.25))
        # hole 2 (box 1's) is a ring in box 1's colour: on the ring, left of the centre
        assert _colour_near(image, 4, 5, pair_colour(0), level, (0.5, 0.2))
        assert _colour_near(image, 4, 2, pair_colour(1), level, (0.5, 0.2))


def test_png_after_vanishing_has_no_box_and_a_filled_hole(tmp_path):
    level = swap()
    path = tmp_path / "vanished.png"
    state = verify_solution(level, "rDDldRRRulu").final
    assert state.by_box[0] == VANISHED
    render.save_png(level, path, state, cell_pixels=CELL)
    with Image.open(path) as image:
        assert _colour_near(image, 4, 5, FILLED_HOLE, level)
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=100000)}
        red = tuple(round(v * 255) for v in to_rgb(pair_colour(0)))
        assert red not in colours  # neither box 1 nor its ring is drawn any more


def test_gif_frames_show_the_box_vanish(tmp_path):
    level = swap()
    states = replay_states(level, SWAP_SOLUTION)
    path = tmp_path / "swap.gif"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frames = render.save_gif(level, states, path, cell_pixels=CELL)
    assert frames == len(states)
    with Image.open(path) as image:
        image.seek(0)
        assert _colour_near(image, 2, 2, pair_colour(0), level, (0.25, 0.25))
        image.seek(frames - 1)
        assert _colour_near(image, 4, 5, FILLED_HOLE, level)
        assert _colour_near(image, 4, 2, FILLED_HOLE, level)


def naive_step(walls_and_floor, boxes, holes, player, direction):
    """The rules written out on (row, column) pairs and a dict, independent of HolesBoard:
    returns (player, boxes) after one step, or None when the step is illegal."""
    dr, dc = ((-1, 0), (1, 0), (0, -1), (0, 1))[direction]
    target = (player[0] + dr, player[1] + dc)
    if target not in walls_and_floor:
        return None
    at = {cell: number for number, cell in boxes.items()}
    if target not in at:
        return target, boxes
    beyond = (target[0] + dr, target[1] + dc)
    if beyond not in walls_and_floor or beyond in at:
        return None
    moved = dict(boxes)
    number = at[target]
    if beyond == holes[number]:
        del moved[number]
    else:
        moved[number] = beyond
    return target, moved


@settings(max_examples=80, deadline=None)
@given(given_holes_levels(), st.lists(st.integers(0, 3), max_size=60), st.booleans())
def test_the_board_plays_like_a_naive_model_of_the_rules(level, tail, from_solution):
    """Random walks, or a push-optimal solution followed by random steps (so that boxes do
    vanish), played by the board and by the naive model step for step."""
    directions = list(tail)
    if from_solution:
        from evosoko.search import solve

        result = solve(level, "push-bfs", node_limit=5000)
        assume(result.solved)
        directions = ["udlr".index(letter.lower()) for letter in result.solution] + directions
    floor = {level.position(c) for c in range(level.cells) if level.floor[c]}
    holes = {n: level.position(h) for n, h in enumerate(level.pairing.holes)}
    boxes = {n: level.position(b) for n, b in enumerate(level.start.boxes)}
    player = level.position(level.start.player)
    board = HolesBoard(level)
    for direction in directions:
        expected = naive_step(floor, boxes, holes, player, direction)
        assert board.step(direction) == (expected is not None)
        if expected is not None:
            player, boxes = expected
        state = board.state()
        assert level.position(state.player) == player
        assert {n: level.position(c) for n, c in enumerate(state.by_box) if c != VANISHED} == boxes
        assert board.is_solved() == (not boxes)


def test_boxes_in_each_other_holes_are_not_called_solved():
    board = "########\n#@ ** .#\n#   $  #\n########\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "already solved" warning for the variant
        level = parse_levels(board + "Rules: given-holes\nPairs: 1-2 2-1 3-3\n", "x.xsb")[0]
    assert level.pairing is not None
    solved = "#######\n#@ ** #\n#######\n"
    with pytest.warns(UserWarning, match=r"x.xsb:1: level 1: every box is already on a goal"):
        parse_levels(solved, "x.xsb")
    # a level whose rules notes are wrong still says what its board says, then the error
    with (
        pytest.warns(UserWarning, match="every box is already on a goal"),
        pytest.raises(LevelFormatError, match="unknown rules 'sideways'"),
    ):
        parse_levels(solved + "Rules: sideways\n", "x.xsb", strict=True)
