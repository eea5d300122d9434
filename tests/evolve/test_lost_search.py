"""The bounded search that proves positions lost, checked against the classical search."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evosoko.evolve.hybrid import level_at
from evosoko.evolve.lost_search import LostPositionSearch, is_lost, lost_position_search
from evosoko.evolve.push_replay import PUSH_GENE_RANGE, push_choices, push_tables, replay_push_batch
from evosoko.search import solve
from evosoko.sokoban.arrays import state_hash
from evosoko.sokoban.level import State
from evosoko.sokoban.rules import Board


def cell_of(level):
    return lambda row, column: row * level.width + column


def test_walled_in_box_is_proven_lost(microban):
    """Microban 77: three boxes frozen on the top goals; the last box can only slide along its
    row, because the one cell the player could push it down from is shut in behind it."""
    level = microban[76]
    cell = cell_of(level)
    boxes = [cell(1, 5), cell(1, 6), cell(1, 7), cell(3, 8)]
    tables = push_tables(level)
    assert is_lost(tables, cell(3, 7), boxes, node_limit=100)
    assert solve(level_at(level, State.of(cell(3, 7), boxes)), "push-astar").status == "unsolvable"


def test_goal_order_dead_end_is_proven_lost(microban):
    """Microban 36: four goals filled from the wrong side shut the player out of the corner
    that the last box must be pushed down from."""
    level = microban[35]
    cell = cell_of(level)
    boxes = [cell(2, 8), cell(3, 3), cell(3, 4), cell(3, 5), cell(3, 6)]
    assert is_lost(push_tables(level), cell(2, 9), boxes, node_limit=100)


def test_nothing_is_claimed_past_the_limit_or_for_solvable_positions(microban):
    level = microban[35]
    tables = push_tables(level)
    start = level.start
    assert not is_lost(tables, start.player, start.boxes, node_limit=1)
    assert not is_lost(tables, start.player, start.boxes, node_limit=100_000)  # solvable
    goals = level.goal_cells.tolist()
    assert not is_lost(tables, start.player, goals, node_limit=10)  # solved


def test_a_proof_holds_for_the_search_and_solvable_positions_are_never_lost(microban):
    """Positions reached by random push genomes: whenever the lost search proves one lost,
    push-A* finds no solution from it, and whenever push-A* solves one, it is not lost."""
    rng = random.Random(12)
    proven = solved = 0
    for level in microban[:40:3]:
        tables = push_tables(level)
        for _ in range(6):
            genes = [rng.randrange(PUSH_GENE_RANGE) for _ in range(rng.randrange(3, 25))]
            board = Board(level)
            for box, direction in push_choices(tables, genes):
                board.push(box, direction)
            state = board.state()
            lost = is_lost(tables, state.player, state.boxes, node_limit=5_000)
            start = level_at(level, state)
            if start is None:
                continue
            status = solve(start, "push-astar", time_limit=10).status
            assert not (lost and status == "solved")
            assert not lost or status == "unsolvable"
            proven += lost
            solved += status == "solved"
    assert proven >= 3 and solved >= 10  # both sides were exercised


def test_positions_along_solutions_are_never_lost(microban):
    for level in microban[:30:5]:
        result = solve(level, "push-astar", time_limit=20)
        board = Board(level)
        tables = push_tables(level)
        for letter in result.solution:
            board.step("udlr".index(letter.lower()))
            if letter.isupper():
                state = board.state()
                assert not is_lost(tables, state.player, state.boxes, node_limit=200)


def test_genome_position_is_the_scored_position(microban):
    """The position a search starts from for a genome is the one its evaluation scores: the
    same state hash, cut back or not."""
    rng = random.Random(13)
    level = microban[20]
    tables = push_tables(level)
    search = LostPositionSearch(level, 100)
    genomes = [[rng.randrange(PUSH_GENE_RANGE) for _ in range(30)] for _ in range(20)]
    result = replay_push_batch(tables, np.array(genomes), np.full(20, 30))
    for i, genes in enumerate(genomes):
        player, boxes = search.position(genes, int(result.steps[i]))
        assert state_hash(level, State.of(player, boxes)) == result.final_hash[i]


def test_one_search_per_level_and_settings_remembers_its_verdicts(microban, monkeypatch):
    level = microban[76]
    search = lost_position_search(level, 100, "matching", True)
    assert lost_position_search(level, 100, "matching", True) is search
    assert lost_position_search(level, 200, "matching", True) is not search
    calls = []
    monkeypatch.setattr(
        LostPositionSearch, "genome_is_lost", lambda self, genes, pushes: calls.append(1) or True
    )
    assert search.is_lost_position(12345, [0], 1) and search.is_lost_position(12345, [0], 1)
    assert len(calls) == 1


@pytest.mark.parametrize("node_limit", [1, 2, 7])
def test_small_limits_are_honoured(microban, node_limit):
    """With room for fewer positions than a lost position's space holds, nothing is claimed."""
    level = microban[35]
    cell = cell_of(level)
    boxes = [cell(2, 8), cell(3, 3), cell(3, 4), cell(3, 5), cell(3, 6)]
    tables = push_tables(level)
    sizes = [limit for limit in range(1, 60) if is_lost(tables, cell(2, 9), boxes, limit)]
    smallest = sizes[0]
    assert sizes == list(range(smallest, 60))  # proven from some limit on, and at every larger one
    assert is_lost(tables, cell(2, 9), boxes, node_limit) == (node_limit >= smallest)
