"""Every level in ../shared/levels parses and validates; the bundled seeds match their source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evosoko.errors import LevelFormatError
from evosoko.sokoban.formats import format_levels, parse_levels, read_levels

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "levels"
BUNDLED = ROOT / "levels"

COLLECTIONS = [
    ("microban.txt", 155, [str(n) for n in range(1, 156)]),
    ("xsokoban.txt", 90, [f"screen.{n:02d}" for n in range(1, 91)]),
    ("boxoban/unfiltered/train-000.txt", 1000, [str(n) for n in range(1000)]),
    ("boxoban/medium/train-000.txt", 1000, [str(n) for n in range(1000)]),
    ("boxoban/hard/000.txt", 1000, [str(n) for n in range(1000)]),
    ("seeds/seeds.xsb", 3, ["seed000-example", "seed000-case3", "seed004-blog"]),
    ("seeds/seed002-example.grid", 1, [None]),
    ("seeds/seed000-example.num", 1, [None]),
]


def shared(name: str) -> Path:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


@pytest.mark.parametrize("name, count, titles", COLLECTIONS, ids=[c[0] for c in COLLECTIONS])
def test_every_shared_level_parses_and_validates(name, count, titles):
    levels = read_levels(shared(name))
    assert len(levels) == count
    assert [level.title for level in levels] == titles
    assert [level.origin.index for level in levels] == list(range(1, count + 1))
    for level in levels:
        assert len(level.start.boxes) == int(level.goals.sum()) > 0
        assert level.floor[level.start.player]
        assert all(level.floor[box] for box in level.start.boxes)
    assert parse_levels(format_levels(levels)) == levels
    if name.startswith("boxoban"):
        assert {(level.width, level.height, level.box_count) for level in levels} == {(10, 10, 4)}


def test_microban_first_level_and_its_location():
    first = read_levels(shared("microban.txt"))[0]
    assert first.rows() == ["####", "# .#", "#  ###", "#*@  #", "#  $ #", "#  ###", "####"]
    assert first.origin.line == 11


def test_the_invalid_seed_is_rejected_with_file_line_and_reason():
    path = shared("seeds/invalid-seed000-recognized.xsb")
    with pytest.raises(LevelFormatError) as error:
        read_levels(path)
    message = str(error.value)
    assert message.startswith(f"{path}:4: ")
    assert re.search(r"5 boxes but 2 goals", message)


@pytest.mark.parametrize("name", ["seeds.xsb", "seed002-example.grid", "seed000-example.num"])
def test_bundled_seed_levels_equal_their_source(name):
    bundled = read_levels(BUNDLED / name)
    assert bundled
    source = SHARED / "seeds" / name
    if source.exists():
        assert bundled == read_levels(source)
