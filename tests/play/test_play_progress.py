"""The progress file of ``evosoko play``: where it lives, what it keeps, damaged files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evosoko.errors import EvosokoError, SolutionError
from evosoko.play.progress import (
    FORMAT,
    PROGRESS_ENV,
    DamagedProgress,
    LevelProgress,
    Progress,
    Solved,
    default_progress_path,
    level_key,
    load_progress,
    parse_progress,
    progress_json,
    read_progress,
)
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.holes.board import with_pairing

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
CASE3_SOLUTION = "dRRRurruullDDLdlluRRRuulDDuurrrdLulD"
CORRIDOR = level_from_rows(["#######", "#@ $ .#", "#######"], title="corridor")


@pytest.fixture(scope="module")
def case3():
    return read_levels(SEEDS)[1]


def test_the_file_is_found_by_option_variable_xdg_then_home(tmp_path):
    home = tmp_path / "home"
    assert default_progress_path({}, home) == home / ".local/state/evosoko/play.json"
    state = {"XDG_STATE_HOME": str(tmp_path / "state")}
    assert default_progress_path(state, home) == tmp_path / "state/evosoko/play.json"
    relative = {"XDG_STATE_HOME": "state"}  # the XDG spec ignores relative paths
    assert default_progress_path(relative, home) == home / ".local/state/evosoko/play.json"
    given_file = {**state, PROGRESS_ENV: str(tmp_path / "mine.json")}
    assert default_progress_path(given_file, home) == tmp_path / "mine.json"


def test_a_solve_is_kept_and_read_back_by_the_next_game(case3, tmp_path):
    path = tmp_path / "deep" / "play.json"  # the folders are made
    progress, notice = load_progress(path)
    assert notice == "" and progress.of(case3) is None
    recorded = progress.record(case3, CASE3_SOLUTION)
    assert recorded.news == "first solve"
    again, _ = load_progress(path)
    record = again.of(case3)
    assert record is not None and record.title == "seed000-case3"
    assert record.fewest_moves == Solved(36, 13, CASE3_SOLUTION)
    assert record.describe() == "best 36/13"
    assert json.loads(path.read_text())["format"] == FORMAT


def test_only_a_better_solution_replaces_a_best(case3, tmp_path):
    progress = Progress(tmp_path / "play.json", {})
    longer = "du" + CASE3_SOLUTION  # two more moves, the same pushes
    assert progress.record(case3, longer).news == "first solve"
    recorded = progress.record(case3, CASE3_SOLUTION)
    assert recorded.news == "new best: fewest moves and fewest pushes"
    assert progress.record(case3, longer).news == ""
    record = read_progress(progress.path)[level_key(case3)]
    assert record.fewest_moves.lurd == record.fewest_pushes.lurd == CASE3_SOLUTION


def test_fewest_moves_and_fewest_pushes_are_kept_apart():
    first = LevelProgress("x", Solved(40, 10, "r"), Solved(40, 10, "r"))
    fewer_moves = first.improved(Solved(30, 12, "l"), "x")
    assert fewer_moves.fewest_moves.moves == 30 and fewer_moves.fewest_pushes.pushes == 10
    assert fewer_moves.describe() == "best 30/12 and 40/10"
    tie = fewer_moves.improved(Solved(30, 11, "u"), "x")  # same moves, fewer pushes
    assert tie.fewest_moves == Solved(30, 11, "u")
    assert tie.fewest_pushes == Solved(40, 10, "r")


def test_only_a_solution_is_kept(case3, tmp_path):
    progress = Progress(tmp_path / "play.json", {})
    with pytest.raises(SolutionError):
        progress.record(case3, CASE3_SOLUTION[:-1])
    assert not progress.path.exists()


def test_two_games_at_once_keep_each_others_records(case3, tmp_path):
    path = tmp_path / "play.json"
    first, _ = load_progress(path)
    second, _ = load_progress(path)
    first.record(case3, CASE3_SOLUTION)
    second.record(CORRIDOR, "rRR")
    assert set(read_progress(path)) == {level_key(case3), level_key(CORRIDOR)}
    assert second.of(case3) is not None  # seen when the second game wrote


def test_a_level_is_known_by_its_board_and_rules_not_its_title():
    renamed = level_from_rows(["#######", "#@ $ .#", "#######"], title="another name")
    assert level_key(renamed) == level_key(CORRIDOR)
    holes = with_pairing(CORRIDOR, [0])
    assert level_key(holes) != level_key(CORRIDOR)
    moved = level_from_rows(["#######", "# @$ .#", "#######"], title="corridor")
    assert level_key(moved) != level_key(CORRIDOR)


def test_a_given_holes_solve_is_kept(tmp_path):
    holes = with_pairing(CORRIDOR, [0])
    progress = Progress(tmp_path / "play.json", {})
    progress.record(holes, "rRR")
    assert progress.of(holes) is not None and progress.of(CORRIDOR) is None


def test_a_damaged_file_is_set_aside_with_a_notice(case3, tmp_path):
    path = tmp_path / "play.json"
    path.write_text('{"format": "evosoko play progress",\n "version": 1,\n "levels": {\n')
    with pytest.raises(DamagedProgress) as error:
        read_progress(path)
    assert error.value.line == 4 and str(error.value).startswith(f"{path}:4: not JSON")
    progress, notice = load_progress(path)
    aside = tmp_path / "play.json.damaged"
    assert aside.read_text().startswith('{"format"') and not path.exists()
    assert f"set aside as {aside}" in notice and "\n" not in notice
    progress.record(case3, CASE3_SOLUTION)
    path.write_text("[]")
    _, notice = load_progress(path)
    assert (tmp_path / "play.json.damaged-2").read_text() == "[]"
    assert "play.json.damaged-2" in notice


def test_a_file_damaged_during_a_game_is_not_overwritten(case3, tmp_path):
    path = tmp_path / "play.json"
    progress, _ = load_progress(path)
    path.write_text("not json")
    with pytest.raises(DamagedProgress):
        progress.record(case3, CASE3_SOLUTION)
    assert path.read_text() == "not json"


def test_a_newer_file_is_left_alone(tmp_path):
    path = tmp_path / "play.json"
    path.write_text(json.dumps({"format": FORMAT, "version": 2, "levels": {}}))
    with pytest.raises(EvosokoError, match="newer evosoko") as error:
        load_progress(path)
    assert not isinstance(error.value, DamagedProgress)
    assert path.exists()


def test_a_place_that_cannot_hold_the_file_is_one_error(case3, tmp_path):
    (tmp_path / "file").write_text("")
    progress = Progress(tmp_path / "file" / "play.json", {})
    with pytest.raises(EvosokoError, match="cannot read this file"):
        progress.record(case3, CASE3_SOLUTION)
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(EvosokoError, match="cannot read this file"):
        load_progress(tmp_path / "folder.json")


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ({"title": 3}, "title is not text"),
        ({"fewest_moves": []}, "fewest_moves is not an object"),
        ({"fewest_moves": {"moves": 1, "pushes": 0, "lurd": "x"}}, "not a plain LURD"),
        ({"fewest_moves": {"moves": 2, "pushes": 0, "lurd": "rR"}}, "do not count its LURD"),
    ],
)
def test_a_wrong_entry_is_named(entry, complaint):
    good = {"moves": 2, "pushes": 1, "lurd": "rR"}
    level = {"title": "t", "fewest_moves": good, "fewest_pushes": good, **entry}
    data = {"format": FORMAT, "version": 1, "levels": {"abc": level}}
    with pytest.raises(DamagedProgress, match=complaint) as error:
        parse_progress(data, "p.json")
    assert "levels.abc" in str(error.value)


SOLVED = st.text("udlrUDLR", min_size=1, max_size=20).map(
    lambda lurd: Solved(len(lurd), sum(c.isupper() for c in lurd), lurd)
)
RECORDS = st.dictionaries(
    st.text("0123456789abcdef", min_size=1, max_size=20),
    st.builds(LevelProgress, st.none() | st.text(max_size=10), SOLVED, SOLVED),
    max_size=5,
)


@given(RECORDS)
def test_records_survive_the_file(records):
    assert parse_progress(json.loads(progress_json(records)), "p.json") == records


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=200)
@given(JSON, st.sampled_from(["format", "version", "levels", "title", "lurd", "moves"]))
def test_any_json_is_read_or_refused_in_one_error(value, where):
    data = {"format": FORMAT, "version": 1, "levels": {"k": {where: value}}}
    for candidate in (value, data, {**data, where: value}):
        try:
            parse_progress(candidate, "p.json")
        except EvosokoError as error:
            assert "\n" not in str(error)
