"""Behaviour descriptors of push genomes: the FESS feature cell of the position each reaches.

The cell is the one ``push-fess`` files a state under (:func:`evosoko.search.fess.space.
state_cell`): packing (boxes on goals filled in the packing order), out-of-plan, room
connectivity and connectivity, from the features :func:`evosoko.search.fess.level_features`
builds for push-fess. ``ga.selection = "map_elites"`` keeps one elite per cell
(:mod:`evosoko.evolve.archive`).

The replay records every push it makes (the ``record`` of
:func:`evosoko.evolve.push_replay.replay_push_packed`); the position at a genome's scored point
is rebuilt from the start by moving boxes along those pushes (no candidate pushes, no
distances: not a second replay), then its cell is computed where the genome was scored (in the
workers with a pool).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.evolve.push_replay import PushTables
from evosoko.search.fess import run as fess
from evosoko.search.fess import space as fess_space
from evosoko.search.settings import FessSettings
from evosoko.sokoban.level import Level

NO_CELL = -1
"""The cell of an evaluation that has none (move genomes, or map_elites off)."""


class FessCells:
    """The FESS cells of positions of one level (the features of ``push-fess``'s search)."""

    def __init__(self, level: Level, tables: PushTables) -> None:
        settings = FessSettings()  # push-fess's cells as it runs by default
        order, self.features = fess.level_features(level, settings, corral_deadlocks=0)
        space = fess_space.make_feature_space(1, level.box_count, order.layers, settings)
        self.space_state = space.state
        self.cells = len(space.root)
        self.tables = tables

    def of_boxes(self, boxes) -> int:
        """The cell of the position with ``boxes`` (cells), the player anywhere."""
        array = np.asarray(sorted(int(b) for b in boxes), dtype=np.int64)
        return int(self.after_pushes(array, np.zeros((1, 2), np.int64), np.zeros(1, np.int64))[0])

    def after_pushes(
        self, start_boxes: np.ndarray, record: np.ndarray, pushes: np.ndarray, lengths=None
    ) -> np.ndarray:
        """int64[genomes]: the cell of each genome's position after its first ``pushes[i]``
        pushes of ``record`` (rows ``offset_i ..``: see :func:`~evosoko.evolve.push_replay.
        replay_push_packed`; ``lengths``: the genes of each genome, default all zero)."""
        count = len(pushes)
        lengths = np.zeros(count, np.int64) if lengths is None else lengths
        out = np.empty(count, dtype=np.int64)
        _cells_kernel(
            self.features,
            self.space_state,
            self.tables.arrays,
            np.ascontiguousarray(start_boxes, dtype=np.int64),
            record,
            np.ascontiguousarray(lengths, dtype=np.int64),
            np.ascontiguousarray(pushes, dtype=np.int64),
            out,
        )
        return out

    def of_batch(self, record: np.ndarray, lengths: np.ndarray, pushes: np.ndarray) -> np.ndarray:
        """The cells of a replayed batch at each genome's scored point (``pushes``: the pushes
        to it, the ``length`` column of the evaluations)."""
        return self.after_pushes(self.tables.start_boxes, record, pushes, lengths)


@numba.njit(cache=True)
def _cells_kernel(
    features, space_state, arrays, start_boxes, record, lengths, pushes, out
):  # pragma: no cover - compiled
    floor, deltas = arrays.floor, arrays.deltas
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    queue = np.zeros(floor.shape[0], dtype=np.int64)
    boxes = np.empty(start_boxes.shape[0], dtype=np.int64)
    offset = 0
    for i in range(pushes.shape[0]):
        for k in range(boxes.shape[0]):
            boxes[k] = start_boxes[k]
        for j in range(pushes[i]):
            box = record[offset + j, 0]
            target = box + deltas[record[offset + j, 1]]
            for k in range(boxes.shape[0]):
                if boxes[k] == box:
                    boxes[k] = target
                    break
        boxes.sort()
        for k in range(boxes.shape[0]):
            occupied[boxes[k]] = True
        out[i] = fess_space.state_cell(
            features, space_state, floor, occupied, deltas, boxes, queue, False
        )
        for k in range(boxes.shape[0]):
            occupied[boxes[k]] = False
        offset += lengths[i]
