"""The game state of ``evosoko play``: steps, undo and redo, restart, deadlock flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evosoko.play.game import Game
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.deadlocks import is_deadlocked
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.rules import Board

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
CASE3_SOLUTION = "dRRRurruullDDLdlluRRRuulDDuurrrdLulD"

OPEN_ROOM = level_from_rows(
    [
        "########",
        "#      #",
        "# @$  .#",
        "#      #",
        "########",
    ],
    title="open room",
)


@pytest.fixture(scope="module")
def case3():
    return next(level for level in read_levels(SEEDS) if level.title == "seed000-case3")


def snapshot(game: Game) -> tuple:
    return game.state(), game.moves, game.pushes, game.lurd(), game.boxes_on_goals


def test_a_solution_played_step_by_step_solves_and_counts(case3):
    game = Game(case3)
    for letter in CASE3_SOLUTION:
        assert game.step("udlr".index(letter.lower()))
    assert game.solved
    assert (game.moves, game.pushes) == (36, 13)
    assert game.lurd() == CASE3_SOLUTION


def test_undo_restores_the_exact_previous_state_after_every_step(case3):
    game = Game(case3)
    for letter in CASE3_SOLUTION:
        before = snapshot(game)
        game.step("udlr".index(letter.lower()))
        after = snapshot(game)
        assert game.undo()
        assert snapshot(game) == before
        assert game.redo()
        assert snapshot(game) == after


def test_an_illegal_step_changes_nothing(case3):
    game = Game(case3)
    before = snapshot(game)
    assert not game.step(0)  # a wall above the player
    assert snapshot(game) == before
    assert not game.can_undo


def test_undo_and_redo_many_steps_and_a_new_step_clears_redo(case3):
    game = Game(case3)
    game.play(CASE3_SOLUTION[:20])
    middle = snapshot(game)
    for _ in range(20):
        assert game.undo()
    assert not game.undo()
    assert game.state() == case3.start
    for _ in range(12):
        assert game.redo()
    game.step("udlr".index(CASE3_SOLUTION[12].lower()))  # the step redo would take
    assert game.can_redo  # taking the next undone step keeps the rest
    game.undo()
    game.step(0 if CASE3_SOLUTION[12].lower() != "u" else 1)  # another way: a new branch
    assert not game.can_redo
    assert snapshot(game) != middle


def test_restart_is_undoable(case3):
    game = Game(case3)
    game.play(CASE3_SOLUTION[:17])
    where = snapshot(game)
    game.restart()
    assert game.state() == case3.start and game.moves == 0
    while game.redo():
        pass
    assert snapshot(game) == where


@given(st.lists(st.integers(0, 3), max_size=60))
def test_undo_matches_a_board_replayed_from_the_start(directions):
    game = Game(OPEN_ROOM)
    taken = [d for d in directions if game.step(d)]
    while taken:
        taken.pop()
        game.undo()
        board = Board(OPEN_ROOM)
        for direction in taken:
            board.step(direction)
        assert game.state() == board.state()


def test_a_box_pushed_onto_a_dead_square_is_flagged():
    game = Game(OPEN_ROOM)
    assert game.deadlock() is None
    game.play("dr")
    assert game.deadlock() is None
    game.play("U")  # the box goes to the top wall, where no goal is
    deadlock = game.deadlock()
    assert deadlock is not None and "dead square" in deadlock.reason
    assert deadlock.cells == (OPEN_ROOM.cell(1, 3),)
    game.undo()
    assert game.deadlock() is None


def test_boxes_frozen_off_their_goals_are_flagged():
    level = level_from_rows(
        ["#######", "#.   .#", "#     #", "# $$  #", "#  @  #", "#######"], title="pair"
    )
    game = Game(level)
    game.play("UUddlU")
    assert game.deadlock() is None
    game.play("U")  # side by side against the top wall: neither can move again
    deadlock = game.deadlock()
    assert deadlock is not None and "frozen" in deadlock.reason
    assert set(deadlock.cells) == {level.cell(1, 2), level.cell(1, 3)}
    assert not any(level.dead_squares[cell] for cell in deadlock.cells)


@given(st.lists(st.integers(0, 3), max_size=40))
def test_the_flag_agrees_with_the_rules_deadlock_test(directions):
    level = level_from_rows(["#######", "#.  . #", "# $$  #", "#  @  #", "#######"], title="agree")
    game = Game(level)
    for direction in directions:
        game.step(direction)
    assert (game.deadlock() is not None) == is_deadlocked(level, game.state())


@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=4), max_size=15))
def test_an_action_of_several_steps_is_undone_and_redone_whole(actions):
    game = Game(OPEN_ROOM)
    taken = []
    for action in actions:
        before = snapshot(game)
        if game.take(action):
            taken.append(action)
        else:
            assert snapshot(game) == before  # an illegal step anywhere: nothing taken
    ends = []
    while taken:
        ends.append(snapshot(game))
        taken.pop()
        assert game.undo()
        board = Board(OPEN_ROOM)
        for direction in (d for action in taken for d in action):
            board.step(direction)
        assert game.state() == board.state()
    assert not game.undo()
    while ends:
        assert game.redo()
        assert snapshot(game) == ends.pop()
    assert not game.redo()
