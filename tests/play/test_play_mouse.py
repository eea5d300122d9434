"""Clicks on the board of ``evosoko play``: the walk-or-push rule, clicks as one undoable action,
and real clicks through textual's pilot."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evosoko.play.app import PlayApp
from evosoko.play.game import Game
from evosoko.play.mouse import PUSH, WALK, click_steps
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.holes.board import start_state, with_pairing
from evosoko.sokoban.level import DIRECTIONS

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
CASE3 = 1
ROOM = level_from_rows(
    [
        "#########",
        "#       #",
        "# @$    #",
        "#   $ ..#",
        "#########",
    ],
    title="room",
)


def click(game: Game, row: int, column: int):
    board = game.board
    return click_steps(game.level, board.player, board.occupied, game.level.cell(row, column))


def take(game: Game, lurd: str) -> bool:
    return game.take([DIRECTIONS.index(letter.lower()) for letter in lurd])


def test_a_box_next_to_the_player_is_pushed_one_cell():
    game = Game(ROOM)
    assert click(game, 2, 3).lurd == "R" and click(game, 2, 3).kind == PUSH


def test_a_cell_in_line_beyond_the_box_gets_the_box():
    game = Game(ROOM)
    line = click(game, 2, 6)
    assert (line.lurd, line.kind) == ("RRR", PUSH)
    assert take(game, line.lurd)
    assert ROOM.cell(2, 6) in game.state().boxes
    assert game.state().player == ROOM.cell(2, 5)


def test_a_free_cell_is_walked_to_by_a_shortest_path():
    game = Game(ROOM)
    walk = click(game, 3, 6)  # around the first box, beside the second
    assert walk.kind == WALK and walk.lurd.islower()
    assert len(walk.lurd) == shortest_walk(ROOM, game, ROOM.cell(3, 6))
    assert take(game, walk.lurd) and game.state().player == ROOM.cell(3, 6)
    assert game.pushes == 0


@pytest.mark.parametrize(
    ("row", "column", "reason"),
    [
        (0, 0, "click a floor cell"),
        (2, 2, "you are there"),
        (3, 4, "walk next to that box first"),
    ],
)
def test_a_click_that_does_nothing_says_why(row, column, reason):
    assert reason in click(Game(ROOM), row, column).reason


def test_a_box_that_cannot_move_or_a_closed_off_cell_says_why():
    level = level_from_rows(["#####", "#@$.#", "##$ #", "# .##", "#####"], title="shut")
    game = Game(level)
    assert "no walk leads there" in click(game, 3, 1).reason  # behind the boxes
    assert take(game, "R")
    assert "cannot move that way" in click(game, 1, 3).reason  # the box is against a wall
    assert click(game, 2, 2).reason == ""  # the box below: pushed down
    assert click(game, 2, 2).lurd == "D"


def shortest_walk(level, game: Game, target: int) -> int:
    """The oracle: a plain breadth-first walk around the boxes."""
    boxes = set(game.state().boxes)
    seen = {game.state().player: 0}
    queue = deque([game.state().player])
    while queue:
        cell = queue.popleft()
        for delta in level.deltas:
            after = cell + delta
            if level.floor[after] and after not in boxes and after not in seen:
                seen[after] = seen[cell] + 1
                queue.append(after)
    return seen.get(target, -1)


@given(st.lists(st.integers(0, 3), max_size=25), st.integers(0, ROOM.cells - 1))
def test_every_click_does_what_its_kind_says(directions, cell):
    game = Game(ROOM)
    for direction in directions:
        game.step(direction)
    before = game.state()
    board = game.board
    outcome = click_steps(ROOM, board.player, board.occupied, cell)
    if not outcome.lurd:
        assert outcome.reason
        return
    assert take(game, outcome.lurd)
    assert game.lurd().endswith(outcome.lurd)  # the steps are taken as the click says
    if outcome.kind == WALK:
        assert game.state().player == cell and game.state().boxes == before.boxes
        game.undo()
        assert len(outcome.lurd) == shortest_walk(ROOM, game, cell)
    else:
        assert len(set(outcome.lurd)) == 1 and outcome.lurd.isupper()
        if cell in before.boxes:  # the box clicked: pushed one cell, the player in its place
            assert outcome.lurd in "UDLR" and game.state().player == cell
        else:  # a cell beyond: the box now stands on it
            assert cell in game.state().boxes
        game.undo()
    assert game.state() == before


def test_one_undo_takes_back_a_whole_click_and_redo_takes_it_again():
    game = Game(ROOM)
    assert take(game, click(game, 3, 7).lurd)
    walked = game.state()
    assert game.undo() and game.state() == ROOM.start and game.moves == 0
    assert game.redo() and game.state() == walked
    assert not take(game, "u" * 5)  # into the wall at the second step: nothing taken
    assert game.state() == walked and game.can_undo


def test_a_click_pushes_a_box_into_its_own_hole_on_a_given_holes_level():
    level = with_pairing(level_from_rows(["#######", "#@$ . #", "#######"], title="hole"), [0])
    game = Game(level)
    push = click(game, 1, 4)  # the hole, two cells beyond the box
    assert push.lurd == "RR"
    assert take(game, push.lurd) and game.solved and game.boxes_on_goals == 1
    assert game.undo() and game.state() == start_state(level) and not game.solved


# ---- real clicks -------------------------------------------------------------------------------
def board_offset(app: PlayApp, row: int, column: int) -> tuple[int, int]:
    """Where to click on ``#board`` (relative to its region) to hit the cell's first half."""
    board = app.query_one("#board")
    content, region = board.content_region, board.region
    return content.x - region.x + 2 * column, content.y - region.y + row


def test_clicks_walk_and_push_and_undo_takes_them_back(tmp_path):
    levels = read_levels(SEEDS)
    level = levels[CASE3]  # the player at row 3, column 1; a box at row 3, column 3
    app = PlayApp(levels, CASE3, save_path=tmp_path / "s.sok", warm=False)
    seen = {}

    async def main():
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            await pilot.click("#board", offset=board_offset(app, 3, 2))  # walk one cell
            await pilot.pause()
            seen["walked"] = app.game.state()
            x, y = board_offset(app, 3, 3)
            await pilot.click("#board", offset=(x + 1, y))  # the box's second half: push it
            await pilot.pause()
            seen["pushed"] = (app.game.state(), app.game.lurd())
            await pilot.click("#board", offset=board_offset(app, 0, 0))  # a wall
            await pilot.pause()
            seen["wall"] = (app.game.moves, str(app.message))
            await pilot.press("u")
            seen["undo push"] = app.game.state()
            await pilot.press("u")
            seen["undo walk"] = app.game.state()
            await pilot.press("y", "y")
            seen["redone"] = app.game.state()

    asyncio.run(main())
    assert seen["walked"].player == level.cell(3, 2)
    state, lurd = seen["pushed"]
    assert lurd == "rR" and level.cell(3, 4) in state.boxes
    assert seen["wall"] == (2, "click a floor cell to walk there, or a box next to you to push it")
    assert seen["undo push"] == seen["walked"]
    assert seen["undo walk"] == level.start
    assert seen["redone"] == state
