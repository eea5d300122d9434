"""report.html in a real browser: headless Chromium opens it from disk and the test reads the
page it drew (needs Debian's chromium and chromium-driver, and selenium; skipped without)."""

from __future__ import annotations

import pytest
from report_folders import CASE3_BEST, SEEDS, give_best, make_compare, make_run, make_sweep

from evosoko.experiment.report.browser import browser_missing, headless_chromium, open_report
from evosoko.experiment.report.writer import write_report
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import replay_states, verify_solution

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing())),
]

PLAYER_RGB = (0x2F, 0x6B, 0xD8)


def painted_pixels(driver, selector: str) -> int:
    """How many pixels of the canvas at ``selector`` are not transparent."""
    return driver.execute_script(
        """
        const canvas = document.querySelector(arguments[0]);
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) count++;
        return count;
        """,
        selector,
    )


def pixel(driver, selector: str, x: int, y: int) -> tuple[int, int, int]:
    """The RGB colour of the canvas at ``selector`` at (x, y), in canvas pixels."""
    return tuple(
        driver.execute_script(
            """
            const canvas = document.querySelector(arguments[0]);
            const d = canvas.getContext("2d").getImageData(arguments[1], arguments[2], 1, 1).data;
            return [d[0], d[1], d[2]];
            """,
            selector,
            x,
            y,
        )
    )


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def run_report(tmp_path_factory):
    folder = make_run(tmp_path_factory.mktemp("run"))
    give_best(folder)
    return write_report(folder)


def css(driver, selector):
    return driver.find_elements("css selector", selector)


def click(driver, selector, times=1):
    (button,) = css(driver, selector)
    for _ in range(times):
        button.click()


def position_after(level, lurd, steps):
    """The canonical rows after ``steps`` steps of ``lurd``, as the page writes them."""
    return "|".join(level.rows(replay_states(level, lurd)[steps]))


def no_network(driver) -> list[str]:
    """Resources the page loaded that are not inline ``data:`` URLs."""
    names = driver.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
    )
    return [name for name in names if not name.startswith("data:")]


def pixels_of_colour(driver, selector: str, rgb: tuple[int, int, int]) -> int:
    """How many pixels of the canvas at ``selector`` have (about) the colour ``rgb``."""
    return driver.execute_script(
        """
        const [r, g, b] = arguments[1];
        const canvas = document.querySelector(arguments[0]);
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 0; i < data.length; i += 4) {
          const near =
            Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b);
          if (data[i + 3] > 200 && near < 30) count++;
        }
        return count;
        """,
        selector,
        list(rgb),
    )


def test_a_level_solved_at_once_shows_its_one_generation_as_points(browser, run_report):
    open_report(browser, run_report)  # level 1, seed000-example: one generation, solved
    assert css(browser, "#level-title")[0].text == "Level 1 · seed000-example"
    best_so_far_red = (0xD6, 0x27, 0x28)
    assert pixels_of_colour(browser, "#curve", best_so_far_red) > 20


def test_run_report_shows_results_curves_and_a_board_that_steps(browser, run_report):
    timing = open_report(browser, run_report)
    assert timing["drawn"] > 0
    assert no_network(browser) == []
    rows = css(browser, "#results-table tbody tr")
    assert len(rows) == 2
    assert [row.find_elements("css selector", "td")[1].text for row in rows] == [
        "seed000-example",
        "seed000-case3",
    ]
    assert css(browser, "#curve")[0].get_attribute("data-drawn") == "3"
    assert painted_pixels(browser, "#curve") > 2000

    rows[1].click()  # the unsolved level: the board plays the GA's best prefix
    assert css(browser, "#level-title")[0].text == "Level 2 · seed000-case3"
    board = "#player canvas[data-track='0']"
    case3 = read_levels(SEEDS)[1]
    (canvas,) = css(browser, board)
    assert canvas.get_attribute("data-position") == position_after(case3, CASE3_BEST, 0)
    assert "GA's best prefix" in css(browser, "#player figcaption")[0].text

    click(browser, "button[data-action='forward']", times=5)
    assert canvas.get_attribute("data-step") == "5"
    assert canvas.get_attribute("data-position") == position_after(case3, CASE3_BEST, 5)
    click(browser, "button[data-action='back']")
    assert canvas.get_attribute("data-position") == position_after(case3, CASE3_BEST, 4)
    click(browser, "button[data-action='end']")
    assert canvas.get_attribute("data-position") == position_after(
        case3, CASE3_BEST, len(CASE3_BEST)
    )
    assert "13/13 moves" in css(browser, "#player figcaption")[0].text

    # the drawing itself: the player's disc is where the replay put the player
    click(browser, "button[data-action='start']")
    size = int(canvas.get_attribute("width")) // case3.width
    row, column = case3.position(case3.start.player)
    centre = (column * size + size // 2, row * size + size // 2)
    assert pixel(browser, board, *centre) == PLAYER_RGB
    click(browser, "button[data-action='forward']")  # the first step goes down
    assert pixel(browser, board, *centre) != PLAYER_RGB
    assert pixel(browser, board, centre[0], centre[1] + size) == PLAYER_RGB


def test_the_play_button_animates_the_board(browser, run_report):
    open_report(browser, run_report)
    css(browser, "#results-table tbody tr")[1].click()
    click(browser, "button[data-action='play']")
    (canvas,) = css(browser, "#player canvas[data-track='0']")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda _: canvas.get_attribute("data-step") == "13")
    assert css(browser, "button[data-action='play']")[0].text == "▶"  # paused at the end


def test_compare_report_shows_summary_ecdfs_strip_and_solvers_side_by_side(
    browser, tmp_path_factory
):
    from selenium.webdriver.support.ui import Select

    path = write_report(make_compare(tmp_path_factory.mktemp("compare")))
    open_report(browser, path)
    assert no_network(browser) == []
    summary = css(browser, "#summary-table tbody tr")
    assert [row.find_elements("css selector", "td")[0].text for row in summary] == [
        "ga-small",
        "bfs",
        "push-astar",
    ]
    assert css(browser, "#ecdf-time")[0].get_attribute("data-drawn") == "3"
    assert css(browser, "#ecdf-evaluations")[0].get_attribute("data-drawn") == "1"
    assert css(browser, "#ecdf-nodes")[0].get_attribute("data-drawn") == "2"
    assert painted_pixels(browser, "#strip") > 500

    Select(css(browser, "#level-select")[0]).select_by_index(1)
    assert css(browser, "#level-title")[0].text == "Level 2 · seed000-case3"
    assert len(css(browser, "#jobs-table tbody tr")) == 2 + 1 + 1
    canvases = css(browser, "#player canvas")
    assert len(canvases) == 3  # one board per solver, one set of controls
    click(browser, "button[data-action='end']")
    case3 = read_levels(SEEDS)[1]
    for canvas in canvases:
        position = canvas.get_attribute("data-position")
        assert "$" not in position and "." not in position and "+" not in position
    bfs = canvases[1]
    import csv

    with open(path.parent / "results.csv", encoding="utf-8") as stream:
        rows = [
            r for r in csv.DictReader(stream) if r["solver"] == "bfs" and r["level_index"] == "2"
        ]
    final = verify_solution(case3, rows[0]["solution"]).final
    assert bfs.get_attribute("data-position") == "|".join(case3.rows(final))


def test_sweep_report_sorts_its_trials(browser, tmp_path_factory):
    path = write_report(make_sweep(tmp_path_factory.mktemp("sweep")))
    open_report(browser, path)
    assert no_network(browser) == []

    def trials():
        return [
            row.find_elements("css selector", "td")[0].text
            for row in css(browser, "#trials-table tbody tr")
        ]

    assert trials() == ["0", "1", "2", "3"]
    header = css(browser, "#trials-table thead th")[0]
    header.click()
    assert trials() == ["0", "1", "2", "3"]
    header.click()
    assert trials() == ["3", "2", "1", "0"]
    images = css(browser, ".figures img")
    assert images and all(
        browser.execute_script("return arguments[0].naturalWidth", image) > 100 for image in images
    )


def test_the_pages_replay_agrees_with_the_rules_on_random_walks(browser, run_report):
    """The page replays solutions with rules of its own: they must be evosoko's rules."""
    import random

    from evosoko.sokoban.rules import Board
    from evosoko.sokoban.solutions import to_lurd

    open_report(browser, run_report)
    levels = read_levels(SEEDS)
    microban = SEEDS.parents[2] / "shared" / "levels" / "microban.txt"
    if microban.is_file():
        levels += read_levels(microban)[:40:7]
    rng = random.Random(20)
    for level in levels:
        for _ in range(3):
            board = Board(level)
            for _ in range(150):
                board.step(rng.choice(board.legal_moves() or [0]))
            history = board.history
            lurd = to_lurd((s.direction for s in history), (s.pushed for s in history))
            expected = ["|".join(level.rows(state)) for state in replay_states(level, lurd)]
            got = browser.execute_script(
                "return window.evosokoReplay(arguments[0], arguments[1])", level.rows(), lurd
            )
            assert got == expected, (level.name, lurd)
    # an illegal step ends the replay there
    case3 = levels[1]
    lurd = "dRRRuUuuu"
    failed = verify_solution(case3, lurd).failed_step
    assert failed is not None
    got = browser.execute_script(
        "return window.evosokoReplay(arguments[0], arguments[1])", case3.rows(), lurd
    )
    assert len(got) == failed  # the start and the legal steps before the illegal one


def test_report_of_two_runs_renders_one_comparison_page(browser, tmp_path_factory):
    """``evosoko report A B`` of two runs: one page, the results joined by level and the
    fitness curves of both runs overlaid."""
    from report_folders import make_other_run
    from typer.testing import CliRunner

    from evosoko.cli import app

    first = make_run(tmp_path_factory.mktemp("first"))
    second = make_other_run(tmp_path_factory.mktemp("second"), "seed000-example", "seed000-case3")
    page = tmp_path_factory.mktemp("page") / "side.html"
    result = CliRunner().invoke(app, ["report", str(first), str(second), "--out", str(page)])
    assert result.exit_code == 0, result.output
    open_report(browser, page)
    assert no_network(browser) == []
    assert css(browser, "h1")[0].text == "2 folders side by side"
    groups = [th.text for th in css(browser, "#joined-table thead th.group")]
    assert groups == [first.name, second.name]
    rows = css(browser, "#joined-table tbody tr")
    assert [row.find_elements("css selector", "td")[1].text for row in rows] == [
        "seed000-example",
        "seed000-case3",
    ]
    statuses = [row.find_elements("css selector", "td")[2].text for row in rows]
    assert statuses[0] == "solved"
    assert css(browser, "#level-title")[0].text == "Level 1 · seed000-example"
    rows[1].click()
    assert css(browser, "#level-title")[0].text == "Level 2 · seed000-case3"
    assert "chosen" in rows[1].get_attribute("class")
    assert css(browser, "#curve")[0].get_attribute("data-drawn") == "4"  # two runs × 2 lines
    blue, red = (0x1F, 0x77, 0xB4), (0xD6, 0x27, 0x28)
    assert pixels_of_colour(browser, "#curve", blue) > 50
    assert pixels_of_colour(browser, "#curve", red) > 50
    legend = css(browser, "#curve-legend")[0].text
    assert first.name in legend and second.name in legend
    links = [a.get_attribute("href") for a in css(browser, "#folders-table a")]
    assert len(links) == 2
    assert all(
        link.endswith(f"{run.name}/report.html") for link, run in zip(links, (first, second))
    )
    differences = {
        cells[0].text: [cell.text for cell in cells[1:]]
        for cells in (
            row.find_elements("css selector", "td")
            for row in css(browser, "#differences-table tbody tr")
        )
    }
    assert differences["ga.population"] == ["30", "24"]
    assert differences["run.budget.generations"] == ["2", "4"]
