"""Every level of a known-solvable sample is solved (never wrongly 'unsolvable'), verified."""

from __future__ import annotations

import pytest
from tiny_levels import microban, shared

from evosoko.search import solve

# Boxoban hard levels whose dead-end tunnels hold a goal short of the end: an earlier tunnel
# macro pushed boxes past that goal and reported these levels unsolvable.
BOXOBAN_TUNNEL_LEVELS = ("21", "45", "50", "193", "227", "267", "296", "336", "417", "554")


@pytest.mark.parametrize("algo", ["push-astar", "push-wastar", "push-greedy"])
def test_boxoban_levels_with_goal_tunnels_are_solved(algo):
    for level in shared("boxoban/hard/000.txt", *BOXOBAN_TUNNEL_LEVELS):
        result = solve(level, algo, time_limit=20)
        assert result.status == "solved", (level.name, result.status)


def test_the_first_forty_microban_levels_are_solved_push_optimally_by_both_optimal_searches():
    for level in microban(*(str(n) for n in range(1, 41))):
        astar = solve(level, "push-astar", time_limit=20)
        idastar = solve(level, "push-idastar", time_limit=20)
        assert astar.status == idastar.status == "solved", level.name
        assert astar.pushes == idastar.pushes, level.name
