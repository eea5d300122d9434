"""The level browser and go-to of ``evosoko play``, and solved marks kept from game to game,
driven through textual's pilot."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input

from evosoko.errors import EvosokoError
from evosoko.play.app import PlayApp
from evosoko.play.browser import LevelBrowser
from evosoko.play.catalogue import find_level, level_rows
from evosoko.play.progress import load_progress
from evosoko.play.stored import StoredSolution
from evosoko.sokoban.formats import read_levels

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
MICROBAN = Path(__file__).resolve().parents[3] / "shared" / "levels" / "microban.txt"
CASE3 = 1
CASE3_SOLUTION = "dRRRurruullDDLdlluRRRuulDDuurrrdLulD"
KEYS = {"u": "up", "d": "down", "l": "left", "r": "right"}


@pytest.fixture(scope="module")
def levels():
    return read_levels(SEEDS)


def new_app(levels, tmp_path, position=CASE3, **options) -> PlayApp:
    progress, notice = load_progress(tmp_path / "state" / "play.json")
    return PlayApp(
        levels,
        position,
        save_path=tmp_path / "saved.sok",
        warm=False,
        progress=progress,
        notice=notice,
        **options,
    )


def run(app: PlayApp, script) -> None:
    async def main():
        async with app.run_test(size=(110, 32)) as pilot:
            await pilot.pause()
            await script(pilot)
            await pilot.pause()

    asyncio.run(main())


def table_rows(app: PlayApp) -> list[list[str]]:
    table = app.screen.query_one("#levels", DataTable)
    return [[str(cell).strip() for cell in table.get_row_at(n)] for n in range(table.row_count)]


def rich_text(renderable) -> str:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def title_line(app: PlayApp) -> str:
    return str(app.query_one("#title").render())


def test_find_level_by_number_title_or_part_of_a_title(levels):
    assert find_level(levels, "3") == 2
    assert find_level(levels, "#1") == 0
    assert find_level(levels, "seed000-case3") == 1
    assert find_level(levels, "BLOG") == 2  # a part of one title, case ignored
    with pytest.raises(EvosokoError, match="2 titles contain 'seed000'"):
        find_level(levels, "seed000")
    with pytest.raises(EvosokoError, match="no level"):
        find_level(levels, "nothing like it")
    with pytest.raises(EvosokoError, match="type a level number"):
        find_level(levels, "  ")


def test_rows_show_number_title_size_boxes_and_no_marks_without_progress(levels):
    rows = level_rows(levels, None)
    assert [(r.number, r.title, r.size, r.boxes) for r in rows] == [
        (1, "seed000-example", "10×7", 2),
        (2, "seed000-case3", "8×7", 5),
        (3, "seed004-blog", "19×11", 6),
    ]
    assert not any(row.solved or row.fewest_moves for row in rows)
    assert [row.number for row in rows if row.matches("case")] == [2]
    assert [row.number for row in rows if row.matches("#3")] == [3]


def test_a_solve_shows_in_the_browser_and_in_the_next_game(levels, tmp_path):
    first = new_app(levels, tmp_path)
    seen = {}

    async def solve(pilot):
        await pilot.press("l")
        seen["before"] = table_rows(first)
        await pilot.press("escape")
        for letter in CASE3_SOLUTION:
            await pilot.press(KEYS[letter.lower()])
        await pilot.pause()
        seen["message"] = str(first.message)
        await pilot.press("l")
        await pilot.pause()
        seen["after"] = table_rows(first)
        await pilot.press("escape")

    run(first, solve)
    assert seen["before"][1][4:] == ["", "", ""]
    assert "(first solve)!" in seen["message"]
    assert seen["after"][1] == ["▶2", "seed000-case3", "8×7", "5", "✓", "36/13", "36/13"]
    assert seen["after"][0][4] == seen["after"][2][4] == ""

    second = new_app(levels, tmp_path, position=0)  # a new game reads the same file

    async def look(pilot):
        seen["other title"] = title_line(second)
        await pilot.press("l")
        await pilot.pause()
        seen["browser"] = table_rows(second)
        seen["help"] = str(second.screen.query_one("#browser-help").render())
        await pilot.press("down", "enter")  # the solved level
        await pilot.pause()
        seen["title"] = title_line(second)

    run(second, look)
    assert "✓" not in seen["other title"]
    assert seen["browser"][1][4:] == ["✓", "36/13", "36/13"]
    assert seen["help"].startswith("3 levels, 1 solved; bests read moves/pushes.")
    assert "level 2 of 3: seed000-case3" in seen["title"]
    assert "✓ solved, best 36/13 (moves/pushes)" in seen["title"]


def test_go_to_by_number_and_by_title_and_a_miss_stays_in_the_browser(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        await pilot.press("g", "3", "enter")
        await pilot.pause()
        seen["by number"] = app.position
        await pilot.press("g", *"case", "enter")
        await pilot.pause()
        seen["by title"] = app.position
        await pilot.press("g", *"zzz", "enter")
        await pilot.pause()
        seen["miss"] = str(app.screen.query_one("#browser-message").render())
        seen["still browsing"] = isinstance(app.screen, LevelBrowser)
        await pilot.press("escape")
        await pilot.pause()
        seen["back"] = (app.position, isinstance(app.screen, LevelBrowser))

    run(app, script)
    assert seen["by number"] == 2
    assert seen["by title"] == 1
    assert "no level 'zzz'" in seen["miss"] and seen["still browsing"]
    assert seen["back"] == (1, False)


def test_typing_in_the_list_filters_it_and_game_keys_do_nothing_there(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        await pilot.press("down", "l")  # one move; the list has the focus
        await pilot.press(*"blog")  # "l" and "g" would open browsers, "b" "o" nothing
        await pilot.pause()
        seen["filter"] = app.screen.query_one("#goto", Input).value
        seen["rows"] = table_rows(app)
        await pilot.press("escape", "l", "down", "backspace", "s", "q")  # the list's keys
        await pilot.pause()
        seen["moves"] = app.game.moves
        seen["running"] = app.is_running
        await pilot.press("escape")

    run(app, script)
    assert seen["filter"] == "blog"
    assert [row[1] for row in seen["rows"]] == ["seed004-blog"]
    assert seen["moves"] == 1 and seen["running"]


def test_a_click_in_the_list_goes_to_the_level(levels, tmp_path):
    app = new_app(levels, tmp_path)

    async def script(pilot):
        await pilot.press("l")
        await pilot.pause()
        table = app.screen.query_one("#levels", DataTable)
        await pilot.click(table, offset=(5, 3))  # the header, then rows 1, 2, 3
        await pilot.pause()
        seen["first click"] = (app.position, isinstance(app.screen, LevelBrowser))
        await pilot.click(table, offset=(5, 3))  # a second click on the cursor row picks it
        await pilot.pause()
        seen["second click"] = (app.position, isinstance(app.screen, LevelBrowser))

    seen = {}
    run(app, script)
    assert seen["first click"] == (1, True)
    assert seen["second click"] == (2, False)


def test_a_replay_solve_is_not_kept_as_the_players(levels, tmp_path):
    stored = {CASE3: StoredSolution(CASE3_SOLUTION, True, "test")}
    app = new_app(levels, tmp_path, stored=stored)

    async def script(pilot):
        await pilot.press("A", *["plus"] * 3)
        await pilot.pause(1.5)

    run(app, script)
    assert app.game.solved
    assert app.progress is not None and app.progress.of(levels[CASE3]) is None


def test_a_damaged_progress_file_is_reported_on_screen(levels, tmp_path):
    path = tmp_path / "state" / "play.json"
    path.parent.mkdir()
    path.write_text("{broken")
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        seen["message"] = str(app.query_one("#message").render())

    run(app, script)
    assert "the progress file could not be read" in seen["message"]
    assert (path.parent / "play.json.damaged").read_text() == "{broken"


@pytest.mark.skipif(not MICROBAN.is_file(), reason="needs ../shared/levels/microban.txt")
def test_go_to_in_a_big_collection(tmp_path):
    levels = read_levels(MICROBAN)
    app = new_app(levels, tmp_path, position=0)
    seen = {}

    async def script(pilot):
        await pilot.press("g", *"144", "enter")
        await pilot.pause()
        seen["title"] = title_line(app)

    run(app, script)
    assert app.position == 143 and "level 144 of 155" in seen["title"]


def test_question_mark_lists_every_key_and_closes_again(levels, tmp_path):
    app = new_app(levels, tmp_path)
    seen = {}

    async def script(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        tables = app.screen.query("BindingsTable")
        seen["keys"] = rich_text(tables.first().render_bindings_table()) if tables else ""
        await pilot.press("question_mark")
        await pilot.pause()
        seen["closed"] = not app.screen.query("HelpPanel")

    run(app, script)
    for description in ("? keys", "l levels", "g go to", "undo", "faster", "q esc Quit"):
        assert description in seen["keys"], seen["keys"]
    assert seen["closed"]
