"""An independent, plain-Python push-level breadth-first solver for checking small levels.

Deliberately naive (no deadlock pruning, no numba) so that it shares nothing with the search
package it checks: it returns the fewest pushes that solve a level, or None if none do.
"""

from __future__ import annotations

from collections import deque

from evosoko.sokoban.level import Level
from tests.search.tiny_levels import flood


def optimal_pushes(level: Level, state_limit: int = 200_000) -> int | None:
    """Fewest pushes solving ``level`` (None if unsolvable); AssertionError past ``state_limit``."""
    goals = frozenset(level.goal_cells.tolist())
    start_boxes = frozenset(level.start.boxes)
    if start_boxes == goals:
        return 0
    reach = flood(level, level.start.player, start_boxes)
    queue = deque([(start_boxes, min(reach), reach, 0)])
    seen = {(start_boxes, min(reach))}
    while queue:
        boxes, _, reach, pushes = queue.popleft()
        for box in boxes:
            for delta in level.deltas:
                target = box + delta
                if box - delta not in reach or not level.floor[target] or target in boxes:
                    continue
                moved = (boxes - {box}) | {target}
                if moved == goals:
                    return pushes + 1
                after = flood(level, box, moved)
                key = (moved, min(after))
                if key not in seen:
                    seen.add(key)
                    assert len(seen) < state_limit, "level too large for the checking BFS"
                    queue.append((moved, key[1], after, pushes + 1))
    return None
