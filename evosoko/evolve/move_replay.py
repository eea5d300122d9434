"""Where a move genome's prefix leads: the position after its first ``k`` genes, scored.

The batch replay itself is :func:`evosoko.sokoban.kernels.replay_batch`; this kernel replays a
chosen prefix of each genome by the same rules (an illegal move is skipped) and reports the
distance objective and the Zobrist hash (player normalized) of the position it reaches, so that
a genome can be scored and deduplicated at its best point.
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.evolve.distances import distance_kernel, manhattan_to_nearest_goal, objective_code
from evosoko.sokoban.kernels import ReplayTables
from evosoko.sokoban.level import Level


class MoveScoring:
    """The per-level arrays :func:`score_prefixes` needs besides the replay tables."""

    def __init__(self, level: Level) -> None:
        self.push_distance = level.push_distance.astype(np.int64)
        self.nearest = level.nearest_goal_distance.astype(np.int64)
        self.manhattan = manhattan_to_nearest_goal(level)


def score_prefixes(
    tables: ReplayTables,
    scoring: MoveScoring,
    genomes: np.ndarray,
    prefixes: np.ndarray,
    objective: str,
) -> tuple[np.ndarray, np.ndarray]:
    """(distance int64[n], hash uint64[n]) of the position after ``genomes[i, :prefixes[i]]``."""
    count = genomes.shape[0]
    distance = np.zeros(count, dtype=np.int64)
    hashes = np.zeros(count, dtype=np.uint64)
    _score_prefixes_kernel(
        tables.deltas,
        tables.floor,
        tables.zobrist_box,
        tables.zobrist_player,
        tables.start_player,
        tables.start_boxes,
        scoring.push_distance,
        scoring.nearest,
        scoring.manhattan,
        objective_code(objective),
        np.ascontiguousarray(genomes, dtype=np.int8),
        np.ascontiguousarray(prefixes, dtype=np.int32),
        distance,
        hashes,
    )
    return distance, hashes


@numba.njit(cache=True)
def _score_prefixes_kernel(
    deltas, floor, zobrist_box, zobrist_player, start_player, start_boxes, push_distance,
    nearest, manhattan, objective, genomes, prefixes, distance, hashes,
):  # pragma: no cover - compiled
    cells = floor.shape[0]
    box_count = start_boxes.shape[0]
    occupant = np.zeros(cells, dtype=np.int64)  # -1 off the floor, 0 empty, k + 1 box k
    boxes = start_boxes.copy()
    sorted_boxes = np.empty(box_count, dtype=np.int64)
    mark = np.zeros(cells, dtype=np.int64)
    stack = np.empty(cells, dtype=np.int64)
    for i in range(genomes.shape[0]):
        for cell in range(cells):
            occupant[cell] = 0 if floor[cell] else -1
        for k in range(box_count):
            boxes[k] = start_boxes[k]
            occupant[boxes[k]] = k + 1
        player = start_player
        for j in range(prefixes[i]):
            delta = deltas[genomes[i, j]]
            target = player + delta
            box = occupant[target]
            if box == 0:
                player = target
            elif box > 0:
                beyond = target + delta
                if occupant[beyond] == 0:
                    occupant[beyond] = box
                    occupant[target] = 0
                    boxes[box - 1] = beyond
                    player = target
        box_hash = np.uint64(0)
        for k in range(box_count):
            sorted_boxes[k] = boxes[k]
            box_hash ^= zobrist_box[boxes[k]]
        sorted_boxes.sort()
        distance[i] = distance_kernel(objective, sorted_boxes, push_distance, nearest, manhattan)
        # normalized player: the smallest cell reachable over empty floor
        stamp = i + 1
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
        hashes[i] = box_hash ^ zobrist_player[smallest]
