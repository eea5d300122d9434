"""Replay of push genomes in numba kernels, by the rules of :mod:`evosoko.sokoban.pushes`.

A push genome is a sequence of non-negative integers. Replay starts from the level's start (or
the start of the :class:`PushTables`); at each step the candidate pushes of the current position
are enumerated in canonical order and gene ``g`` chooses candidate ``g % count``; the player
walks there by a shortest path (only when decoding to LURD) and pushes. Replay stops when the
genes run out or the level is solved.

A genome that reaches a lost position (see :mod:`evosoko.sokoban.pushes`) is cut back to
the last position before it with more than one candidate: its pushes, final distance and hash
are that position's and it is flagged ``deadlocked``, so the engine trims the genes that pushed
into the loss (a lost start scores ``UNREACHABLE``).

Per genome the batch kernel reports: solved, pushes when solved, the *best point* (pushes
after which the distance was lowest, earliest on ties; 0 = the start) and that distance, the
distance and push count at the end, and the Zobrist hash (player normalized,
:mod:`evosoko.sokoban.zobrist`) at the best point and at the end. What every genome of a batch
shares (the start position's frozen boxes, distance and candidates) is worked out once per batch,
and one compiled loop replays all its genomes. A position's candidates, distance and optimal
matching are kept in a table of the batch, so a position met again costs a look-up. After a
push to a new position the matching is worked out again only when the pushed box did not come
one push closer to its goal in the current optimal matching (which then stays optimal), and
then from the duals in O(n^2) (:func:`evosoko.sokoban.matching.matching_update`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from evosoko.evolve.distances import MATCHING, objective_code
from evosoko.evolve.plan_penalty import (
    NO_PLAN,
    PlanPenalty,
    penalized,
    plan_penalty,
    with_scratch,
)
from evosoko.evolve.prefetch import first_ahead, prefetch_ahead
from evosoko.parallel.packing import packed_rows
from evosoko.sokoban.arrays import LevelArrays, level_arrays, read_only_cells
from evosoko.sokoban.level import UNREACHABLE, Level, State
from evosoko.sokoban.matching import matching_update, pushed_closer, store_potentials
from evosoko.sokoban.pushes import (
    forced_dead_end,
    goal_distances,
    matching_work,
    position_distance,
    push,
    push_scratch,
    reach,
    scratch_candidates,
    scratch_distance,
    set_position,
    update_frozen_tables,
)
from evosoko.sokoban.zobrist import boxes_hash

PUSH_GENE_RANGE = 720
"""Push genes are drawn from ``0..PUSH_GENE_RANGE-1``; 720 is divisible by every count 1..10,
so the choice ``gene % count`` of a random gene is uniform for the usual candidate counts."""


@dataclass(frozen=True, eq=False)
class PushTables:
    """What push replay reads: the level's arrays, the start and the corral setting."""

    arrays: LevelArrays
    start_player: int
    start_boxes: np.ndarray  # int64[boxes], sorted, read-only
    corrals: bool = True  # restrict candidates to a PI-corral's barrier when there is one
    plan: PlanPenalty = NO_PLAN  # the out-of-plan penalty (off by default)

    @property
    def deltas(self) -> np.ndarray:
        """int64[4]: flat offsets of ``u d l r``."""
        return self.arrays.deltas


def push_tables(
    level: Level, start: State | None = None, corrals: bool = True, plan_weight: int = 0
) -> PushTables:
    """The :class:`PushTables` of ``level``, replaying from ``start`` (default: the level's);
    ``corrals``: candidates are only the pushes of a PI-corral's barrier when there is one;
    ``plan_weight``: distance added per box on a goal filled out of the packing order
    (:mod:`evosoko.evolve.plan_penalty`; it moves best points, never the pushes made)."""
    start = level.start if start is None else start
    return PushTables(
        arrays=level_arrays(level),
        start_player=int(start.player),
        start_boxes=read_only_cells(sorted(start.boxes)),
        corrals=bool(corrals),
        plan=plan_penalty(level, plan_weight),
    )


class PushReplay(NamedTuple):
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

    @classmethod
    def empty(cls, count: int) -> PushReplay:
        """Result arrays for ``count`` genomes."""
        return cls(
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


def replay_push_batch(
    tables: PushTables,
    genomes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
) -> PushReplay:
    """Replay ``genomes[i, :lengths[i]]`` (int[n, L], genes >= 0) for every i."""
    return replay_push_packed(tables, *packed_rows(genomes, lengths), objective, stop_on_deadlock)


def replay_push_packed(
    tables: PushTables,
    genes: np.ndarray,
    lengths: np.ndarray,
    objective: str = "matching",
    stop_on_deadlock: bool = True,
    record: np.ndarray | None = None,
) -> PushReplay:
    """Replay the genomes of a packed batch (:func:`~evosoko.parallel.packing.pack_genomes`:
    all genes in one int32 array and the length of each genome). ``record`` (int64[genes, 2],
    optional) receives the pushes made: genome i's push j as ``(box cell, direction)`` in row
    ``offset_i + j`` (``offset_i``: the genes of the genomes before it), so a position on a
    genome's way can be rebuilt without replaying it (:mod:`evosoko.evolve.descriptors`)."""
    genes = np.ascontiguousarray(genes, dtype=np.int32)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    record = _NO_RECORD if record is None else record
    return _replay(tables, genes, lengths, objective, stop_on_deadlock, record)


_NO_RECORD = np.empty((0, 2), dtype=np.int64)


def _replay(tables, genes, lengths, objective, stop_on_deadlock, record) -> PushReplay:
    """Replay a packed batch; genome i's push j goes to ``record[offset_i + j]`` when
    ``record`` has rows (``offset_i``: the genes before genome i; decoding replays one genome
    so)."""
    result = PushReplay.empty(len(lengths))
    rules = _Rules(
        tables.arrays,
        tables.corrals,
        with_scratch(tables.plan),
        objective_code(objective),
        bool(stop_on_deadlock),
    )
    _replay_batch_kernel(
        rules, tables.start_player, tables.start_boxes, _Batch(genes, lengths, record, result)
    )
    return result


def push_choices(
    tables: PushTables, genome, objective: str = "matching", stop_on_deadlock: bool = True
) -> list[tuple[int, int]]:
    """The ``(box cell, direction)`` pushes that ``genome`` makes, in order, as replay makes
    them."""
    genes = np.ascontiguousarray(np.asarray(genome, dtype=np.int32).reshape(-1))
    pushes = np.empty((len(genes), 2), dtype=np.int64)
    lengths = np.array([len(genes)], dtype=np.int32)
    made = _replay(tables, genes, lengths, objective, stop_on_deadlock, pushes).steps[0]
    return [(int(box), int(direction)) for box, direction in pushes[:made]]


def genes_for_pushes(tables: PushTables, pushes) -> list[int]:
    """Genes that make the given ``(box cell, direction)`` pushes from the tables' start.

    Stops before the first push that is not a candidate where it is made (it is illegal, or it
    deadlocks); the genes returned so far replay exactly those pushes.
    """
    wanted = np.ascontiguousarray(np.asarray(list(pushes), dtype=np.int64).reshape(-1, 2))
    genes = np.empty(len(wanted), dtype=np.int32)
    made = _genes_kernel(
        tables.arrays, tables.start_player, tables.start_boxes, tables.corrals, wanted, genes
    )
    return genes[:made].tolist()


def candidate_pushes(tables: PushTables, player: int, boxes) -> list[tuple[int, int]]:
    """The candidate pushes of a position, in the canonical order genes index them."""
    box_cells = np.array(sorted(boxes), dtype=np.int64)
    out = np.empty((4 * len(box_cells), 2), dtype=np.int64)
    count = _candidates_kernel(tables.arrays, tables.corrals, int(player), box_cells, out)
    return [(int(box), int(direction)) for box, direction in out[:count]]


# ---- compiled kernels ---------------------------------------------------------------------------
class _Rules(NamedTuple):
    """How every genome of a batch is replayed."""

    arrays: LevelArrays
    corrals: bool  # candidates restricted to a PI-corral's barrier when there is one
    plan: PlanPenalty  # the out-of-plan penalty, with a scratch of its own (:func:`with_scratch`)
    objective: int  # :func:`~evosoko.evolve.distances.objective_code`
    stop_on_deadlock: bool


class _Batch(NamedTuple):
    """The genomes of a packed batch and where their replay goes."""

    genes: np.ndarray  # int32[genes]: every genome's genes, one after the other
    lengths: np.ndarray  # int32[genomes]
    record: np.ndarray  # int64[genes, 2]: the pushes made (no rows: not recorded)
    out: PushReplay


class _Start(NamedTuple):
    """What every genome of a batch shares: the start position worked out once."""

    frozen_count: int
    distance: int
    raw: int  # the matching's cost (uncapped below ``UNREACHABLE``; -1: no optimal matching held)
    on_goals: int
    box_hash: np.uint64
    candidates: int  # candidate pushes (when the start is not solved nor lost)
    smallest: int  # normalized player
    out_box: np.ndarray
    out_direction: np.ndarray
    assignment: np.ndarray
    potentials: np.ndarray  # the goals' duals of that matching (row 6 of the work scratch)
    frozen_goals: np.ndarray
    reduced: np.ndarray
    dead_now: np.ndarray
    open_cells: np.ndarray


class _Positions(NamedTuple):
    """What a batch has worked out per position, in a direct-mapped table keyed by the hash of
    the boxes and the player's cell (a hit is checked against both): genomes of a batch share
    their first pushes, and a population shares far more."""

    keys: np.ndarray  # uint64[slots] (0: none)
    boxes: np.ndarray  # int64[slots, boxes]: sorted
    player: np.ndarray  # int64[slots]
    distance: np.ndarray  # int64[slots]
    candidates: np.ndarray  # int64[slots]: candidate pushes
    smallest: np.ndarray  # int64[slots]: the normalized player
    out_box: np.ndarray  # int64[slots, 4 * boxes]: the candidates
    out_direction: np.ndarray  # int64[slots, 4 * boxes]
    raw: np.ndarray  # int64[slots]: the matching's cost, uncapped (-1: no optimal matching held)
    goals: np.ndarray  # int16[slots, boxes]: the goal of each box (in the order of ``boxes``)
    potentials: np.ndarray  # int64[slots, boxes]: the goals' duals of that matching


CACHED_VALUES = 1 << 18
"""Values the position table of a batch holds at most (2 MiB)."""


@numba.njit(cache=True)
def _positions(box_count):  # pragma: no cover - compiled
    slots = 64
    while slots < 2048 and 2 * slots * (11 * box_count + 6) <= CACHED_VALUES:
        slots *= 2
    return _Positions(  # a slot's values are read only once its key and position matched
        np.zeros(slots, dtype=np.uint64),
        np.empty((slots, box_count), dtype=np.int64),
        np.full(slots, -1, dtype=np.int64),  # no player: nothing matches an empty slot
        np.empty(slots, dtype=np.int64),
        np.empty(slots, dtype=np.int64),
        np.empty(slots, dtype=np.int64),
        np.empty((slots, 4 * box_count), dtype=np.int64),
        np.empty((slots, 4 * box_count), dtype=np.int64),
        np.empty(slots, dtype=np.int64),
        np.empty((slots, box_count), dtype=np.int16),
        np.empty((slots, box_count), dtype=np.int64),
    )


@numba.njit(cache=True, inline="always")
def _analyse_start(rules, start_player, start_boxes, scratch):  # pragma: no cover - compiled
    """The :class:`_Start` of a batch (the scratch is left holding the start position)."""
    arrays, corrals, plan, objective = rules.arrays, rules.corrals, rules.plan, rules.objective
    set_position(scratch.occupied, scratch.boxes, start_boxes)
    on_goals = 0
    for k in range(start_boxes.shape[0]):
        if arrays.goals[start_boxes[k]]:
            on_goals += 1
    frozen_count = update_frozen_tables(arrays, scratch, np.int64(0))
    distance = UNREACHABLE
    raw = -1
    if frozen_count >= 0:
        distance = scratch_distance(arrays, objective, scratch, frozen_count)
        if objective == MATCHING and frozen_count == 0:
            store_potentials(scratch.work, scratch.work[6])
            raw = distance
        distance = penalized(plan, scratch.boxes, distance)
    if frozen_count >= 0 and on_goals < start_boxes.shape[0]:
        count, smallest = scratch_candidates(arrays, corrals, start_player, scratch, frozen_count)
    else:
        count = 0
        smallest = reach(
            arrays.floor,
            arrays.deltas,
            scratch.occupied,
            start_player,
            scratch.mark,
            scratch.stamp,
            scratch.queue,
        )[1]
    return _Start(
        frozen_count,
        distance,
        raw,
        on_goals,
        boxes_hash(arrays.zobrist_box, start_boxes),
        count,
        smallest,
        _copied(scratch.out_box),
        _copied(scratch.out_direction),
        _copied(scratch.assignment),
        _copied(scratch.work[6]),
        _copied(scratch.frozen_goals),
        _copied(scratch.reduced.ravel()).reshape(scratch.reduced.shape),
        _copied(scratch.dead_now),
        _copied(scratch.open_cells),
    )


@numba.njit(cache=True)
def _copied(array):  # pragma: no cover - compiled
    """A copy of the 1-D ``array`` (a loop: ``array.copy()`` compiles far slower)."""
    copy = np.empty(array.shape[0], dtype=array.dtype)
    for k in range(array.shape[0]):
        copy[k] = array[k]
    return copy


@numba.njit(cache=True, inline="always")
def _restore_start(start, start_boxes, scratch, tables_dirty):  # pragma: no cover - compiled
    """Put the start position (and, with boxes frozen on goals there, its tables) back."""
    set_position(scratch.occupied, scratch.boxes, start_boxes)
    for k in range(start.assignment.shape[0]):  # loops: slice copies compile slowly
        scratch.assignment[k] = start.assignment[k]
        scratch.work[6, k] = start.potentials[k]
    if start.frozen_count > 0:
        for cell in range(start.frozen_goals.shape[0]):
            scratch.frozen_goals[cell] = start.frozen_goals[cell]
        if tables_dirty:
            for cell in range(start.frozen_goals.shape[0]):
                scratch.dead_now[cell] = start.dead_now[cell]
                scratch.open_cells[cell] = start.open_cells[cell]
                for row in range(start.reduced.shape[0]):
                    scratch.reduced[row, cell] = start.reduced[row, cell]


@numba.njit(cache=True)
def _replay_genomes(
    rules, start, start_player, start_boxes, batch, scratch, trail, positions
):  # pragma: no cover - compiled
    """Replay every genome of a packed batch from ``start`` (the scratch holds the start
    position) into ``batch.out``; genome i's push j goes to ``batch.record[offset_i + j]`` as
    (box, direction) when it has rows. ``trail`` is int64[3, longest + 1] scratch.

    One loop over the genomes, the arrays unpacked once: a compiled call per genome would pay
    a reference count update for each of the hundred arrays passed, more than a genome's pushes
    cost. The candidates of a position are worked out when it is reached (or read from
    ``positions``), so the verdict at a genome's end (a dead end: no candidate) is the one its
    next gene would have met.
    """
    arrays, corrals, plan, objective, stop_on_deadlock = rules
    genes, lengths, record, out = batch
    floor, dead, goals, deltas = arrays.floor, arrays.dead, arrays.goals, arrays.deltas
    push_distance, zobrist_box, zobrist_player = (
        arrays.push_distance,
        arrays.zobrist_box,
        arrays.zobrist_player,
    )
    (
        occupied, boxes, mark, stamp, queue, candidate_box, candidate_direction, _,
        frozen_goals, reduced, dead_now, open_cells, _, _, _, assignment, work,
    ) = scratch  # fmt: skip
    # the groups position_distance takes, built once
    distances, matching = goal_distances(arrays), matching_work(scratch)
    keys, known_boxes, known_player, known_distance, known_count, known_smallest = (
        positions.keys,
        positions.boxes,
        positions.player,
        positions.distance,
        positions.candidates,
        positions.smallest,
    )
    known_out_box, known_out_direction = positions.out_box, positions.out_direction
    known_raw, known_goals, known_potentials = positions.raw, positions.goals, positions.potentials
    mask = np.uint64(keys.shape[0] - 1)
    box_count = start_boxes.shape[0]
    recording = record.shape[0] > 0
    offset = 0
    rebuilt = False
    ahead = first_ahead(lengths)
    for i in range(lengths.shape[0]):
        ahead = prefetch_ahead(genes, lengths, i, ahead)
        _restore_start(start, start_boxes, scratch, rebuilt)
        length = lengths[i]
        player = start_player
        box_hash = start.box_hash
        on_goals = start.on_goals
        frozen_count = start.frozen_count
        distance = start.distance
        raw = start.raw
        matched = raw >= 0  # the assignment is an optimal matching, the duals in work[6] feasible
        rebuilt = False
        best = distance
        best_at = 0
        best_hash = np.uint64(0)
        pending = True  # the best point's hash waits for the next reachability pass
        solved = on_goals == box_count
        solved_at = 0 if solved else -1
        deadlocked = False
        steps = 0
        known = -1  # the slot of ``positions`` that holds the position as it stands
        count = 0
        smallest = start.smallest
        current = False  # ``count`` and ``smallest`` are the position's as it stands
        while not solved and frozen_count >= 0:
            if steps == 0:
                count, smallest = start.candidates, start.smallest
                out_box, out_direction = start.out_box, start.out_direction
            elif known >= 0:
                count, smallest = known_count[known], known_smallest[known]
                out_box, out_direction = known_out_box[known], known_out_direction[known]
            else:
                count, smallest = scratch_candidates(arrays, corrals, player, scratch, frozen_count)
                out_box, out_direction = candidate_box, candidate_direction
                key = box_hash ^ zobrist_player[player]
                slot = np.int64(key & mask)
                keys[slot] = key
                known_player[slot] = player
                known_distance[slot] = distance
                known_count[slot] = count
                known_smallest[slot] = smallest
                for k in range(box_count):
                    known_boxes[slot, k] = boxes[k]
                for c in range(count):
                    known_out_box[slot, c] = candidate_box[c]
                    known_out_direction[slot, c] = candidate_direction[c]
                known_raw[slot] = raw if matched else -1
                if matched:
                    for k in range(box_count):
                        known_goals[slot, k] = assignment[k]
                        known_potentials[slot, k] = work[6, k]
            current = True
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
            if steps == length:
                break
            choice = genes[offset + steps] % count
            box = out_box[choice]
            direction = out_direction[choice]
            target = box + deltas[direction]
            if recording:
                record[offset + steps, 0] = box
                record[offset + steps, 1] = direction
            before = frozen_count
            frozen_count = push(
                floor, dead, goals, deltas, occupied, boxes, assignment, box, direction,
                frozen_count, frozen_goals, reduced, dead_now, open_cells, queue,
            )  # fmt: skip
            rebuilt = rebuilt or frozen_count != before
            current = False
            player = box
            box_hash ^= zobrist_box[box] ^ zobrist_box[target]
            on_goals += (1 if goals[target] else 0) - (1 if goals[box] else 0)
            steps += 1
            key = box_hash ^ zobrist_player[player]
            known = np.int64(key & mask)
            if keys[known] != key or known_player[known] != player:
                known = -1
            else:
                for k in range(box_count):
                    if known_boxes[known, k] != boxes[k]:
                        known = -1
                        break
            if known >= 0:  # the position's distance, and its matching when it had one
                distance = known_distance[known]
                raw = known_raw[known]
                matched = raw >= 0 and frozen_count == 0
                if matched:
                    for k in range(box_count):
                        assignment[k] = known_goals[known, k]
                        work[6, k] = known_potentials[known, k]
            elif matched and frozen_count == 0:
                moved = 0
                while boxes[moved] != target:
                    moved += 1
                closer = pushed_closer(push_distance, assignment[moved], box, target)
                if closer and raw < UNREACHABLE:  # (a capped cost is not lowered)
                    raw -= 1  # the matching stays optimal, its duals feasible
                else:  # box re-matched from the duals: O(n^2), the full matching's cost
                    raw = matching_update(push_distance, boxes, assignment, work[6], moved, work)
                distance = penalized(plan, boxes, min(raw, UNREACHABLE))
            else:
                distance = position_distance(
                    objective, distances, boxes, frozen_count, frozen_goals, reduced, matching
                )
                matched = objective == MATCHING and frozen_count == 0
                raw = distance if matched else -1
                if matched:
                    store_potentials(work, work[6])
                distance = penalized(plan, boxes, distance)
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
        if not current:
            if steps == 0:
                smallest = start.smallest
            elif known >= 0:
                smallest = known_smallest[known]
            else:
                smallest = reach(floor, deltas, occupied, player, mark, stamp, queue)[1]
        final_hash = box_hash ^ zobrist_player[smallest]
        if pending:
            best_hash = final_hash
        if frozen_count < 0:  # a box frozen off its goal
            deadlocked = True
        elif not solved and not deadlocked and count == 1:  # the pushes forced from here
            deadlocked = forced_dead_end(
                arrays,
                corrals,
                objective,
                stop_on_deadlock,
                scratch,
                player,
                frozen_count,
                on_goals,
            )
            rebuilt = True  # the forced chain may have rebuilt the tables
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
        out.solved[i] = solved
        out.solved_at[i] = solved_at
        out.best_prefix[i] = best_at
        out.best_distance[i] = best
        out.best_hash[i] = best_hash
        out.steps[i] = steps
        out.final_distance[i] = distance
        out.final_hash[i] = final_hash
        out.deadlocked[i] = deadlocked
        offset += length


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
def _replay_batch_kernel(rules, start_player, start_boxes, batch):  # pragma: no cover - compiled
    arrays = rules.arrays
    scratch = push_scratch(
        arrays.floor.shape[0], start_boxes.shape[0], arrays.push_distance.shape[0]
    )
    start = _analyse_start(rules, start_player, start_boxes, scratch)
    longest = 0
    for i in range(batch.lengths.shape[0]):
        longest = max(longest, batch.lengths[i])
    trail = np.empty((3, longest + 1), dtype=np.int64)
    positions = _positions(start_boxes.shape[0])
    _replay_genomes(rules, start, start_player, start_boxes, batch, scratch, trail, positions)


@numba.njit(cache=True)
def _candidates_kernel(arrays, corrals, player, boxes, out):  # pragma: no cover - compiled
    """The candidate pushes of one position (``boxes`` sorted), as the replay enumerates them."""
    scratch = push_scratch(arrays.floor.shape[0], boxes.shape[0], arrays.push_distance.shape[0])
    return _candidates_in(arrays, corrals, player, boxes, scratch, out)


@numba.njit(cache=True)
def _candidates_in(arrays, corrals, player, boxes, scratch, out):  # pragma: no cover - compiled
    set_position(scratch.occupied, scratch.boxes, boxes)
    frozen_count = update_frozen_tables(arrays, scratch, np.int64(0))
    if frozen_count < 0:
        return 0
    count, _ = scratch_candidates(arrays, corrals, player, scratch, frozen_count)
    for c in range(count):
        out[c, 0] = scratch.out_box[c]
        out[c, 1] = scratch.out_direction[c]
    return count


@numba.njit(cache=True)
def _genes_kernel(arrays, start_player, start_boxes, corrals, wanted, genes):  # pragma: no cover
    boxes = _copied(start_boxes)
    scratch = push_scratch(arrays.floor.shape[0], boxes.shape[0], arrays.push_distance.shape[0])
    out = np.empty((4 * boxes.shape[0], 2), dtype=np.int64)
    player = start_player
    for step in range(wanted.shape[0]):
        count = _candidates_in(arrays, corrals, player, boxes, scratch, out)
        found = -1
        for c in range(count):
            if out[c, 0] == wanted[step, 0] and out[c, 1] == wanted[step, 1]:
                found = c
                break
        if found < 0:
            return step
        genes[step] = found
        box = wanted[step, 0]
        target = box + arrays.deltas[wanted[step, 1]]
        for k in range(boxes.shape[0]):  # keep the boxes sorted
            if boxes[k] == box:
                boxes[k] = target
        boxes.sort()
        player = box
    return wanted.shape[0]
