"""LURD parsing, run-length encoding, replay and verification."""

from __future__ import annotations

import re
import warnings
from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_boards import MOVES, NaiveBoard, quiet_level, small_levels

from evosoko.errors import EvosokoWarning, SolutionError
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import (
    MAX_LURD_LENGTH,
    compress_lurd,
    illegal_step_reason,
    lurd_directions,
    parse_lurd,
    replay_states,
    to_lurd,
    verify_solution,
)

SHARED_LEVELS = Path(__file__).resolve().parents[2].parent / "shared" / "levels"
lurd_text = st.text(alphabet="udlrUDLR", max_size=80)

CORRIDOR = quiet_level(
    [
        "#######",
        "#@$ $ #",
        "#  #. #",
        "#   . #",
        "#######",
    ]
)


# ---- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("3r2(dL)", "rrrdLdL"),
        ("2(r2(uD))", "ruDuDruDuD"),
        ("12l", "l" * 12),
        ("  ul\n\tDR\r\n 2 R ", "ulDRRR"),
        ("", ""),
    ],
)
def test_parse_lurd_expands_run_length_encoding(text, steps):
    assert parse_lurd(text) == steps


@pytest.mark.parametrize(
    ("text", "column", "complaint"),
    [
        ("rrx", 3, "unexpected character 'x'"),
        ("ur3", 3, "repeat count with no step"),
        ("u(rd", 2, "never closed"),
        ("ur)", 3, "without a matching"),
        ("u0r", 2, "at least 1"),
        ("u()", 2, "empty group"),
        ("2(r3)", 4, "repeat count with no step"),
    ],
)
def test_parse_lurd_names_the_column_of_a_mistake(text, column, complaint):
    with pytest.raises(SolutionError, match=f"column {column}: .*{complaint}"):
        parse_lurd(text)


def test_parse_lurd_errors_carry_file_and_line():
    with pytest.raises(SolutionError) as raised:
        parse_lurd("udlr\n  uQ", path="solutions.sok", line=40)
    assert (raised.value.path, raised.value.line) == ("solutions.sok", 41)
    assert "column 4" in raised.value.message
    with pytest.raises(SolutionError, match="line 2, column 4"):
        parse_lurd("udlr\n  uQ")


def test_parse_lurd_refuses_absurd_expansions():
    with pytest.raises(SolutionError, match="expands beyond"):
        parse_lurd(f"{MAX_LURD_LENGTH + 1}r")
    with pytest.raises(SolutionError, match="expands beyond"):
        parse_lurd("99999(99999(r))")


@given(lurd_text)
def test_compress_then_parse_is_the_identity(lurd):
    compressed = compress_lurd(lurd)
    assert parse_lurd(compressed) == lurd
    assert len(compressed) <= len(lurd)


@st.composite
def encoded_lurd(draw, depth: int = 2) -> tuple[str, str]:
    """(run-length text, its expansion) built from random letters, counts and groups."""
    text, steps = [], []
    for _ in range(draw(st.integers(0, 4))):
        count = draw(st.integers(1, 4))
        if depth > 0 and draw(st.booleans()):
            inner_text, inner_steps = draw(encoded_lurd(depth - 1))
            if not inner_steps:
                continue
            piece_text, piece_steps = f"({inner_text})", inner_steps
        else:
            piece_text = piece_steps = draw(st.sampled_from("udlrUDLR"))
        text.append((str(count) if count > 1 else "") + piece_text)
        steps.append(piece_steps * count)
    spacer = draw(st.sampled_from(["", " ", "\n"]))
    return spacer.join(text), "".join(steps)


@given(encoded_lurd())
def test_parse_lurd_expands_random_nested_encodings(pair):
    text, steps = pair
    assert parse_lurd(text) == steps


@given(lurd_text, st.integers(0, 80), st.sampled_from("xX?-,;0"))
def test_a_stray_character_is_reported_at_its_column(lurd, where, stray):
    where = min(where, len(lurd))
    text = lurd[:where] + stray + lurd[where:]
    if stray == "0":  # a count of zero, or a count with nothing after it
        expected = "must be at least 1" if where < len(lurd) else "with no step or group"
    else:
        expected = f"unexpected character {stray!r}"
    with pytest.raises(SolutionError, match=f"column {where + 1}: .*{re.escape(expected)}"):
        parse_lurd(text)


def test_to_lurd_and_directions():
    assert to_lurd([0, 1, 2, 3], [False, True, False, True]) == "uDlR"
    assert lurd_directions("uDlR") == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        to_lurd([0, 1], [True])


# ---- verification --------------------------------------------------------------------------------
def test_an_illegal_push_stops_verification_with_a_clear_message():
    result = verify_solution(CORRIDOR, "RRd")
    assert not result.valid and not result.solved
    assert result.failed_step == 2
    assert result.error == (
        "step 2 'R': the box at row 2, column 4 cannot move right: another box at row 2, column 5"
    )
    assert (result.moves, result.pushes, result.lurd) == (1, 1, "R")


def test_walking_into_a_wall_is_reported_with_the_player_position():
    result = verify_solution(CORRIDOR, "dlu")
    assert result.failed_step == 2
    assert result.error == "step 2 'l': the player at row 3, column 2 cannot move left: wall"


def test_pushing_a_box_into_a_wall_is_reported_with_the_box_position():
    level = quiet_level(["######", "#@$. #", "#    #", "######"])
    result = verify_solution(level, "RRR")
    assert result.error == "step 3 'R': the box at row 2, column 5 cannot move right: wall"


def test_steps_after_the_solution_are_replayed():
    level = quiet_level(["######", "#@$. #", "#    #", "######"])
    finished = verify_solution(level, "Rd")
    assert finished.valid and finished.solved
    assert (finished.solved_at, finished.extra_steps) == (1, 1)
    undone = verify_solution(level, "RR")
    assert undone.valid and not undone.solved
    assert undone.solved_at == 1
    never = verify_solution(level, "d")
    assert never.valid and not never.solved and never.solved_at is None


def test_case_mismatches_are_corrected_and_warned_about():
    with pytest.warns(EvosokoWarning, match="2 step.*wrong case.*step 1 'r' pushes a box"):
        result = verify_solution(CORRIDOR, "rD", path="x.sok", line=3)
    assert result.valid and result.lurd == "Rd"
    assert result.case_mismatches == 2


def test_a_correct_solution_raises_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = verify_solution(CORRIDOR, "R d l u")
    assert not result.case_mismatches


@settings(deadline=None)
@given(small_levels(), st.lists(st.integers(0, 3), max_size=50))
def test_replaying_a_recorded_game_reproduces_it(level, moves):
    board = Board(level)
    states = [board.state()]
    for direction in moves:
        if board.step(direction):
            states.append(board.state())
    lurd = to_lurd([s.direction for s in board.history], [s.pushed for s in board.history])
    result = verify_solution(level, compress_lurd(lurd))
    assert result.valid and result.lurd == lurd and result.case_mismatches == 0
    assert (result.moves, result.pushes) == (len(lurd), sum(c.isupper() for c in lurd))
    assert result.solved == board.is_solved() and result.final == board.state()
    assert replay_states(level, lurd) == states


@settings(deadline=None)
@given(small_levels(), st.text(alphabet="udlrUDLR", max_size=60))
def test_verification_plays_any_text_as_the_board_steps_it(level, lurd):
    """The compiled replay (a 333,330-step solution in milliseconds) against
    :meth:`Board.step`, one step at a time: the same steps played, pushes, case, solved point,
    final position and first illegal step with its reason."""
    board = Board(level)
    emitted, solved_at, error = [], 0 if board.is_solved() else None, None
    for number, letter in enumerate(lurd, start=1):
        direction = "udlr".index(letter.lower())
        if not board.step(direction):
            error = f"step {number} {letter!r}: {illegal_step_reason(board, direction)}"
            break
        pushed = board.history[-1].pushed
        emitted.append(letter.upper() if pushed else letter.lower())
        if solved_at is None and board.is_solved():
            solved_at = number
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        result = verify_solution(level, lurd)
    assert result.lurd == "".join(emitted) and result.moves == len(emitted)
    assert result.pushes == sum(letter.isupper() for letter in emitted)
    assert result.case_mismatches == sum(a != b for a, b in zip(emitted, lurd))
    assert (result.error, result.valid, result.solved_at) == (error, error is None, solved_at)
    assert result.solved == board.is_solved() and result.final == board.state()


def test_replay_states_raises_at_an_illegal_step():
    with pytest.raises(SolutionError, match="step 2 'R'"):
        replay_states(CORRIDOR, "RR")


# ---- a real level, solved by an independent breadth-first search ---------------------------------
def seed_level(title: str):
    path = SHARED_LEVELS / "seeds" / "seeds.xsb"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    lines = path.read_text().splitlines()
    first = lines.index(f"; {title}") + 1
    rows = []
    for line in lines[first:]:
        if not line.strip() or line.startswith(";"):
            break
        rows.append(line.replace("-", " "))
    return quiet_level(rows, title=title)


def breadth_first_solution(level) -> str:
    """A shortest solution in moves, found on coordinates without evosoko's rules."""
    naive = NaiveBoard(level)
    walls, goals = naive.walls, naive.goals
    start = (naive.player, frozenset(naive.boxes))
    came_from = {start: None}
    queue = deque([start])
    while queue:
        position = queue.popleft()
        player, boxes = position
        if boxes <= goals:
            break
        for direction, (dr, dc) in MOVES.items():
            target = (player[0] + dr, player[1] + dc)
            letter = "udlr"[direction]
            if target in walls:
                continue
            if target in boxes:
                beyond = (target[0] + dr, target[1] + dc)
                if beyond in walls or beyond in boxes:
                    continue
                following = (target, boxes - {target} | {beyond})
                letter = letter.upper()
            else:
                following = (target, boxes)
            if following not in came_from:
                came_from[following] = (position, letter)
                queue.append(following)
    else:
        raise AssertionError("no solution")
    letters = []
    while came_from[position] is not None:
        position, letter = came_from[position]
        letters.append(letter)
    return "".join(reversed(letters))


def test_the_optimal_solution_of_seed000_case3_verifies():
    level = seed_level("seed000-case3")
    solution = breadth_first_solution(level)
    assert len(solution) == 34  # as the source documents report
    result = verify_solution(level, solution)
    assert result.valid and result.solved and result.error is None
    assert (result.moves, result.pushes) == (34, sum(c.isupper() for c in solution))
    assert result.lurd == solution and result.solved_at == 34
    states = replay_states(level, compress_lurd(solution))
    assert len(states) == 35 and states[0] == level.start
    assert all(level.goals[box] for box in states[-1].boxes)
    with pytest.warns(EvosokoWarning):
        lowered = verify_solution(level, solution.lower())
    assert lowered.lurd == solution and lowered.case_mismatches == result.pushes
    corrupted = verify_solution(level, solution[:-1] + "u")
    assert not corrupted.solved
