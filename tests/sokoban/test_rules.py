"""Rules: steps, undo, reachability and pushes, checked against a naive model on random levels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_boards import MOVES, NaiveBoard, quiet_level, small_levels

from evosoko.sokoban.level import DIRECTIONS, State
from evosoko.sokoban.rules import (
    Board,
    normalized_player,
    play_moves,
    reachable_cells,
    walk_path,
)

directions = st.lists(st.integers(0, 3), max_size=60)

CORRIDOR = quiet_level(
    [
        "#######",
        "#@$ $ #",
        "#  #. #",
        "#   . #",
        "#######",
    ]
)


# ---- properties on random levels ------------------------------------------------------------
@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions)
def test_steps_agree_with_the_naive_model(level, moves):
    board, naive = Board(level), NaiveBoard(level)
    for direction in moves:
        expected_legal, expected_push = naive.step(direction)
        assert board.can_step(direction) == expected_legal
        assert board.step(direction) == expected_legal
        if expected_legal:
            assert board.history[-1].pushed == expected_push
        assert board.state() == naive.state()
        assert board.is_solved() == naive.is_solved()
    assert board.legal_moves() == [
        d for d in range(4) if NaiveBoard(level, board.state()).step(d)[0]
    ]


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions)
def test_played_moves_end_where_the_naive_model_ends_or_first_solves(level, moves):
    naive = NaiveBoard(level)
    solved = naive.is_solved()
    for direction in moves:
        if solved:
            break
        naive.step(direction)
        solved = naive.is_solved()
    played = play_moves(level, moves)
    assert played.solved == solved
    assert State(played.player, tuple(np.flatnonzero(played.occupied).tolist())) == naive.state()


def test_play_moves_names_a_gene_that_is_not_a_direction():
    with pytest.raises(ValueError, match="gene 2: 7 is not a direction code"):
        play_moves(CORRIDOR, [3, 1, 7, 0])


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions)
def test_undo_restores_every_earlier_position_exactly(level, moves):
    board = Board(level)
    seen = [(board.player, board.occupied.copy(), board.is_solved())]
    for direction in moves:
        if board.step(direction):
            seen.append((board.player, board.occupied.copy(), board.is_solved()))
    while board.history:
        seen.pop()
        board.undo()
        player, occupied, solved = seen[-1]
        assert board.player == player
        assert np.array_equal(board.occupied, occupied)
        assert board.is_solved() == solved
    assert board.state() == level.start


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions, st.data())
def test_undo_to_a_mark_restores_that_position(level, moves, data):
    board = Board(level)
    for direction in moves:
        board.step(direction)
    mark = data.draw(st.integers(0, len(board.history)))
    replayed = Board(level)
    for step in board.history[:mark]:
        assert replayed.step(step.direction)
    board.undo_to(mark)
    assert board.state() == replayed.state()
    assert len(board.history) == mark


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions)
def test_reachability_and_normalized_player_agree_with_breadth_first_search(level, moves):
    board = Board(level)
    for direction in moves:
        board.step(direction)
    naive = NaiveBoard(level, board.state())
    expected = sorted(naive.cell(p) for p in naive.distances())
    assert np.flatnonzero(board.reachable()).tolist() == expected
    assert board.normalized_player() == expected[0]
    assert normalized_player(level, board.player, board.occupied) == expected[0]
    assert board.key() == (expected[0], board.state().boxes)


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), directions)
def test_legal_pushes_and_push_agree_with_the_naive_model(level, moves):
    board = Board(level)
    for direction in moves:
        board.step(direction)
    naive = NaiveBoard(level, board.state())
    distance = naive.distances()
    expected = []
    for box in sorted(naive.boxes):
        for direction, (dr, dc) in MOVES.items():
            behind, target = (box[0] - dr, box[1] - dc), (box[0] + dr, box[1] + dc)
            if behind in distance and target not in naive.walls and target not in naive.boxes:
                expected.append((naive.cell(box), direction, distance[behind]))
    assert board.legal_pushes() == [(box, direction) for box, direction, _ in expected]
    position = board.state()
    for box, direction, walk_length in expected:
        trial = Board(level, position)
        lurd = trial.push(box, direction)
        assert len(lurd) == walk_length + 1 and lurd[-1] == DIRECTIONS[direction].upper()
        check = NaiveBoard(level, position)
        for letter in lurd:
            legal, pushed = check.step(DIRECTIONS.index(letter.lower()))
            assert legal and pushed == letter.isupper()
        assert trial.state() == check.state()


@settings(deadline=None)  # the first call compiles or loads numba kernels
@given(small_levels(), st.integers(0, 63))
def test_walk_path_is_a_shortest_walk_or_none(level, target):
    board = Board(level)
    naive = NaiveBoard(level)
    distance = {naive.cell(p): d for p, d in naive.distances().items()}
    path = walk_path(level, board.occupied, board.player, target)
    if target not in distance:
        assert path is None
        return
    assert path is not None and len(path) == distance[target]
    for letter in path:
        legal, pushed = naive.step(DIRECTIONS.index(letter))
        assert legal and not pushed and letter.islower()
    assert naive.cell(naive.player) == target


# ---- hand-drawn cases ---------------------------------------------------------------------------
def test_step_refuses_walls_and_blocked_pushes_without_change():
    board = Board(CORRIDOR)
    before = board.state()
    assert not board.step(0)  # wall above the player
    assert not board.step(2)  # wall to the left
    assert board.state() == before and board.history == []
    assert board.step(3)  # pushes the first box against the second
    assert board.history[-1].pushed
    assert not board.step(3)  # box into box
    assert board.state() == State.of(
        CORRIDOR.cell(1, 2), [CORRIDOR.cell(1, 3), CORRIDOR.cell(1, 4)]
    )


def test_push_into_a_wall_is_illegal():
    level = quiet_level(["#####", "#@$.#", "#####"])
    board = Board(level)
    assert board.step(3) and board.is_solved()
    assert not board.step(3)
    assert board.legal_moves() == [2]


def test_undo_without_history_raises():
    with pytest.raises(IndexError):
        Board(CORRIDOR).undo()
    with pytest.raises(ValueError):
        Board(CORRIDOR).undo_to(1)


def test_push_walks_around_and_reports_the_lurd():
    board = Board(CORRIDOR)
    lurd = board.push(CORRIDOR.cell(1, 4), 2)  # around the wall, then the second box left
    assert len(lurd) == 9 and lurd[:-1].islower() and lurd[-1] == "L"
    assert board.state() == State.of(
        CORRIDOR.cell(1, 4), [CORRIDOR.cell(1, 2), CORRIDOR.cell(1, 3)]
    )
    assert [step.pushed for step in board.history] == [False] * 8 + [True]


def test_illegal_push_raises_and_changes_nothing():
    board = Board(CORRIDOR)
    assert board.step(3)  # boxes now side by side at (1, 3) and (1, 4)
    before = board.state()
    with pytest.raises(ValueError):
        board.push(CORRIDOR.cell(1, 3), 3)  # into the other box
    with pytest.raises(ValueError):
        board.push(CORRIDOR.cell(1, 3), 0)  # into the wall
    with pytest.raises(ValueError):
        board.push(CORRIDOR.cell(1, 4), 1)  # the player would have to stand in the wall
    with pytest.raises(ValueError):
        board.push(CORRIDOR.cell(2, 2), 3)  # no box there
    assert board.state() == before


def test_push_from_a_cell_out_of_reach_raises():
    level = quiet_level(["########", "#@$ $..#", "########"])
    board = Board(level)
    assert board.legal_pushes() == [(level.cell(1, 2), 3)]
    with pytest.raises(ValueError, match="reach"):
        board.push(level.cell(1, 4), 2)
    assert board.state() == level.start


def test_reachable_cells_are_bounded_by_boxes():
    level = quiet_level(["######", "#@$  #", "#$ . #", "#  . #", "######"])
    reached = reachable_cells(level, level.start.player, Board(level).occupied)
    assert np.flatnonzero(reached).tolist() == [level.cell(1, 1)]
    assert Board(level).normalized_player() == level.cell(1, 1)
    assert walk_path(level, Board(level).occupied, level.cell(1, 1), level.cell(3, 3)) is None
    assert walk_path(level, Board(level).occupied, level.cell(1, 1), level.cell(1, 1)) == ""


def test_boards_reject_impossible_states():
    start = CORRIDOR.start
    with pytest.raises(ValueError):
        Board(CORRIDOR, State(0, start.boxes))  # player in a wall
    with pytest.raises(ValueError):
        Board(CORRIDOR, State(start.boxes[0], start.boxes))  # player on a box
    with pytest.raises(ValueError):
        Board(CORRIDOR, State(start.player, start.boxes[:1]))  # a box missing
