"""Zobrist hashing of positions: one 64-bit key per box cell and per player cell.

The hash of a position is the XOR of the keys of its box cells and the key of its *normalized*
player cell (the smallest cell the player can reach, :mod:`evosoko.sokoban.reach`), so positions
that differ only by a walk hash alike. Search states, the GA's state hashes and duplicate
elimination all use these keys, so one position has one hash everywhere. A push changes the
box part by two XORs (``hash ^ box_keys[source] ^ box_keys[target]``).
"""

from __future__ import annotations

import numba
import numpy as np

ZOBRIST_SEED = 0x5EED_B0C5
"""Seed of the generator that draws the keys: hashes are the same in every run and process."""


def zobrist_keys(cells: int) -> tuple[np.ndarray, np.ndarray]:
    """(box keys, player keys): uint64[cells] each, the same for every level of ``cells``."""
    keys = np.random.default_rng(ZOBRIST_SEED).integers(
        0, 2**64, size=2 * cells, dtype=np.uint64, endpoint=False
    )
    return keys[:cells].copy(), keys[cells:].copy()


@numba.njit(cache=True)
def boxes_hash(box_keys, boxes):  # pragma: no cover - compiled
    """The box part of the hash: the XOR of the keys of the cells in ``boxes``."""
    value = np.uint64(0)
    for k in range(boxes.shape[0]):
        value ^= box_keys[boxes[k]]
    return value
