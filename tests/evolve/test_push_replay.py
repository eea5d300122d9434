"""The push kernels against the rules of :mod:`evosoko.sokoban` (a plain-Python reference)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from evolve_levels import small_level

from evosoko.evolve.distances import box_distance
from evosoko.evolve.push_replay import (
    PUSH_GENE_RANGE,
    candidate_pushes,
    genes_for_pushes,
    push_choices,
    push_tables,
    replay_push_batch,
)
from evosoko.sokoban.arrays import state_hash
from evosoko.sokoban.deadlocks import (
    frozen_cells,
    frozen_goal_matching_cost,
    frozen_goal_tables,
    is_deadlocked,
    matching_cost,
)
from evosoko.sokoban.level import UNREACHABLE, State
from evosoko.sokoban.rules import Board


def reference_candidates(level, board):
    """Legal pushes after which no box is dead (with boxes frozen on goals as walls) or frozen
    off goal."""
    frozen = frozen_cells(level, board.boxes())
    dead = frozen_goal_tables(level, frozen)[2] if frozen else level.dead_squares
    candidates = []
    for box, direction in sorted(board.legal_pushes()):
        target = box + level.deltas[direction]
        if dead[target]:
            continue
        after = (set(board.boxes()) - {box}) | {target}
        if any(not level.goals[cell] for cell in frozen_cells(level, after)):
            continue
        candidates.append((box, direction))
    return candidates


def reference_replay(level, genes, start=None, candidates_of=None):
    """Replay push genes with Board and the deadlock rules of :mod:`evosoko.sokoban`.

    ``candidates_of(board)``: the candidate pushes (default :func:`reference_candidates`).
    Returns (pushes made, best distance, its position index, its state, solved, final distance,
    final state, lost): a genome that reaches a lost position (no candidate, a forced chain to
    none, no matching) is cut back to the last position before it with a choice.
    """
    candidates_of = candidates_of or (lambda board: reference_candidates(level, board))
    board = Board(level, start)
    made, trail = [], []  # trail: (distance, state, candidate count) of each position left
    distance = frozen_goal_matching_cost(level, board.boxes())
    lost = distance >= UNREACHABLE
    for gene in genes:
        if board.is_solved() or lost:
            break
        candidates = candidates_of(board)
        trail.append((distance, board.state(), len(candidates)))
        if not candidates:
            lost = True
            break
        box, direction = candidates[gene % len(candidates)]
        board.push(box, direction)
        made.append((box, direction))
        distance = 0 if board.is_solved() else frozen_goal_matching_cost(level, board.boxes())
        lost = distance >= UNREACHABLE
    if not board.is_solved() and not lost:
        lost = forced_chain_is_lost(level, board.copy(), candidates_of)
    final_state = board.state()
    if lost:
        kept = len(made) - 1
        while kept >= 0 and trail[kept][2] == 1:
            kept -= 1
        if kept < 0:  # the start is lost
            made, distance = [], UNREACHABLE
            final_state = trail[0][1] if trail else final_state
            positions = [(distance, final_state)]
        else:
            made = made[:kept]
            distance, final_state, _ = trail[kept]
            positions = [(d, state) for d, state, _ in trail[: kept + 1]]
    else:
        positions = [(d, state) for d, state, _ in trail[: len(made)]] + [(distance, final_state)]
    best_at = min(range(len(positions)), key=lambda i: (positions[i][0], i))
    best, best_state = positions[best_at]
    return made, best, best_at, best_state, board.is_solved(), distance, final_state, lost


def forced_chain_is_lost(level, board, candidates_of) -> bool:
    """Whether the pushes forced from ``board`` (one candidate at a time) end with none, or
    where the boxes can no longer be matched to goals."""
    while not board.is_solved():
        candidates = candidates_of(board)
        if len(candidates) != 1:
            return not candidates
        board.push(*candidates[0])
        if frozen_goal_matching_cost(level, board.boxes()) >= UNREACHABLE:
            return True
    return False


def test_candidates_are_legal_and_non_deadlocking(microban):
    rng = random.Random(3)
    for level in microban[:60:3]:
        tables = push_tables(level, corrals=False)
        with_corrals = push_tables(level)
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
                restricted = candidate_pushes(with_corrals, board.player, board.boxes())
                assert set(restricted) <= set(candidates) and restricted == sorted(restricted)
                board.push(box, direction)


@pytest.mark.parametrize("corrals", [False, True])
def test_kernel_matches_reference(microban, corrals):
    """Without corrals the reference finds the candidates itself; with corrals it takes them
    from :func:`candidate_pushes` (checked against the search's PI-corrals below) and checks
    the replay: choices, cut-back at lost positions, best and final points."""
    rng = random.Random(4)
    for level in microban[:40:2]:
        tables = push_tables(level, corrals=corrals)
        candidates_of = None
        if corrals:

            def candidates_of(board, tables=tables):
                return candidate_pushes(tables, board.player, board.boxes())

        genomes = [[rng.randrange(PUSH_GENE_RANGE) for _ in range(25)] for _ in range(6)]
        result = replay_push_batch(tables, np.array(genomes), np.full(6, 25))
        for i, genes in enumerate(genomes):
            made, best, best_at, best_state, solved, distance, final, lost = reference_replay(
                level, genes, candidates_of=candidates_of
            )
            assert push_choices(tables, genes) == made
            assert result.steps[i] == len(made)
            assert (result.best_distance[i], result.best_prefix[i]) == (best, best_at)
            assert result.solved[i] == solved and result.deadlocked[i] == lost
            assert result.best_hash[i] == state_hash(level, best_state)
            assert result.final_distance[i] == distance
            assert result.final_hash[i] == state_hash(level, final)


def test_lost_genomes_are_cut_back_to_their_last_choice(microban):
    """Microban 10: after the left box goes left, pushing the middle box right (gene 3) leaves
    one candidate at a time, up the goal column, into a lost position; the genome is scored
    where it chose that push, and decodes to no further."""
    level = microban[9]
    tables = push_tables(level)
    genes = [0, 3, 0, 0, 0]
    result = replay_push_batch(tables, np.array([genes]), np.array([len(genes)]))
    made, *_, lost = reference_replay(
        level, genes, candidates_of=lambda b: candidate_pushes(tables, b.player, b.boxes())
    )
    assert lost and result.deadlocked[0] and result.final_distance[0] < UNREACHABLE
    assert result.steps[0] == len(made) < len(genes)
    assert len(push_choices(tables, genes)) == result.steps[0]


def test_push_astar_solutions_replay_with_corrals(microban):
    """PI-corral candidates keep solutions: an optimal solution's pushes are candidates all the
    way, and no position along it is judged lost."""
    from evosoko.evolve.genomes import genes_from_lurd
    from evosoko.search import solve

    for level in microban[:60:4]:
        result = solve(level, "push-astar", time_limit=20)
        genes = genes_from_lurd(level, "pushes", result.solution)
        assert len(genes) == result.pushes
        count = len(genes)
        prefixes = np.zeros((count + 1, max(count, 1)), dtype=np.int32)
        for i in range(count + 1):
            prefixes[i, :i] = genes[:i]
        replay = replay_push_batch(push_tables(level), prefixes, np.arange(count + 1))
        assert replay.solved[count] and not replay.deadlocked.any()


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


def test_goal_filled_in_the_wrong_order_is_a_deadlock(microban):
    """Microban 98: four boxes frozen in the goal column wall off the top goal."""
    level = microban[97]
    cell = lambda row, column: row * level.width + column
    boxes = [cell(3, 7), cell(3, 9), cell(4, 9), cell(5, 9), cell(6, 9)]
    start = State.of(cell(3, 6), boxes)
    assert matching_cost(level, boxes) == 3  # the bound that ignores boxes sees no problem
    assert frozen_cells(level, boxes) == frozenset(boxes[1:])
    assert frozen_goal_matching_cost(level, boxes) == UNREACHABLE
    assert is_deadlocked(level, start)
    tables = push_tables(level, start)
    assert candidate_pushes(tables, start.player, boxes) == []
    result = replay_push_batch(tables, np.array([[0, 1, 2]]), np.array([3]))
    assert result.steps[0] == 0 and result.final_distance[0] == UNREACHABLE


def test_corral_walled_in_by_boxes_frozen_on_goals_is_lost(microban):
    """Microban 36: three boxes frozen on goals and the box above the empty goal shut the
    player out of the corner where the last goal is; with the frozen boxes as walls that
    corral's barrier has no push left, so the position is lost, although the box on the right
    can still move (and the search proves the position unsolvable)."""
    from dataclasses import replace

    from evosoko.search import solve

    level = microban[35]
    cell = lambda row, column: row * level.width + column
    boxes = [cell(2, 2), cell(3, 3), cell(3, 4), cell(3, 5), cell(3, 7)]
    start = State.of(cell(3, 8), boxes)
    assert frozen_cells(level, boxes) == frozenset(boxes[1:4])
    assert candidate_pushes(push_tables(level, start, corrals=False), start.player, boxes)
    tables = push_tables(level, start)
    assert candidate_pushes(tables, start.player, boxes) == []
    result = replay_push_batch(tables, np.array([[0, 1]]), np.array([2]))
    assert result.steps[0] == 0 and result.deadlocked[0]
    assert solve(replace(level, start=start), "push-astar", time_limit=20).status == "unsolvable"


def test_forced_push_that_leaves_a_goal_unmatched_is_lost(microban):
    """Microban 98: the player is shut out of the empty goal under the box in the goal
    column, so the one candidate pushes that box down, after which no box can reach the top
    goal: the position is lost where the genome ends, and the genome is cut back from it."""
    level = microban[97]
    cell = lambda row, column: row * level.width + column
    boxes = sorted([cell(2, 3), cell(4, 3), cell(3, 9), cell(5, 9), cell(6, 9)])
    start = State.of(cell(3, 8), boxes)
    tables = push_tables(level, start)
    assert candidate_pushes(tables, start.player, boxes) == [(cell(3, 9), 1)]
    assert frozen_goal_matching_cost(level, boxes) < UNREACHABLE
    after = sorted(set(boxes) - {cell(3, 9)} | {cell(4, 9)})
    assert frozen_goal_matching_cost(level, after) == UNREACHABLE
    result = replay_push_batch(tables, np.zeros((1, 1), dtype=np.int32), np.array([0]))
    assert result.deadlocked[0] and result.final_distance[0] == UNREACHABLE


def solution_states(level):
    """The positions along a push-A* solution of ``level``."""
    from evosoko.search import solve

    result = solve(level, "push-astar", time_limit=20)
    assert result.solution is not None
    board = Board(level)
    states = [board.state()]
    for letter in result.solution:
        board.step("udlr".index(letter.lower()))
        states.append(board.state())
    return states


def test_kernel_matches_reference_when_goals_freeze(microban):
    """Random genomes from positions along solutions, where boxes sit frozen on goals: the
    candidates, distances and best points still agree with the reference."""
    rng = random.Random(8)
    frozen_seen = 0
    for level in (microban[97], microban[35], microban[2], microban[10]):
        states = solution_states(level)
        with_frozen = [state for state in states if frozen_cells(level, state.boxes)]
        for start in rng.sample(states, 3) + rng.sample(with_frozen, min(3, len(with_frozen))):
            tables = push_tables(level, start, corrals=False)
            genomes = [[rng.randrange(PUSH_GENE_RANGE) for _ in range(30)] for _ in range(4)]
            result = replay_push_batch(tables, np.array(genomes), np.full(4, 30))
            for i, genes in enumerate(genomes):
                made, best, best_at, _, solved, distance, _, lost = reference_replay(
                    level, genes, start
                )
                assert push_choices(tables, genes) == made
                assert (result.best_distance[i], result.best_prefix[i]) == (best, best_at)
                assert result.solved[i] == solved and result.deadlocked[i] == lost
                assert result.final_distance[i] == distance
            frozen_seen += bool(frozen_cells(level, start.boxes))
    assert frozen_seen >= 5  # the rule was exercised


@pytest.mark.parametrize("corrals", [True, False])
def test_a_genome_scores_alike_alone_and_in_a_batch(microban, corrals):
    """The batch kernel keeps the start's analysis and each position's candidates for the
    genomes after, and puts back the start's frozen-goal tables: no genome's figures may depend
    on the others, also from starts with boxes frozen on goals."""
    rng = random.Random(9)
    checked_frozen = 0
    for level in (microban[97], microban[35], microban[10]):
        states = solution_states(level)
        with_frozen = [state for state in states if frozen_cells(level, state.boxes)]
        for start in [level.start, *with_frozen[:2]]:
            tables = push_tables(level, start, corrals=corrals)
            genomes = [
                [rng.randrange(PUSH_GENE_RANGE) for _ in range(rng.randint(0, 40))]
                for _ in range(60)
            ]
            width = max(map(len, genomes))
            array = np.zeros((len(genomes), width), dtype=np.int64)
            for row, genes in enumerate(genomes):
                array[row, : len(genes)] = genes
            lengths = np.array([len(genes) for genes in genomes])
            together = replay_push_batch(tables, array, lengths)
            for i in range(0, len(genomes), 5):
                alone = replay_push_batch(tables, array[i : i + 1], lengths[i : i + 1])
                for name, column in together._asdict().items():
                    assert getattr(alone, name)[0] == column[i], (level.title, i, name)
            checked_frozen += start is not level.start
    assert checked_frozen >= 3


def test_the_distance_is_the_matching_after_every_push(microban):
    """Every prefix of random genomes replayed in one batch (without the deadlock stop, so
    the matching is carried through unmatched boxes too): each prefix's final distance is the
    matching of its boxes worked out from scratch. The batch's positions share one table, so
    this checks the two shortcuts of the matching as well: a box pushed one push closer to its
    goal keeps the matching, and a position met before takes the matching stored with it."""
    rng = random.Random(12)
    levels = [level for level in microban[:80] if level.box_count >= 4][:4]
    checked = 0
    for level in levels:
        tables = push_tables(level, corrals=False)
        prefixes, expected = [], []
        for _ in range(30):
            genes = [rng.randrange(PUSH_GENE_RANGE) for _ in range(30)]
            board = Board(level)
            made = push_choices(tables, genes, stop_on_deadlock=False)
            for j in range(len(made) + 1):
                prefixes.append(genes[:j])
                expected.append(frozen_goal_matching_cost(level, board.boxes()))
                if j < len(made):
                    board.push(*made[j])
        array = np.zeros((len(prefixes), 30), dtype=np.int64)
        for row, genes in enumerate(prefixes):
            array[row, : len(genes)] = genes
        lengths = np.array([len(genes) for genes in prefixes])
        result = replay_push_batch(tables, array, lengths, stop_on_deadlock=False)
        for row, distance in enumerate(expected):
            if result.deadlocked[row]:  # cut back: scored at an earlier position
                continue
            assert result.final_distance[row] == min(distance, UNREACHABLE), (level.title, row)
            checked += 1
    assert checked >= 300
