"""``benchmarks/bench_lowest_states.py``: the stored states of lowest h, and their checks."""

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_lowest_states import check_state, lowest_states

from evosoko.sokoban.build import level_from_rows

ROWS = ["#######", "#     #", "# $$. #", "#@  . #", "#######"]


def test_the_lowest_states_are_distinct_and_in_order_of_h():
    level = level_from_rows(ROWS, title="two")
    status, states = lowest_states(level, "push-astar", 10.0, 3)
    assert status == "solved"
    hs = [h for _, h, _, _, _ in states]
    assert hs == sorted(hs) and hs[0] == 0  # the solved state is stored
    assert len({boxes for _, _, _, boxes, _ in states}) == 3
    assert all(level.floor[player] for *_, player in states)


def test_a_box_in_a_corner_checks_unsolvable_and_a_live_position_solved():
    level = level_from_rows(ROWS, title="two")
    corner = level.cell(1, 1)
    dead = check_state(level, (corner, level.cell(2, 3)), level.cell(3, 2), 10.0)
    assert dead["check"] == "unsolvable"
    alive = check_state(level, level.start.boxes, level.start.player, 10.0)
    assert alive["check"] == "solved"
