"""The GA's learned fitness term: how likely the position a genome is scored at is lost.

Off by default (``fitness.learned_lost = "off"``). When on, :class:`LearnedLostTerm` finds the
position each unsolved genome is scored at (its best point with ``trim_to_best``, else its end),
asks the deadlock network (:mod:`evosoko.learn.network`, numpy only: worker processes never
import PyTorch) for the probability ``p`` that it is dead, and

- ``tiebreak``: orders genomes of equal distance by ``p`` (it becomes the first part of the
  ``gap`` tie-breaker, before the walking gap of move genomes);
- ``penalty``: adds ``round(learned_lost_weight * p)`` to the distance, so that a position the
  network finds likely lost ranks as if it were that much farther from solved (the distance in
  ``metrics.csv`` then includes the penalty).

Probabilities are remembered by the position's hash, so a position shared by many genomes of a
population is scored once.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.learn.features import PositionEncoder
from evosoko.learn.network import load_model
from evosoko.sokoban.level import Level

TIEBREAK_SCALE = 1 << 20
"""The tie-breaker holds ``round(1000 p) * TIEBREAK_SCALE + gap`` (walking gaps are smaller)."""

CACHE_LIMIT = 200_000


class LearnedLostTerm:
    """Adjusts the evaluation columns of :class:`evosoko.evolve.fitness.FitnessFunction`."""

    def __init__(self, level: Level, encoding: str, config) -> None:
        self.level = level
        self.encoding = encoding
        self.mode = config.learned_lost
        self.weight = config.learned_lost_weight
        self.objective = config.objective
        self.stop_on_deadlock = config.stop_on_deadlock
        self.network = load_model(config.learned_model).for_level(level)
        self.encoder = PositionEncoder(level)
        self.cache: dict[int, float] = {}
        self._floor = np.ascontiguousarray(level.floor, dtype=np.bool_)
        self._deltas = np.array(level.deltas, dtype=np.int64)
        self._start_boxes = np.array(level.start.boxes, dtype=np.int64)
        if encoding == "pushes":
            from evosoko.evolve.push_replay import push_tables

            self._push_tables = push_tables(level, corrals=config.pi_corrals)

    def adjust(
        self, columns: tuple[np.ndarray, ...], genes: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, ...]:
        """The columns ``(solved, distance, length, keep, state_hash, gap, cell)`` with the
        term, for genomes packed as by :func:`evosoko.parallel.packing.pack_genomes`."""
        solved, distance, length, keep, state_hash, gap, *rest = columns
        rows = np.flatnonzero(~solved)
        if len(rows) == 0:
            return columns
        p = self.probabilities(genes, lengths, keep, state_hash, rows)
        if self.mode == "penalty":
            distance = distance.copy()
            distance[rows] += np.round(self.weight * p).astype(np.int64)
        else:
            gap = gap.copy()
            gap[rows] += np.round(1000 * p).astype(np.int64) * TIEBREAK_SCALE
        return solved, distance, length, keep, state_hash, gap, *rest

    def probabilities(
        self,
        genes: np.ndarray,
        lengths: np.ndarray,
        keep: np.ndarray,
        state_hash: np.ndarray,
        rows: np.ndarray,
    ) -> np.ndarray:
        """The dead probability of the position of each (packed) genome in ``rows`` at ``keep``
        genes."""
        hashes = state_hash[rows].tolist()
        missing = sorted({h for h in hashes if h not in self.cache})
        if missing:
            first_row: dict[int, int] = {}
            for row, h in zip(rows.tolist(), hashes):
                first_row.setdefault(h, row)
            chosen = np.array([first_row[h] for h in missing], dtype=np.int64)
            boxes, players = self.positions(_kept_genes(genes, lengths, chosen, keep), keep[chosen])
            codes = self.encoder.encode(boxes, players)
            with self.network.single_threaded():
                found = self.network.probabilities(codes)
            if len(self.cache) + len(missing) > CACHE_LIMIT:
                self.cache.clear()
            self.cache.update(zip(missing, found.tolist()))
        return np.array([self.cache[h] for h in hashes], dtype=np.float64)

    def positions(self, genomes: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Box rows and player cells after the first ``keep[i]`` genes of each genome (rows of
        ``genomes``, at least ``keep[i]`` genes long)."""
        count = len(keep)
        boxes = np.empty((count, len(self._start_boxes)), dtype=np.int64)
        players = np.empty(count, dtype=np.int64)
        if self.encoding == "moves":
            genes = np.ascontiguousarray(genomes, dtype=np.int64)
            _replay_moves(
                self._floor,
                self._deltas,
                self.level.start.player,
                self._start_boxes,
                genes,
                np.ascontiguousarray(keep, dtype=np.int64),
                boxes,
                players,
            )
            return boxes, players
        from evosoko.evolve.push_replay import push_choices

        for row in range(count):
            cells = set(self._start_boxes.tolist())
            player = self.level.start.player
            pushes = push_choices(
                self._push_tables,
                genomes[row, : keep[row]],
                self.objective,
                self.stop_on_deadlock,
            )
            for box, direction in pushes:
                cells.remove(box)
                cells.add(box + int(self._deltas[direction]))
                player = box
            boxes[row] = sorted(cells)
            players[row] = player
        return boxes, players


def _kept_genes(
    genes: np.ndarray, lengths: np.ndarray, rows: np.ndarray, keep: np.ndarray
) -> np.ndarray:
    """``int64[len(rows), most kept]``: the first ``keep[row]`` genes of each packed genome of
    ``rows``, zero-padded."""
    starts = np.cumsum(lengths, dtype=np.int64) - lengths
    kept = keep[rows].astype(np.int64)
    out = np.zeros((len(rows), max(1, int(kept.max(initial=0)))), dtype=np.int64)
    for k, (start, count) in enumerate(zip(starts[rows].tolist(), kept.tolist())):
        out[k, :count] = genes[start : start + count]
    return out


@numba.njit(cache=True)
def _replay_moves(
    floor, deltas, start_player, start_boxes, genomes, keep, boxes, players
):  # pragma: no cover - compiled
    """Play the first ``keep[i]`` move genes of each genome (illegal moves skipped)."""
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    for i in range(genomes.shape[0]):
        occupied[:] = False
        for b in start_boxes:
            occupied[b] = True
        player = start_player
        for k in range(keep[i]):
            delta = deltas[genomes[i, k]]
            target = player + delta
            if not floor[target]:
                continue
            if occupied[target]:
                beyond = target + delta
                if not floor[beyond] or occupied[beyond]:
                    continue
                occupied[target] = False
                occupied[beyond] = True
            player = target
        written = 0
        for cell in range(floor.shape[0]):
            if occupied[cell]:
                boxes[i, written] = cell
                written += 1
        players[i] = player
