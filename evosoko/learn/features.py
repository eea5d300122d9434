"""What a network sees of a position: one small code per cell, expanded into channel planes.

A position (the player's cell and the box cells on a level) becomes a ``height x width`` array
of ``uint8`` codes, one bit per channel (:data:`CHANNELS`): not floor (walls and the outside),
goal, box, cells the player can walk to without pushing, and the level's dead squares. Codes
are what data sets store (a byte per cell compresses well); :func:`planes` expands them into
the ``float32[n, channels, height, width]`` input of the networks. The encoding kernel works on
flat arrays, so the search can encode the children of an expansion straight from its store.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from evosoko.sokoban.level import Level, State

CHANNELS = ("wall", "goal", "box", "reach", "dead")
"""The input channels, in bit order: code bit ``k`` is channel ``k``."""

WALL_BIT, GOAL_BIT, BOX_BIT, REACH_BIT, DEAD_BIT = (1 << k for k in range(len(CHANNELS)))


def static_codes(level: Level) -> np.ndarray:
    """``uint8[cells]``: the bits that depend on the level alone (wall, goal, dead square)."""
    codes = np.zeros(level.cells, dtype=np.uint8)
    codes[~level.floor] |= WALL_BIT
    codes[level.goals] |= GOAL_BIT
    codes[level.dead_squares] |= DEAD_BIT
    return codes


def encode_states(level: Level, states: Sequence[State]) -> np.ndarray:
    """``uint8[n, height, width]``: the codes of each state of ``level``."""
    count = len(states)
    boxes = np.zeros((count, max(level.box_count, 1)), dtype=np.int64)
    players = np.zeros(count, dtype=np.int64)
    for row, state in enumerate(states):
        boxes[row, : len(state.boxes)] = state.boxes
        players[row] = state.player
    return encode_positions(level, boxes, players)


def encode_positions(level: Level, boxes: np.ndarray, players: np.ndarray) -> np.ndarray:
    """``uint8[n, height, width]`` codes of positions given as box rows and player cells."""
    return PositionEncoder(level).encode(boxes, players)


class PositionEncoder:
    """Encodes many positions of one level (its static codes computed once)."""

    def __init__(self, level: Level) -> None:
        self.shape = (level.height, level.width)
        self.static = static_codes(level)
        self.floor = np.ascontiguousarray(level.floor, dtype=np.bool_)
        self.deltas = np.asarray(level.deltas, dtype=np.int64)

    def encode(self, boxes: np.ndarray, players: np.ndarray) -> np.ndarray:
        """Codes of positions: ``boxes[i]`` (any integer type) and player cell ``players[i]``."""
        out = np.empty((len(players), self.static.shape[0]), dtype=np.uint8)
        encode_kernel(
            self.static,
            self.floor,
            self.deltas,
            np.ascontiguousarray(boxes, dtype=np.int64),
            np.ascontiguousarray(players, dtype=np.int64),
            out,
        )
        return out.reshape(len(players), *self.shape)


@numba.njit(cache=True)
def encode_kernel(static, floor, deltas, boxes, players, out):  # pragma: no cover - compiled
    """Fill ``out[i]`` (uint8[cells]) with the codes of position ``i``: ``static`` bits, the
    boxes ``boxes[i]`` and the cells the player reaches from ``players[i]``."""
    cells = static.shape[0]
    queue = np.empty(cells, dtype=np.int64)
    for i in range(players.shape[0]):
        row = out[i]
        for c in range(cells):
            row[c] = static[c]
        for k in range(boxes.shape[1]):
            row[boxes[i, k]] |= 4  # BOX_BIT
        start = players[i]
        row[start] |= 8  # REACH_BIT
        head, tail = 0, 1
        queue[0] = start
        while head < tail:
            cell = queue[head]
            head += 1
            for d in range(4):
                nxt = cell + deltas[d]
                if floor[nxt] and not (row[nxt] & 12):  # neither a box nor reached yet
                    row[nxt] |= 8
                    queue[tail] = nxt
                    tail += 1


def planes(codes: np.ndarray) -> np.ndarray:
    """``float32[n, channels, height, width]`` from ``uint8[n, height, width]`` codes."""
    bits = np.arange(len(CHANNELS), dtype=np.uint8)
    expanded = (codes[:, None, :, :] >> bits[None, :, None, None]) & 1
    return expanded.astype(np.float32)


def floor_mask(codes: np.ndarray) -> np.ndarray:
    """``bool[n, height, width]``: the cells the pooling of a network averages over."""
    return (codes & WALL_BIT) == 0
