"""Corral and cluster deadlocks, compiled: a bounded search proves that some boxes are lost.

A *corral* is a region of free floor the player cannot reach; its *barrier* is the boxes next to
it. The test removes every other box from the board and searches the pushes of the barrier
boxes alone (dead squares and freeze deadlocks pruned), breadth first, until the player reaches
a cell of the corral or every barrier box stands on a goal. If the search runs out of positions
first, the position is lost:

Removing boxes only helps the player and the boxes left, so the pushes of the barrier boxes in
any solution of the real position, taken alone, are a sequence the reduced search can make;
that sequence ends with the barrier boxes on goals, and none of its positions is frozen with a
box off goal (with the other boxes back, the same boxes would be frozen in the real position
too and could never reach their goals). Reaching the corral is an early way out that only ever
answers "not proven". A search that hits its bound of positions answers "not proven" as well.
So the test is sound: a position it calls lost has no solution (a hypothesis test holds it to
push-BFS on random small levels).

*Cluster deadlocks* (:func:`cluster_deadlock`) use the same search on another set of boxes:
the box pushed last and the boxes touching it, through sides or corners, one after another (a
jam of boxes, none of them frozen, that can be pushed about but never all onto goals). There is
no corral, so the only way out is every box of the cluster on a goal; the same argument makes
it sound. Its answers depend only on the cluster's cells and the player's region without the
other boxes, so they are cached by those. Most clusters are not lost and cannot reach goals
within the bound either; a cluster search also gives up ("not proven") once too many positions
wait to be expanded at once (``cluster_width``), long before the bound: the proofs seen on
XSokoban all kept their queues narrow.

Each proof is a *deadlock pattern*: the boxes searched and the player's region on the board
that holds them alone. With a pattern store (``patterns`` > 0 in :func:`make_corral_scratch`),
every proof is kept there (:mod:`evosoko.sokoban.patterns`) for the search to match against
later positions.

Used by ``push-fess`` (:mod:`evosoko.search.fess.kernel`) on the corrals next to the box pushed
last (and, with ``fess.CLUSTER_DEADLOCKS``, on its cluster and the clusters it left behind,
:func:`cluster_lost_after_push`), once per expansion; and on the same corrals by the other push
searches when they keep deadlock patterns (``push.deadlock_patterns``,
:func:`evosoko.search.push_kernel.make_scratch`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.cell_sets import all_on_goals, box_blocked, clear_cells, copy_cells
from evosoko.sokoban.freeze import FreezeScratch, freeze_deadlock, make_freeze_scratch
from evosoko.sokoban.lone_box import LoneBoxTables, no_lone_box_tables
from evosoko.sokoban.patterns import PatternStore, add_pattern, make_pattern_store
from evosoko.sokoban.reach import explore

MAX_BARRIER = 10
"""Corrals with more barrier boxes are not tested."""

_MIX = np.uint64(0x9E3779B97F4A7C15)


REGION_STAMP, REACH_STAMP, TABLE_STAMP = 0, 1, 2
"""Slots of :attr:`CorralSearch.stamps`."""


class DeadlockBoard(NamedTuple):
    """What the tests read of the level, the fields of the same names of
    :class:`~evosoko.sokoban.arrays.LevelArrays`: a kernel that runs them at every expansion
    passes these four arrays (:func:`deadlock_board`), not all of the level's."""

    floor: np.ndarray
    dead: np.ndarray
    goals: np.ndarray
    deltas: np.ndarray


@numba.njit(cache=True, inline="always")
def deadlock_board(tab):  # pragma: no cover - compiled
    """The :class:`DeadlockBoard` of the level's arrays ``tab``."""
    return DeadlockBoard(tab.floor, tab.dead, tab.goals, tab.deltas)


class CorralSearch(NamedTuple):
    """Scratch and bounds of the corral and cluster deadlock searches (:func:`corral_deadlock`,
    :func:`cluster_deadlock`); the tests take it as ``scratch``, and the level's
    :class:`~evosoko.sokoban.arrays.LevelArrays` or its :class:`DeadlockBoard` as ``tab``."""

    region_mark: np.ndarray
    """int64[cells]: the corral being tested, and the clusters already searched after a push."""
    reach_mark: np.ndarray
    """int64[cells]: the player's region in a position of the search."""
    occupied: np.ndarray
    """bool[cells]: the boxes of a position of the search (all False between calls)."""
    queue: np.ndarray
    """int64[cells]: breadth-first queue."""
    boxes: np.ndarray
    """int64[positions, MAX_BARRIER]: the sorted boxes of each position."""
    players: np.ndarray
    """int64[positions]: its normalized player (0 positions: no corral deadlock tests)."""
    table: np.ndarray
    """int64[slots]: hash table of the positions: ``stamp * slots + row`` for the search of
    running stamp ``stamps[TABLE_STAMP]`` (less: empty), so no search clears it."""
    stamps: np.ndarray
    """int64[3]: the running stamps of ``region_mark``, ``reach_mark`` and ``table``."""
    limit: int
    """Most positions of a corral search."""
    cluster_limit: int
    """Most positions of a cluster search."""
    cluster_width: int
    """A cluster search gives up when more positions than this wait to be expanded."""
    buffer: np.ndarray
    """int64[MAX_BARRIER]: the boxes searched."""
    cache_cells: np.ndarray
    """int64[cache, MAX_BARRIER + 1]: the cached clusters' sorted cells, then the player."""
    cache_info: np.ndarray
    """int64[cache]: per cached cluster, ``2 * count + lost`` (-1: empty; no slots: no cluster
    deadlock tests)."""
    freeze: FreezeScratch
    """Scratch of the freeze test of each push searched."""
    patterns: PatternStore
    """The deadlock patterns proven so far (capacity 0: none kept)."""
    lone_box: LoneBoxTables
    """The tables of the lone-box matching test (no entries: no such test,
    :mod:`evosoko.sokoban.lone_box`)."""


def make_corral_scratch(
    cells: int,
    limit: int,
    cluster_cache: int = 0,
    cluster_limit: int | None = None,
    cluster_width: int | None = None,
    patterns: int = 0,
    lone_box: LoneBoxTables | None = None,
) -> CorralSearch:
    """A :class:`CorralSearch` for boards of ``cells`` cells and searches of at most ``limit``
    positions, with a cache of ``cluster_cache`` slots for :func:`cluster_deadlock`'s answers
    (0: no cluster tests). Cluster tests search at most ``cluster_limit`` positions (None:
    ``limit``) and give up when more than ``cluster_width`` positions wait to be expanded (None:
    ``cluster_limit``, they never do). Up to ``patterns`` proofs are kept as deadlock patterns
    (:mod:`evosoko.sokoban.patterns`). ``lone_box``: the tables of the lone-box matching test
    (None: no such test, :mod:`evosoko.sokoban.lone_box`)."""
    cluster_limit = limit if cluster_limit is None else cluster_limit
    cluster_width = cluster_limit if cluster_width is None else cluster_width
    largest = max(limit, cluster_limit) if limit > 0 else 0
    slots = 1
    while slots < 2 * largest:
        slots *= 2
    cache = 1
    while cache < cluster_cache:
        cache *= 2
    cache = cache if cluster_cache > 0 else 0
    return CorralSearch(
        region_mark=np.zeros(cells, dtype=np.int64),
        reach_mark=np.zeros(cells, dtype=np.int64),
        occupied=np.zeros(cells, dtype=np.bool_),
        queue=np.zeros(cells, dtype=np.int64),
        boxes=np.zeros((largest, MAX_BARRIER), dtype=np.int64),
        players=np.zeros(largest, dtype=np.int64),
        table=np.full(slots, -1, dtype=np.int64),
        stamps=np.zeros(3, dtype=np.int64),
        limit=int(limit),
        cluster_limit=int(cluster_limit),
        cluster_width=int(cluster_width),
        buffer=np.zeros(MAX_BARRIER, dtype=np.int64),
        cache_cells=np.zeros((cache, MAX_BARRIER + 1), dtype=np.int64),
        cache_info=np.full(cache, -1, dtype=np.int64),
        freeze=make_freeze_scratch(cells),
        patterns=make_pattern_store(cells, patterns, MAX_BARRIER),
        lone_box=no_lone_box_tables() if lone_box is None or largest == 0 else lone_box,
    )


@uncounted
def lost_after_push(
    tab, occupied, reach_mark, reach, player, code, scratch
):  # pragma: no cover - compiled
    """:func:`lost_next_to` the box a push step ``code`` (direction ``code & 3``, as the push
    searches store it) left next to ``player``; False for other steps (macros)."""
    floor, deltas = tab.floor, tab.deltas
    if code < 0 or code >= 4 * floor.shape[0]:
        return False
    box = player + deltas[code & 3]
    if not occupied[box]:
        return False
    return lost_next_to(tab, occupied, reach_mark, reach, box, scratch)


@uncounted
def lost_next_to(tab, occupied, reach_mark, reach, box, scratch):  # pragma: no cover - compiled
    """True when a corral next to the box on ``box`` is a proven deadlock (see the module).

    ``occupied`` holds the position's boxes and ``reach_mark == reach`` the player's region.
    """
    floor, deltas = tab.floor, tab.deltas
    region_mark = scratch.region_mark
    before = scratch.stamps[REGION_STAMP]
    # np.int64, not a bare -1: numba's typing would first compile the corral search for the
    # literal -1 and then again for int64 (the same holds for the counts below)
    player = np.int64(-1)
    for k in range(4):  # any cell of the player's region will do as the start
        if reach_mark[box + deltas[k]] == reach:
            player = box + deltas[k]
    if player < 0:
        return False
    for k in range(4):
        cell = box + deltas[k]
        if not floor[cell] or occupied[cell] or reach_mark[cell] == reach:
            continue
        if region_mark[cell] > before:
            continue  # the corral of an earlier side
        if corral_deadlock(tab, occupied, player, cell, scratch):
            return True
    return False


@uncounted
def corral_deadlock(tab, occupied, player, start, scratch):  # pragma: no cover - compiled
    """True when the corral holding the free cell ``start`` is proven lost (see the module)."""
    floor, deltas = tab.floor, tab.deltas
    region_mark, occ, queue = scratch.region_mark, scratch.occupied, scratch.queue
    stamps, buffer = scratch.stamps, scratch.buffer
    stamps[REGION_STAMP] += 1
    region = stamps[REGION_STAMP]
    size, _ = explore(floor, occupied, deltas, start, region_mark, region, queue, queue[:0])
    count = np.int64(0)
    for i in range(size):
        for k in range(4):
            cell = queue[i] + deltas[k]
            if occupied[cell] and not occ[cell]:
                if count == MAX_BARRIER:
                    clear_cells(occ, buffer[:count])
                    return False
                occ[cell] = True
                buffer[count] = cell
                count += 1
    clear_cells(occ, buffer[:count])
    lost = _lost_subset(tab, player, count, region, scratch.limit, scratch.limit, scratch)
    if lost:
        _learn(tab, player, count, scratch)
    return lost


@numba.njit(cache=True)
def cluster_deadlock(tab, occupied, player, box, scratch):  # pragma: no cover - compiled
    """True when the boxes touching the box on ``box`` (through sides or corners, one after
    another), searched alone, cannot all reach goals (see the module; no corral, so no early
    way out but goals). Answers are cached by the cluster and the player's region without the
    other boxes, when the scratch has a cache."""
    lost, _ = _cluster_lost(tab, occupied, player, box, scratch)
    return lost


@uncounted
def cluster_lost_after_push(tab, occupied, player, code, scratch):  # pragma: no cover - compiled
    """Whether a push step ``code`` (direction ``code & 3``) that left the player on
    ``player`` lost a cluster (:func:`cluster_deadlock`): the pushed box's, or one the box
    left behind, touching the cell it came from, where the player now stands. False for other
    steps (macros). Each cluster is searched once."""
    floor, deltas = tab.floor, tab.deltas
    if code < 0 or code >= 4 * floor.shape[0]:
        return False
    box = player + deltas[code & 3]
    if not occupied[box]:
        return False
    region_mark, stamps, buffer = scratch.region_mark, scratch.stamps, scratch.buffer
    stamps[REGION_STAMP] += 1
    seen = stamps[REGION_STAMP]
    ring = _ring(deltas[1])
    for k in range(9):  # the pushed box first, then the boxes around the player
        start = box if k == 0 else player + ring[k - 1]
        if k > 0 and (
            start < 0
            or start >= floor.shape[0]
            or not occupied[start]
            or region_mark[start] == seen
        ):
            continue
        lost, count = _cluster_lost(tab, occupied, player, start, scratch)
        if lost:
            return True
        for j in range(count):
            region_mark[buffer[j]] = seen
    return False


@uncounted
def _cluster_lost(tab, occupied, player, box, scratch):  # pragma: no cover - compiled
    """(:func:`cluster_deadlock`'s answer, boxes of the cluster gathered, in the scratch's
    buffer: all of them, or the first ``MAX_BARRIER`` of one too large to search)."""
    floor, deltas = tab.floor, tab.deltas
    reach_mark, occ, queue = scratch.reach_mark, scratch.occupied, scratch.queue
    stamps, buffer = scratch.stamps, scratch.buffer
    cache_cells, cache_info = scratch.cache_cells, scratch.cache_info
    ring = _ring(deltas[1])
    buffer[0] = box
    occ[box] = True
    count = np.int64(1)
    head = 0
    while head < count:
        cell = buffer[head]
        head += 1
        for k in range(8):
            other = cell + ring[k]
            if other < 0 or other >= floor.shape[0]:
                continue
            if occupied[other] and not occ[other]:
                if count == MAX_BARRIER:
                    clear_cells(occ, buffer[:count])
                    return False, count
                occ[other] = True
                buffer[count] = other
                count += 1
    if count < 2:
        clear_cells(occ, buffer[:count])
        return False, count
    stamps[REACH_STAMP] += 1
    _, smallest = explore(
        floor, occ, deltas, player, reach_mark, stamps[REACH_STAMP], queue, queue[:0]
    )
    clear_cells(occ, buffer[:count])
    _sort(buffer, count)
    slots = cache_info.shape[0]
    slot = _cache_slot(buffer, count, smallest, slots) if slots > 0 else -1
    if slot >= 0 and _cached(cache_cells, cache_info, slot, buffer, count, smallest):
        return cache_info[slot] & 1 == 1, count
    start = np.int64(player)  # int64 as the corral tests pass it: one compiled search for both
    lost = _lost_subset(
        tab,
        start,
        count,
        np.int64(-1),
        scratch.cluster_limit,
        scratch.cluster_width,
        scratch,
    )
    if lost:
        _learn(tab, start, count, scratch)
    if slot >= 0:
        for j in range(count):
            cache_cells[slot, j] = buffer[j]
        cache_cells[slot, MAX_BARRIER] = smallest
        cache_info[slot] = 2 * count + (1 if lost else 0)
    return lost, count


@uncounted
def _learn(tab, player, count, scratch):  # pragma: no cover - compiled
    """Keep the proof just made on the sorted boxes in the scratch's buffer, the player on
    ``player``, as a deadlock pattern (when the scratch keeps patterns)."""
    patterns = scratch.patterns
    if patterns.sizes.shape[0] == 0:
        return
    occ, buffer, stamps, queue = scratch.occupied, scratch.buffer, scratch.stamps, scratch.queue
    for j in range(count):
        occ[buffer[j]] = True
    stamps[REACH_STAMP] += 1
    stamp, mark = stamps[REACH_STAMP], scratch.reach_mark
    size, _ = explore(tab.floor, occ, tab.deltas, player, mark, stamp, queue, queue[:0])
    clear_cells(occ, buffer[:count])
    add_pattern(patterns, buffer[:count], queue[:size])


@uncounted
def _ring(width):  # pragma: no cover - compiled
    """Offsets of the eight cells around a cell, through sides and corners."""
    return (-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1)


@uncounted
def _cache_slot(cells, count, player, slots):  # pragma: no cover - compiled
    h = np.uint64(player + 1) * _MIX
    for j in range(count):
        h = (h ^ np.uint64(cells[j] + 1)) * _MIX
    return int(h >> np.uint64(24)) & (slots - 1)


@uncounted
def _cached(cache_cells, cache_info, slot, cells, count, player):  # pragma: no cover - compiled
    """Whether the cache's ``slot`` holds the answer for these sorted ``cells`` and player."""
    if cache_info[slot] < 0 or cache_info[slot] >> 1 != count:
        return False
    if cache_cells[slot, MAX_BARRIER] != player:
        return False
    for j in range(count):
        if cache_cells[slot, j] != cells[j]:
            return False
    return True


@uncounted
def _lost_subset(tab, player, count, region, limit, width, scratch):  # pragma: no cover - compiled
    """The search of the module on the ``count`` boxes in the scratch's buffer alone, the player
    on ``player``: True when it has made every position it can reach, no more than ``limit``,
    before every box stands on a goal or the player reaches a cell marked ``region`` (-1:
    none). It gives up (False) as soon as more than ``width`` positions wait to be expanded: a
    search that wide is rarely exhausted within the limit (see ``fess.CLUSTER_WIDTH``)."""
    floor, dead, goals, deltas = tab.floor, tab.dead, tab.goals, tab.deltas
    region_mark, reach_mark, occ, queue = (
        scratch.region_mark,
        scratch.reach_mark,
        scratch.occupied,
        scratch.queue,
    )
    boxes, players, table = scratch.boxes, scratch.players, scratch.table
    stamps, buffer, freeze_scratch = scratch.stamps, scratch.buffer, scratch.freeze
    _sort(buffer, count)
    if all_on_goals(goals, buffer[:count]):
        return False
    stamps[TABLE_STAMP] += 1  # a new search: every older entry of the table reads as empty
    base = stamps[TABLE_STAMP] * table.shape[0]
    copy_cells(boxes[0, :count], buffer[:count])
    players[0] = player
    made = 1
    head = 0
    while head < made:
        if made - head > width:
            return False  # too wide to be exhausted: not proven
        for j in range(count):
            occ[boxes[head, j]] = True
        stamps[REACH_STAMP] += 1
        reached, smallest = explore(
            floor, occ, deltas, players[head], reach_mark, stamps[REACH_STAMP], queue, queue[:0]
        )
        fresh = _insert(table, base, boxes, players, head, count, smallest)
        if fresh:
            for i in range(reached if region >= 0 else 0):
                if region_mark[queue[i]] == region:
                    clear_cells(occ, boxes[head, :count])
                    return False  # the player got into the corral: not proven
        for j in range(count if fresh else 0):
            b = boxes[head, j]
            for k in range(4):  # written out: a helper called here took twice the time
                target = b + deltas[k]
                if reach_mark[b - deltas[k]] != stamps[REACH_STAMP]:
                    continue
                if box_blocked(floor, occ, dead, target):
                    continue
                occ[b] = False
                occ[target] = True
                frozen = freeze_deadlock(floor, dead, goals, occ, deltas, target, freeze_scratch)
                occ[target] = False
                occ[b] = True
                if frozen:
                    continue
                if made == limit:
                    clear_cells(occ, boxes[head, :count])
                    return False  # out of positions: not proven
                copy_cells(boxes[made, :count], boxes[head, :count])
                boxes[made, j] = target
                _sort(boxes[made], count)
                players[made] = b
                if all_on_goals(goals, boxes[made, :count]):
                    clear_cells(occ, boxes[head, :count])
                    return False
                made += 1
        clear_cells(occ, boxes[head, :count])
        head += 1
    return True


@uncounted
def _insert(table, base, boxes, players, row, count, normalized):  # pragma: no cover - compiled
    """Enter position ``row`` (its player set to ``normalized``) as ``base + row``; False if it
    was seen. Entries below ``base`` are empty slots."""
    players[row] = normalized
    h = np.uint64(normalized + 1) * _MIX
    for j in range(count):
        h = (h ^ np.uint64(boxes[row, j] + 1)) * _MIX
    mask = table.shape[0] - 1
    slot = int(h >> np.uint64(20)) & mask
    while table[slot] >= base:
        other = table[slot] - base
        if players[other] == normalized:
            same = True
            for j in range(count):
                if boxes[other, j] != boxes[row, j]:
                    same = False
                    break
            if same:
                return False
        slot = (slot + 1) & mask
    table[slot] = base + row
    return True


@uncounted
def _sort(cells, count):  # pragma: no cover - compiled
    for i in range(1, count):
        value = cells[i]
        j = i - 1
        while j >= 0 and cells[j] > value:
            cells[j + 1] = cells[j]
            j -= 1
        cells[j + 1] = value
