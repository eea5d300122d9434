"""Replay of push genomes in numba kernels.

A push genome is a sequence of non-negative integers. Replay starts from the level's start;
at each step the *candidate pushes* of the current position are enumerated in canonical order
(boxes by increasing cell, then directions ``u d l r``): a push is a candidate when the player
can walk behind the box, the cell beyond is free floor, it is not a dead square, and the push
does not freeze a box off its goal. Frozen boxes are found as a greatest fixpoint: start from
every box and drop, until nothing changes, each box that is free along some axis (neither side
a wall or a kept box, and not dead squares on both sides). The boxes left can never move
(:func:`evosoko.sokoban.freeze.mark_frozen`); this also catches a box frozen by the pushed
one when the pushed one is held by walls alone, which the classic recursive test started from
the pushed box misses.

Boxes frozen on goals are walls from then on: the distance matches the other boxes to the
goals left, on push distances recomputed with those walls, and cells from which none of those
goals can be reached become dead squares (:func:`evosoko.sokoban.deadlocks.frozen_goal_tables`).
This catches goals filled in the wrong order (a filled goal that walls off another).
With ``PushTables.corrals`` (the default), when the player's area leaves a PI-corral (see
:mod:`evosoko.sokoban.corrals`), only the pushes of its barrier boxes are candidates: every
solution can start with one of them, so solutions are kept while the choices shrink.
Gene ``g`` chooses candidate ``g % count``; the player walks there by a shortest path (only
when decoding to LURD) and pushes. Replay stops when the genes run out or the level is solved.

A position is *lost* when no candidate is left, when the pushes forced from it (a single
candidate at each step) lead to such a position, or (with ``stop_on_deadlock``) when the boxes
can no longer be matched to goals (distance ``UNREACHABLE``). A genome that reaches a lost
position is cut back to the last position before it with more than one candidate: its pushes,
final distance and hash are that position's and it is flagged ``deadlocked``, so the engine
trims the genes that pushed into the loss (a lost start scores ``UNREACHABLE``).

Per genome the batch kernel reports: solved, pushes when solved, the *best point* (pushes
after which the distance was lowest, earliest on ties; 0 = the start) and that distance, the
distance and push count at the end, and the Zobrist hash (player normalized, as in
:mod:`evosoko.sokoban.kernels`) at the best point and at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from evosoko.evolve.distances import (
    MANHATTAN,
    MATCHING,
    distance_kernel,
    manhattan_to_nearest_goal,
    matching_kernel,
    objective_code,
)
from evosoko.sokoban.analysis import pull_distance_kernel
from evosoko.sokoban.corrals import pi_corral
from evosoko.sokoban.freeze import frozen_off_goal, mark_frozen
from evosoko.sokoban.kernels import replay_tables
from evosoko.sokoban.level import UNREACHABLE, Level, State

# Typed constants for arguments of kernels called from kernels: a plain literal (``1``) would
# make numba compile the callee once more for that literal's own type, which cost seconds of
# compilation on a first run; all call sites pass the same int64 (the genome length: int32).
NO_CELL = np.int64(-1)
NONE_KNOWN = np.int64(0)
FIRST_STAMP = np.int64(1)

PUSH_GENE_RANGE = 720
"""Push genes are drawn from ``0..PUSH_GENE_RANGE-1``; 720 is divisible by every count 1..10,
so the choice ``gene % count`` of a random gene is uniform for the usual candidate counts."""


@dataclass(frozen=True, eq=False)
class PushTables:
    """Flat per-level arrays read by the push kernels; build with :func:`push_tables`."""

    deltas: np.ndarray  # int64[4]
    floor: np.ndarray  # bool[cells]
    goals: np.ndarray  # bool[cells]
    dead: np.ndarray  # bool[cells]: dead squares
    push_distance: np.ndarray  # int64[goals, cells]
    nearest: np.ndarray  # int64[cells]: push distance to the nearest goal
    manhattan: np.ndarray  # int64[cells]: Manhattan distance to the nearest goal
    zobrist_box: np.ndarray  # uint64[cells]
    zobrist_player: np.ndarray  # uint64[cells]
    start_player: int
    start_boxes: np.ndarray  # int64[boxes], sorted
    corrals: bool = True  # restrict candidates to a PI-corral's barrier when there is one


def push_tables(level: Level, start: State | None = None, corrals: bool = True) -> PushTables:
    """The :class:`PushTables` of ``level``, replaying from ``start`` (default: the level's);
    ``corrals``: candidates are only the pushes of a PI-corral's barrier when there is one."""
    start = level.start if start is None else start
    replay = replay_tables(level)
    return PushTables(
        deltas=np.array(level.deltas, dtype=np.int64),
        floor=np.ascontiguousarray(level.floor, dtype=np.bool_),
        goals=np.ascontiguousarray(level.goals, dtype=np.bool_),
        dead=np.ascontiguousarray(level.dead_squares, dtype=np.bool_),
        push_distance=level.push_distance.astype(np.int64),
        nearest=level.nearest_goal_distance.astype(np.int64),
        manhattan=manhattan_to_nearest_goal(level),
        zobrist_box=replay.zobrist_box,
        zobrist_player=replay.zobrist_player,
        start_player=int(start.player),
        start_boxes=np.array(start.boxes, dtype=np.int64),
        corrals=bool(corrals),
    )


@dataclass(frozen=True, eq=False)
class PushReplay:
    """Per-genome outcome of :func:`replay_push_batch` (arrays, one entry per genome)."""

    solved: np.ndarray  # bool
    solved_at: np.ndarray  # int32: pushes when solved, -1 otherwise
    best_prefix: np.ndarray  # int32: genes (= pushes) at the lowest distance
    best_distance: np.ndarray  # int64
    best_hash: np.ndarray  # uint64: position at the best point
    steps: np.ndarray  # int32: pushes made (to the cut-back point when deadlocked)
    final_distance: np.ndarray  # int64
    final_hash: np.ndarray  # uint64
    deadlocked: np.ndarray  # bool: cut back from a lost position (``steps`` is where)


def replay_push_batch(
    tables: PushTables,
    genomes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
) -> PushReplay:
    """Replay ``genomes[i, :lengths[i]]`` (int32[n, L], genes >= 0) for every i."""
    genomes = np.ascontiguousarray(genomes, dtype=np.int32)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    count = genomes.shape[0]
    result = PushReplay(
        solved=np.zeros(count, dtype=np.bool_),
        solved_at=np.zeros(count, dtype=np.int32),
        best_prefix=np.zeros(count, dtype=np.int32),
        best_distance=np.zeros(count, dtype=np.int64),
        best_hash=np.zeros(count, dtype=np.uint64),
        steps=np.zeros(count, dtype=np.int32),
        final_distance=np.zeros(count, dtype=np.int64),
        final_hash=np.zeros(count, dtype=np.uint64),
        deadlocked=np.zeros(count, dtype=np.bool_),
    )
    _replay_batch_kernel(
        *_table_args(tables),
        objective_code(objective),
        bool(stop_on_deadlock),
        genomes,
        lengths,
        result.solved,
        result.solved_at,
        result.best_prefix,
        result.best_distance,
        result.best_hash,
        result.steps,
        result.final_distance,
        result.final_hash,
        result.deadlocked,
    )
    return result


def push_choices(
    tables: PushTables, genome, objective: str = "matching", stop_on_deadlock: bool = True
) -> list[tuple[int, int]]:
    """The ``(box cell, direction)`` pushes that ``genome`` makes, in order, as replay makes
    them."""
    genes = np.ascontiguousarray(np.asarray(genome, dtype=np.int32).reshape(-1))
    pushes = np.empty((len(genes), 2), dtype=np.int64)
    made = _choices_kernel(
        *_table_args(tables), objective_code(objective), bool(stop_on_deadlock), genes, pushes
    )
    return [(int(box), int(direction)) for box, direction in pushes[:made]]


def genes_for_pushes(tables: PushTables, pushes) -> list[int]:
    """Genes that make the given ``(box cell, direction)`` pushes from the tables' start.

    Stops before the first push that is not a candidate where it is made (it is illegal, or it
    deadlocks); the genes returned so far replay exactly those pushes.
    """
    wanted = np.asarray(list(pushes), dtype=np.int64).reshape(-1, 2)
    genes = np.empty(len(wanted), dtype=np.int32)
    made = _genes_kernel(*_table_args(tables), np.ascontiguousarray(wanted), genes)
    return genes[:made].tolist()


def candidate_pushes(tables: PushTables, player: int, boxes) -> list[tuple[int, int]]:
    """The candidate pushes of a position, in the canonical order genes index them."""
    box_cells = np.array(sorted(boxes), dtype=np.int64)
    out_box = np.empty(4 * len(box_cells), dtype=np.int64)
    out_direction = np.empty(4 * len(box_cells), dtype=np.int64)
    count = _candidates_kernel(
        tables.floor,
        tables.goals,
        tables.dead,
        tables.push_distance,
        tables.deltas,
        tables.corrals,
        int(player),
        box_cells,
        out_box,
        out_direction,
    )
    return [(int(out_box[i]), int(out_direction[i])) for i in range(count)]


def _table_args(tables: PushTables) -> tuple:
    return (
        tables.deltas,
        tables.floor,
        tables.goals,
        tables.dead,
        tables.push_distance,
        tables.nearest,
        tables.manhattan,
        tables.zobrist_box,
        tables.zobrist_player,
        tables.start_player,
        tables.start_boxes,
        tables.corrals,
    )


# ---- compiled kernels ---------------------------------------------------------------------------
@numba.njit(cache=True)
def _reach(occupied, floor, deltas, player, mark, stamp, stack):  # pragma: no cover - compiled
    """Mark (with ``stamp``) the cells the player reaches; returns the smallest of them."""
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
            if floor[neighbour] and not occupied[neighbour] and mark[neighbour] != stamp:
                mark[neighbour] = stamp
                stack[top] = neighbour
                top += 1
    return smallest


@numba.njit(cache=True)
def _may_freeze(occupied, floor, dead, deltas, cell):  # pragma: no cover - compiled
    """Cheap filter: False when a box on ``cell`` can certainly still move along some axis."""
    for axis in range(2):
        a = cell + deltas[2 * axis]
        b = cell + deltas[2 * axis + 1]
        if (
            floor[a]
            and floor[b]
            and not occupied[a]
            and not occupied[b]
            and not (dead[a] and dead[b])
        ):
            return False
    return True


@numba.njit(cache=True)
def _update_frozen_goals(
    floor,
    dead,
    goals,
    deltas,
    boxes,
    known,
    frozen_goals,
    reduced,
    dead_now,
    open_cells,
    queue,
):  # pragma: no cover - compiled
    """Find the boxes frozen on goals; when there are more than ``known``, rebuild the tables
    that treat them as walls. Returns their count (-1: a box is frozen off its goal).

    ``frozen_goals`` (bool[cells]) marks them; ``reduced`` (int64[goals, cells]) gets, in rows
    ``0..m-1``, the push distances to the m goals left free with frozen boxes as walls; and
    ``dead_now`` the cells from which none of those goals can be reached.
    """
    frozen_goals[:] = False
    mark_frozen(floor, dead, deltas, boxes, NO_CELL, NO_CELL, frozen_goals)
    count = 0
    for k in range(boxes.shape[0]):
        if frozen_goals[boxes[k]]:
            if not goals[boxes[k]]:
                return -1
            count += 1
    if count <= known:
        return count
    for cell in range(floor.shape[0]):
        open_cells[cell] = floor[cell] and not frozen_goals[cell]
    rows = 0
    for cell in range(floor.shape[0]):
        if goals[cell] and not frozen_goals[cell]:
            pull_distance_kernel(open_cells, deltas, cell, reduced[rows], queue)
            rows += 1
    for cell in range(floor.shape[0]):
        unreachable = open_cells[cell]
        for r in range(rows):
            if reduced[r, cell] < UNREACHABLE:
                unreachable = False
                break
        dead_now[cell] = dead[cell] or unreachable
    return count


@numba.njit(cache=True)
def _position_distance(
    objective,
    boxes,
    push_distance,
    nearest,
    manhattan,
    frozen_count,
    frozen_goals,
    reduced,
    free_boxes,
):  # pragma: no cover - compiled
    """The objective of ``boxes``; with boxes frozen on goals (``frozen_count`` > 0), the other
    boxes are matched to the other goals on distances with the frozen boxes as walls."""
    if frozen_count <= 0 or objective == MANHATTAN:
        return distance_kernel(objective, boxes, push_distance, nearest, manhattan)
    m = 0
    for k in range(boxes.shape[0]):
        if not frozen_goals[boxes[k]]:
            free_boxes[m] = boxes[k]
            m += 1
    if m == 0:
        return 0
    if objective == MATCHING:
        return matching_kernel(reduced[:m], free_boxes[:m])
    total = 0
    for k in range(m):
        closest = UNREACHABLE
        for r in range(m):
            closest = min(closest, reduced[r, free_boxes[k]])
        total += closest
    return min(total, UNREACHABLE)


@numba.njit(cache=True)
def _enumerate_pushes(
    occupied,
    floor,
    dead,
    goals,
    deltas,
    boxes,
    mark,
    stamp,
    out_box,
    out_direction,
    frozen,
    dead_targets,
    allowed,
    allowed_stamp,
):  # pragma: no cover - compiled
    """Write the candidate pushes (canonical order) of the marked position; returns their count.

    ``boxes`` must be sorted; ``mark == stamp`` on the cells the player reaches; ``frozen`` is
    scratch for :func:`~evosoko.sokoban.freeze.frozen_off_goal`; ``dead_targets``: the cells no box
    may be pushed to (the dead squares, or with boxes frozen on goals the cells that reach no goal
    left). With ``allowed_stamp >= 0`` only boxes with ``allowed[box] == allowed_stamp`` are pushed.
    """
    count = 0
    for i in range(boxes.shape[0]):
        box = boxes[i]
        if allowed_stamp >= 0 and allowed[box] != allowed_stamp:
            continue
        for direction in range(4):
            delta = deltas[direction]
            target = box + delta
            if (
                mark[box - delta] != stamp
                or not floor[target]
                or occupied[target]
                or dead_targets[target]
            ):
                continue
            occupied[box] = False
            occupied[target] = True
            lost = False
            if _may_freeze(occupied, floor, dead, deltas, target):
                lost = frozen_off_goal(floor, dead, goals, deltas, boxes, box, target, frozen)
            occupied[target] = False
            occupied[box] = True
            if lost:
                continue
            out_box[count] = box
            out_direction[count] = direction
            count += 1
    return count


@numba.njit(cache=True)
def _corral_stamp(
    corrals,
    floor,
    dead_targets,
    goals,
    deltas,
    occupied,
    boxes,
    mark,
    stamp,
    corral_scratch,
    corral_marks,
):  # pragma: no cover - compiled
    """With ``corrals``: the stamp that ``corral_scratch[5]`` holds on the barrier boxes of a
    PI-corral of the marked position, the only boxes worth pushing (see
    :mod:`evosoko.sokoban.corrals`); -1 when there is none (every box may be pushed)."""
    if not corrals:
        return -1
    found = pi_corral(
        floor,
        dead_targets,
        goals,
        deltas,
        occupied,
        boxes,
        mark,
        stamp,
        corral_scratch,
        corral_marks,
    )
    return corral_marks[3] if found >= 0 else -1


@numba.njit(cache=True)
def _move_box(boxes, source, target):  # pragma: no cover - compiled
    """Replace ``source`` by ``target`` in the sorted array ``boxes``, keeping it sorted."""
    n = boxes.shape[0]
    i = 0
    while boxes[i] != source:
        i += 1
    boxes[i] = target
    while i > 0 and boxes[i - 1] > boxes[i]:
        boxes[i - 1], boxes[i] = boxes[i], boxes[i - 1]
        i -= 1
    while i < n - 1 and boxes[i + 1] < boxes[i]:
        boxes[i + 1], boxes[i] = boxes[i], boxes[i + 1]
        i += 1


@numba.njit(cache=True)
def _candidates_here(
    floor,
    goals,
    dead,
    deltas,
    corrals,
    player,
    scratch,
    stamp,
    frozen_count,
):  # pragma: no cover - compiled
    """Mark the player's reach with ``stamp`` and write the position's candidate pushes into
    the scratch's candidate arrays; returns (count, the smallest reachable cell)."""
    (
        occupied,
        boxes,
        mark,
        stack,
        out_box,
        out_direction,
        frozen,
        _,
        _,
        dead_now,
        open_cells,
        _,
        corral_scratch,
        corral_marks,
    ) = scratch
    smallest = _reach(occupied, floor, deltas, player, mark, stamp, stack)
    dead_targets = dead_now if frozen_count > 0 else dead
    corral_floor = open_cells if frozen_count > 0 else floor  # boxes frozen on goals are walls
    allowed_stamp = _corral_stamp(
        corrals,
        corral_floor,
        dead_targets,
        goals,
        deltas,
        occupied,
        boxes,
        mark,
        stamp,
        corral_scratch,
        corral_marks,
    )
    count = _enumerate_pushes(
        occupied,
        floor,
        dead,
        goals,
        deltas,
        boxes,
        mark,
        stamp,
        out_box,
        out_direction,
        frozen,
        dead_targets,
        corral_scratch[5],
        allowed_stamp,
    )
    return count, smallest


@numba.njit(cache=True)
def _push(
    floor, goals, dead, deltas, scratch, box, direction, frozen_count
):  # pragma: no cover - compiled
    """Push ``box`` in ``direction`` in the scratch's position; returns the new frozen count
    (boxes frozen on goals; -1 when a box is frozen off its goal)."""
    (occupied, boxes, _, stack, _, _, _, frozen_goals, reduced, dead_now, open_cells, _, _, _) = (
        scratch
    )
    target = box + deltas[direction]
    occupied[box] = False
    occupied[target] = True
    _move_box(boxes, box, target)
    if goals[target] and _may_freeze(occupied, floor, dead, deltas, target):
        frozen_count = _update_frozen_goals(
            floor,
            dead,
            goals,
            deltas,
            boxes,
            frozen_count,
            frozen_goals,
            reduced,
            dead_now,
            open_cells,
            stack,
        )
    return frozen_count


@numba.njit(cache=True)
def _forced_dead_end(
    floor,
    goals,
    dead,
    deltas,
    corrals,
    player,
    scratch,
    stamp,
    frozen_count,
    on_goals,
    objective,
    stop_on_deadlock,
    push_distance,
    nearest,
    manhattan,
):  # pragma: no cover - compiled
    """Whether the scratch's position is lost because the pushes forced from it (positions with
    a single candidate) end where no candidate is left, a box is frozen off its goal or (with
    ``stop_on_deadlock``) the boxes can no longer be matched to goals.
    Changes the scratch's position; returns (lost, next stamp)."""
    boxes = scratch[1]
    out_box = scratch[4]
    out_direction = scratch[5]
    box_count = boxes.shape[0]
    for chain in range(floor.shape[0]):  # a forced chain never repeats a position: bounded anyway
        if frozen_count < 0:
            return True, stamp
        if (
            chain > 0
            and stop_on_deadlock
            and _position_distance(
                objective,
                boxes,
                push_distance,
                nearest,
                manhattan,
                frozen_count,
                scratch[7],
                scratch[8],
                scratch[11],
            )
            >= UNREACHABLE
        ):
            return True, stamp
        if on_goals == box_count:
            return False, stamp
        count, _ = _candidates_here(
            floor, goals, dead, deltas, corrals, player, scratch, stamp, frozen_count
        )
        stamp += 1
        if count != 1:
            return count == 0, stamp
        box = out_box[0]
        target = box + deltas[out_direction[0]]
        on_goals += (1 if goals[target] else 0) - (1 if goals[box] else 0)
        frozen_count = _push(
            floor, goals, dead, deltas, scratch, box, out_direction[0], frozen_count
        )
        player = box
    return False, stamp


@numba.njit(cache=True)
def _replay_one(
    deltas,
    floor,
    goals,
    dead,
    push_distance,
    nearest,
    manhattan,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    corrals,
    objective,
    stop_on_deadlock,
    genes,
    length,
    scratch,
    trail,
    stamp,
    record,
):  # pragma: no cover - compiled
    """Replay one genome; ``record[j]`` receives push j as (box, direction) when it has rows.

    A position is *lost* when no candidate push is left, when the pushes forced from it (one
    candidate at a time) lead to such a position, or (with ``stop_on_deadlock``) when the boxes
    can no longer be matched to goals. A genome that reaches a lost position is cut back to
    the last position before it that had a choice (``deadlocked``; ``steps`` and the final
    distance and hash are that position's), so the genes that pushed into the loss are never
    scored; the start itself lost scores ``UNREACHABLE``. ``trail`` is int64[3, length + 1]
    scratch. ``scratch`` is the tuple made by :func:`_scratch`. Returns (solved, solved_at,
    best_prefix, best_distance, best_hash, steps, final_distance, final_hash, deadlocked, next
    stamp).
    """
    (
        occupied,
        boxes,
        _,
        stack,
        out_box,
        out_direction,
        _,
        frozen_goals,
        reduced,
        dead_now,
        open_cells,
        free_boxes,
        _,
        _,
    ) = scratch
    box_count = start_boxes.shape[0]
    occupied[:] = False
    for k in range(box_count):
        boxes[k] = start_boxes[k]
        occupied[start_boxes[k]] = True
    player = start_player
    box_hash = np.uint64(0)
    on_goals = 0
    for k in range(box_count):
        box_hash ^= zobrist_box[boxes[k]]
        if goals[boxes[k]]:
            on_goals += 1
    frozen_count = _update_frozen_goals(
        floor,
        dead,
        goals,
        deltas,
        boxes,
        NONE_KNOWN,
        frozen_goals,
        reduced,
        dead_now,
        open_cells,
        stack,
    )
    distance = (
        _position_distance(
            objective,
            boxes,
            push_distance,
            nearest,
            manhattan,
            frozen_count,
            frozen_goals,
            reduced,
            free_boxes,
        )
        if frozen_count >= 0
        else UNREACHABLE
    )
    best = distance
    best_at = 0
    best_hash = np.uint64(0)
    pending = True  # the best point's hash waits for the next reachability pass
    solved = on_goals == box_count
    solved_at = 0 if solved else -1
    deadlocked = False
    steps = 0
    while not solved and steps < length and frozen_count >= 0:
        count, smallest = _candidates_here(
            floor, goals, dead, deltas, corrals, player, scratch, stamp, frozen_count
        )
        stamp += 1
        here = box_hash ^ zobrist_player[smallest]
        trail[0, steps] = distance
        trail[1, steps] = np.int64(here)
        trail[2, steps] = count
        if pending:
            best_hash = here
            pending = False
        if count == 0:  # a dead end: no push left that is not a deadlock
            deadlocked = True
            break
        choice = genes[steps] % count
        box = out_box[choice]
        direction = out_direction[choice]
        target = box + deltas[direction]
        if record.shape[0] > 0:
            record[steps, 0] = box
            record[steps, 1] = direction
        frozen_count = _push(floor, goals, dead, deltas, scratch, box, direction, frozen_count)
        player = box
        box_hash ^= zobrist_box[box] ^ zobrist_box[target]
        on_goals += (1 if goals[target] else 0) - (1 if goals[box] else 0)
        steps += 1
        distance = _position_distance(
            objective,
            boxes,
            push_distance,
            nearest,
            manhattan,
            frozen_count,
            frozen_goals,
            reduced,
            free_boxes,
        )
        if on_goals == box_count:
            solved = True
            solved_at = steps
            distance = 0
        if distance < best:
            best = distance
            best_at = steps
            pending = True
        if distance >= UNREACHABLE and stop_on_deadlock:
            deadlocked = True
            break
    smallest = _reach(occupied, floor, deltas, player, scratch[2], stamp, stack)
    stamp += 1
    final_hash = box_hash ^ zobrist_player[smallest]
    if pending:
        best_hash = final_hash
    if not solved and not deadlocked:
        deadlocked, stamp = _forced_dead_end(
            floor,
            goals,
            dead,
            deltas,
            corrals,
            player,
            scratch,
            stamp,
            frozen_count,
            on_goals,
            objective,
            stop_on_deadlock,
            push_distance,
            nearest,
            manhattan,
        )
    if deadlocked:
        lost_at = steps
        steps = _last_choice(trail, lost_at)
        if steps < 0:  # the start is lost
            steps = 0
            distance = UNREACHABLE
            if lost_at > 0:
                final_hash = np.uint64(trail[1, 0])
            best_at, best, best_hash = 0, UNREACHABLE, final_hash
        else:
            distance = trail[0, steps]
            final_hash = np.uint64(trail[1, steps])
            if best_at > steps:
                best_at, best, best_hash = _best_of_trail(trail, steps)
    return (
        solved,
        solved_at,
        best_at,
        best,
        best_hash,
        steps,
        distance,
        final_hash,
        deadlocked,
        stamp,
    )


@numba.njit(cache=True)
def _last_choice(trail, lost):  # pragma: no cover - compiled
    """The last position before position ``lost`` of the trail that had more than one
    candidate (the others had one, which led on to the loss); -1 when there is none."""
    position = lost - 1
    while position >= 0 and trail[2, position] == 1:
        position -= 1
    return position


@numba.njit(cache=True)
def _best_of_trail(trail, last):  # pragma: no cover - compiled
    """(earliest position of lowest distance, that distance, its hash) among the trail's
    positions ``0..last``."""
    best_at = 0
    for position in range(1, last + 1):
        if trail[0, position] < trail[0, best_at]:
            best_at = position
    return best_at, trail[0, best_at], np.uint64(trail[1, best_at])


@numba.njit(cache=True)
def _scratch(cells, box_count, goal_count):  # pragma: no cover - compiled
    """Work arrays of one replay: occupied, boxes, mark, stack, candidate boxes and directions,
    frozen, frozen_goals, reduced distances, dead_now, open_cells, free_boxes, the PI-corral
    scratch and its stamps (see :func:`evosoko.sokoban.corrals.pi_corral`)."""
    return (
        np.zeros(cells, dtype=np.bool_),
        np.empty(box_count, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.empty(cells, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        np.empty(4 * box_count, dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.bool_),
        np.empty((max(goal_count, 1), cells), dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.bool_),
        np.empty(box_count, dtype=np.int64),
        (
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
            np.zeros(cells, dtype=np.int64),
        ),
        np.zeros(4, dtype=np.int64),
    )


@numba.njit(cache=True)
def _replay_batch_kernel(
    deltas,
    floor,
    goals,
    dead,
    push_distance,
    nearest,
    manhattan,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    corrals,
    objective,
    stop_on_deadlock,
    genomes,
    lengths,
    solved,
    solved_at,
    best_prefix,
    best_distance,
    best_hash,
    steps,
    final_distance,
    final_hash,
    deadlocked,
):  # pragma: no cover - compiled
    scratch = _scratch(floor.shape[0], start_boxes.shape[0], push_distance.shape[0])
    trail = np.empty((3, genomes.shape[1] + 1), dtype=np.int64)
    no_record = np.empty((0, 2), dtype=np.int64)
    stamp = FIRST_STAMP
    for i in range(genomes.shape[0]):
        outcome = _replay_one(
            deltas,
            floor,
            goals,
            dead,
            push_distance,
            nearest,
            manhattan,
            zobrist_box,
            zobrist_player,
            start_player,
            start_boxes,
            corrals,
            objective,
            stop_on_deadlock,
            genomes[i],
            lengths[i],
            scratch,
            trail,
            stamp,
            no_record,
        )
        solved[i] = outcome[0]
        solved_at[i] = outcome[1]
        best_prefix[i] = outcome[2]
        best_distance[i] = outcome[3]
        best_hash[i] = outcome[4]
        steps[i] = outcome[5]
        final_distance[i] = outcome[6]
        final_hash[i] = outcome[7]
        deadlocked[i] = outcome[8]
        stamp = outcome[9]


@numba.njit(cache=True)
def _choices_kernel(
    deltas,
    floor,
    goals,
    dead,
    push_distance,
    nearest,
    manhattan,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    corrals,
    objective,
    stop_on_deadlock,
    genes,
    record,
):  # pragma: no cover - compiled
    outcome = _replay_one(
        deltas,
        floor,
        goals,
        dead,
        push_distance,
        nearest,
        manhattan,
        zobrist_box,
        zobrist_player,
        start_player,
        start_boxes,
        corrals,
        objective,
        stop_on_deadlock,
        genes,
        np.int32(genes.shape[0]),
        _scratch(floor.shape[0], start_boxes.shape[0], push_distance.shape[0]),
        np.empty((3, genes.shape[0] + 1), dtype=np.int64),
        FIRST_STAMP,
        record,
    )
    return outcome[5]


@numba.njit(cache=True)
def _candidates_kernel(
    floor,
    goals,
    dead,
    push_distance,
    deltas,
    corrals,
    player,
    boxes,
    out_box,
    out_direction,
):  # pragma: no cover - compiled
    """The candidate pushes of one position (``boxes`` sorted), as the replay enumerates them."""
    scratch = _scratch(floor.shape[0], boxes.shape[0], push_distance.shape[0])
    occupied, own_boxes, stack = scratch[0], scratch[1], scratch[3]
    for k in range(boxes.shape[0]):
        own_boxes[k] = boxes[k]
        occupied[boxes[k]] = True
    frozen_count = _update_frozen_goals(
        floor,
        dead,
        goals,
        deltas,
        own_boxes,
        NONE_KNOWN,
        scratch[7],
        scratch[8],
        scratch[9],
        scratch[10],
        stack,
    )
    if frozen_count < 0:
        return 0
    count, _ = _candidates_here(
        floor, goals, dead, deltas, corrals, player, scratch, FIRST_STAMP, frozen_count
    )
    out_box[:count] = scratch[4][:count]
    out_direction[:count] = scratch[5][:count]
    return count


@numba.njit(cache=True)
def _genes_kernel(
    deltas,
    floor,
    goals,
    dead,
    push_distance,
    nearest,
    manhattan,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    corrals,
    wanted,
    genes,
):  # pragma: no cover - compiled
    boxes = start_boxes.copy()
    out_box = np.empty(4 * boxes.shape[0], dtype=np.int64)
    out_direction = np.empty(4 * boxes.shape[0], dtype=np.int64)
    player = start_player
    for step in range(wanted.shape[0]):
        count = _candidates_kernel(
            floor,
            goals,
            dead,
            push_distance,
            deltas,
            corrals,
            player,
            boxes,
            out_box,
            out_direction,
        )
        found = -1
        for c in range(count):
            if out_box[c] == wanted[step, 0] and out_direction[c] == wanted[step, 1]:
                found = c
                break
        if found < 0:
            return step
        genes[step] = found
        box = wanted[step, 0]
        _move_box(boxes, box, box + deltas[wanted[step, 1]])
        player = box
    return wanted.shape[0]
