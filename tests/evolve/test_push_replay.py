"""The push kernels against the rules of :mod:`evosoko.sokoban` (a plain-Python reference)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evosoko.evolve.distances import box_distance
from evosoko.evolve.push_replay import (
    PUSH_GENE_RANGE,
    candidate_pushes,
    genes_for_pushes,
    push_choices,
    push_tables,
    replay_push_batch,
)
from evosoko.sokoban.deadlocks import is_deadlocked, is_freeze_deadlock, matching_cost
from evosoko.sokoban.kernels import replay_tables, state_hash
from evosoko.sokoban.level import UNREACHABLE, State
from evosoko.sokoban.rules import Board

from evolve_levels import small_level


def reference_replay(level, genes):
    """Replay push genes with Board: candidates = legal pushes that are not dead or frozen."""
    board = Board(level)
    made = []
    distance = matching_cost(level, board.boxes())
    best, best_at, best_state = distance, 0, board.state()
    for gene in genes:
        if board.is_solved():
            break
        candidates = []
        for box, direction in sorted(board.legal_pushes()):
            target = box + level.deltas[direction]
            if level.dead_squares[target]:
                continue
            occupied = board.occupied.copy()
            occupied[box], occupied[target] = False, True
            if is_freeze_deadlock(level, occupied, target):
                continue
            candidates.append((box, direction))
        if not candidates:
            break
        box, direction = candidates[gene % len(candidates)]
        board.push(box, direction)
        made.append((box, direction))
        distance = 0 if board.is_solved() else matching_cost(level, board.boxes())
        if distance < best:
            best, best_at, best_state = distance, len(made), board.state()
        if distance >= UNREACHABLE:
            break
    return made, best, best_at, best_state, board.is_solved()


def test_candidates_are_legal_and_non_deadlocking(microban):
    rng = random.Random(3)
    for level in microban[:60:3]:
        tables = push_tables(level)
        for _ in range(5):
            genes = [rng.randrange(PUSH_GENE_RANGE) for _ in range(15)]
            board = Board(level)
            for box, direction in push_choices(tables, genes):
                candidates = candidate_pushes(tables, board.player, board.boxes())
                legal = set(board.legal_pushes())
                assert set(candidates) <= legal
                assert candidates == sorted(candidates)
                for other in legal - set(candidates):  # every excluded push is a deadlock
                    after = board.copy()
                    after.push(*other)
                    assert is_deadlocked(level, after.state())
                board.push(box, direction)


def test_kernel_matches_reference(microban):
    rng = random.Random(4)
    for level in microban[:40:2]:
        tables = push_tables(level)
        genomes = [[rng.randrange(PUSH_GENE_RANGE) for _ in range(25)] for _ in range(6)]
        result = replay_push_batch(tables, np.array(genomes), np.full(6, 25))
        zobrist = replay_tables(level)
        for i, genes in enumerate(genomes):
            made, best, best_at, best_state, solved = reference_replay(level, genes)
            assert push_choices(tables, genes) == made
            assert result.steps[i] == len(made)
            assert result.best_distance[i] == best
            assert result.best_prefix[i] == best_at
            assert result.solved[i] == solved
            assert result.best_hash[i] == state_hash(zobrist, best_state)


def test_genes_for_pushes_round_trip(microban):
    rng = random.Random(5)
    for level in microban[:30:3]:
        tables = push_tables(level)
        genes = [rng.randrange(PUSH_GENE_RANGE) for _ in range(20)]
        made = push_choices(tables, genes)
        canonical = genes_for_pushes(tables, made)
        assert len(canonical) == len(made)
        assert push_choices(tables, canonical) == made


def test_genes_for_pushes_stops_at_a_non_candidate():
    level = small_level("corridor")
    tables = push_tables(level)
    box = level.start.boxes[0]
    # pushing right twice solves; a push left is not legal from there
    assert genes_for_pushes(tables, [(box, 3), (box + 1, 3)]) == [0, 0]
    assert genes_for_pushes(tables, [(box, 3), (box + 1, 2)]) == [0]


def test_replay_from_another_start():
    level = small_level("corridor")
    box = level.start.boxes[0]
    start = State.of(box, [box + 1])
    tables = push_tables(level, start)
    result = replay_push_batch(tables, np.array([[5]]), np.array([1]))
    assert result.solved[0] and result.solved_at[0] == 1


def test_stuck_genome_stops_early():
    level = small_level("corridor")
    tables = push_tables(level)
    result = replay_push_batch(tables, np.array([[1, 1, 1, 1]]), np.array([4]))
    assert result.solved[0] and result.steps[0] == 2 and result.best_prefix[0] == 2


@pytest.mark.parametrize("objective", ["matching", "nearest_goal", "manhattan"])
def test_objectives_are_zero_only_when_solved(microban, objective):
    level = microban[0]
    goals = level.goal_cells.tolist()
    assert box_distance(level, objective, goals) == 0
    assert box_distance(level, objective, level.start.boxes) > 0


def test_matching_equals_scipy(microban):
    rng = random.Random(6)
    for level in microban[::7]:
        floor = np.flatnonzero(level.floor).tolist()
        for _ in range(10):
            boxes = rng.sample(floor, level.box_count)
            assert box_distance(level, "matching", boxes) == matching_cost(level, boxes)
