"""The move kernel against the rules of :mod:`evosoko.sokoban` (Board replay, plain Python)."""

from __future__ import annotations

import random
from collections import deque

import pytest

from evosoko.evolve.genomes import random_genes
from evosoko.evolve.move_replay import move_tables, replay_move_batch
from evosoko.sokoban.deadlocks import matching_cost
from evosoko.sokoban.kernels import replay_tables, state_hash
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import Board

from evolve_levels import small_level

import numpy as np


def walk_distance(level, source, target):
    """Breadth-first walking distance over the floor, boxes ignored."""
    seen = {source: 0}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        if cell == target:
            return seen[cell]
        for delta in level.deltas:
            neighbour = cell + delta
            if level.floor[neighbour] and neighbour not in seen:
                seen[neighbour] = seen[cell] + 1
                queue.append(neighbour)
    return None


def key_of(level, board):
    """(matching distance, gap) of the board's position, as the kernel scores it."""
    boxes = board.state().boxes
    if board.is_solved():
        return 0, 0
    gaps = [walk_distance(level, board.player, box) for box in boxes if not level.goals[box]]
    return matching_cost(level, boxes), min(g for g in gaps if g is not None)


def batch(level, genomes, stop_on_deadlock):
    lengths = np.array([len(g) for g in genomes], dtype=np.int32)
    array = np.zeros((len(genomes), max(lengths)), dtype=np.int8)
    for row, genes in enumerate(genomes):
        array[row, : len(genes)] = genes
    return replay_move_batch(move_tables(level), array, lengths, "matching", stop_on_deadlock)


@pytest.mark.parametrize("name", ["microban-1", "two-boxes", "corridor"])
def test_without_deadlock_stops_the_kernel_plays_the_rules_and_finds_the_best_point(name):
    level = small_level(name)
    rng = random.Random(7)
    genomes = [random_genes(rng, rng.randint(1, 40), "moves") for _ in range(60)]
    result = batch(level, genomes, stop_on_deadlock=False)
    tables = replay_tables(level)
    for i, genes in enumerate(genomes):
        board = Board(level)
        keys = [key_of(level, board)]
        hashes = [state_hash(tables, board.state())]
        for gene in genes:
            if board.is_solved():
                break
            board.step(gene)
            keys.append(key_of(level, board))
            hashes.append(state_hash(tables, board.state()))
        assert bool(result.solved[i]) == board.is_solved()
        assert result.final_hash[i] == hashes[-1]
        best = min(keys)
        assert (result.best_distance[i], result.best_gap[i]) == best
        assert result.best_prefix[i] == keys.index(best)
        assert result.best_hash[i] == hashes[keys.index(best)]
        if board.is_solved():
            assert result.solved_at[i] == len(keys) - 1


def test_deadlock_stop_ends_before_the_push_that_loses(microban):
    level = microban[1]
    rng = random.Random(3)
    genomes = [random_genes(rng, 80, "moves") for _ in range(200)]
    result = batch(level, genomes, stop_on_deadlock=True)
    assert result.deadlocked.any()
    for i, genes in enumerate(genomes):
        board = Board(level)
        for gene in genes[: result.steps[i]]:
            board.step(gene)
        boxes = board.state().boxes
        assert not any(level.dead_squares[box] for box in boxes)
        assert matching_cost(level, boxes) < UNREACHABLE
        if result.deadlocked[i]:  # the next gene is a push that the kernel refused
            before = board.state()
            board.step(genes[result.steps[i]])
            assert board.state().boxes != before.boxes


def test_the_gap_rewards_walking_towards_a_box():
    level = small_level("corridor")  # "#@ $ .#": the box is two steps away
    result = batch(level, [[2], [3]], stop_on_deadlock=True)
    assert list(result.final_gap) == [2, 1]
    assert list(result.best_prefix) == [0, 1]
