"""The report's boards play given-holes levels: boxes vanish in their own holes, undo brings
them back (needs chromium and its driver, skipped without)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.report.browser import browser_missing, headless_chromium, open_report
from evosoko.experiment.report.writer import board_pairs, report_data, write_report
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.holes.board import HolesBoard, holes_rows
from evosoko.sokoban.solutions import replay_states, to_lurd

LEVELS = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"

COMPARE = f"""
[compare]
name = "holes-report"
levels = "{LEVELS}"
select = ["holes-easy-01"]
seeds = [1]

[compare.budget]
seconds = 20
nodes = 20000

[parallel]
backend = "serial"

[[solver]]
kind = "search"
algorithm = "push-astar"
"""


@pytest.fixture(scope="module")
def compare_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("holes")
    (folder / "holes.toml").write_text(COMPARE)
    run_compare(load_compare_config(folder / "holes.toml"), folder / "out", plots=False)
    return folder / "out"


def test_report_data_carries_the_pairs(compare_folder):
    level = read_levels(LEVELS)[0]
    (entry,) = report_data(compare_folder)["levels"]
    assert entry["pairs"] == board_pairs(level)["pairs"]
    assert entry["pairs"] == [[b, h] for b, h in zip(level.pairing.boxes, level.pairing.holes)]
    json.dumps(entry)


@pytest.mark.browser
@pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))
def test_the_page_replays_the_variant_like_the_rules(compare_folder):
    path = write_report(compare_folder)
    rng = random.Random(4)
    with headless_chromium() as browser:
        open_report(browser, path)
        for level in read_levels(LEVELS)[:6]:
            pairs = board_pairs(level)["pairs"]
            notes = dict(level.notes)
            walks = [notes["Solution"]]
            for _ in range(3):
                board = HolesBoard(level)
                for _ in range(120):
                    board.step(rng.choice(board.legal_moves() or [0]))
                history = board.history
                walks.append(to_lurd((s.direction for s in history), (s.pushed for s in history)))
            for lurd in walks:
                expected = ["|".join(holes_rows(level, s)) for s in replay_states(level, lurd)]
                got = browser.execute_script(
                    "return window.evosokoReplay(arguments[0], arguments[1], arguments[2])",
                    level.rows(),
                    lurd,
                    pairs,
                )
                assert got == expected, (level.name, lurd)
