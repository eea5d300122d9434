"""Packing order by retrograde analysis: which goals must be filled before which.

Start from the solved position (a box on every goal) and play backwards: a box is *removable*
when the player, walking from where it stands at the start, can pull it off the goals onto a
cell that is no goal, the other boxes still on their goals. All removable boxes form the last
*layer* of the forward packing order; take them away and repeat. When the filled goals wall
the player's start off from every box it could pull (the player may end the game on any side
of them), the player may stand on any free floor for that layer. With ``to_start`` a box is
removable only when it can be pulled all the way to a cell that holds a box at the start (a box
from there could be carried to its goal, the goals of the earlier layers filled), and the
weaker test above decides only where no goal passes this one. The layer of a goal says how
deep it lies in the goal area: goals of layer 0 are filled first (a goal room's innermost
cells), the last layer last (its doorway), and goals scattered in open floor all share layer 0.

The *packing* feature of a position (FESS, Shoham and Schaeffer 2020) is the number of boxes
on goals that are filled in order: a filled goal counts when no goal of an earlier layer is
still empty. It grows by one with each goal filled in plan and never counts a goal filled too
early, which would wall off the goals behind it. Those goals filled too early are the
*out-of-plan* feature (:func:`out_of_plan_value`). :func:`by_goal_area` gives each goal area
(goals side by side) a plan of its own: there a filled goal counts when no goal of an earlier
layer *of its area* is empty.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evosoko.search.clocks import no_tick
from evosoko.sokoban.level import Level


@dataclass(frozen=True, eq=False)
class PackingOrder:
    """The forward layer of every goal (``layer[cell]``, -1 off goals), the layer count, and
    where each layer's goal area ends (``area_end[k]``: the first layer of the next area;
    None: one area, every layer ends at ``layers``)."""

    layer: np.ndarray  # int64[cells]
    layers: int
    area_end: np.ndarray | None = None  # int64[layers]

    @property
    def goals_per_layer(self) -> np.ndarray:
        """int64[layers]: the goals of each layer."""
        return goals_per_layer(self.layer, self.layers)

    @property
    def ends(self) -> np.ndarray:
        """int64[layers]: the first layer of each layer's next goal area (``layers``: none)."""
        if self.area_end is None:
            return np.full(self.layers, self.layers, dtype=np.int64)
        return self.area_end

    def packing(self, boxes) -> int:
        """The packing feature of a position with boxes on ``boxes``."""
        boxes = np.asarray(boxes, dtype=np.int64)
        return packing_value(self.layer, boxes, self.layers, self.ends)

    def out_of_plan(self, boxes) -> int:
        """The out-of-plan feature of a position with boxes on ``boxes``."""
        boxes = np.asarray(boxes, dtype=np.int64)
        return out_of_plan_value(self.layer, boxes, self.layers, self.ends)


def packing_order(
    level: Level, tick: Callable[[], None] = no_tick, to_start: bool = False
) -> PackingOrder:
    """The :class:`PackingOrder` of ``level`` (retrograde, layer by layer); ``tick`` is called
    once per step of its breadth-first searches (a search's :meth:`TimeLimit.tick
    <evosoko.search.clocks.TimeLimit.tick>`); ``to_start``: a box leaves when it can be pulled
    to a start cell of a box (see module doc)."""
    filled = set(level.goal_cells.tolist())
    off_goals = {cell for cell in range(level.cells) if level.floor[cell] and not level.goals[cell]}
    starts = {int(box) for box in level.start.boxes if not level.goals[box]} if to_start else None
    rounds: list[list[int]] = []
    while filled:
        region = _player_region(level, filled, tick)
        removable = _removable(level, filled, region, tick, starts) if starts else []
        if not removable:
            removable = _removable(level, filled, region, tick, off_goals)
        if not removable:  # the goals wall the start off: the game may end beyond them
            removable = _removable(level, filled, _free_floor(level, filled), tick, off_goals)
        if not removable:
            rounds.append(sorted(filled))  # stuck: what is left goes first, in one layer
            break
        rounds.append(removable)
        filled.difference_update(removable)
    layer = np.full(level.cells, -1, dtype=np.int64)
    count = len(rounds)
    for removed_in, goals in enumerate(rounds):
        layer[goals] = count - 1 - removed_in
    return PackingOrder(layer=layer, layers=count)


def goals_per_layer(layer: np.ndarray, layers: int) -> np.ndarray:
    """int64[layers]: the goals of each layer (``layer``: each cell's, -1 off goals)."""
    return np.bincount(layer[layer >= 0], minlength=layers).astype(np.int64)


def by_goal_area(order: PackingOrder, level: Level) -> PackingOrder:
    """``order`` with each goal area on its own: the goals joined side by side form an area,
    each area keeps the order of its own goals, and no area waits for another. The layers of
    the result run area after area (an area's layers in their order, then the next area's).
    """
    goals = [int(goal) for goal in level.goal_cells]
    area = _goal_areas(level, goals)
    slots = sorted({(area[goal], int(order.layer[goal])) for goal in goals})
    slot_of = {key: index for index, key in enumerate(slots)}
    layer = np.full(level.cells, -1, dtype=np.int64)
    for goal in goals:
        layer[goal] = slot_of[(area[goal], int(order.layer[goal]))]
    end = np.zeros(len(slots), dtype=np.int64)
    for index in range(len(slots) - 1, -1, -1):
        last_of_area = index + 1 == len(slots) or slots[index + 1][0] != slots[index][0]
        end[index] = index + 1 if last_of_area else end[index + 1]
    return PackingOrder(layer=layer, layers=len(slots), area_end=end)


def _goal_areas(level: Level, goals: list[int]) -> dict[int, int]:
    """The area of each goal: areas numbered by their first goal, in cell order."""
    on_goal = set(goals)
    area: dict[int, int] = {}
    number = -1
    for start in goals:
        if start in area:
            continue
        number += 1
        area[start] = number
        stack = [start]
        while stack:
            cell = stack.pop()
            for delta in level.deltas:
                nxt = int(cell + delta)
                if nxt in on_goal and nxt not in area:
                    area[nxt] = number
                    stack.append(nxt)
    return area


def packing_value(
    layer: np.ndarray, boxes: np.ndarray, layers: int, ends: np.ndarray | None = None
) -> int:
    """Boxes on goals filled in order: no goal of an earlier layer of their area is empty (see
    module doc; ``ends``: see :attr:`PackingOrder.ends`, None: one area)."""
    return _walk(layer, boxes, layers, ends)[0]


def out_of_plan_value(
    layer: np.ndarray, boxes: np.ndarray, layers: int, ends: np.ndarray | None = None
) -> int:
    """Boxes on goals of a layer after the first layer of their area with an empty goal: goals
    filled too early, which wall off the goals behind them (FESS's *out-of-plan* feature)."""
    return _walk(layer, boxes, layers, ends)[1]


def _walk(layer, boxes, layers, ends) -> tuple[int, int]:
    """(packing, out of plan), area by area."""
    ends = np.full(layers, layers, dtype=np.int64) if ends is None else ends
    on_goal = layer[boxes]
    filled = np.bincount(on_goal[on_goal >= 0], minlength=layers)
    goals_in = goals_per_layer(layer, layers)
    packing = out_of_plan = 0
    k = 0
    while k < layers:
        packing += int(filled[k])
        if filled[k] < goals_in[k]:
            out_of_plan += int(filled[k + 1 : ends[k]].sum())
            k = int(ends[k])
        else:
            k += 1
    return packing, out_of_plan


def _player_region(level: Level, filled: set[int], tick: Callable[[], None]) -> set[int]:
    """Cells the player reaches from its start with boxes on ``filled`` (its own cell free)."""
    floor = level.floor
    start = level.start.player
    seen = {start}
    queue = deque([start])
    while queue:
        tick()
        cell = queue.popleft()
        for delta in level.deltas:
            nxt = cell + delta
            if floor[nxt] and nxt not in filled and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _removable(
    level: Level,
    filled: set[int],
    region: set[int],
    tick: Callable[[], None],
    targets: set[int],
) -> list[int]:
    """The goals of ``filled`` whose box the player, standing in ``region``, can pull onto a
    cell of ``targets``."""
    return [
        goal for goal in sorted(filled) if _can_pull_off(level, filled, goal, region, tick, targets)
    ]


def _free_floor(level: Level, filled: set[int]) -> set[int]:
    """Every floor cell without a box on ``filled``: the player anywhere."""
    return {int(cell) for cell in range(level.cells) if level.floor[cell] and cell not in filled}


def _can_pull_off(
    level: Level,
    filled: set[int],
    goal: int,
    region: set[int],
    tick: Callable[[], None],
    targets: set[int],
) -> bool:
    """True when the box on ``goal`` can be pulled onto a cell of ``targets`` (cells off the
    goals, or the start cells of boxes), others staying put.

    Breadth-first over (box, player) states; the player starts on any cell of ``region`` next
    to the box (the rest of the region is reachable from there), and may walk anywhere that
    is floor and holds no box.
    """
    floor = level.floor
    deltas = level.deltas
    others = filled - {goal}
    starts = [(goal, goal + d) for d in deltas if goal + d in region]
    seen = set(starts)
    queue = deque(starts)
    while queue:
        tick()
        box, player = queue.popleft()
        for delta in deltas:
            step = player + delta
            if not floor[step] or step in others:
                continue
            if step != box and (box, step) not in seen:
                seen.add((box, step))
                queue.append((box, step))
            if player - delta == box and step != box:
                pulled = (player, step)
                if player in targets:
                    return True
                if pulled not in seen:
                    seen.add(pulled)
                    queue.append(pulled)
    return False
