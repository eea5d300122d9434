"""``evosoko play`` driven headlessly with textual's pilot: keys in, board and messages out."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app as cli_app
from evosoko.play.app import PlayApp
from evosoko.play.game import Game
from evosoko.play.stored import StoredSolution
from evosoko.sokoban.formats import read_levels

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
CASE3 = 1  # position of seed000-case3 in seeds.xsb
CASE3_SOLUTION = "dRRRurruullDDLdlluRRRuulDDuurrrdLulD"
KEYS = {"u": "up", "d": "down", "l": "left", "r": "right"}
WASD = {"u": "w", "d": "s", "l": "a", "r": "d"}


@pytest.fixture(scope="module")
def levels():
    return read_levels(SEEDS)


def play(app: PlayApp, script, size=(100, 32)):
    """Run ``script(pilot)`` (a coroutine function) against ``app`` headlessly."""

    async def main():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot)
            await pilot.pause()
            shown[app] = {name: screen_text(app, name) for name in WIDGETS}

    asyncio.run(main())


WIDGETS = ("title", "notes", "board", "status", "message")
shown: dict = {}
"""What each app's widgets showed when its script ended."""


async def settle(pilot) -> None:
    """Wait for the app's search threads, then for the screen to catch up."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def new_app(levels, tmp_path, position=CASE3, **options) -> PlayApp:
    return PlayApp(
        levels, position, save_path=tmp_path / "saved.sok", source=str(SEEDS), warm=False, **options
    )


def screen_text(app: PlayApp, widget: str) -> str:
    """The text a widget shows now, or showed when the app's script ended."""
    if app.is_running:
        return str(app.query_one(f"#{widget}").render())
    return shown[app][widget]


def test_scripted_keys_solve_seed000_case3(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        for number, letter in enumerate(CASE3_SOLUTION):
            keys = KEYS if number % 2 else WASD  # arrows and wasd alike
            await pilot.press(keys[letter.lower()])
        await pilot.pause()

    play(app, script)
    assert app.game.solved
    assert app.game.lurd() == CASE3_SOLUTION
    assert "SOLVED" in screen_text(app, "status")
    assert "moves 36  pushes 13" in screen_text(app, "status")


def test_undo_restores_the_exact_previous_state_and_redo_returns(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        for letter in CASE3_SOLUTION[:6]:  # ends with a push
            await pilot.press(KEYS[letter.lower()])
        seen["before"] = (app.game.state(), app.game.moves, app.game.pushes)
        seen["board before"] = screen_text(app, "board")
        await pilot.press(KEYS[CASE3_SOLUTION[6].lower()])  # "r": a move
        await pilot.press(KEYS[CASE3_SOLUTION[7].lower()])  # "u": a move
        seen["after"] = (app.game.state(), app.game.moves, app.game.pushes)
        await pilot.press("u", "z")
        await pilot.pause()
        seen["undone"] = (app.game.state(), app.game.moves, app.game.pushes)
        seen["board undone"] = screen_text(app, "board")
        await pilot.press("y", "y")
        seen["redone"] = (app.game.state(), app.game.moves, app.game.pushes)
        await pilot.press("r")
        seen["restarted"] = app.game.state()
        await pilot.press(*["y"] * 8)
        seen["redone all"] = (app.game.state(), app.game.moves, app.game.pushes)

    play(app, script)
    assert seen["undone"] == seen["before"]
    assert seen["board undone"] == seen["board before"]
    assert seen["redone"] == seen["after"]
    assert seen["restarted"] == levels[CASE3].start
    assert seen["redone all"] == seen["after"]


def test_undo_takes_a_push_back(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = []

    async def script(pilot):
        await pilot.press("down")
        seen.append(app.game.state())
        await pilot.press("right")  # pushes
        assert app.game.pushes == 1
        await pilot.press("backspace")
        seen.append(app.game.state())

    play(app, script)
    assert seen[0] == seen[1]


def test_a_hint_is_a_legal_push_of_a_solution(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        await pilot.press("h")
        await settle(pilot)

    play(app, script)
    hint = app.hint
    assert hint is not None
    game = Game(levels[CASE3])
    assert game.play(hint.walk) == len(hint.walk)
    assert game.board.player + levels[CASE3].deltas[hint.direction] == hint.box
    assert game.board.occupied[hint.box] and game.step(hint.direction)
    assert game.pushes == 1
    assert hint.pushes_left == 13  # push-A* is push-optimal; the level needs 13
    assert str(app.message).startswith("hint: push the box at row")


def test_a_hint_from_a_lost_position_says_so(levels, tmp_path):
    app = new_app(levels, tmp_path)
    route = dead_route(levels[CASE3])

    async def script(pilot):
        for letter in route:
            await pilot.press(KEYS[letter.lower()])
        await pilot.press("h")
        await settle(pilot)

    play(app, script)
    assert "lost" in str(app.message)
    assert app.hint is None


def dead_route(level) -> str:
    """The shortest LURD from the start to a position the deadlock tests find lost."""
    queue = deque([""])
    seen = {level.start}
    while queue:
        route = queue.popleft()
        for letter in "udlr":
            game = Game(level)
            game.play(route)
            if not game.step("udlr".index(letter)) or game.state() in seen:
                continue
            seen.add(game.state())
            if game.deadlock() is not None:
                return game.lurd()
            queue.append(game.lurd())
    raise AssertionError("no dead position within reach")


def test_a_dead_position_is_flagged_on_screen(levels, tmp_path):
    app = new_app(levels, tmp_path)
    route = dead_route(levels[CASE3])
    seen = {}

    async def script(pilot):
        for letter in route[:-1]:
            await pilot.press(KEYS[letter.lower()])
        seen["before"] = screen_text(app, "status")
        await pilot.press(KEYS[route[-1].lower()])
        await pilot.pause()
        seen["after"] = screen_text(app, "status")
        await pilot.press("u")
        seen["undone"] = screen_text(app, "status")

    play(app, script)
    assert "DEAD" not in seen["before"]
    assert "DEAD: " in seen["after"]
    assert "DEAD" not in seen["undone"]


def test_a_solved_level_is_saved_and_passes_verify(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        await pilot.press("S")  # not solved yet: nothing written
        assert not (tmp_path / "saved.sok").exists()
        for letter in CASE3_SOLUTION:
            await pilot.press(KEYS[letter.lower()])
        await pilot.press("S")
        await pilot.pause()

    play(app, script)
    assert "saved 36 moves, 13 pushes" in str(app.message)
    result = CliRunner().invoke(
        cli_app, ["verify", str(SEEDS), "--solutions", str(tmp_path / "saved.sok")]
    )
    assert result.exit_code == 0, result.output
    assert "OK      seed000-case3: 36 moves, 13 pushes" in result.output


def test_replay_of_a_stored_solution_solves_and_a_move_takes_over(levels, tmp_path):
    stored = {CASE3: StoredSolution(CASE3_SOLUTION, True, "test")}
    app = new_app(levels, tmp_path, stored=stored)
    seen = {}

    async def script(pilot):
        await pilot.press("right", "A")  # the replay starts from the start
        for _ in range(3):
            await pilot.press("plus")  # 64 steps per second
        await pilot.pause(1.5)
        seen["solved"] = app.game.solved and app.replay is None
        seen["message"] = str(app.message)
        await pilot.press(*["minus"] * 6)  # 1 step per second
        await pilot.press("r", "A", "space")  # paused
        seen["paused at"] = app.game.moves
        await pilot.pause(1.3)
        seen["while paused"] = app.game.moves
        await pilot.press("space")
        await pilot.pause(1.3)
        seen["resumed"] = app.game.moves
        await pilot.press("up")  # take over
        seen["took over"] = app.replay is None
        seen["message after"] = str(app.message)

    play(app, script)
    assert seen["solved"], seen["message"]
    assert "replay finished: solved" in seen["message"]
    assert seen["paused at"] <= 1
    assert seen["while paused"] == seen["paused at"]
    assert seen["resumed"] > seen["paused at"]
    assert seen["took over"]
    assert "replay stopped: you have the board" in seen["message after"]


def test_replay_of_a_best_prefix_ends_unsolved(levels, tmp_path):
    stored = {CASE3: StoredSolution(CASE3_SOLUTION[:10], False, "run", distance=4)}
    app = new_app(levels, tmp_path, stored=stored)

    async def script(pilot):
        await pilot.press("A")
        assert "GA's best prefix (distance 4)" in str(app.message)
        await pilot.press(*["plus"] * 3)
        await pilot.pause(1.0)

    play(app, script)
    assert app.replay is None
    assert app.game.lurd() == CASE3_SOLUTION[:10]
    assert "not solved" in str(app.message)


def test_replay_without_a_stored_solution_asks_push_astar_from_here(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        await pilot.press("down", "right", "A")
        await settle(pilot)
        assert app.replay is not None and "push-A* solution from here" in str(app.message)
        await pilot.press(*["plus"] * 3)
        await pilot.pause(1.5)

    play(app, script)
    assert app.game.solved
    assert app.game.lurd().startswith("dR")


def test_next_and_previous_level_keep_each_game(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        await pilot.press("down")
        await pilot.press("n")
        assert "seed004-blog" in screen_text(app, "title")
        await pilot.press("n")  # the last level: stays
        await pilot.press("p", "p")
        assert "seed000-case3" not in screen_text(app, "title")
        await pilot.press("n")

    play(app, script)
    assert "level 2 of 3: seed000-case3" in screen_text(app, "title")
    assert app.game.moves == 1


def test_a_saved_or_hint_line_goes_with_its_level_to_the_next_and_back(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        for letter in CASE3_SOLUTION:
            await pilot.press(KEYS[letter.lower()])
        await pilot.press("S")
        await pilot.pause()
        seen["saved"] = screen_text(app, "message")
        await pilot.press("n")
        await pilot.pause()
        seen["next"] = screen_text(app, "message")
        await pilot.press("h")
        await settle(pilot)
        seen["hint"] = screen_text(app, "message")
        await pilot.press("p")
        await pilot.pause()

    play(app, script)
    assert "saved 36 moves" in seen["saved"] and seen["next"].strip() == ""
    assert seen["hint"].startswith("hint:")
    assert screen_text(app, "message").strip() == ""


def test_a_long_message_is_shown_whole_on_a_narrow_terminal(levels, tmp_path):
    app = new_app(levels, tmp_path)
    heights = {}

    async def script(pilot):
        for letter in CASE3_SOLUTION:
            await pilot.press(KEYS[letter.lower()])
        await pilot.press("S")  # "saved ... (check: evosoko verify ... --solutions ...)"
        await pilot.pause()
        for name in ("message", "status", "title"):
            widget = app.query_one(f"#{name}")
            width = widget.content_size.width
            needed = widget.get_content_height(app.screen.size, app.size, width)
            heights[name] = (widget.content_size.height, needed)

    play(app, script, size=(50, 30))
    assert heights["message"][1] > 2  # the line wraps on 50 columns
    assert all(shown >= needed for shown, needed in heights.values()), heights


def test_titles_from_files_are_shown_as_plain_text(tmp_path):
    path = tmp_path / "odd.xsb"
    path.write_text("; [bold]x[/bold] \x1b[31m\n#####\n#@$.#\n#####\nAuthor: [red]me\n")
    levels = read_levels(path)
    app = PlayApp(levels, 0, save_path=tmp_path / "s.sok", warm=False)

    async def script(pilot):
        await pilot.pause()

    play(app, script)
    assert "[bold]x[/bold]" in screen_text(app, "title")
    assert "\\x1b" in screen_text(app, "title")
    assert "Author: [red]me" in screen_text(app, "notes")


def test_play_refuses_to_run_without_a_terminal():
    result = CliRunner().invoke(cli_app, ["play", str(SEEDS), "-l", "seed000-case3"])
    assert result.exit_code == 2
    assert "needs a terminal" in result.output


def test_play_names_an_unknown_level():
    result = CliRunner().invoke(cli_app, ["play", str(SEEDS), "-l", "no-such-level"])
    assert result.exit_code == 2
    assert "no level 'no-such-level'" in result.output


def test_play_refuses_a_solutions_file_that_matches_no_level(tmp_path):
    other = tmp_path / "other.sok"
    other.write_text("#####\n#@$.#\n#####\nTitle: elsewhere\n")
    result = CliRunner().invoke(cli_app, ["play", str(SEEDS), "--solutions", str(other)])
    assert result.exit_code == 2
    assert "no Solution or Best note matches a level" in result.output


def test_the_search_warms_up_in_the_background_and_says_so(levels, tmp_path, monkeypatch):
    import threading

    from evosoko.play import app as app_module

    release = threading.Event()
    monkeypatch.setattr(app_module, "warm_up", lambda: release.wait(10))
    app = PlayApp(levels, CASE3, save_path=tmp_path / "s.sok", warm=True)
    seen = {}

    async def script(pilot):
        await pilot.pause(0.2)
        seen["warming"] = screen_text(app, "status")
        await pilot.press("right")  # the game goes on meanwhile
        release.set()
        await settle(pilot)
        seen["ready"] = screen_text(app, "status")

    play(app, script)
    assert "compiling push-A* (first run only)" in seen["warming"]
    assert "compiling" not in seen["ready"] and "moves 1" in seen["ready"]


def test_arrow_keys_move_even_when_the_board_is_too_big_to_show_whole(levels, tmp_path):
    app = new_app(levels, tmp_path, position=2)  # seed004-blog: 11 rows, on a 14-row terminal
    moved = []

    async def script(pilot):
        for key in ("up", "down", "left", "right"):  # each legal from the start
            before = app.game.moves
            await pilot.press(key)
            moved.append(app.game.moves - before)

    play(app, script, size=(40, 14))
    assert moved == [1, 1, 1, 1]
