"""Dead-end tunnels (a table of the level arrays) and the macro that pushes boxes through them."""

from __future__ import annotations

import numpy as np
from tiny_levels import quiet_level

from evosoko.search import PushSettings, solve
from evosoko.sokoban.arrays import dead_end_tunnels

GOAL_TUNNEL = ["#######",
               "#.#####",
               "#.#####",
               "#.  $ #",
               "# $$@ #",
               "#     #",
               "#######"]  # fmt: skip


def test_dead_end_tunnels_are_the_one_wide_runs_that_end_in_a_wall():
    level = quiet_level(GOAL_TUNNEL)
    table = dead_end_tunnels(level)
    up = {level.position(c) for c in np.flatnonzero(table[0]).tolist()}
    assert up == {(1, 1), (2, 1)}
    assert not table[1:].any()


def test_the_tunnel_macro_keeps_push_optimality_and_fewer_states():
    level = quiet_level(GOAL_TUNNEL)
    plain = solve(
        level, "push-bfs", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
    )
    macro = solve(level, "push-astar", settings=PushSettings(freeze=False, corrals=False))
    assert plain.status == macro.status == "solved"
    assert macro.pushes == plain.pushes
    assert "UU" in macro.solution
    assert (
        macro.generated
        < solve(
            level, "push-astar", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
        ).generated
    )


# The tunnel of the bottom row holds a goal short of its end: the box must stop on the goal,
# not on the plain cell beyond it (a box there could only ever go deeper).
GOAL_INSIDE_TUNNEL = ["########",
                      "#    @ #",
                      "#  $   #",
                      "####  ##",
                      "#  .   #",
                      "########"]  # fmt: skip


def test_the_tunnel_macro_stops_on_the_deepest_goal_ahead():
    level = quiet_level(GOAL_INSIDE_TUNNEL)
    plain = solve(
        level, "push-bfs", settings=PushSettings(freeze=False, corrals=False, tunnels=False)
    )
    macro = solve(level, "push-astar")
    assert plain.status == macro.status == "solved"
    assert macro.pushes == plain.pushes
