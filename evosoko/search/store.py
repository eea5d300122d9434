"""The state store shared by every search kernel: node arrays, a hash table and a frontier.

A node is one row of the arrays in ``nodes`` (:class:`NodeArrays`). States are found again
through an open-addressing hash table of node ids keyed by their Zobrist hash; the frontier is
a FIFO queue, a LIFO stack or a binary heap of ``(key, node)`` pairs, chosen by ``mode``. The
kernels run in chunks and return :data:`NEED_SPACE` before they could overflow; the Python side
then grows the arrays (:meth:`Store.grow`) and calls again.

The arrays grow in place, and on Linux glibc's malloc is told to map every block of
:data:`MAPPED_BYTES` or more on its own (:func:`map_large_blocks`, once, at the first growth),
so that a store's peak is the size it grows to, which the memory limit counts, and a freed
store goes back to the system; what a search freed on malloc's heap is handed back when it
ends (:func:`release_free_memory`). Measured with push-fess-bi at ``--memory 128`` (134 MB),
6 CPU-s each on XSokoban 20, 21 and 20 again, one after the other in one process: each peaked
108-126 MB above the process's size at its start, and the process was back at 241 MB after
each (233.6 MB after the warm-up).
"""

from __future__ import annotations

import ctypes
import sys
from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sets import copy_cells

# ---- counters: one int64 array shared with the kernels ------------------------------------------
(
    NODES,
    FRONT_SIZE,
    FRONT_HEAD,
    EXPANDED,
    GENERATED,
    DUPLICATES,
    SOLUTION,
    MIN_EXCEEDED,
    WORK,
    RESUME_NODE,
    RESUME_AT,
    LOWEST_H,
    PROGRESS_POINTS,
) = range(13)
COUNTER_COUNT = 13
"""``WORK``: work units done so far (see ``WORK_LIMIT``). ``RESUME_NODE``, ``RESUME_AT``: a
node whose expansion a kernel call left unfinished (-1: none) and its next successor.
``LOWEST_H``: the lowest heuristic of any state stored so far; ``PROGRESS_POINTS``: how many
(expansions, heuristic) pairs of the progress log follow the counters."""

PROGRESS_CAPACITY = 1024
"""Pairs the progress log holds between two reads (:func:`note_progress`): each is a new lowest
heuristic, so a call adds at most the root's heuristic of them; past this the last is replaced."""

# ---- kernel parameters: one int64 array --------------------------------------------------------
(
    MODE,
    HEURISTIC,
    G_WEIGHT,
    H_WEIGHT,
    FREEZE,
    CORRALS,
    REOPEN,
    THRESHOLD,
    CHUNK,
    GOAL_AT_GENERATION,
    SHUFFLE,
    TUNNELS,
    GOAL_MACROS,
    WORK_LIMIT,
) = range(14)
PARAM_COUNT = 14
"""``CHUNK``: most expansions per kernel call. ``WORK_LIMIT``: most work units per call, where a
unit is roughly one elementary step (a cell walked, a box copied, ``n**3`` for a full matching
of ``n`` boxes); a push-level call may stop in the middle of an expansion and go on from there on
the next call, so that no call runs long however many boxes a level has."""
GOAL_MACRO_STEP = 1 << 30
"""A push-level ``step`` of ``GOAL_MACRO_STEP + k``: pushed onto the goal room's entrance and
carried on to the room's ``k``-th goal in packing order. Above every tunnel macro's code
(``direction + 4 * (pushes - 1)`` with fewer pushes than the board has cells)."""

# ---- when a solved successor ends the search (GOAL_AT_GENERATION) -------------------------------
AT_EXPANSION, AT_GENERATION, AT_GENERATION_IF_OPTIMAL = 0, 1, 2
"""``AT_GENERATION_IF_OPTIMAL``: a solved successor ends the search at once when its cost is
at most ``g + h`` of the node being expanded (the lowest f, so no cheaper solution exists);
otherwise it waits in the frontier like any other state."""
WEIGHT_SCALE = 100
"""Weights are passed as integers scaled by this factor."""

# ---- frontier modes ---------------------------------------------------------------------------
FIFO, LIFO, HEAP = 0, 1, 2

# ---- kernel return codes ------------------------------------------------------------------------
CONTINUE, SOLVED, EXHAUSTED, NEED_SPACE = 0, 1, 2, 3

EMPTY = -1
_NO_STATE_YET = np.iinfo(np.int64).max
NO_THRESHOLD = -1

MOVES_BITS, H_BITS = 20, 16
F_LIMIT = (1 << (63 - H_BITS - MOVES_BITS)) - 1
"""Largest ``f`` a heap key holds; larger ones (weighted searches on huge boards) saturate
instead of wrapping into negative keys."""


@uncounted
def priority(g, h, moves, g_weight, h_weight):  # pragma: no cover - compiled
    """Heap key: ``g*g_weight + h*h_weight``, then smaller ``h``, then fewer moves."""
    f = min(g * g_weight + h * h_weight, F_LIMIT)
    return (
        (f << (H_BITS + MOVES_BITS))
        | (min(h, (1 << H_BITS) - 1) << MOVES_BITS)
        | min(moves, (1 << MOVES_BITS) - 1)
    )


SMALL_BOARD_CELLS = 1 << 15
"""Boards with fewer cells store box cells and goal numbers as int16, larger ones as int32."""


def cell_dtype(cells: int) -> type[np.integer]:
    """The integer type of stored box cells and goal numbers on a board of ``cells`` cells.

    int16 halves the box rows of the store on the boards people play (the kernels are compiled
    once per type); int32 holds every board the level parser accepts.
    """
    return np.int16 if cells <= SMALL_BOARD_CELLS else np.int32


class NodeArrays(NamedTuple):
    """The node fields of a store, one array each, row ``i`` of every array being node ``i``
    (numba takes the tuple as it is, and its fields by name)."""

    boxes: np.ndarray
    """int16 or int32 (:func:`cell_dtype`) [capacity, boxes]: sorted box cells."""
    player: np.ndarray
    """int32: the player cell of the state key (normalized at push level)."""
    actual: np.ndarray
    """int32: where the player really stands when the node is reached."""
    parent: np.ndarray
    """int32: parent node, -1 for the root."""
    step: np.ndarray
    """int32: direction of the last step (+4 when a move-level step pushed); at push level
    direction + 4 * (pushes - 1), several pushes when a tunnel macro pushed on."""
    g: np.ndarray
    """int32: cost so far (pushes at push level, moves at move level)."""
    moves: np.ndarray
    """int32: moves so far along the stored path."""
    h: np.ndarray
    """int32: heuristic value."""
    hash: np.ndarray
    """uint64: Zobrist hash of the state key."""
    closed: np.ndarray
    """uint8: expanded (1) or not (0)."""
    assign: np.ndarray
    """cell_dtype [capacity, boxes or 1]: goal assigned to each box by the matching heuristic."""
    potential: np.ndarray
    """int32 [capacity, goals or 1]: the goals' dual potentials of that matching, so a child's
    matching is updated in O(n^2) (:func:`evosoko.sokoban.matching.matching_update`)."""


class StoreArrays(NamedTuple):
    """The arrays of a :class:`Store` that a search kernel reads and writes (numba takes the
    tuple as it is; :attr:`Store.arrays` makes it from the store's current arrays)."""

    nodes: NodeArrays
    table: np.ndarray
    """int32[slots]: node ids by hash (:data:`EMPTY`: free), slots a power of two."""
    frontier: tuple[np.ndarray, np.ndarray]
    """(int64 keys, int32 node ids): the queue, stack or heap of :func:`frontier_push`."""
    counters: np.ndarray
    """int64: :data:`NODES`, :data:`EXPANDED`, ... by slot, then the progress log
    (:data:`PROGRESS_CAPACITY` pairs)."""


class Store:
    """Growable node arrays, hash table, frontier and counters of one search."""

    def __init__(
        self,
        box_count: int,
        capacity: int = 1 << 12,
        with_assignment: bool = False,
        cells: int | None = None,
    ):
        """A store for states of ``box_count`` boxes on a board of ``cells`` cells (None: any
        board, cells stored as int32)."""
        self.box_count = box_count
        self.cell_dtype = cell_dtype(cells) if cells is not None else np.int32
        self.assign_width = box_count if with_assignment else 1
        self.capacity = capacity
        self.nodes = NodeArrays(
            np.zeros((capacity, box_count), dtype=self.cell_dtype),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.uint64),
            np.zeros(capacity, dtype=np.uint8),
            np.zeros((capacity, self.assign_width), dtype=self.cell_dtype),
            np.zeros((capacity, self.assign_width), dtype=np.int32),
        )
        self.table = np.full(_table_length(capacity), EMPTY, dtype=np.int32)
        self.frontier = (np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int32))
        self.counters = np.zeros(COUNTER_COUNT + 2 * PROGRESS_CAPACITY, dtype=np.int64)
        self.counters[SOLUTION] = -1
        self.counters[RESUME_NODE] = -1
        self.counters[LOWEST_H] = _NO_STATE_YET

    @property
    def arrays(self) -> StoreArrays:
        """The current arrays, for a kernel call (:meth:`grow` replaces them)."""
        return StoreArrays(self.nodes, self.table, self.frontier, self.counters)

    def field(self, name: str) -> np.ndarray:
        """The live array of one node field, trimmed to the stored nodes."""
        return getattr(self.nodes, name)[: self.size]

    @property
    def size(self) -> int:
        """Number of stored nodes."""
        return int(self.counters[NODES])

    def bytes_per_node(self) -> int:
        """Approximate memory of one stored node, table and frontier share included."""
        row = sum(
            array.itemsize * (array.shape[1] if array.ndim == 2 else 1) for array in self.nodes
        )
        return row + 4 * 4 + 2 * 12

    def _margin(self) -> int:
        """Free node slots below which the node arrays count as full (an expansion's most)."""
        return 4 * self.box_count + 8

    def can_grow(self, max_nodes: int) -> bool:
        """Whether :meth:`grow` may make room within ``max_nodes`` nodes: the node arrays are
        not nearly full (the frontier is what needs room), or they may still grow by a quarter."""
        nearly_full = self.size + self._margin() >= self.capacity
        return not nearly_full or max_nodes - self.capacity >= self.capacity // 4

    def has_room(self, expansions: int) -> bool:
        """Whether the node arrays hold ``expansions`` more expansions' states (at most
        :meth:`_margin` each)."""
        return self.size + expansions * self._margin() < self.capacity

    def frontier_may_grow(self, max_entries: int) -> bool:
        """Whether the frontier is not nearly full, or may double within ``max_entries``."""
        length = len(self.frontier[0])
        nearly_full = int(self.counters[FRONT_SIZE]) + self._margin() >= length
        return not nearly_full or 2 * length <= max_entries

    def grow(self, max_nodes: int | None = None) -> None:
        """Double whatever is close to full: node arrays (and table), or the frontier. The
        node arrays grow to at most ``max_nodes``, so the last step may be less than double
        and the memory limit is used up to the last quarter instead of the last half.

        The arrays grow in place (:func:`_resize_rows`), so a growth never holds the old and
        the new arrays at once: the store's peak is its size after the growth, which the
        memory limit counts. A MemoryError leaves the store as it was: the search ends at
        memory-limit."""
        map_large_blocks()
        margin = self._margin()
        if self.size + margin >= self.capacity:
            grown = 2 * self.capacity
            capacity = grown if max_nodes is None else max(min(grown, max_nodes), self.capacity)
            arrays = [*self.nodes, self.table]
            del self.nodes, self.table  # their only references go: the arrays can grow in place
            lengths = [capacity] * (len(arrays) - 1) + [_table_length(capacity)]
            try:
                _resize_rows(arrays, lengths)
            finally:
                self.nodes, self.table = NodeArrays(*arrays[:-1]), arrays[-1]
            self.capacity = capacity
            self.table.fill(EMPTY)
            rehash(self.table, self.nodes.hash, self.size)
        if int(self.counters[FRONT_SIZE]) + margin >= len(self.frontier[0]):
            arrays = list(self.frontier)
            del self.frontier
            try:
                _resize_rows(arrays, [2 * len(array) for array in arrays])
            finally:
                self.frontier = (arrays[0], arrays[1])

    def clear(self) -> None:
        """Forget every node (the arrays keep their capacity)."""
        self.table.fill(EMPTY)
        self.counters[NODES] = self.counters[FRONT_SIZE] = self.counters[FRONT_HEAD] = 0
        self.counters[SOLUTION] = -1
        self.counters[RESUME_NODE] = -1


MAPPED_BYTES = 1 << 17
"""Blocks of this size or more get a mapping of their own from glibc's malloc: its own first
threshold, which it keeps then instead of raising it. The arrays of a store that grows from
4,096 states pass through every size below it on the heap, six stores at once in
push-fess-bi, and the holes they leave there count in the peak until the search ends: with
1 MiB here the searches of the module docstring peaked 128-141 MB above their start; 64 KiB
did no better than 128 KiB."""
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
_MAPPED: list[bool] = []


def map_large_blocks() -> None:
    """Have glibc's malloc map every block of :data:`MAPPED_BYTES` or more on its own, once per
    process (on Linux; elsewhere nothing is done). By default it maps only blocks above a
    threshold that it raises, up to 32 MB, as mapped blocks are freed, and takes smaller ones
    from its heap: a store array that grows there is copied, and the hole it leaves stays in
    the process. A mapped block grows by moving its pages and goes back to the system when it is
    freed. Small blocks (Python's objects) are not affected."""
    if _MAPPED:
        return
    _MAPPED.append(True)
    malloc = _glibc()
    if malloc is not None:
        malloc.mallopt(_M_MMAP_THRESHOLD, MAPPED_BYTES)


def release_free_memory() -> None:
    """Hand the free pages of glibc's heap back to the system (``malloc_trim``; on Linux with
    glibc, elsewhere nothing is done): run when a search has ended, so that the next one does
    not start on top of the holes this one left below blocks still in use. It takes 1.4-1.6
    CPU-ms after a 20 CPU-s search of push-fess-bi at ``--memory 512``, about a microsecond on a
    heap with nothing to hand back."""
    malloc = _glibc()
    if malloc is not None:
        malloc.malloc_trim(0)


def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has ``mallopt`` and ``malloc_trim``), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        library = ctypes.CDLL(None)
    except OSError:
        return None
    glibc = hasattr(library, "mallopt") and hasattr(library, "malloc_trim")
    return library if glibc else None  # another C library: its own malloc decides


def _table_length(capacity: int) -> int:
    """Slots of the hash table for ``capacity`` nodes: a power of two, at least four per node."""
    return 1 << max(4 * capacity - 1, 1).bit_length()


def _resized(array: np.ndarray, length: int) -> np.ndarray:
    """A copy of ``array`` with ``length`` rows: its rows, then zeros."""
    grown = np.zeros((length,) + array.shape[1:], dtype=array.dtype)
    count = min(len(array), length)
    grown[:count] = array[:count]
    return grown


def _resize_rows(arrays: list[np.ndarray], lengths: list[int]) -> None:
    """Give ``arrays[k]`` ``lengths[k]`` rows (its rows kept, new rows zero), in place where
    the list holds the array's only reference: a reallocation, which for a large array moves
    pages instead of copying them, so the old and the new array are never held at once. An
    array held elsewhere too (a view handed out) is copied. On a MemoryError every array gets
    its old length back before it is raised."""
    before = [len(array) for array in arrays]
    try:
        for k, length in enumerate(lengths):
            arrays[k] = _with_rows(arrays, k, length)
    except MemoryError:
        for k, length in enumerate(before):
            if len(arrays[k]) != length:
                arrays[k] = _with_rows(arrays, k, length)
        raise


def _with_rows(arrays: list[np.ndarray], k: int, length: int) -> np.ndarray:
    """``arrays[k]`` with ``length`` rows: resized in place, or a copy when it cannot be."""
    try:
        arrays[k].resize((length, *arrays[k].shape[1:]))  # refcheck: no other reference
    except ValueError:
        return _resized(arrays[k], length)
    return arrays[k]


# ---- compiled helpers ---------------------------------------------------------------------------
@numba.njit(cache=True)
def rehash(table, hashes, count):  # pragma: no cover - compiled
    """Insert nodes ``0..count-1`` into an empty ``table`` by their hashes."""
    mask = table.shape[0] - 1
    for node in range(count):
        slot = np.int64(hashes[node] & np.uint64(mask))
        while table[slot] != EMPTY:
            slot = (slot + 1) & mask
        table[slot] = node


@uncounted
def find_slot(nodes, table, key_hash, boxes, player):  # pragma: no cover - compiled
    """The table slot holding the state ``(boxes, player)``, or the empty slot where it goes."""
    node_boxes, node_player, node_hash = nodes.boxes, nodes.player, nodes.hash
    mask = table.shape[0] - 1
    slot = np.int64(key_hash & np.uint64(mask))
    count = boxes.shape[0]
    while True:
        node = table[slot]
        if node == EMPTY:
            return slot
        if node_hash[node] == key_hash and node_player[node] == player:
            same = True
            for k in range(count):
                if node_boxes[node, k] != boxes[k]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask


class NodeFields(NamedTuple):
    """The scalar fields of a new node (:func:`add_node`), as in :class:`NodeArrays`."""

    player: int  # the player cell of the state key
    actual: int  # where the player really stands
    parent: int  # -1 for the root
    step: int
    g: int
    moves: int
    h: int
    hash: np.uint64  # Zobrist hash of the state key


@uncounted
def add_node(nodes, table, counters, slot, boxes, fields):  # pragma: no cover - compiled
    """Store a new node with ``boxes`` and ``fields`` (:class:`NodeFields`) in ``slot`` of the
    table; returns its id."""
    node = counters[NODES]
    counters[NODES] = node + 1
    table[slot] = node
    copy_cells(nodes.boxes[node], boxes)
    nodes.player[node] = fields.player
    nodes.actual[node] = fields.actual
    nodes.parent[node] = fields.parent
    nodes.step[node] = fields.step
    nodes.g[node] = fields.g
    nodes.moves[node] = fields.moves
    nodes.h[node] = fields.h
    nodes.hash[node] = fields.hash
    nodes.closed[node] = 0
    if fields.h < counters[LOWEST_H]:
        note_progress(counters, fields.h)
    return node


@uncounted
def note_progress(counters, h):  # pragma: no cover - compiled
    """Log a new lowest heuristic ``h`` with the expansions so far (see ``PROGRESS_POINTS``)."""
    counters[LOWEST_H] = h
    point = min(counters[PROGRESS_POINTS], PROGRESS_CAPACITY - 1)
    counters[COUNTER_COUNT + 2 * point] = counters[EXPANDED]
    counters[COUNTER_COUNT + 2 * point + 1] = h
    counters[PROGRESS_POINTS] = point + 1


def progress_points(counters: np.ndarray) -> list[tuple[int, int]]:
    """The (expansions, heuristic) pairs logged since the last read, which empties the log."""
    count = int(counters[PROGRESS_POINTS])
    log = counters[COUNTER_COUNT : COUNTER_COUNT + 2 * count].reshape(count, 2)
    counters[PROGRESS_POINTS] = 0
    return [(int(expanded), int(h)) for expanded, h in log]


@uncounted
def frontier_push(frontier, counters, mode, key, node):  # pragma: no cover - compiled
    """Add ``node`` with priority ``key`` (used by the heap only)."""
    keys, ids = frontier
    size = counters[FRONT_SIZE]
    counters[FRONT_SIZE] = size + 1
    if mode != HEAP:
        keys[size] = key
        ids[size] = node
        return
    position = size
    while position > 0:
        parent = (position - 1) >> 1
        if keys[parent] <= key:
            break
        keys[position] = keys[parent]
        ids[position] = ids[parent]
        position = parent
    keys[position] = key
    ids[position] = node


@uncounted
def frontier_pop(frontier, counters, mode):  # pragma: no cover - compiled
    """Remove and return the next node, or -1 when the frontier is empty."""
    keys, ids = frontier
    size = counters[FRONT_SIZE]
    if mode == FIFO:
        head = counters[FRONT_HEAD]
        if head >= size:
            return -1
        counters[FRONT_HEAD] = head + 1
        return ids[head]
    if size == 0:
        return -1
    size -= 1
    counters[FRONT_SIZE] = size
    if mode == LIFO:
        return ids[size]
    top = ids[0]
    sift_down(keys, ids, size, 0, keys[size], ids[size])
    return top


@uncounted
def sift_down(keys, ids, size, position, key, node):  # pragma: no cover - compiled
    """Put ``(key, node)`` at ``position`` of the heap of ``size`` entries, moving it down past
    smaller children."""
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[position] = keys[child]
        ids[position] = ids[child]
        position = child
    keys[position] = key
    ids[position] = node


@numba.njit(cache=True)
def frontier_pending(counters, mode):  # pragma: no cover - compiled
    """Entries left in the frontier."""
    if mode == FIFO:
        return counters[FRONT_SIZE] - counters[FRONT_HEAD]
    return counters[FRONT_SIZE]
