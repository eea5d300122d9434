"""Generated given-holes levels: certified by the variant's solver, reproducible, readable."""

from __future__ import annotations

import pytest

from evosoko.errors import ConfigError
from evosoko.generate import generate_levels, generate_one, generation_spec
from evosoko.generate.given_holes import solution_pairing
from evosoko.sokoban.formats import format_levels, parse_levels
from evosoko.sokoban.holes.board import VANISHED
from evosoko.sokoban.solutions import verify_solution
from tests.search.test_given_holes_search import fewest_pushes

METHODS = ("reverse", "mask")


@pytest.fixture(scope="module", params=METHODS)
def batch(request):
    method = request.param
    return method, generate_levels(method, 7, 7, 2, 4, seed=5, rules="given-holes")


def test_every_level_plays_given_holes_and_its_solution_makes_every_box_vanish(batch):
    method, levels = batch
    assert len(levels) == 4
    for level in levels:
        notes = dict(level.notes)
        assert notes["Method"] == method and notes["Rules"] == "given-holes"
        assert level.pairing is not None
        check = verify_solution(level, notes["Solution"])
        assert check.valid and check.solved and check.final.by_box == (VANISHED,) * 2
        assert check.pushes == int(notes["Pushes"])


def test_stored_pushes_are_optimal_under_the_variant(batch):
    _, levels = batch
    for level in levels:
        assert int(dict(level.notes)["Pushes"]) == fewest_pushes(level)


def test_levels_read_back_as_given_holes_levels(batch):
    _, levels = batch
    text = format_levels(levels)
    again = parse_levels(text, "generated.xsb")
    assert [level.pairing for level in again] == [level.pairing for level in levels]
    assert format_levels(again) == text


def test_the_seed_rebuilds_the_level():
    (level,) = generate_levels("reverse", 7, 7, 2, 1, seed=9, rules="given-holes")
    spec = generation_spec("reverse", 7, 7, 2)
    rebuilt = generate_one(spec, int(dict(level.notes)["Seed"]), "given-holes")
    assert rebuilt.rows() == level.rows() and rebuilt.notes == level.notes


def test_the_pairing_is_where_the_standard_solution_takes_each_box():
    level = parse_levels("#######\n#@$ . #\n#  $ .#\n#######\n", "two.xsb")[0]
    assert solution_pairing(level, "RRldRR") == [0, 1]
    assert solution_pairing(level, "RR") is None  # not a solution: no pairing


def test_unknown_rules_are_refused():
    with pytest.raises(ConfigError, match="unknown rules 'sideways'"):
        generate_levels("reverse", 7, 7, 2, 1, rules="sideways")


def test_random_pairings_are_certified_reproducible_and_not_the_solution_ones():
    levels = generate_levels(
        "reverse", 8, 8, 3, 4, min_pushes=8, seed=5, rules="given-holes", pairing="random"
    )
    spec = generation_spec("reverse", 8, 8, 3, min_pushes=8)
    differ = 0
    for level in levels:
        notes = dict(level.notes)
        assert notes["Paired-By"] == "random"
        check = verify_solution(level, notes["Solution"])
        assert check.valid and check.solved and check.pushes == int(notes["Pushes"])
        rebuilt = generate_one(spec, int(notes["Seed"]), "given-holes", "random")
        assert rebuilt.rows() == level.rows() and rebuilt.notes == level.notes
        standard = parse_levels("\n".join(level.rows()) + "\n", "plain.xsb")[0]
        from evosoko.search import solve

        by_solution = solution_pairing(standard, solve(standard, "push-astar").solution)
        differ += list(level.pairing.goal_rows) != by_solution
    assert differ >= 1


def test_unknown_pairing_is_refused():
    with pytest.raises(ConfigError, match="unknown pairing 'sorted'"):
        generate_levels("reverse", 7, 7, 2, 1, rules="given-holes", pairing="sorted")
