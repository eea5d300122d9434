"""Batch replay of move genomes in a numba kernel.

A *genome* is a row of direction codes ``0..3`` = ``u d l r`` (:data:`DIRECTIONS`). The kernel
replays many genomes of one level at once and reports, per genome, whether and when it solved
the level, how close its best prefix came (the box-distance score), and a hash of its final
position. The evolutionary engine builds its fitness on these figures.

Rules of replay (shared with :mod:`evosoko.sokoban.reference`, the plain-Python twin):

- Every genome starts from the level's start state (or the ``start`` given) and consumes its
  genes one by one, up to its length.
- A gene moves the player to the neighbouring cell, pushing a box there one cell further. A gene
  that would walk into a non-floor cell, or push a box into a non-floor cell or into another
  box, is *skipped*: it is consumed but changes nothing.
- The box-distance *score* of a position is the sum over boxes of ``nearest[box]`` (push
  distance to the nearest goal, ``UNREACHABLE`` on dead squares). It is kept up to date on
  each push. ``best_prefix`` is the number of genes after which the score was lowest (the
  earliest on ties; 0 is the start), ``best_score`` that score.
- Replay of a genome stops as soon as every box is on a goal (``solved``, ``solved_at`` = genes
  consumed, 0 when the start is already solved).
- With ``stop_on_deadlock`` it also stops right after a push that leaves the pushed box either
  on a dead square, or in a 2x2 square of cells that are all walls (non-floor) or boxes, with
  at least one box of that square off its goal (such a square can never be broken up). Only the
  four 2x2 squares that contain the pushed box are examined. The genome is then reported
  ``deadlocked``; the position after that push still counts for ``best_prefix``. A solving
  push is never a deadlock.
- ``final_hash`` is the Zobrist hash of the final position: the XOR of ``zobrist_box[b]`` over
  the boxes and ``zobrist_player[p]``, where ``p`` is the *normalized* player cell (the
  smallest cell the player can reach without pushing). Equal boxes with the player in the same
  region hash equally; :func:`state_hash` gives the same hash for a :class:`State`.

For code that wants to build on the raw data, :class:`ReplayTables` holds every per-level flat
array the kernel reads, and :func:`replay_kernel` is the compiled entry point that writes into
preallocated result arrays (see :meth:`ReplayResult.empty`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, fields

import numba
import numpy as np

from evosoko.sokoban.level import Level, State

ZOBRIST_SEED = 0x5EED_B0C5
"""Seed of the generator that draws the Zobrist keys: hashes are reproducible across runs."""

_WALL = -1
"""Occupant code of a non-floor cell in the kernel's scratch board (0 empty, k > 0 box k)."""


@dataclass(frozen=True, eq=False)
class ReplayTables:
    """Flat per-level arrays read by the replay kernel; build with :func:`replay_tables`.

    Every per-cell array has length ``width * height`` and is read-only.
    """

    width: int
    deltas: np.ndarray  # int64[4]: flat offsets of u d l r
    floor: np.ndarray  # uint8[cells]: 1 where the player may stand (level.floor)
    goal: np.ndarray  # uint8[cells]: 1 on goals
    nearest: np.ndarray  # int64[cells]: push distance to the nearest goal, UNREACHABLE if none
    dead: np.ndarray  # uint8[cells]: 1 on dead squares (floor cells that reach no goal)
    zobrist_box: np.ndarray  # uint64[cells]: hash key of a box on each cell
    zobrist_player: np.ndarray  # uint64[cells]: hash key of the normalized player on each cell
    start_player: int  # the player's start cell
    start_occupied: np.ndarray  # uint8[cells]: 1 where a box stands at the start
    start_boxes: np.ndarray  # int64[boxes]: sorted start box cells

    @property
    def cells(self) -> int:
        """Number of cells of the board rectangle."""
        return len(self.floor)

    @property
    def box_count(self) -> int:
        """Number of boxes (and goals)."""
        return len(self.start_boxes)


@dataclass(frozen=True, eq=False)
class ReplayResult:
    """Per-genome outcome of a batch replay: every field is an array with one entry per genome."""

    solved: np.ndarray  # bool: every box on a goal
    solved_at: np.ndarray  # int32: genes consumed when solved, -1 otherwise
    boxes_on_goals: np.ndarray  # int32: at the final position
    best_prefix: np.ndarray  # int32: genes consumed at the lowest score (earliest), 0 = start
    best_score: np.ndarray  # int64: that lowest score
    final_hash: np.ndarray  # uint64: Zobrist hash of the final position, player normalized
    deadlocked: np.ndarray  # bool: stopped by stop_on_deadlock
    steps: np.ndarray  # int32: genes consumed

    @classmethod
    def empty(cls, count: int) -> "ReplayResult":
        """A result of ``count`` genomes with uninitialised arrays, for :func:`replay_kernel`."""
        return cls(
            solved=np.zeros(count, dtype=np.bool_),
            solved_at=np.zeros(count, dtype=np.int32),
            boxes_on_goals=np.zeros(count, dtype=np.int32),
            best_prefix=np.zeros(count, dtype=np.int32),
            best_score=np.zeros(count, dtype=np.int64),
            final_hash=np.zeros(count, dtype=np.uint64),
            deadlocked=np.zeros(count, dtype=np.bool_),
            steps=np.zeros(count, dtype=np.int32),
        )

    def __len__(self) -> int:
        return len(self.solved)

    def row(self, index: int) -> dict[str, int | bool]:
        """The outcome of one genome as plain Python values."""
        return {f.name: getattr(self, f.name)[index].item() for f in fields(self)}


# ---- tables ---------------------------------------------------------------------------------

_tables_cache: dict[int, tuple[weakref.ref, ReplayTables]] = {}


def replay_tables(level: Level) -> ReplayTables:
    """The :class:`ReplayTables` of ``level``, built once and cached while the level lives."""
    entry = _tables_cache.get(id(level))
    if entry is not None and entry[0]() is level:
        return entry[1]
    tables = _build_tables(level)
    key = id(level)
    _tables_cache[key] = (weakref.ref(level), tables)
    weakref.finalize(level, _tables_cache.pop, key, None)
    return tables


def _build_tables(level: Level) -> ReplayTables:
    cells = level.cells
    keys = np.random.default_rng(ZOBRIST_SEED).integers(
        0, 2**64, size=2 * cells, dtype=np.uint64, endpoint=False
    )
    start_boxes = np.array(level.start.boxes, dtype=np.int64)
    start_occupied = np.zeros(cells, dtype=np.uint8)
    start_occupied[start_boxes] = 1
    return ReplayTables(
        width=level.width,
        deltas=_read_only(np.array(level.deltas, dtype=np.int64)),
        floor=_read_only(level.floor.astype(np.uint8)),
        goal=_read_only(level.goals.astype(np.uint8)),
        nearest=_read_only(level.nearest_goal_distance.astype(np.int64)),
        dead=_read_only(level.dead_squares.astype(np.uint8)),
        zobrist_box=_read_only(keys[:cells].copy()),
        zobrist_player=_read_only(keys[cells:].copy()),
        start_player=level.start.player,
        start_occupied=_read_only(start_occupied),
        start_boxes=_read_only(start_boxes),
    )


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


# ---- public entry points ----------------------------------------------------------------------


def replay_batch(
    tables: ReplayTables,
    genomes: np.ndarray,
    lengths: np.ndarray | None = None,
    stop_on_deadlock: bool = False,
    start: State | None = None,
) -> ReplayResult:
    """Replay every row of ``genomes`` (int8[n, L], genes 0..3) for ``lengths[i]`` genes.

    ``lengths`` (int32[n], each 0..L) defaults to the full width ``L``. Replay starts from the
    level's start or from ``start``. See the module docstring for the rules and the outputs.
    Raises ``ValueError`` for a gene outside 0..3 within a genome's length, a bad length, or a
    ``start`` that does not fit the level.
    """
    genomes = as_genomes(genomes)
    lengths = as_lengths(lengths, genomes)
    player, boxes = start_arrays(tables, start)
    result = ReplayResult.empty(len(genomes))
    replay_kernel(
        tables.width,
        tables.deltas,
        tables.floor,
        tables.goal,
        tables.nearest,
        tables.dead,
        tables.zobrist_box,
        tables.zobrist_player,
        player,
        boxes,
        genomes,
        lengths,
        bool(stop_on_deadlock),
        result.solved,
        result.solved_at,
        result.boxes_on_goals,
        result.best_prefix,
        result.best_score,
        result.final_hash,
        result.deadlocked,
        result.steps,
    )
    return result


def state_hash(tables: ReplayTables, state: State) -> int:
    """Zobrist hash of ``state`` with the player normalized, as ``final_hash`` reports it."""
    player, boxes = start_arrays(tables, state)
    occupant = np.empty(tables.cells, dtype=np.int32)
    _fill_occupant(tables.floor, boxes, occupant)
    mark = np.zeros(tables.cells, dtype=np.int64)
    stack = np.empty(tables.cells, dtype=np.int64)
    normalized = _normalized_player(occupant, tables.deltas, player, 1, mark, stack)
    box_hash = np.bitwise_xor.reduce(tables.zobrist_box[boxes]) if len(boxes) else 0
    return int(box_hash) ^ int(tables.zobrist_player[normalized])


# ---- input checks (shared with the reference) -------------------------------------------------


def as_genomes(genomes: np.ndarray) -> np.ndarray:
    """``genomes`` as a C-contiguous int8[n, L] array (any integer array whose values fit)."""
    array = np.asarray(genomes)
    if array.ndim != 2:
        raise ValueError(f"genomes must be a 2-D array (one row per genome), got {array.ndim}-D")
    if array.dtype != np.int8:
        if array.size and not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"genomes must hold integer genes, got {array.dtype}")
        if array.size and (array.min() < -128 or array.max() > 127):
            raise ValueError("genes must be direction codes 0..3")
        array = array.astype(np.int8)
    return np.ascontiguousarray(array)


def as_lengths(lengths: np.ndarray | None, genomes: np.ndarray) -> np.ndarray:
    """``lengths`` as int32[n] within 0..L (default: every genome uses its full row)."""
    count, width = genomes.shape
    if lengths is None:
        return np.full(count, width, dtype=np.int32)
    array = np.asarray(lengths)
    if array.shape != (count,):
        raise ValueError(f"lengths must have shape ({count},), got {array.shape}")
    if count and (array.min() < 0 or array.max() > width):
        raise ValueError(f"lengths must lie in 0..{width} (the genome array's width)")
    return np.ascontiguousarray(array, dtype=np.int32)


def start_arrays(tables: ReplayTables, start: State | None) -> tuple[int, np.ndarray]:
    """(player, int64[boxes]) of ``start`` (default: the level's start), checked for fit."""
    if start is None:
        return tables.start_player, tables.start_boxes
    boxes = np.array(start.boxes, dtype=np.int64)
    cells = tables.cells
    if len(boxes) != tables.box_count:
        raise ValueError(f"start has {len(boxes)} boxes; the level has {tables.box_count}")
    if len(set(boxes.tolist())) != len(boxes):
        raise ValueError("start has two boxes on one cell")
    for cell in [start.player, *boxes.tolist()]:
        if not 0 <= cell < cells or not tables.floor[cell]:
            raise ValueError(f"start cell {cell} is not a floor cell of the level")
    if start.player in set(boxes.tolist()):
        raise ValueError("start has the player on a box")
    return int(start.player), _read_only(boxes)  # read-only like the tables: one compilation


# ---- compiled kernels -----------------------------------------------------------------------


@numba.njit(cache=True)
def _fill_occupant(floor, boxes, occupant):
    """Write the scratch board: ``_WALL`` off the floor, 0 on empty floor, k + 1 under box k."""
    for cell in range(len(floor)):
        occupant[cell] = 0 if floor[cell] else _WALL
    for k in range(len(boxes)):
        occupant[boxes[k]] = k + 1


@numba.njit(cache=True)
def _normalized_player(occupant, deltas, player, stamp, mark, stack):
    """Smallest cell reachable from ``player`` over empty floor (cells marked with ``stamp``)."""
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
    return smallest


@numba.njit(cache=True)
def _in_frozen_square(occupant, goal, cell, width):
    """Whether ``cell`` lies in a 2x2 square of walls and boxes holding a box off its goal."""
    for corner in (cell - width - 1, cell - width, cell - 1, cell):
        a, b, c, d = corner, corner + 1, corner + width, corner + width + 1
        if occupant[a] != 0 and occupant[b] != 0 and occupant[c] != 0 and occupant[d] != 0:
            if (
                (occupant[a] > 0 and goal[a] == 0)
                or (occupant[b] > 0 and goal[b] == 0)
                or (occupant[c] > 0 and goal[c] == 0)
                or (occupant[d] > 0 and goal[d] == 0)
            ):
                return True
    return False


@numba.njit(cache=True)
def replay_kernel(
    width,
    deltas,
    floor,
    goal,
    nearest,
    dead,
    zobrist_box,
    zobrist_player,
    start_player,
    start_boxes,
    genomes,
    lengths,
    stop_on_deadlock,
    solved,
    solved_at,
    boxes_on_goals,
    best_prefix,
    best_score,
    final_hash,
    deadlocked,
    steps,
):
    """Replay ``genomes[i, :lengths[i]]`` for every i, writing into the eight result arrays.

    Compiled core of :func:`replay_batch`; arguments are the :class:`ReplayTables` arrays, the
    start (player cell, int64 box cells), the inputs, and the arrays of a
    :meth:`ReplayResult.empty`. Inputs are not checked except for genes outside 0..3.
    """
    cells = len(floor)
    box_count = len(start_boxes)
    occupant = np.empty(cells, dtype=np.int32)
    _fill_occupant(floor, start_boxes, occupant)
    box_cells = start_boxes.copy()
    mark = np.zeros(cells, dtype=np.int64)
    stack = np.empty(cells, dtype=np.int64)

    start_score = 0
    start_on_goals = 0
    start_box_hash = np.uint64(0)
    for k in range(box_count):
        start_score += nearest[start_boxes[k]]
        start_on_goals += np.int64(goal[start_boxes[k]])
        start_box_hash ^= zobrist_box[start_boxes[k]]

    for i in range(genomes.shape[0]):
        player = start_player
        score = start_score
        on_goals = start_on_goals
        box_hash = start_box_hash
        best = start_score
        best_at = 0
        is_solved = on_goals == box_count
        is_deadlocked = False
        consumed = 0 if is_solved else lengths[i]
        if not is_solved:
            for j in range(lengths[i]):
                gene = genomes[i, j]
                if gene < 0 or gene > 3:
                    raise ValueError("genes must be direction codes 0..3")
                delta = deltas[gene]
                target = player + delta
                box = occupant[target]
                if box == 0:
                    player = target
                    continue
                if box < 0:
                    continue
                beyond = target + delta
                if occupant[beyond] != 0:
                    continue
                occupant[beyond] = box
                occupant[target] = 0
                box_cells[box - 1] = beyond
                player = target
                score += nearest[beyond] - nearest[target]
                on_goals += np.int64(goal[beyond]) - np.int64(goal[target])
                box_hash ^= zobrist_box[target] ^ zobrist_box[beyond]
                if score < best:
                    best = score
                    best_at = j + 1
                if on_goals == box_count:
                    is_solved = True
                    consumed = j + 1
                    break
                if stop_on_deadlock and (
                    dead[beyond] != 0 or _in_frozen_square(occupant, goal, beyond, width)
                ):
                    is_deadlocked = True
                    consumed = j + 1
                    break

        normalized = _normalized_player(occupant, deltas, player, i + 1, mark, stack)
        solved[i] = is_solved
        solved_at[i] = consumed if is_solved else -1
        boxes_on_goals[i] = on_goals
        best_prefix[i] = best_at
        best_score[i] = best
        final_hash[i] = box_hash ^ zobrist_player[normalized]
        deadlocked[i] = is_deadlocked
        steps[i] = consumed

        for k in range(box_count):  # restore the start position for the next genome
            occupant[box_cells[k]] = 0
        for k in range(box_count):
            occupant[start_boxes[k]] = k + 1
            box_cells[k] = start_boxes[k]
