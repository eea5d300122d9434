"""The rules Monte Carlo tree search plays by, in one place: positions, candidate pushes, the
objective and the rollout policy's score of a push.

MCTS (:mod:`evosoko.search.mcts.run`) plays the push rules of :mod:`evosoko.sokoban.pushes` (the
GA's push genomes play them too): the moves of its tree and of its rollouts are the *candidate
pushes* of a position (legal, not onto a dead square, freezing no box off its goal, restricted
to a PI-corral's barrier when there is one; boxes frozen on goals are walls from then on), and a
position is lost when it has no candidate or (``stop_on_deadlock``, always on here) when its
boxes can no longer be matched to goals. Its reward comes from the same distance objective
(``matching``, ``push-distance`` = the GA's ``nearest_goal``, or ``manhattan``), 0 exactly when
every box is on a goal.

The tree kernel (:mod:`evosoko.search.mcts.kernel`) and its driver take every rule from this
module or from a rules variant's counterpart and keep none of their own (the kernel only hashes
positions and moves a pushed box by its direction's delta; the level is solved when the pushes
have brought every box home). The given-holes variant is :mod:`evosoko.search.mcts.holes`, the
same functions over arrays of its own; :mod:`evosoko.search.mcts.variants` compiles each call to
one or the other by the type of those arrays. What a variant provides is a start position, its
candidate pushes in a fixed order, the effect of a push (with the count of boxes it brings
home), the objective of a position (and of the start, :func:`start_objective`) and a cheap
estimate of how much a push improves it. A position is the box cells in ``scratch.boxes`` (here
sorted; and ``scratch.occupied``) plus the player's cell, always as many cells as the level has
boxes; its hash is :mod:`evosoko.sokoban.zobrist`'s, of the cells the boxes stand on.

The functions take the level's arrays (:class:`~evosoko.sokoban.arrays.LevelArrays`) and the
push rules' scratch (:class:`~evosoko.sokoban.pushes.PushScratch`) as named tuples and are
inlined where they are called (a compiled function of its own per tuple would cost compile time
and a reference count per array per call).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.arrays import LevelArrays, level_arrays, manhattan_to_nearest_goal
from evosoko.sokoban.deadlocks import matching_cost
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.matching import MANHATTAN, MATCHING
from evosoko.sokoban.pushes import (
    PushScratch,
    push_scratch,
    reach,
    scratch_candidates,
    scratch_distance,
    scratch_push,
    set_position,
    update_frozen_tables,
)

NONE_KNOWN = np.int64(0)
"""``known`` of :func:`~evosoko.sokoban.pushes.update_frozen_tables` at a start: rebuild
the tables when any box is frozen on a goal (typed: a literal would compile a specialization of
its own)."""


def rules_arrays(level: Level) -> tuple[LevelArrays, PushScratch]:
    """What the compiled rules read for ``level`` (its arrays) and their work arrays."""
    return level_arrays(level), push_scratch(level.cells, level.box_count, len(level.goal_cells))


def start_objective(level: Level, heuristic: str) -> int:
    """The start's objective (``heuristic``: ``matching``, ``push-distance`` or ``manhattan``),
    boxes frozen on goals not taken into account: it sets the rollouts' length (worked out in
    numpy: a compiled kernel would add to a first run's compile time)."""
    boxes = list(level.start.boxes)
    if heuristic == "matching":
        return matching_cost(level, boxes)
    if heuristic == "push-distance":
        return min(int(level.nearest_goal_distance[boxes].sum()), UNREACHABLE)
    return int(manhattan_to_nearest_goal(level)[boxes].sum())


@numba.njit(cache=True, inline="always")
def start_position(arrays, scratch, start_boxes):  # pragma: no cover - compiled
    """Put the position ``start_boxes`` (sorted) on the scratch board; returns (boxes frozen on
    goals, or -1 when a box is frozen off its goal; boxes on goals)."""
    set_position(scratch.occupied, scratch.boxes, start_boxes)
    on_goals = np.int64(0)
    for k in range(start_boxes.shape[0]):
        if arrays.goals[start_boxes[k]]:
            on_goals += 1
    frozen_count = update_frozen_tables(arrays, scratch, NONE_KNOWN)
    return frozen_count, on_goals


@numba.njit(cache=True, inline="always")
def candidates(arrays, corrals, scratch, player, frozen_count):  # pragma: no cover - compiled
    """The candidate pushes of the scratch's position into ``scratch.out_box`` and
    ``scratch.out_direction`` (canonical order); returns (their count, the normalized player)."""
    return scratch_candidates(arrays, corrals, player, scratch, frozen_count)


@numba.njit(cache=True, inline="always")
def normalized_player(arrays, scratch, player):  # pragma: no cover - compiled
    """The smallest cell the player reaches from ``player`` in the scratch's position."""
    return reach(
        arrays.floor,
        arrays.deltas,
        scratch.occupied,
        player,
        scratch.mark,
        scratch.stamp,
        scratch.queue,
    )[1]


@numba.njit(cache=True, inline="always")
def play_push(arrays, scratch, box, direction, frozen_count):  # pragma: no cover - compiled
    """Push ``box`` in ``direction`` on the scratch board; returns (the new frozen count, -1
    when a box froze off its goal; the change in boxes on goals)."""
    target = box + arrays.deltas[direction]
    gained = (1 if arrays.goals[target] else 0) - (1 if arrays.goals[box] else 0)
    frozen_count = scratch_push(arrays, scratch, box, direction, frozen_count)
    return frozen_count, gained


@numba.njit(cache=True, inline="always")
def objective(arrays, measure, scratch, frozen_count):  # pragma: no cover - compiled
    """The objective of the scratch's position (``UNREACHABLE``: lost), worked out in full;
    the matching leaves each box's goal in ``scratch.assignment`` (see :func:`is_matched`)."""
    return scratch_distance(arrays, measure, scratch, frozen_count)


@numba.njit(cache=True, inline="always")
def is_matched(arrays, measure, frozen_count):  # pragma: no cover - compiled
    """Whether :func:`objective` leaves an optimal box-to-goal assignment in the scratch (the
    matching on the level's push distances, no box frozen on a goal)."""
    return measure == MATCHING and frozen_count == 0


@numba.njit(cache=True, inline="always")
def assigned_goal(scratch, box):  # pragma: no cover - compiled
    """The goal row the last matching gave the box on cell ``box``."""
    for k in range(scratch.boxes.shape[0]):
        if scratch.boxes[k] == box:
            return np.int64(scratch.assignment[k])
    return np.int64(-1)


@numba.njit(cache=True, inline="always")
def objective_after_push(
    arrays, measure, scratch, frozen_count, distance, matched, push
):  # pragma: no cover - compiled
    """The objective after ``push`` (a :class:`~evosoko.search.mcts.tree.BoxPush`: its box
    assigned ``push.goal`` while ``matched``), from ``distance`` before it; returns (objective,
    matched).

    A box that comes one push closer to its goal in an optimal matching leaves that matching
    optimal (the objective drops by one, no new matching); otherwise it is worked out anew."""
    goal = push.goal
    if (
        matched
        and frozen_count == 0
        and distance < UNREACHABLE
        and arrays.push_distance[goal, push.target] == arrays.push_distance[goal, push.box] - 1
    ):
        return distance - 1, True
    distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
    return distance, is_matched(arrays, measure, frozen_count)


class GainTables(NamedTuple):
    """The level's arrays :func:`push_gains` reads (fields of
    :class:`~evosoko.sokoban.arrays.LevelArrays`)."""

    nearest_manhattan: np.ndarray
    nearest_push: np.ndarray
    push_distance: np.ndarray
    deltas: np.ndarray


class GainScratch(NamedTuple):
    """The push rules' scratch arrays :func:`push_gains` reads (fields of
    :class:`~evosoko.sokoban.pushes.PushScratch`): the position and its candidate pushes."""

    boxes: np.ndarray
    assignment: np.ndarray
    reduced: np.ndarray
    out_box: np.ndarray
    out_direction: np.ndarray


@numba.njit(cache=True)
def push_gains(
    measure, tables, position, frozen_count, matched, count, gains
):  # pragma: no cover - compiled
    """``gains[c]``: how much candidate push ``c`` (of ``count``) brings the objective down,
    estimated from the pushed box alone: its distance to the goal the matching gave it
    (``matched``), else to its nearest goal (goals of boxes frozen on goals left out). Usually
    -1, 0 or 1. ``tables``: :class:`GainTables`; ``position``: :class:`GainScratch` (small
    tuples of the arrays it reads: it is compiled apart and called at every rollout step)."""
    boxes, assignment, reduced = position.boxes, position.assignment, position.reduced
    out_box, out_direction = position.out_box, position.out_direction
    nearest_manhattan, nearest_push = tables.nearest_manhattan, tables.nearest_push
    push_distance, deltas = tables.push_distance, tables.deltas
    free_goals = boxes.shape[0] - frozen_count
    for c in range(count):
        box = out_box[c]
        target = box + deltas[out_direction[c]]
        if measure == MANHATTAN:
            gains[c] = nearest_manhattan[box] - nearest_manhattan[target]
        elif matched:
            goal = 0
            for k in range(boxes.shape[0]):
                if boxes[k] == box:
                    goal = assignment[k]
            gains[c] = push_distance[goal, box] - push_distance[goal, target]
        elif frozen_count > 0:
            before = UNREACHABLE
            after = UNREACHABLE
            for row in range(free_goals):
                before = min(before, reduced[row, box])
                after = min(after, reduced[row, target])
            gains[c] = before - after
        else:
            gains[c] = nearest_push[box] - nearest_push[target]


@numba.njit(cache=True, inline="always")
def candidate_gains(arrays, measure, scratch, frozen_count, matched, count, gains):
    # pragma: no cover - compiled
    """:func:`push_gains` of the scratch's ``count`` candidate pushes."""
    tables = GainTables(
        arrays.nearest_manhattan, arrays.nearest_push, arrays.push_distance, arrays.deltas
    )
    position = GainScratch(
        scratch.boxes, scratch.assignment, scratch.reduced, scratch.out_box, scratch.out_direction
    )
    push_gains(measure, tables, position, frozen_count, matched, count, gains)
