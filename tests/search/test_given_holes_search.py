"""Push search under the given-holes rules: optimality against push-BFS and an independent
model, and the pruning rules that still hold."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings

from evosoko.errors import ConfigError
from evosoko.search import ALGORITHMS, solve
from evosoko.search.given_holes import ALGORITHMS as GIVEN_HOLES_ALGORITHMS
from evosoko.search.given_holes import paired_distance, solve_given_holes
from evosoko.sokoban.formats import parse_levels, read_levels
from evosoko.sokoban.holes.board import VANISHED, HolesBoard
from evosoko.sokoban.solutions import verify_solution
from tests.sokoban.given_holes_levels import SWAP, given_holes_levels


def fewest_pushes(level, limit: int = 200_000) -> int | None:
    """Independent model: 0-1 breadth-first search over single steps of :class:`HolesBoard`
    (a walk costs 0, a push 1), no pruning; None when the level cannot be solved."""
    board = HolesBoard(level)
    start = board.state()
    best = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cost = best[state]
        if all(cell < 0 for cell in state.by_box):
            return cost
        for direction in range(4):
            board = HolesBoard(level, state)
            if not board.step(direction):
                continue
            pushed = board.history[-1].pushed
            child = board.state()
            if child not in best or best[child] > cost + pushed:
                best[child] = cost + pushed
                (queue.append if pushed else queue.appendleft)(child)
        assert len(best) < limit
    return None


@settings(max_examples=60, deadline=None)
@given(given_holes_levels(max_boxes=3))
def test_push_astar_equals_push_bfs_and_the_independent_model(level):
    astar = solve(level, "push-astar")
    bfs = solve(level, "push-bfs")
    expected = fewest_pushes(level)
    if expected is None:
        assert astar.status == bfs.status == "unsolvable"
        return
    assert astar.status == bfs.status == "solved"
    assert astar.pushes == bfs.pushes == expected
    for result in (astar, bfs):
        check = verify_solution(level, result.solution)
        assert check.valid and check.solved and check.pushes == expected


@settings(max_examples=40, deadline=None)
@given(given_holes_levels(max_boxes=3))
def test_the_paired_distance_never_overestimates(level):
    result = solve(level, "push-bfs")
    if result.solved:
        assert paired_distance(level, level.start.boxes) <= result.pushes


def test_swap_is_solved_push_optimally_and_vanishing_shortens_it():
    level = parse_levels(SWAP, "swap.xsb")[0]
    result = solve(level, "push-astar")
    assert result.solved and result.pushes == 9 == fewest_pushes(level)
    assert result.expanded <= solve(level, "push-bfs").expanded


def test_the_player_walks_over_a_filled_hole():
    # box 1 vanishes in its hole; the player walks over it to push box 2 into its own. As
    # plain Sokoban the first box would block the corridor for good.
    board = "########\n#@$ .$.#\n########\n"
    level = parse_levels(board + "Rules: given-holes\nPairs: 1-1 2-2\n", "corridor.xsb")[0]
    result = solve(level, "push-astar")
    assert result.solved and result.pushes == 3 == fewest_pushes(level)
    assert result.solution == "RRrR"
    assert solve(parse_levels(board, "plain.xsb")[0], "push-astar").status == "unsolvable"
    crossed = parse_levels(board + "Rules: given-holes\nPairs: 1-2 2-1\n", "crossed.xsb")[0]
    assert solve(crossed, "push-astar").status == "unsolvable"  # box 2 blocks box 1


def test_frozen_boxes_are_lost_even_on_holes():
    # The box in the corner stands on a hole that is not its own: under the standard rules it
    # would be a frozen box on a goal (no deadlock); here it can never reach its hole.
    text = "######\n#*   #\n#  $ #\n#@  .#\n######\nRules: given-holes\nPairs: 1-2 2-1\n"
    level = parse_levels(text, "frozen.xsb")[0]
    assert solve(level, "push-astar").status == "unsolvable"
    assert fewest_pushes(level) is None


@pytest.mark.parametrize(
    "algorithm", sorted(set(ALGORITHMS) - set(GIVEN_HOLES_ALGORITHMS) - {"mcts"})
)
def test_every_search_that_does_not_play_the_variant_says_so(algorithm):
    """IDA*, FESS, the move-level searches: one error line (mcts plays the variant:
    tests/search/test_mcts_holes.py)."""
    level = parse_levels(SWAP, "swap.xsb")[0]
    with pytest.raises(ConfigError, match=f"^{algorithm} does not play given-holes levels; use"):
        solve(level, algorithm, time_limit=5)


def test_budgets_end_the_search():
    level = parse_levels(SWAP, "swap.xsb")[0]
    assert solve(level, "push-bfs", node_limit=3).exhausted == "nodes"


BUNDLED = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"


def test_push_astar_equals_push_bfs_on_the_bundled_levels():
    """The random tiny levels are mostly one box or unsolvable, where any heuristic is exact;
    the bundled levels (3 and 4 boxes, 6 to 29 pushes) are where an inadmissible heuristic or
    an early goal test would show."""
    for level in read_levels(BUNDLED):
        astar, bfs = solve(level, "push-astar"), solve(level, "push-bfs")
        assert astar.solved and bfs.solved
        assert astar.pushes == bfs.pushes == int(dict(level.notes)["Pushes"]), level.title


def test_the_independent_model_agrees_on_the_easy_bundled_levels():
    for level in read_levels(BUNDLED)[:8]:
        assert fewest_pushes(level, limit=2_000_000) == solve(level, "push-astar").pushes


def test_the_result_names_the_paired_heuristic():
    level = parse_levels(SWAP, "swap.xsb")[0]
    assert solve(level, "push-astar").heuristic == "paired-push-distance"
    manhattan = solve(level, "push-astar", heuristic="manhattan")
    assert manhattan.heuristic == "paired-manhattan" and manhattan.pushes == 9


@pytest.mark.parametrize("algo", ["push-astar", "push-bfs", "push-greedy"])
def test_partial_paths_verify_from_the_levels_start(algo):
    level = next(lv for lv in read_levels(BUNDLED) if lv.title == "holes-medium-02")
    result = solve(level, algo, node_limit=10, partial=3)
    assert result.exhausted == "nodes" and len(result.partial) == 3
    keys = []
    for path in result.partial:
        check = verify_solution(level, path.lurd)
        assert check.valid and not check.solved and check.final == path.state
        assert (check.moves, check.pushes) == (path.moves, path.pushes)
        assert path.h == paired_distance(level, path.state.by_box)
        keys.append(path.h)
    assert keys == sorted(keys)
    assert solve(level, algo, node_limit=10).partial == ()
    assert result.best() is not None and result.best()["lurd"] == result.partial[0].lurd


def test_partial_paths_and_solutions_from_a_position_with_a_vanished_box():
    level = read_levels(BUNDLED)[0]
    board = HolesBoard(level)
    for letter in "ddrdL":  # box 1 vanishes in its hole
        assert board.step("udlr".index(letter.lower()))
    start = board.state()
    assert start.by_box[0] == VANISHED
    cut = solve_given_holes(level, "push-astar", node_limit=2, start=start, partial=2)
    assert cut.exhausted == "nodes" and cut.partial
    for path in cut.partial:
        check = verify_solution(level, path.lurd, start=start)
        assert check.valid and check.final == path.state and path.state.by_box[0] == VANISHED
    solved = solve_given_holes(level, "push-astar", start=start)
    check = verify_solution(level, solved.solution, start=start)
    assert solved.solved and check.solved and solved.pushes == check.pushes
