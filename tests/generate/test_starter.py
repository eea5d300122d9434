"""The bundled starter set: 60 certified levels in three bands, as documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution

STARTER = Path(__file__).resolve().parents[2] / "levels" / "starter.xsb"
BANDS = {
    "easy": ("mask", 2, 2, 6),
    "medium": ("markov", 3, 6, 12),
    "hard": ("reverse", 4, 25, None),
}


@pytest.fixture(scope="module")
def starter():
    return read_levels(STARTER)


def test_three_bands_of_twenty_titled_in_order(starter):
    expected = [f"{band}-{number:02d}" for band in BANDS for number in range(1, 21)]
    assert [level.title for level in starter] == expected


@pytest.mark.parametrize("band", BANDS)
def test_every_level_is_certified_within_its_band(starter, band):
    method, boxes, low, high = BANDS[band]
    for level in (lv for lv in starter if lv.title.startswith(band + "-")):
        notes = dict(level.notes)
        assert notes["Method"] == method and level.box_count == boxes
        check = verify_solution(level, notes["Solution"])
        assert check.valid and check.solved
        assert check.pushes == int(notes["Pushes"]) and check.moves == int(notes["Moves"])
        assert low <= check.pushes and (high is None or check.pushes <= high)


def test_easy_levels_are_short(starter):
    # the default GA config starts here: short solutions a GA finds in seconds
    easy = [lv for lv in starter if lv.title.startswith("easy-")]
    assert max(int(dict(lv.notes)["Moves"]) for lv in easy) <= 20
