"""The move kernel against the rules of :mod:`evosoko.sokoban` (Board replay, plain Python)."""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from evolve_levels import small_level

from evosoko.evolve.genomes import random_genes
from evosoko.evolve.move_replay import BEST, BOTH, FINAL, move_tables, replay_move_batch
from evosoko.sokoban.arrays import state_hash
from evosoko.sokoban.deadlocks import matching_cost
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import Board

ROOT = Path(__file__).resolve().parents[2]


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
    for i, genes in enumerate(genomes):
        board = Board(level)
        keys = [key_of(level, board)]
        hashes = [state_hash(level, board.state())]
        for gene in genes:
            if board.is_solved():
                break
            board.step(gene)
            keys.append(key_of(level, board))
            hashes.append(state_hash(level, board.state()))
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


def seed_level(name):
    return select_levels(read_levels(ROOT / "levels" / "seeds.xsb"), [name])[0]


def test_the_distance_is_the_full_matching_after_every_push():
    """The kernel re-matches only some pushes (a box one push closer to its matched goal keeps
    the matching; a configuration met before takes its stored matching): every distance on the
    way must still be the optimal matching's."""
    level = seed_level("seed000-case3")
    rng = random.Random(11)
    genomes = [random_genes(rng, 50, "moves") for _ in range(150)]
    result = batch(level, genomes, stop_on_deadlock=False)
    for i, genes in enumerate(genomes):
        board = Board(level)
        distances = [matching_cost(level, board.state().boxes)]
        for gene in genes:
            board.step(gene)
            distances.append(matching_cost(level, board.state().boxes))
        assert not result.solved[i]
        assert result.final_distance[i] == distances[-1]
        assert result.best_distance[i] == min(distances)


def test_a_stored_matching_fits_whichever_boxes_stand_on_its_cells():
    """Genomes that bring different boxes onto the same cells share a configuration and its
    stored matching; each genome must score as it does alone in its batch (no stored entry).
    On this 6-box level, 2,000 random genomes meet such configurations."""
    level = seed_level("seed004-blog")
    tables = move_tables(level)
    genomes = np.random.default_rng(1).integers(0, 4, size=(2000, 200), dtype=np.int32)
    lengths = np.full(len(genomes), genomes.shape[1], dtype=np.int32)
    together = replay_move_batch(tables, genomes, lengths, "matching", False, FINAL)
    for i, genes in enumerate(genomes):
        alone = replay_move_batch(tables, genes[None], lengths[:1], "matching", False, FINAL)
        assert alone.final_distance[0] == together.final_distance[i], i
        assert alone.best_distance[0] == together.best_distance[i], i


def test_the_gap_rewards_walking_towards_a_box():
    level = small_level("corridor")  # "#@ $ .#": the box is two steps away
    result = batch(level, [[2], [3]], stop_on_deadlock=True)
    assert list(result.final_gap) == [2, 1]
    assert list(result.best_prefix) == [0, 1]


# Shortest solutions by breadth-first search over moves.
SOLUTIONS = {
    "microban-1": "dlUrrrdLullddrUluRuulDrddrruLdlUU",
    "corridor": "rRR",
}


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_a_known_solution_solves_and_stops_there(name):
    level = small_level(name)
    genes = ["udlr".index(letter.lower()) for letter in SOLUTIONS[name]]
    result = batch(level, [genes + [0, 1, 2, 3]], stop_on_deadlock=True)
    assert result.solved[0] and result.solved_at[0] == result.steps[0] == len(genes)
    assert (result.best_distance[0], result.best_gap[0]) == (0, 0)
    assert result.best_prefix[0] == len(genes) and result.best_hash[0] == result.final_hash[0]


@pytest.mark.parametrize("stop_on_deadlock", [True, False])
def test_a_genome_scores_alike_alone_and_in_a_batch(microban, stop_on_deadlock):
    """The batch kernel keeps what it works out per box configuration for the genomes after:
    no genome's figures may depend on the others."""
    level = microban[3]
    rng = random.Random(5)
    genomes = [random_genes(rng, rng.randint(0, 120), "moves") for _ in range(150)]
    together = batch(level, genomes, stop_on_deadlock)
    for i in range(0, len(genomes), 7):
        alone = batch(level, [genomes[i]], stop_on_deadlock)
        for name, column in together._asdict().items():
            assert getattr(alone, name)[0] == column[i], (i, name)


def test_points_choose_which_hashes_and_gaps_are_worked_out(microban):
    level = microban[5]
    rng = random.Random(6)
    genomes = [random_genes(rng, 60, "moves") for _ in range(40)]
    lengths = np.array([len(g) for g in genomes], dtype=np.int32)
    array = np.array(genomes, dtype=np.int8)
    both = replay_move_batch(move_tables(level), array, lengths, points=BOTH)
    final = replay_move_batch(move_tables(level), array, lengths, points=FINAL)
    best = replay_move_batch(move_tables(level), array, lengths, points=BEST)
    assert np.array_equal(final.final_hash, both.final_hash)
    assert np.array_equal(final.final_gap, both.final_gap)
    assert np.array_equal(best.best_hash, both.best_hash)
    assert np.array_equal(best.best_distance, both.best_distance)


def test_genes_outside_the_directions_are_refused():
    level = small_level("corridor")
    with pytest.raises(ValueError, match="0..3"):
        batch(level, [[0, 4]], stop_on_deadlock=True)


def test_the_refused_gene_is_named_by_its_genome_and_place():
    level = small_level("corridor")
    with pytest.raises(ValueError, match=r"^genome 1, gene 2: 6 is not a move gene"):
        batch(level, [[3, 3], [0, 1, 6, 3]], stop_on_deadlock=False)


def test_genes_after_the_solution_are_not_read():
    level = small_level("corridor")  # three steps right solve it
    result = batch(level, [[3, 3, 3, 9, 9]], stop_on_deadlock=True)
    assert result.solved[0] and result.solved_at[0] == 3
