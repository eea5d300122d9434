"""The rules a level plays by, as a value (evosoko.sokoban.variants)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from evosoko.sokoban.formats import parse_levels
from evosoko.sokoban.holes.board import HolesBoard, board_for, pairs_note
from evosoko.sokoban.holes.pairing import GIVEN_HOLES, STANDARD
from evosoko.sokoban.rules import Board
from evosoko.sokoban.variants import STANDARD_RULES, GivenHolesRules, given_pairing, level_rules
from tests.search.tiny_levels import tiny_levels
from tests.sokoban.given_holes_levels import given_holes_levels, swap

PLAIN = """\
#####
#@$.#
#####
"""


def test_a_standard_level_plays_the_standard_rules():
    level = parse_levels(PLAIN, "plain.xsb")[0]
    rules = level_rules(level)
    assert rules is STANDARD_RULES
    assert (rules.name, rules.boxes_vanish, rules.home) == (STANDARD, False, "boxes on goals")
    assert rules.pairs() == ()
    assert rules.note() is None
    assert rules.objective_label("manhattan") == "manhattan"
    assert type(board_for(level)) is Board
    with pytest.raises(ValueError, match="does not play the given-holes rules"):
        given_pairing(level)
    with pytest.raises(ValueError, match="does not play the given-holes rules"):
        HolesBoard(level)


def test_the_swap_level_plays_given_holes():
    level = swap()
    rules = level_rules(level)
    assert isinstance(rules, GivenHolesRules)
    assert (rules.name, rules.boxes_vanish, rules.home) == (GIVEN_HOLES, True, "boxes vanished")
    # rows 8 cells wide: box 1 (row 2, column 2: cell 18) belongs to hole 2 (row 4, column 5:
    # cell 37), box 2 (cell 20) to hole 1 (cell 34)
    assert rules.pairs() == ((18, 37), (20, 34))
    assert rules.note() == (
        "given holes: Pairs 1-2 2-1 (box-hole, both numbered in reading order); "
        "a box vanishes in its own hole"
    )
    assert rules.objective_label("manhattan") == "paired-manhattan"
    assert rules.objective_label("matching") == "paired-push-distance"
    assert rules.solved_when == "every box has vanished into its hole"
    assert type(board_for(level)) is HolesBoard


@settings(max_examples=40, deadline=None)
@given(tiny_levels(max_boxes=3))
def test_levels_without_pairs_play_the_standard_rules(level):
    assert level_rules(level) is STANDARD_RULES


@settings(max_examples=40, deadline=None)
@given(given_holes_levels())
def test_the_rules_carry_the_level_pairing(level):
    rules = level_rules(level)
    pairing = given_pairing(level)
    assert rules.boxes_vanish
    assert rules == GivenHolesRules(pairing)
    assert rules.pairs() == tuple(zip(level.start.boxes, pairing.holes, strict=True))
    assert pairs_note(pairing.goal_rows) in (rules.note() or "")
