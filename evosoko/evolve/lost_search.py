"""A bounded search that proves positions lost, for the GA's best push genomes.

The push replay (:mod:`evosoko.evolve.push_replay`) catches lost positions it can see at once:
no candidate push, a forced chain into such a position, boxes that no longer match goals. A
GA that has stalled usually sits in positions that are lost less visibly: a few pushes are left,
and every way they can be combined ends in one of those. :func:`is_lost` explores every
position reachable from a given one by candidate pushes (the replay's own rules, so a proof
holds for genomes), up to ``node_limit`` distinct positions (player normalized); when the
exploration ends before the limit without reaching a solved position, the position is lost.
Otherwise nothing is claimed.

The engine runs it on the best position of its population once that position has stayed for
``fitness.lost_search_age`` generations, and ranks proven-lost positions behind all others.
:func:`lost_position_search` gives each process one :class:`LostPositionSearch` per level and
settings, which remembers its verdicts: islands start a new engine every epoch, and the positions
they keep returning to are searched once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numba
import numpy as np

from evosoko.evolve.distances import objective_code
from evosoko.evolve.push_replay import PushTables, push_choices, push_tables
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.pushes import (
    goal_distances,
    matching_work,
    move_box,
    position_distance,
    push,
    push_scratch,
    reach,
    scratch_candidates,
    set_position,
    update_frozen_tables,
)
from evosoko.sokoban.zobrist import boxes_hash

EVERY_BOX = np.int64(1 << 30)
"""A ``known`` count above any box count: :func:`update_frozen_goals` then only marks the
frozen boxes and never rebuilds its tables (typed: a literal would compile apart)."""
NONE_KNOWN = np.int64(0)


VERDICTS_KEPT = 100_000
"""Verdicts a :class:`LostPositionSearch` remembers (then it forgets them all and starts over)."""


class LostPositionSearch:
    """Proves positions reached by push genomes of one level lost (see the module docstring)."""

    def __init__(
        self,
        level: Level,
        node_limit: int,
        objective: str = "matching",
        stop_on_deadlock: bool = True,
        pi_corrals: bool = True,
    ) -> None:
        self.tables = push_tables(level, corrals=pi_corrals)
        self.node_limit = node_limit
        self.objective = objective
        self.stop_on_deadlock = stop_on_deadlock
        self._verdicts: dict[int, bool] = {}

    def is_lost_position(self, state_hash: int, genes: Sequence[int], pushes: int) -> bool:
        """:meth:`genome_is_lost`, remembered by the position's ``state_hash``."""
        verdict = self._verdicts.get(state_hash)
        if verdict is None:
            if len(self._verdicts) >= VERDICTS_KEPT:
                self._verdicts.clear()
            verdict = self._verdicts[state_hash] = self.genome_is_lost(genes, pushes)
        return verdict

    def position(self, genes: Sequence[int], pushes: int) -> tuple[int, list[int]]:
        """(player, sorted boxes) after the first ``pushes`` pushes that ``genes`` make."""
        tables = self.tables
        boxes = set(tables.start_boxes.tolist())
        player = tables.start_player
        made = push_choices(tables, genes, self.objective, self.stop_on_deadlock)
        for box, direction in made[:pushes]:
            boxes.remove(box)
            boxes.add(box + int(tables.deltas[direction]))
            player = box
        return player, sorted(boxes)

    def genome_is_lost(self, genes: Sequence[int], pushes: int) -> bool:
        """Whether the position after ``pushes`` pushes of ``genes`` is proven lost."""
        player, boxes = self.position(genes, pushes)
        return is_lost(
            self.tables, player, boxes, self.node_limit, self.objective, self.stop_on_deadlock
        )


@functools.lru_cache(maxsize=8)
def lost_position_search(
    level: Level, node_limit: int, objective: str, stop_on_deadlock: bool, pi_corrals: bool = True
) -> LostPositionSearch:
    """This process's :class:`LostPositionSearch` for ``level`` and these settings."""
    return LostPositionSearch(level, node_limit, objective, stop_on_deadlock, pi_corrals)


def is_lost(
    tables: PushTables,
    player: int,
    boxes: Sequence[int],
    node_limit: int,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
) -> bool:
    """Whether no sequence of candidate pushes solves the position, proven by visiting at most
    ``node_limit`` positions (False also when the limit was reached first)."""
    box_cells = np.array(sorted(boxes), dtype=np.int64)
    return bool(
        _lost_within(
            tables.arrays,
            tables.corrals,
            objective_code(objective),
            bool(stop_on_deadlock),
            int(player),
            box_cells,
            int(max(1, node_limit)),
        )
    )


# ---- compiled kernels ---------------------------------------------------------------------------
@numba.njit(cache=True)
def _frozen_signature(boxes, frozen_goals, zobrist_box):  # pragma: no cover - compiled
    signature = np.uint64(0)
    for k in range(boxes.shape[0]):
        if frozen_goals[boxes[k]]:
            signature ^= zobrist_box[boxes[k]]
    return signature


@numba.njit(cache=True, inline="always")
def _frozen_tables(arrays, scratch, built):  # pragma: no cover - compiled
    """Mark the boxes frozen on goals and, when that set is not the one the tables were built
    for (signature ``built``), rebuild them. Returns (count or -1, signature). Inlined: it
    takes the level's and the scratch's named tuples at every node."""
    count = update_frozen_tables(arrays, scratch, EVERY_BOX)
    if count <= 0:
        return count, built
    signature = _frozen_signature(scratch.boxes, scratch.frozen_goals, arrays.zobrist_box)
    if signature != built:
        update_frozen_tables(arrays, scratch, NONE_KNOWN)
    return count, signature


@numba.njit(cache=True)
def _seen_before(table, key):  # pragma: no cover - compiled
    """Insert ``key`` (not 0) into the open-addressing ``table``; True if it was there."""
    mask = np.uint64(table.shape[0] - 1)
    slot = key & mask
    while table[slot] != 0:
        if table[slot] == key:
            return True
        slot = (slot + np.uint64(1)) & mask
    table[slot] = key
    return False


@numba.njit(cache=True)
def _lost_within(
    arrays, corrals, objective, stop_on_deadlock, player, start_boxes, node_limit
):  # pragma: no cover - compiled
    """1 when every position reachable from (``player``, ``start_boxes``) by candidate pushes
    was visited (at most ``node_limit``) and none is solved; 0 otherwise."""
    floor, dead, goals, deltas = arrays.floor, arrays.dead, arrays.goals, arrays.deltas
    zobrist_box, zobrist_player = arrays.zobrist_box, arrays.zobrist_player
    box_count = start_boxes.shape[0]
    scratch = push_scratch(floor.shape[0], box_count, arrays.push_distance.shape[0])
    (
        occupied, boxes, mark, stamp, queue, out_box, out_direction, _, frozen_goals,
        reduced, dead_now, open_cells, _, _, _, assignment, _,
    ) = scratch  # fmt: skip
    distances, matching = goal_distances(arrays), matching_work(scratch)
    size = 1
    while size < 2 * node_limit:
        size *= 2
    table = np.zeros(size, dtype=np.uint64)
    positions = np.empty((node_limit, box_count + 1), dtype=np.int64)
    positions[0, :box_count] = start_boxes
    positions[0, box_count] = player
    found = 1
    built = np.uint64(0)
    on_goals = 0
    for k in range(box_count):
        if goals[start_boxes[k]]:
            on_goals += 1
    if on_goals == box_count:
        return 0
    for node in range(node_limit):
        if node == found:
            return 1  # every reachable position visited: none solves
        set_position(occupied, boxes, positions[node, :box_count])
        here = positions[node, box_count]
        frozen_count, built = _frozen_tables(arrays, scratch, built)
        if frozen_count < 0:
            continue
        if node == 0:
            smallest = reach(floor, deltas, occupied, here, mark, stamp, queue)[1]
            key = boxes_hash(zobrist_box, boxes) ^ zobrist_player[smallest]
            _seen_before(table, key if key != 0 else np.uint64(1))
            if stop_on_deadlock and position_distance(
                objective, distances, boxes, frozen_count, frozen_goals, reduced, matching
            ) >= UNREACHABLE:  # fmt: skip
                continue
        count, _ = scratch_candidates(arrays, corrals, here, scratch, frozen_count)
        box_hash = boxes_hash(zobrist_box, boxes)
        for c in range(count):
            box = out_box[c]
            target = box + deltas[out_direction[c]]
            child_frozen = push(
                floor, dead, goals, deltas, occupied, boxes, assignment, box, out_direction[c],
                frozen_count, frozen_goals, reduced, dead_now, open_cells, queue,
            )  # fmt: skip
            if child_frozen > frozen_count:  # the push rebuilt the tables for the child
                built = _frozen_signature(boxes, frozen_goals, zobrist_box)
            solved = True
            for k in range(box_count):
                if not goals[boxes[k]]:
                    solved = False
                    break
            if solved:
                return 0
            keep = child_frozen >= 0
            if keep and stop_on_deadlock:
                keep = position_distance(
                    objective, distances, boxes, child_frozen, frozen_goals, reduced, matching
                ) < UNREACHABLE  # fmt: skip
            if keep:
                smallest = reach(floor, deltas, occupied, box, mark, stamp, queue)[1]
                key = box_hash ^ zobrist_box[box] ^ zobrist_box[target] ^ zobrist_player[smallest]
                if not _seen_before(table, key if key != 0 else np.uint64(1)):
                    if found == node_limit:
                        return 0  # more positions than the limit: nothing proven
                    for k in range(box_count):
                        positions[found, k] = boxes[k]
                    positions[found, box_count] = box
                    found += 1
            occupied[target] = False
            occupied[box] = True
            move_box(boxes, assignment, target, box)
            if child_frozen != frozen_count:  # back to the parent's frozen boxes and tables
                frozen_count, built = _frozen_tables(arrays, scratch, built)
    return 1  # the last position allowed was visited too
