"""Test support: given-holes levels (a hand-made one and a hypothesis strategy)."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from evosoko.sokoban.formats import parse_levels
from evosoko.sokoban.holes.board import with_pairing
from tests.search.tiny_levels import tiny_levels

SWAP = """\
; swap
########
#@     #
# $ $  #
#      #
# .  . #
########
Rules: given-holes
Pairs: 1-2 2-1
"""
SWAP_SOLUTION = "rDDldRRRuluurDDrdLL"  # 9 pushes, push-optimal (push-BFS)


def swap():
    return parse_levels(SWAP, "swap.xsb")[0]


@st.composite
def given_holes_levels(draw, max_boxes: int = 3):
    """A tiny random level with a random pairing of its boxes and holes."""
    level = draw(tiny_levels(max_boxes=max_boxes))
    rows = draw(st.permutations(range(level.box_count)))
    goals = level.goal_cells.tolist()
    assume(all(box != goals[row] for box, row in zip(level.start.boxes, rows)))
    return with_pairing(level, rows)
