"""generate_levels: determinism, certification, the pushes band, duplicates and bad requests."""

from __future__ import annotations

import itertools

import pytest

from evosoko.errors import ConfigError, EvosokoError
from evosoko.generate import (
    METHODS,
    GenerationError,
    generate_levels,
    generate_one,
    generation_spec,
)
from evosoko.generate.sketch import fingerprint
from evosoko.sokoban.solutions import verify_solution
from tests.generate.push_bfs import optimal_pushes


@pytest.fixture(scope="module", params=METHODS)
def batch(request):
    method = request.param
    return method, generate_levels(method, 7, 7, 2, 6, seed=11)


def notes_of(level):
    return dict(level.notes)


def test_every_level_is_certified_and_its_solution_replays(batch):
    method, levels = batch
    assert len(levels) == 6
    for number, level in enumerate(levels, start=1):
        notes = notes_of(level)
        assert level.title == f"{method}-{number:02d}"
        assert notes["Method"] == method
        check = verify_solution(level, notes["Solution"])
        assert check.valid and check.solved
        assert check.pushes == int(notes["Pushes"]) >= 1
        assert check.moves == int(notes["Moves"])
        assert int(notes["Expanded"]) >= 1
        assert not all(level.goals[box] for box in level.start.boxes)
        assert level.width <= 7 and level.height <= 7 and level.box_count == 2


def test_stored_pushes_are_optimal_by_an_independent_search(batch):
    _, levels = batch
    for level in levels:
        assert optimal_pushes(level) == int(notes_of(level)["Pushes"])


def test_levels_are_distinct_puzzles(batch):
    _, levels = batch
    assert len({fingerprint(level) for level in levels}) == len(levels)


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_levels_other_seed_other_levels(method):
    first = generate_levels(method, 7, 7, 2, 3, seed=5)
    again = generate_levels(method, 7, 7, 2, 3, seed=5)
    other = generate_levels(method, 7, 7, 2, 3, seed=6)
    assert [(lv.key(), lv.notes) for lv in first] == [(lv.key(), lv.notes) for lv in again]
    assert [lv.rows() for lv in first] != [lv.rows() for lv in other]


@pytest.mark.parametrize("method", METHODS)
def test_seed_note_rebuilds_the_level(method):
    level = generate_levels(method, 7, 7, 2, 1, seed=3)[0]
    spec = generation_spec(method, 7, 7, 2)
    rebuilt = generate_one(spec, int(notes_of(level)["Seed"]))
    assert rebuilt.rows() == level.rows()
    assert rebuilt.notes == level.notes


@pytest.mark.parametrize("method", METHODS)
def test_pushes_band_is_honoured(method):
    levels = generate_levels(method, 7, 7, 2, 4, min_pushes=3, max_pushes=5, seed=2)
    pushes = [int(notes_of(level)["Pushes"]) for level in levels]
    assert all(3 <= p <= 5 for p in pushes), pushes


def test_progress_reports_every_attempt_and_ends_at_count():
    calls = []
    generate_levels("markov", 7, 7, 2, 3, seed=4, on_progress=lambda a, n: calls.append((a, n)))
    assert [n for _, n in calls] == list(range(1, len(calls) + 1))
    assert calls[-1][0] == 3
    assert all(a2 - a1 in (0, 1) for (a1, _), (a2, _) in itertools.pairwise(calls))


def test_avoid_skips_known_levels_and_custom_titles():
    known = generate_levels("mask", 7, 7, 2, 3, seed=8)
    fresh = generate_levels("mask", 7, 7, 2, 3, seed=8, avoid=known, title_prefix="easy")
    assert not {fingerprint(lv) for lv in known} & {fingerprint(lv) for lv in fresh}
    assert [lv.title for lv in fresh] == ["easy-01", "easy-02", "easy-03"]


def test_impossible_band_runs_out_of_attempts_with_a_clear_error():
    with pytest.raises(GenerationError, match=r"generated only 0 of 2 levels in 5 attempts"):
        generate_levels("mask", 6, 6, 1, 2, min_pushes=400, seed=1, max_attempts=5)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("maze", 8, 8, 3), "unknown generation method 'maze'"),
        (("reverse", 4, 8, 1), "width must be between 5 and 64"),
        (("reverse", 8, 65, 1), "height must be between 5 and 64"),
        (("reverse", 8, 8, 0), "at least 1"),
        (("reverse", 6, 6, 8), "8 boxes do not fit a 6x6 room"),
        (("mask", 7, 7, 5), "5 boxes do not fit a 7x7 room with the mask method"),
    ],
)
def test_bad_requests_raise_config_errors(arguments, message):
    with pytest.raises(ConfigError, match=message):
        generate_levels(*arguments, count=1)


def test_bad_band_and_count():
    with pytest.raises(ConfigError, match="below --min-pushes 5"):
        generate_levels("reverse", 8, 8, 2, 1, min_pushes=5, max_pushes=3)
    with pytest.raises(ConfigError, match="--min-pushes must be at least 1"):
        generate_levels("reverse", 8, 8, 2, 1, min_pushes=0)
    with pytest.raises(EvosokoError, match="number of levels must be at least 1"):
        generate_levels("reverse", 8, 8, 2, 0)
