"""Deadlock patterns, compiled: box sets proven lost, kept and matched against later positions.

A *pattern* is a set ``B`` of box cells and one region ``R`` of the player on the board that
holds the boxes of ``B`` alone. It says: with only the boxes of ``B`` on the board and the player
in ``R``, these boxes can never all stand on goals (a corral or cluster deadlock test proved it,
:mod:`evosoko.sokoban.corral_deadlock`). Every position whose boxes include ``B``, with the
player in ``R``, is then lost as well: its pushes of the boxes of ``B``, taken alone, are pushes
the reduced position can make (removing boxes only frees the player), and the reduced position
is exactly the proven one. So a match is a sound deadlock test, whatever the other boxes.

A :class:`PatternStore` holds up to its capacity of patterns (later proofs are dropped once it
is full). Each pattern is listed under every one of its cells, so :func:`pattern_lost` tests a
position after a push only against the patterns holding the pushed box's new cell (any other
pattern was there before the push, with the player in the same region of its board). The
player's region is a bitset; its test comes before the boxes'.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from evosoko.reference_counts import uncounted

STORED, ENTRIES, MATCHED = 0, 1, 2
"""Slots of :attr:`PatternStore.counts`."""


class PatternStore(NamedTuple):
    """Deadlock patterns of one level (capacity 0: none are kept)."""

    boxes: np.ndarray
    """int64[capacity, width]: the sorted box cells of each pattern."""
    sizes: np.ndarray
    """int64[capacity]: how many boxes each pattern has."""
    region: np.ndarray
    """uint64[capacity, words]: the player's region of each pattern, one bit per cell."""
    first: np.ndarray
    """int64[cells]: the first entry of the patterns holding each cell (-1: none)."""
    entry_pattern: np.ndarray
    """int64[capacity * width]: the pattern of each entry."""
    entry_next: np.ndarray
    """int64[capacity * width]: the next entry of the same cell (-1: none)."""
    counts: np.ndarray
    """int64[3]: patterns stored, entries used, positions matched (``STORED``...)."""


def make_pattern_store(cells: int, capacity: int, width: int) -> PatternStore:
    """An empty :class:`PatternStore` of ``capacity`` patterns of up to ``width`` boxes for a
    board of ``cells`` cells."""
    words = (cells + 63) // 64
    return PatternStore(
        boxes=np.zeros((capacity, width), dtype=np.int64),
        sizes=np.zeros(capacity, dtype=np.int64),
        region=np.zeros((capacity, words), dtype=np.uint64),
        first=np.full(cells, -1, dtype=np.int64),
        entry_pattern=np.zeros(capacity * width, dtype=np.int64),
        entry_next=np.zeros(capacity * width, dtype=np.int64),
        counts=np.zeros(3, dtype=np.int64),
    )


@uncounted
def add_pattern(store, boxes, region):  # pragma: no cover - compiled
    """Keep the pattern of the sorted box cells ``boxes`` and the player's region ``region``
    (its cells); False when the store is full (or has no room for that many boxes)."""
    row = store.counts[STORED]
    count = boxes.shape[0]
    if row >= store.sizes.shape[0] or count > store.boxes.shape[1]:
        return False
    store.counts[STORED] = row + 1
    store.sizes[row] = count
    bits = store.region[row]
    bits[:] = 0
    for cell in region:
        bits[cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)
    entry = store.counts[ENTRIES]
    for j in range(count):
        cell = boxes[j]
        store.boxes[row, j] = cell
        store.entry_pattern[entry] = row
        store.entry_next[entry] = store.first[cell]
        store.first[cell] = entry
        entry += 1
    store.counts[ENTRIES] = entry
    return True


@uncounted
def pattern_lost(store, occupied, player, cell):  # pragma: no cover - compiled
    """True when a stored pattern holding ``cell`` matches the position of the boxes
    ``occupied`` with the player on ``player``: all its boxes are there and the player is in
    its region (see the module)."""
    word = player >> 6
    bit = np.uint64(1) << np.uint64(player & 63)
    entry = store.first[cell]
    while entry >= 0:
        row = store.entry_pattern[entry]
        entry = store.entry_next[entry]
        if store.region[row, word] & bit == 0:
            continue
        held = True
        for j in range(store.sizes[row]):
            if not occupied[store.boxes[row, j]]:
                held = False
                break
        if held:
            store.counts[MATCHED] += 1
            return True
    return False
