"""What a click on the board of ``evosoko play`` does (the rule of JSoko and YSokoban):

- a box next to the player: push it one cell away from the player;
- a free cell in line beyond a box next to the player, with nothing in between: push the box
  along the line until it stands on the clicked cell;
- any other free cell: walk there by a shortest path, if one exists without pushing;
- the player's own cell, a wall, or a box further away: nothing, with a reason.

The walk comes from :func:`evosoko.sokoban.rules.walk_path`, the shortest walk every part of
evosoko uses. A click is taken as one action: one undo takes all of it back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evosoko.sokoban.level import DIRECTIONS, Level
from evosoko.sokoban.rules import walk_path

WALK = "walk"
PUSH = "push"


@dataclass(frozen=True)
class Click:
    """The steps a click takes (LURD, pushes in upper case) and what they are (``walk`` or
    ``push``); no steps and a ``reason`` when the click does nothing."""

    lurd: str = ""
    kind: str = ""
    reason: str = ""


def click_steps(level: Level, player: int, occupied: np.ndarray, cell: int) -> Click:
    """What a click on ``cell`` does with the player at ``player`` and boxes on ``occupied``."""
    if not (0 <= cell < level.cells) or not level.floor[cell]:
        return Click(reason="click a floor cell to walk there, or a box next to you to push it")
    if cell == player:
        return Click(reason="you are there")
    for direction, delta in enumerate(level.deltas):
        box = player + delta
        if not occupied[box]:
            continue
        pushes = _pushes_in_line(level, occupied, box, delta, cell)
        if pushes:
            return Click(DIRECTIONS[direction].upper() * pushes, PUSH)
        if cell == box:
            return Click(reason="that box cannot move that way")
    if occupied[cell]:
        return Click(reason="walk next to that box first, then click it to push it")
    walk = walk_path(level, occupied, player, cell)
    if walk is None:
        return Click(reason="no walk leads there without pushing a box")
    return Click(walk, WALK)


def _pushes_in_line(level: Level, occupied: np.ndarray, box: int, delta: int, cell: int) -> int:
    """How many pushes take the box at ``box`` in steps of ``delta`` onto ``cell`` (the box
    itself: one push), over free floor only; 0 when ``cell`` is not on that free line."""
    target = box + delta
    pushes = 1
    while level.floor[target] and not occupied[target]:
        if cell in (box, target):  # the box itself: its first push
            return pushes
        target += delta
        pushes += 1
    return 0
