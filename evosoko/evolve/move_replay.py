"""Replay and scoring of move genomes in one numba kernel.

A gene ``0..3`` = ``u d l r`` walks, or pushes the box in the way one cell further; a move into
a wall or a blocked box is skipped (the gene is consumed, nothing changes); replay stops when
the level is solved. Along the trajectory every position is scored by a key compared
lexicographically:

1. ``distance``: the configured objective of the boxes (:mod:`evosoko.evolve.distances`);
2. ``gap``: the player's walking distance (over the floor, boxes ignored) to the nearest box
   that is off its goal, so that among positions with equal boxes the one where the player has
   walked towards the next box to push is better. Without it, a walk that prepares a push would
   be worth nothing until the push itself is found by the same mutation.

The *best point* is the earliest prefix with the lowest key. With ``stop_on_deadlock`` replay
ends *before* a push that puts a box on a dead square, freezes a box off its goal (the greatest
fixpoint of :func:`evosoko.sokoban.freeze.frozen_off_goal`) or leaves no perfect matching of
boxes to goals; the genes up to that push are the genome's useful part, and its end is scored
there.

Per genome the kernel reports: solved and where, the best point and its key, the genes consumed
and the key there, and the Zobrist hashes (player normalized, :mod:`evosoko.sokoban.zobrist`)
at the best point and at the end.

The kernel does per push what only changes on a push: the distance, the deadlock tests, and
the walking distance to the nearest box off goal from every cell (the *gap field*, one
breadth-first walk from those boxes, only when the distance ties or beats the best, the only
time the gap decides anything). The matching is worked out again only when the pushed box did
not come one push closer to its goal in the current optimal matching (which then stays optimal)
and the batch has not met the configuration before: a configuration table keyed by the boxes'
hash keeps each configuration's matching, gap field, region table and frozen-box verdict. A
walk then costs a look-up; the hashes are worked out once per genome, and only those the caller
scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from evosoko.evolve.distances import MATCHING, objective_code
from evosoko.evolve.prefetch import first_ahead, prefetch_ahead
from evosoko.parallel.packing import packed_rows
from evosoko.sokoban.arrays import LevelArrays, level_arrays, read_only_cells
from evosoko.sokoban.cell_sets import copy_cells
from evosoko.sokoban.freeze import NO_CELL, frozen_off_goal, may_freeze
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.matching import (
    PUSH_DISTANCE,
    goal_distance,
    matching_update,
    pushed_closer,
    store_potentials,
)
from evosoko.sokoban.reach import explore, normalized_player, spread
from evosoko.sokoban.zobrist import boxes_hash

FAR = 1 << 30
"""The gap of a player who cannot walk to any box off its goal."""

FINAL, BEST, BOTH = 1, 2, 3
"""What a replay works out beyond the keys: the end's gap and hash, the best point's hash, or
both (a fitness scores one of the two points)."""


@dataclass(frozen=True, eq=False)
class MoveTables:
    """What move replay reads: the level's arrays and the start."""

    arrays: LevelArrays
    start_player: int
    start_boxes: np.ndarray  # int64[boxes], read-only


def move_tables(level: Level) -> MoveTables:
    """The :class:`MoveTables` of ``level``."""
    return MoveTables(
        arrays=level_arrays(level),
        start_player=int(level.start.player),
        start_boxes=read_only_cells(level.start.boxes),
    )


class MoveReplay(NamedTuple):
    """Per-genome outcome of :func:`replay_move_batch` (arrays, one entry per genome)."""

    solved: np.ndarray  # bool
    solved_at: np.ndarray  # int32: genes consumed when solved, -1 otherwise
    best_prefix: np.ndarray  # int32: genes at the lowest key (earliest), 0 = the start
    best_distance: np.ndarray  # int64
    best_gap: np.ndarray  # int64
    best_hash: np.ndarray  # uint64 (0 unless worked out)
    steps: np.ndarray  # int32: genes consumed (before a deadlocking push, if any)
    final_distance: np.ndarray  # int64
    final_gap: np.ndarray  # int64 (0 unless worked out)
    final_hash: np.ndarray  # uint64 (0 unless worked out)
    deadlocked: np.ndarray  # bool: stopped before a deadlocking push

    @classmethod
    def empty(cls, count: int) -> MoveReplay:
        """Result arrays for ``count`` genomes."""
        return cls(
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


def replay_move_batch(
    tables: MoveTables,
    genomes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
    points: int = BOTH,
) -> MoveReplay:
    """Replay ``genomes[i, :lengths[i]]`` (direction codes 0..3) for every i."""
    genes, lengths = packed_rows(genomes, lengths)
    return replay_move_packed(tables, genes, lengths, objective, stop_on_deadlock, points)


def replay_move_packed(
    tables: MoveTables,
    genes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
    points: int = BOTH,
) -> MoveReplay:
    """Replay the genomes of a packed batch (:func:`~evosoko.parallel.packing.pack_genomes`:
    all genes in one int32 array, the length of each genome). ``points``: :data:`FINAL`,
    :data:`BEST` or :data:`BOTH`, the points whose hash (and gap, at the end) are worked out.
    Raises ``ValueError`` naming the genome and the gene when replay reads a gene outside 0..3
    (genes after a solution or a stop are never read, so they are not checked: checking every
    gene of a batch took longer than replaying random genomes, which mostly stop early)."""
    genes = np.ascontiguousarray(genes, dtype=np.int32)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    result = MoveReplay.empty(len(lengths))
    wrong = _move_batch_kernel(
        tables.arrays,
        tables.start_player,
        tables.start_boxes,
        objective_code(objective),
        bool(stop_on_deadlock),
        int(points),
        _Batch(genes, lengths, result),
    )
    if wrong >= 0:
        genome = int(np.searchsorted(np.cumsum(lengths), wrong, side="right"))
        position = wrong - int(lengths[:genome].sum())
        raise ValueError(
            f"genome {genome}, gene {position}: {int(genes[wrong])} is not a move gene"
            " (direction codes 0..3)"
        )
    return result


# ---- compiled kernels ---------------------------------------------------------------------------
class _Configurations(NamedTuple):
    """What a batch has worked out per box configuration, in a direct-mapped table keyed by the
    configuration's Zobrist hash (a slot holds the last configuration that mapped to it, and a
    hit is checked against its box cells): random and related genomes push into the same
    configurations over and over."""

    keys: np.ndarray  # uint64[slots]: box hash of the configuration held (0: none)
    version: np.ndarray  # int64[slots]: when it was stored (the batch counts stores from 1)
    cells: np.ndarray  # int64[slots, boxes]: its box cells
    raw: np.ndarray  # int64[slots]: its objective, uncapped
    goals: np.ndarray  # int16[slots, boxes]: the goal of the box on ``cells[slot, j]``
    potentials: np.ndarray  # int32[slots, boxes]: the goals' duals of that matching
    frozen_lost: np.ndarray  # int8[slots]: a box frozen off its goal (-1: not worked out)
    has_field: np.ndarray  # bool[slots]: ``fields`` holds its gap field
    # int64[slots + 2, cells]: walking distance to the nearest box off goal; then the start's
    # and a spare row
    fields: np.ndarray
    has_regions: np.ndarray  # bool[slots]: ``regions`` holds its normalized players
    # int64[slots + 2, cells]: the smallest cell reachable from each free cell; then the start's
    # and a spare row
    regions: np.ndarray


CACHED_CELLS = 1 << 18
"""Cells of gap fields and region tables a batch keeps at most (two tables: 4 MiB in all)."""


@numba.njit(cache=True)
def _configurations(cells, box_count):  # pragma: no cover - compiled
    slots = 16
    while slots < 1024 and 2 * slots * cells <= CACHED_CELLS:
        slots *= 2
    return _Configurations(
        np.zeros(slots, dtype=np.uint64),
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, box_count), dtype=np.int64),  # cell 0 is never a box: no false hit
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, box_count), dtype=np.int16),
        np.zeros((slots, box_count), dtype=np.int32),
        np.zeros(slots, dtype=np.int8),
        np.zeros(slots, dtype=np.bool_),
        np.empty((slots + 2, cells), dtype=np.int64),
        np.zeros(slots, dtype=np.bool_),
        np.empty((slots + 2, cells), dtype=np.int64),
    )


class _Batch(NamedTuple):
    """The genomes of a packed batch and where their replay goes."""

    genes: np.ndarray  # int32[genes]: every genome's genes, one after the other
    lengths: np.ndarray  # int32[genomes]
    out: MoveReplay


class _Walk(NamedTuple):
    """The board and work arrays of the helpers' walks over the floor."""

    floor: np.ndarray  # bool[cells]
    deltas: np.ndarray  # int64[4]
    mark: np.ndarray  # int64[cells]: walk marks (stamped)
    queue: np.ndarray  # int64[cells]


# The helpers below take the arrays they use, not the named tuples of the level or the batch: a
# call to a compiled function that is not inlined pays a reference count update for each array
# passed, alone or in a tuple, and a tuple of twenty arrays costs more than a push.


@numba.njit(cache=True)
def _gap_field(walk, goals, boxes, nothing, stamp, field):  # pragma: no cover - compiled
    """Fill ``field`` with each cell's walking distance to the nearest box off goal."""
    floor, deltas, mark, queue = walk
    for cell in range(field.shape[0]):
        field[cell] = FAR
    sources = 0
    for k in range(boxes.shape[0]):
        box = boxes[k]
        if not goals[box]:
            mark[box] = stamp
            field[box] = 0
            queue[sources] = box
            sources += 1
    spread(floor, nothing, deltas, sources, mark, stamp, queue, field)


@numba.njit(cache=True)
def _regions(walk, occupied, stamp, regions):  # pragma: no cover - compiled
    """Fill ``regions`` with the normalized player of each free floor cell."""
    floor, deltas, mark, queue = walk
    for cell in range(floor.shape[0]):
        if floor[cell] and not occupied[cell] and mark[cell] != stamp:
            count, smallest = explore(floor, occupied, deltas, cell, mark, stamp, queue, queue[:0])
            for i in range(count):
                regions[queue[i]] = smallest


@numba.njit(cache=True)
def _normalized(
    walk, cells, player, held, regions, occupied, scratch, stamp
):  # pragma: no cover - compiled
    """The normalized player of the boxes ``cells`` with the player on ``player``, when the
    configurations' table does not hold it yet: with ``held``, ``regions`` (their slot's region
    table) is filled first, else it is one walk. ``occupied`` is the board as it stands;
    ``scratch`` (all False) stands in for it when it holds other boxes."""
    on_board = True
    for k in range(cells.shape[0]):
        on_board = on_board and occupied[cells[k]]
    board = occupied if on_board else scratch
    if not on_board:
        for k in range(cells.shape[0]):
            scratch[cells[k]] = True
    if held:
        _regions(walk, board, stamp, regions)
        smallest = regions[player]
    else:
        floor, deltas, mark, queue = walk
        smallest = normalized_player(floor, board, deltas, player, mark, stamp, queue)
    if not on_board:
        for k in range(cells.shape[0]):
            scratch[cells[k]] = False
    return smallest


@numba.njit(cache=True)
def _move_batch_kernel(
    arrays, start_player, start_boxes, objective, stop_on_deadlock, points, batch
):  # pragma: no cover - compiled
    genes, lengths, out = batch
    floor, goals, dead, deltas = arrays.floor, arrays.goals, arrays.dead, arrays.deltas
    push_distance, zobrist_box, zobrist_player = (
        arrays.push_distance,
        arrays.zobrist_box,
        arrays.zobrist_player,
    )
    table = arrays.nearest_push if objective == PUSH_DISTANCE else arrays.nearest_manhattan
    cells = floor.shape[0]
    box_count = start_boxes.shape[0]
    occupant = np.empty(cells, dtype=np.int32)  # -1 off the floor, 0 empty, k + 1 under box k
    for cell in range(cells):
        occupant[cell] = 0 if floor[cell] else -1
    occupied = np.zeros(cells, dtype=np.bool_)
    boxes = np.empty(box_count, dtype=np.int64)
    copy_cells(boxes, start_boxes)
    for k in range(box_count):
        occupant[boxes[k]] = k + 1
        occupied[boxes[k]] = True
    nothing = np.zeros(cells, dtype=np.bool_)  # the gap walk ignores boxes
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    walk = _Walk(floor, deltas, mark, queue)
    frozen = np.zeros(cells, dtype=np.bool_)
    assignment = np.zeros(box_count, dtype=np.int16)  # box k's goal in the current matching
    work = np.zeros((6, box_count + 1), dtype=np.int64)
    known = _configurations(cells, box_count)
    keys, version, known_cells, frozen_lost = (
        known.keys,
        known.version,
        known.cells,
        known.frozen_lost,
    )
    known_raw, known_goals, known_potentials = known.raw, known.goals, known.potentials
    goal_on = np.zeros(cells, dtype=np.int16)  # scratch: the goal of the box on a cell
    has_field, fields, has_regions, known_regions = (
        known.has_field,
        known.fields,
        known.has_regions,
        known.regions,
    )
    mask = np.uint64(keys.shape[0] - 1)
    stores = 0
    stamp = 1
    start_raw = goal_distance(
        objective,
        arrays.nearest_manhattan,
        arrays.nearest_push,
        push_distance,
        boxes,
        assignment,
        work,
    )
    start_assignment = np.empty(box_count, dtype=np.int16)
    copy_cells(start_assignment, assignment)
    potentials = np.zeros(box_count, dtype=np.int32)  # the goals' duals of that matching
    start_potentials = np.zeros(box_count, dtype=np.int32)
    if objective == MATCHING:
        store_potentials(work, start_potentials)
    start_on_goals = 0
    for k in range(box_count):
        if goals[start_boxes[k]]:
            start_on_goals += 1
    start_hash = boxes_hash(zobrist_box, start_boxes)
    start_row, spare_row = keys.shape[0], keys.shape[0] + 1  # rows of fields and regions
    stamp += 1
    _gap_field(walk, goals, boxes, nothing, stamp, fields[start_row])
    stamp += 1
    _regions(walk, occupied, stamp, known_regions[start_row])
    start_gap = 0 if start_on_goals == box_count else fields[start_row, start_player]
    best_cells = np.empty(box_count, dtype=np.int64)  # the boxes at the best point
    scratch_occupied = np.zeros(cells, dtype=np.bool_)
    offset = 0
    ahead = first_ahead(lengths)
    for i in range(lengths.shape[0]):
        length = lengths[i]
        first = offset  # the genome is genes[first : first + length]
        offset += length
        ahead = prefetch_ahead(genes, lengths, i, ahead)
        if i > 0:
            for k in range(box_count):  # back to the start
                occupant[boxes[k]] = 0
                occupied[boxes[k]] = False
            for k in range(box_count):
                boxes[k] = start_boxes[k]
                occupant[boxes[k]] = k + 1
                occupied[boxes[k]] = True
            if objective == MATCHING:
                for k in range(box_count):
                    assignment[k] = start_assignment[k]
        if objective == MATCHING:
            for k in range(box_count):
                potentials[k] = start_potentials[k]
        player = start_player
        on_goals = start_on_goals
        raw = start_raw
        distance = min(raw, UNREACHABLE)
        box_hash = start_hash
        slot = -1  # the slot of the boxes as they stand in ``known`` (-1: the start)
        here = 0  # and its version there: the slot holds them while version[slot] == here
        field = start_row  # the row of their gap field, kept while distance <= best_d
        best_d, best_g, best_at = distance, start_gap, 0
        pushes = 0
        # the best point's position: the player, and the boxes after its first ``best_pushes``
        best_player, best_pushes, best_hash, best_slot = player, 0, box_hash, slot
        best_version = here
        if points & BEST:
            copy_cells(best_cells, boxes)
        solved = on_goals == box_count
        consumed = 0
        stuck = False
        while not solved and consumed < length:
            gene = genes[first + consumed]
            if gene & ~3:
                return first + consumed
            delta = deltas[gene]
            target = player + delta
            box = occupant[target]
            consumed += 1
            if box <= 0:
                # a step, or a bump into a wall that leaves the player where it stands: one
                # branch-free select, since random genes make walk-or-wall a coin toss the
                # processor guesses wrong half the time; a bump is checked as a step onto the
                # player's own cell, which never beats the best point (its gap was checked)
                player = target if box == 0 else player
                if distance == best_d and fields[field, player] < best_g:
                    best_g, best_at, best_player = fields[field, player], consumed, player
                    if best_pushes != pushes:  # the boxes moved since the last best point
                        best_pushes, best_hash, best_slot = pushes, box_hash, slot
                        best_version = here
                        if points & BEST:
                            copy_cells(best_cells, boxes)
                continue
            beyond = target + delta
            if occupant[beyond] != 0:
                continue
            if stop_on_deadlock and dead[beyond]:  # lost: a dead square is never a goal
                consumed -= 1
                stuck = True
                break
            k = box - 1
            occupant[beyond] = box
            occupant[target] = 0
            occupied[target] = False
            occupied[beyond] = True
            boxes[k] = beyond
            on_goals += (1 if goals[beyond] else 0) - (1 if goals[target] else 0)
            pushed_hash = box_hash ^ zobrist_box[target] ^ zobrist_box[beyond]
            pushed_slot = np.int64(pushed_hash & mask)
            hit = keys[pushed_slot] == pushed_hash
            if hit:
                for j in range(box_count):
                    if not occupied[known_cells[pushed_slot, j]]:
                        hit = False
                        break
            if objective != MATCHING:
                pushed_raw = raw + table[beyond] - table[target]
            elif pushed_closer(push_distance, assignment[k], target, beyond):
                pushed_raw = raw - 1  # the matching stays optimal, its duals feasible
            elif hit:  # the configuration's matching, boxes matched by their cells
                pushed_raw = known_raw[pushed_slot]
                for j in range(box_count):
                    goal_on[known_cells[pushed_slot, j]] = known_goals[pushed_slot, j]
                    potentials[j] = known_potentials[pushed_slot, j]
                for j in range(box_count):
                    assignment[j] = goal_on[boxes[j]]
            else:  # box k re-matched from the duals: O(n^2), the full matching's cost
                pushed_raw = matching_update(push_distance, boxes, assignment, potentials, k, work)
            if not hit:
                stores += 1
                keys[pushed_slot] = pushed_hash
                version[pushed_slot] = stores
                for j in range(box_count):
                    known_cells[pushed_slot, j] = boxes[j]
                if objective == MATCHING:
                    known_raw[pushed_slot] = pushed_raw
                    for j in range(box_count):
                        known_goals[pushed_slot, j] = assignment[j]
                        known_potentials[pushed_slot, j] = potentials[j]
                frozen_lost[pushed_slot] = -1
                has_field[pushed_slot] = False
                has_regions[pushed_slot] = False
            pushed = min(pushed_raw, UNREACHABLE)
            if stop_on_deadlock and on_goals < box_count:
                lost = pushed >= UNREACHABLE  # a dead square stopped replay before the push
                if not lost and may_freeze(floor, occupied, dead, deltas, beyond):
                    if frozen_lost[pushed_slot] < 0:
                        frozen_lost[pushed_slot] = frozen_off_goal(
                            floor, dead, goals, deltas, boxes, NO_CELL, NO_CELL, frozen
                        )
                    lost = frozen_lost[pushed_slot] == 1
                if lost:  # undo the push and stop before it
                    occupant[target] = box
                    occupant[beyond] = 0
                    occupied[target] = True
                    occupied[beyond] = False
                    boxes[k] = target
                    on_goals -= (1 if goals[beyond] else 0) - (1 if goals[target] else 0)
                    consumed -= 1
                    stuck = True
                    break
            player = target
            pushes += 1
            raw = pushed_raw
            distance = pushed
            box_hash = pushed_hash
            slot = pushed_slot
            here = version[slot]
            solved = on_goals == box_count
            if solved:
                distance = 0
            elif distance <= best_d:
                if not has_field[slot]:
                    stamp += 1
                    _gap_field(walk, goals, boxes, nothing, stamp, fields[slot])
                    has_field[slot] = True
                field = slot
            if (solved and (best_d > 0 or best_g > 0)) or (
                not solved
                and (distance < best_d or (distance == best_d and fields[field, player] < best_g))
            ):
                best_d, best_g, best_at = distance, 0 if solved else fields[field, player], consumed
                best_player, best_hash, best_slot = player, box_hash, slot
                best_pushes, best_version = pushes, here
                if points & BEST:
                    copy_cells(best_cells, boxes)
        out.solved[i] = solved
        out.solved_at[i] = consumed if solved else -1
        out.steps[i] = consumed
        out.final_distance[i] = distance
        out.deadlocked[i] = stuck
        out.best_prefix[i] = best_at
        out.best_distance[i] = best_d
        out.best_gap[i] = best_g
        if points & BEST:
            if best_slot < 0:
                smallest = known_regions[start_row, best_player]
            elif version[best_slot] == best_version and has_regions[best_slot]:
                smallest = known_regions[best_slot, best_player]
            else:
                held = version[best_slot] == best_version
                stamp += 1
                smallest = _normalized(
                    walk, best_cells, best_player, held, known_regions[best_slot], occupied,
                    scratch_occupied, stamp,
                )  # fmt: skip
                has_regions[best_slot] = has_regions[best_slot] or held
            out.best_hash[i] = best_hash ^ zobrist_player[smallest]
        if points & FINAL:
            held = slot >= 0 and version[slot] == here
            if not solved:
                if slot < 0:
                    field = start_row
                elif not held:  # a push tried since took the slot
                    stamp += 1
                    field = spare_row
                    _gap_field(walk, goals, boxes, nothing, stamp, fields[field])
                else:
                    if not has_field[slot]:
                        stamp += 1
                        _gap_field(walk, goals, boxes, nothing, stamp, fields[slot])
                        has_field[slot] = True
                    field = slot
                out.final_gap[i] = fields[field, player]
            if slot < 0:
                smallest = known_regions[start_row, player]
            elif held and has_regions[slot]:
                smallest = known_regions[slot, player]
            else:
                stamp += 1
                smallest = _normalized(
                    walk, boxes, player, held, known_regions[slot], occupied, scratch_occupied,
                    stamp,
                )  # fmt: skip
                has_regions[slot] = has_regions[slot] or held
            out.final_hash[i] = box_hash ^ zobrist_player[smallest]
    return -1
