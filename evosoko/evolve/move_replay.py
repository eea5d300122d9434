"""Replay and scoring of move genomes in one numba kernel.

Moves follow the rules of :mod:`evosoko.sokoban.kernels` (a gene ``0..3`` = ``u d l r``
walks or pushes; a move into a wall or a blocked box is skipped; replay stops when solved).
Along the trajectory every position is scored by a key compared lexicographically:

1. ``distance``: the configured objective of the boxes (:mod:`evosoko.evolve.distances`),
   recomputed after each push;
2. ``gap``: the player's walking distance (over the floor, boxes ignored) to the nearest box
   that is off its goal, so that among positions with equal boxes the one where the player has
   walked towards the next box to push is better. Without it, a walk that prepares a push would
   be worth nothing until the push itself is found by the same mutation. It is read from a
   distance field of the boxes off their goals, walked again after each push: memory grows
   with the floor, not with its square (an all-pairs table took 2 GB on a 150x150 room).

The *best point* is the earliest prefix with the lowest key. With ``stop_on_deadlock`` replay
ends *before* a push that puts a box on a dead square, freezes a box off its goal (the greatest
fixpoint of :mod:`evosoko.evolve.push_replay`) or leaves no perfect matching of boxes to goals;
the genes up to that push are the genome's useful part, and its end is scored there.

Per genome the kernel reports: solved and where, the best point and its key, the genes consumed
and the key there, and the Zobrist hashes (player normalized, as in
:mod:`evosoko.sokoban.kernels`) at the best point and at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from evosoko.evolve.distances import distance_kernel, manhattan_to_nearest_goal, objective_code
from evosoko.sokoban.freeze import frozen_off_goal
from evosoko.sokoban.kernels import replay_tables
from evosoko.sokoban.level import UNREACHABLE, Level

_FAR = 1 << 30
"""Walking distance between cells that cannot reach each other."""


@dataclass(frozen=True, eq=False)
class MoveTables:
    """Flat per-level arrays read by the move kernel; build with :func:`move_tables`."""

    deltas: np.ndarray  # int64[4]
    floor: np.ndarray  # bool[cells]
    goals: np.ndarray  # bool[cells]
    dead: np.ndarray  # bool[cells]
    push_distance: np.ndarray  # int64[goals, cells]
    nearest: np.ndarray  # int64[cells]
    manhattan: np.ndarray  # int64[cells]
    floor_cells: np.ndarray  # int64[floor cells]: the cells the player can ever stand on
    zobrist_box: np.ndarray  # uint64[cells]
    zobrist_player: np.ndarray  # uint64[cells]
    start_player: int
    start_boxes: np.ndarray  # int64[boxes]


def move_tables(level: Level) -> MoveTables:
    """The :class:`MoveTables` of ``level``."""
    replay = replay_tables(level)
    floor = np.ascontiguousarray(level.floor, dtype=np.bool_)
    deltas = np.array(level.deltas, dtype=np.int64)
    return MoveTables(
        deltas=deltas,
        floor=floor,
        goals=np.ascontiguousarray(level.goals, dtype=np.bool_),
        dead=np.ascontiguousarray(level.dead_squares, dtype=np.bool_),
        push_distance=level.push_distance.astype(np.int64),
        nearest=level.nearest_goal_distance.astype(np.int64),
        manhattan=manhattan_to_nearest_goal(level),
        floor_cells=np.flatnonzero(floor).astype(np.int64),
        zobrist_box=replay.zobrist_box,
        zobrist_player=replay.zobrist_player,
        start_player=int(level.start.player),
        start_boxes=np.array(level.start.boxes, dtype=np.int64),
    )


@dataclass(frozen=True, eq=False)
class MoveReplay:
    """Per-genome outcome of :func:`replay_move_batch` (arrays, one entry per genome)."""

    solved: np.ndarray  # bool
    solved_at: np.ndarray  # int32: genes consumed when solved, -1 otherwise
    best_prefix: np.ndarray  # int32: genes at the lowest key (earliest), 0 = the start
    best_distance: np.ndarray  # int64
    best_gap: np.ndarray  # int64
    best_hash: np.ndarray  # uint64
    steps: np.ndarray  # int32: genes consumed (before a deadlocking push, if any)
    final_distance: np.ndarray  # int64
    final_gap: np.ndarray  # int64
    final_hash: np.ndarray  # uint64
    deadlocked: np.ndarray  # bool: stopped before a deadlocking push


def replay_move_batch(
    tables: MoveTables,
    genomes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
) -> MoveReplay:
    """Replay ``genomes[i, :lengths[i]]`` (direction codes 0..3) for every i."""
    genomes = np.ascontiguousarray(genomes, dtype=np.int8)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    if genomes.size and (genomes.min() < 0 or genomes.max() > 3):
        raise ValueError("move genes must be direction codes 0..3")
    count = genomes.shape[0]
    result = MoveReplay(
        solved=np.zeros(count, dtype=np.bool_),
        solved_at=np.zeros(count, dtype=np.int32),
        best_prefix=np.zeros(count, dtype=np.int32),
        best_distance=np.zeros(count, dtype=np.int64),
        best_gap=np.zeros(count, dtype=np.int64),
        best_hash=np.zeros(count, dtype=np.uint64),
        steps=np.zeros(count, dtype=np.int32),
        final_distance=np.zeros(count, dtype=np.int64),
        final_gap=np.zeros(count, dtype=np.int64),
        final_hash=np.zeros(count, dtype=np.uint64),
        deadlocked=np.zeros(count, dtype=np.bool_),
    )
    _move_batch_kernel(
        tables.deltas,
        tables.floor,
        tables.goals,
        tables.dead,
        tables.push_distance,
        tables.nearest,
        tables.manhattan,
        tables.floor_cells,
        tables.zobrist_box,
        tables.zobrist_player,
        tables.start_player,
        tables.start_boxes,
        objective_code(objective),
        bool(stop_on_deadlock),
        genomes,
        lengths,
        result.solved,
        result.solved_at,
        result.best_prefix,
        result.best_distance,
        result.best_gap,
        result.best_hash,
        result.steps,
        result.final_distance,
        result.final_gap,
        result.final_hash,
        result.deadlocked,
    )
    return result


# ---- compiled kernels ---------------------------------------------------------------------------
@numba.njit(cache=True)
def _box_field(floor_cells, deltas, goals, boxes, field, queue):  # pragma: no cover - compiled
    """``field[c]``: walking distance over the floor (boxes ignored) from floor cell ``c`` to
    the nearest box off its goal, 0 everywhere when there is none (a breadth-first search from
    all those boxes at once). Cells off the floor keep whatever they held."""
    for k in range(floor_cells.shape[0]):
        field[floor_cells[k]] = _FAR
    tail = 0
    for k in range(boxes.shape[0]):
        box = boxes[k]
        if not goals[box] and field[box] != 0:
            field[box] = 0
            queue[tail] = box
            tail += 1
    if tail == 0:
        for k in range(floor_cells.shape[0]):
            field[floor_cells[k]] = 0
        return
    head = 0
    while head < tail:
        cell = queue[head]
        head += 1
        for k in range(4):
            neighbour = cell + deltas[k]
            if field[neighbour] == _FAR:
                field[neighbour] = field[cell] + 1
                queue[tail] = neighbour
                tail += 1


@numba.njit(cache=True)
def _may_freeze(occupant, floor, dead, deltas, cell):  # pragma: no cover - compiled
    """Cheap filter: False when a box on ``cell`` can certainly still move along some axis."""
    for axis in range(2):
        a = cell + deltas[2 * axis]
        b = cell + deltas[2 * axis + 1]
        if occupant[a] == 0 and occupant[b] == 0 and not (dead[a] and dead[b]):
            return False
    return True


@numba.njit(cache=True)
def _position_hash(
    occupant, deltas, boxes, player, zobrist_box, zobrist_player, mark, stamp, stack
):  # pragma: no cover - compiled
    """Zobrist hash of the position (player normalized to the smallest reachable cell)."""
    box_hash = np.uint64(0)
    for k in range(boxes.shape[0]):
        box_hash ^= zobrist_box[boxes[k]]
    mark[player] = stamp
    stack[0] = player
    top = 1
    smallest = player
    while top > 0:
        top -= 1
        cell = stack[top]
        if cell < smallest:
            smallest = cell
        for k in range(4):
            neighbour = cell + deltas[k]
            if occupant[neighbour] == 0 and mark[neighbour] != stamp:
                mark[neighbour] = stamp
                stack[top] = neighbour
                top += 1
    return box_hash ^ zobrist_player[smallest]


@numba.njit(cache=True)
def _reset(occupant, floor, boxes, start_boxes):  # pragma: no cover - compiled
    """Put the start position on the scratch board."""
    for cell in range(floor.shape[0]):
        occupant[cell] = 0 if floor[cell] else -1
    for k in range(start_boxes.shape[0]):
        boxes[k] = start_boxes[k]
        occupant[boxes[k]] = k + 1


@numba.njit(cache=True)
def _move_batch_kernel(
    deltas,
    floor,
    goals,
    dead,
    push_distance,
    nearest,
    manhattan,
    floor_cells,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    objective,
    stop_on_deadlock,
    genomes,
    lengths,
    solved,
    solved_at,
    best_prefix,
    best_distance,
    best_gap,
    best_hash,
    steps,
    final_distance,
    final_gap,
    final_hash,
    deadlocked,
):  # pragma: no cover - compiled
    cells = floor.shape[0]
    box_count = start_boxes.shape[0]
    occupant = np.empty(cells, dtype=np.int64)
    boxes = np.empty(box_count, dtype=np.int64)
    frozen = np.zeros(cells, dtype=np.bool_)
    mark = np.zeros(cells, dtype=np.int64)
    stack = np.empty(cells, dtype=np.int64)
    field = np.full(cells, -1, dtype=np.int64)  # -1 off the floor: never walked into
    stamp = 0
    start_distance = distance_kernel(objective, start_boxes, push_distance, nearest, manhattan)
    for i in range(genomes.shape[0]):
        _reset(occupant, floor, boxes, start_boxes)
        player = start_player
        on_goals = 0
        for k in range(box_count):
            if goals[boxes[k]]:
                on_goals += 1
        distance = start_distance
        _box_field(floor_cells, deltas, goals, boxes, field, stack)
        gap = field[player]
        best_d, best_g, best_at = distance, gap, 0
        is_solved = on_goals == box_count
        consumed = 0
        stuck = False
        while not is_solved and consumed < lengths[i]:
            delta = deltas[genomes[i, consumed]]
            target = player + delta
            box = occupant[target]
            if box < 0:
                consumed += 1
                continue
            if box == 0:
                player = target
            else:
                beyond = target + delta
                if occupant[beyond] != 0:
                    consumed += 1
                    continue
                occupant[beyond] = box
                occupant[target] = 0
                boxes[box - 1] = beyond
                pushed_distance = distance_kernel(
                    objective, boxes, push_distance, nearest, manhattan
                )
                on_goals += (1 if goals[beyond] else 0) - (1 if goals[target] else 0)
                lost = on_goals < box_count and (
                    dead[beyond]
                    or pushed_distance >= UNREACHABLE
                    or (
                        _may_freeze(occupant, floor, dead, deltas, beyond)
                        and frozen_off_goal(floor, dead, goals, deltas, boxes, -1, -1, frozen)
                    )
                )
                if lost and stop_on_deadlock:  # undo the push and stop before it
                    occupant[target] = box
                    occupant[beyond] = 0
                    boxes[box - 1] = target
                    on_goals -= (1 if goals[beyond] else 0) - (1 if goals[target] else 0)
                    stuck = True
                    break
                player = target
                distance = pushed_distance
                is_solved = on_goals == box_count
                _box_field(floor_cells, deltas, goals, boxes, field, stack)
            consumed += 1
            gap = field[player]
            if is_solved:
                distance, gap = 0, 0
            if distance < best_d or (distance == best_d and gap < best_g):
                best_d, best_g, best_at = distance, gap, consumed
        stamp += 1
        final_hash[i] = _position_hash(
            occupant, deltas, boxes, player, zobrist_box, zobrist_player, mark, stamp, stack
        )
        solved[i] = is_solved
        solved_at[i] = consumed if is_solved else -1
        steps[i] = consumed
        final_distance[i] = distance
        final_gap[i] = gap
        deadlocked[i] = stuck
        best_prefix[i] = best_at
        best_distance[i] = best_d
        best_gap[i] = best_g
        if best_at == consumed:
            best_hash[i] = final_hash[i]
            continue
        # replay the best prefix again for the hash of the best point
        _reset(occupant, floor, boxes, start_boxes)
        player = start_player
        for j in range(best_at):
            delta = deltas[genomes[i, j]]
            target = player + delta
            box = occupant[target]
            if box == 0:
                player = target
            elif box > 0:
                beyond = target + delta
                if occupant[beyond] == 0:
                    occupant[beyond] = box
                    occupant[target] = 0
                    boxes[box - 1] = beyond
                    player = target
        stamp += 1
        best_hash[i] = _position_hash(
            occupant, deltas, boxes, player, zobrist_box, zobrist_player, mark, stamp, stack
        )
