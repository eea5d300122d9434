"""Playing a given-holes level: vanishing, undo and redo, lost positions, hints."""

from __future__ import annotations

import pytest

from evosoko.errors import EvosokoWarning
from evosoko.play.game import Game, find_deadlock
from evosoko.play.hints import hint_from, plan_from
from evosoko.sokoban.formats import parse_levels
from evosoko.sokoban.holes.board import VANISHED, HolesState
from tests.sokoban.given_holes_levels import SWAP_SOLUTION, swap


def test_a_game_of_given_holes_vanishes_boxes_and_undo_brings_them_back():
    game = Game(swap())
    assert game.play(SWAP_SOLUTION) == len(SWAP_SOLUTION)
    assert game.solved and game.boxes_on_goals == 2
    assert game.state().by_box == (VANISHED, VANISHED)
    game.undo()
    assert not game.solved and game.boxes_on_goals == 1
    assert game.redo() and game.solved
    game.restart()
    assert game.state() == HolesState(swap().start.player, swap().start.boxes)


def test_boxes_frozen_on_other_boxes_holes_are_lost():
    # A 2x2 block of boxes, each in another box's hole: each could reach its own hole alone,
    # but none can ever move. Under the standard rules every box is on a goal: solved.
    board = "########\n#      #\n# **   #\n# **   #\n#@     #\n########\n"
    text = board + "Rules: given-holes\nPairs: 1-2 2-1 3-4 4-3\n"
    level = parse_levels(text, "block.xsb")[0]
    found = find_deadlock(level, HolesState(level.start.player, level.start.boxes))
    assert found is not None and "frozen" in found.reason
    assert set(found.cells) == set(level.start.boxes)
    with pytest.warns(EvosokoWarning, match="every box is already on a goal"):
        plain = parse_levels(board, "plain.xsb")[0]
    assert find_deadlock(plain, level.start) is None


def test_a_box_that_cannot_reach_its_own_hole_is_lost():
    level = swap()
    state = HolesState(
        level.cell(1, 1), (level.cell(1, 3), level.cell(2, 4))
    )  # box 1 on a wall row
    found = find_deadlock(level, state)
    assert found is not None and "its hole" in found.reason


def test_a_hint_from_a_position_after_a_vanishing():
    level = swap()
    game = Game(level)
    game.play("rDDldRRRulu")  # box 1 has vanished
    assert game.state().by_box[0] == VANISHED
    plan = plan_from(level, game.state())
    assert plan.status == "push" and plan.pushes == 4
    hint = hint_from(level, game.state(), plan)
    assert hint is not None and hint.box == game.state().by_box[1]


def test_the_terminal_board_numbers_pairs_and_drops_filled_holes():
    from evosoko.play.board import board_text

    level = swap()
    start = board_text(level, HolesState(level.start.player, level.start.boxes)).plain
    assert start.count("[1") == start.count("[2") == start.count("·1") == start.count("·2") == 1
    game = Game(level)
    game.play("rDDldRRRulu")  # box 1 vanished into hole 2
    after = board_text(level, game.state()).plain
    # holes are labelled by their box: box 1 and its hole (hole 2 of the note) are both gone
    assert "[1" not in after and "·1" not in after and "[2" in after and "·2" in after
