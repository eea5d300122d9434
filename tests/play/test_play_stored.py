"""Stored solutions and best prefixes for ``evosoko play``; saving solved levels; hints."""

from __future__ import annotations

from pathlib import Path

import pytest

from evosoko.errors import SolutionError
from evosoko.play.hints import LOST, PUSH, SOLVED, TIMEOUT, hint_from, plan_from
from evosoko.play.stored import read_stored_solutions, save_solution
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solution_files import match_solutions
from evosoko.sokoban.solutions import verify_solution

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"
MICROBAN = Path(__file__).resolve().parents[3] / "shared" / "levels" / "microban.txt"
CASE3_SOLUTION = "dRRRurruullDDLdlluRRRuulDDuurrrdLulD"
UNTITLED = "#####\n#@$.#\n#####\n\n######\n#@$ .#\n######\n\n######\n#@ $.#\n######\n"


@pytest.fixture(scope="module")
def seeds():
    return read_levels(SEEDS)


def test_solution_and_best_notes_are_read_and_matched_by_title(seeds, tmp_path):
    path = tmp_path / "run.sok"
    path.write_text(
        "  ######\n  #    #\n###$$$ #\n#@ $.. #\n# $...##\n####  #\n   ####\n"
        "Title: seed000-case3\nBest: 3r2(dL)\nDistance: 7\n\n"
        + "\n".join(seeds[0].rows())
        + "\nTitle: seed000-example\nSolution: LdrdL\n"
    )
    stored = read_stored_solutions(seeds, path)
    assert set(stored) == {0, 1}
    assert stored[0].solves and stored[0].lurd == "LdrdL"
    assert not stored[1].solves and stored[1].lurd == "rrrdLdL" and stored[1].distance == 7
    assert stored[1].describe() == f"GA's best prefix (distance 7) from {path}"


def test_a_malformed_stored_solution_names_its_line(seeds, tmp_path):
    path = tmp_path / "bad.sok"
    path.write_text("\n".join(seeds[0].rows()) + "\nTitle: seed000-example\nSolution: Lxd\n")
    with pytest.raises(SolutionError) as error:
        read_stored_solutions(seeds, path)
    assert str(path) in str(error.value)


def test_saving_verifies_and_keeps_other_levels_solutions(seeds, tmp_path):
    path = tmp_path / "mine.sok"
    assert save_solution(path, seeds, 1, CASE3_SOLUTION) == 1
    assert save_solution(path, seeds, 0, "LdrdL") == 2
    assert save_solution(path, seeds, 1, CASE3_SOLUTION) == 2  # replaced, not added
    entries = match_solutions(seeds, read_levels(path))
    assert sorted(entry.level.title for entry in entries) == ["seed000-case3", "seed000-example"]
    for entry in entries:
        check = verify_solution(entry.level, entry.lurd)
        assert check.valid and check.solved
    with pytest.raises(SolutionError):
        save_solution(path, seeds, 0, "Ld")  # does not solve it
    assert len(match_solutions(seeds, read_levels(path))) == 2


def test_untitled_levels_are_saved_in_their_place(tmp_path):
    source = tmp_path / "untitled.xsb"
    source.write_text(UNTITLED)
    levels = read_levels(source)
    path = tmp_path / "saved.sok"
    save_solution(path, levels, 2, "rR")
    save_solution(path, levels, 0, "R")
    entries = match_solutions(levels, read_levels(path))
    assert [(entry.level.index, entry.lurd) for entry in entries] == [(1, "R"), (3, "rR")]


def test_push_astar_plans_from_the_current_position(seeds):
    level = seeds[1]
    board = Board(level)
    for letter in CASE3_SOLUTION[:9]:
        board.step("udlr".index(letter.lower()))
    state = board.state()
    plan = plan_from(level, state)
    assert plan.status == PUSH and plan.pushes > 0
    replay = Board(level, state)
    for letter in plan.lurd:
        assert replay.step("udlr".index(letter.lower()))
    assert replay.is_solved()
    hint = hint_from(level, state, plan)
    assert hint is not None and hint.walk + "udlr"[hint.direction].upper() == plan.first_push


def test_a_solved_position_needs_no_plan(seeds):
    level = seeds[1]
    board = Board(level)
    for letter in CASE3_SOLUTION:
        board.step("udlr".index(letter.lower()))
    assert plan_from(level, board.state()).status == SOLVED


def test_a_lost_position_is_proven_lost(seeds):
    level = seeds[0]  # seed000-example: boxes on the left wall's column, goals beside them
    board = Board(level)
    board.push(level.start.boxes[0], 0)  # a box pushed up against the top wall: lost
    plan = plan_from(level, board.state())
    assert plan.status == LOST
    assert hint_from(level, board.state(), plan) is None


@pytest.mark.skipif(not MICROBAN.is_file(), reason="needs ../shared/levels/microban.txt")
def test_a_search_that_runs_out_of_time_says_so():
    level = read_levels(MICROBAN)[92]  # push-A* needs seconds for Microban 93
    plan = plan_from(level, level.start, seconds=0.05)
    assert plan.status == TIMEOUT
