"""Speed of the GA's evaluation paths against a bare replay loop, in one process.

The GA scores genomes with :meth:`FitnessFunction.evaluate_columns` (what every evaluation
backend's workers call, on the packed ``(genes, lengths)`` batches they receive). This
benchmark times that call for move genomes and for push genomes, and, on the same packed
genomes, a bare numba loop that only replays moves (walls and boxes: no scoring, no deadlock
tests, no hashes). Random genomes (fixed seed; default 2,000 x 200 genes) on seed000-case3
(bundled) and, when ``../shared/levels`` is present, Microban 1 and the first Boxoban medium
level; each figure is the best of ``--repeats`` runs after a warm-up, in CPU time of the
calling thread (the kernels run in it), which a machine shared with other work disturbs less
than wall time. The GA's move paths and the bare loop run in turn, one call of each per round,
so that a change in the machine's load reaches both sides of their ratios alike.

- ``move_genes_per_s``: move genes the GA replayed per second with ``FitnessConfig()``'s
  defaults. Replay stops at the solution or (``stop_on_deadlock``) before a push that loses
  (on seed000-case3 after about 30 of 200 random genes), so it counts the genes replayed (the
  kernel's ``steps``, ``move_genes_consumed``);
- ``every_best_genes_per_s`` and ``every_end_genes_per_s``: the same on equal work, every gene
  replayed (``stop_on_deadlock`` off; replay still stops at a solution, which random genomes
  do not reach: ``every_genes`` counts the genes replayed), scored at the best point (the
  defaults) and at the end (``trim_to_best`` off, the presets' setting);
- ``bare_genes_per_s``: genes per second of the bare loop, which replays every gene;
- ``ratio``, ``every_best_ratio``, ``every_end_ratio``: each GA figure over the bare loop's (the
  issue 53 target on equal work: at least 0.5);
- ``push_genes_per_s``: push genes offered per second (every gene of the batch; replay cuts
  many genomes short at lost positions) and ``push_genomes_per_s``;
- ``push_every_genes_per_s``: push genes the GA replayed per second on equal work
  (``stop_on_deadlock`` off: every gene up to a position with no candidate push left;
  ``push_every_genes`` counts the pushes made), beside ``bare_push_genes_per_s``, a bare numba
  loop that replays push genes with the rules of a push alone (one walk of the player's area
  per push, the legal pushes in canonical order, no dead squares, freeze tests, corrals,
  distances or hashes; ``bare_push_genes`` counts its pushes), and their ``push_every_ratio``.

    python benchmarks/bench_kernel.py [--genomes 2000] [--genes 200] [--repeats 21]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np
from _common import REPO_ROOT, SHARED_LEVELS, load_level, machine, positive, report

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.move_replay import move_tables, replay_move_packed
from evosoko.evolve.push_replay import push_tables, replay_push_packed
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level

LEVELS = (
    ("seed000-case3", None, "seed000-case3"),
    ("microban 1", "microban.txt", 1),
    ("boxoban medium 1", "boxoban/medium/train-000.txt", 1),
)
"""(label, file under ../shared/levels or None for the bundled seeds, level)."""

PUSH_GENE_RANGE = 720


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--genomes", type=positive, default=2000, help="genomes per batch")
    parser.add_argument("--genes", type=positive, default=200, help="genes per genome")
    parser.add_argument("--repeats", type=positive, default=21, help="timing repeats (best kept)")
    parser.add_argument("--seed", type=int, default=20240611, help="seed of the random genomes")
    return parser.parse_args()


@numba.njit(cache=True, inline="always")
def back_to_start(occupied, boxes, start_boxes):
    """Put the boxes back on their start cells."""
    for k in range(boxes.shape[0]):
        occupied[boxes[k]] = False
    for k in range(boxes.shape[0]):
        boxes[k] = start_boxes[k]
        occupied[boxes[k]] = True


@numba.njit(cache=True)
def bare_replay(floor, deltas, start_player, start_boxes, genes, lengths, final_player):
    """Replay every packed genome from the start: moves and pushes, nothing else."""
    occupied = np.zeros(floor.shape[0], dtype=np.bool_)
    boxes = start_boxes.copy()
    offset = 0
    for i in range(lengths.shape[0]):
        back_to_start(occupied, boxes, start_boxes)
        player = start_player
        for j in range(offset, offset + lengths[i]):
            delta = deltas[genes[j]]
            target = player + delta
            if not floor[target]:
                continue
            if occupied[target]:
                beyond = target + delta
                if not floor[beyond] or occupied[beyond]:
                    continue
                occupied[target] = False
                occupied[beyond] = True
                for k in range(boxes.shape[0]):
                    if boxes[k] == target:
                        boxes[k] = beyond
            player = target
        final_player[i] = player
        offset += lengths[i]


@numba.njit(cache=True)
def bare_push_replay(floor, deltas, start_player, start_boxes, genes, lengths, final_player):
    """Replay every packed push genome from the start with nothing but the rules of a push:
    the player's area (one walk per push), the legal pushes in canonical order (boxes by cell,
    then ``u d l r``: the player reaches the cell behind, the cell beyond is free floor) and
    gene ``g`` choosing push ``g % count``; a genome stops where no push is legal. No dead
    squares, freeze tests, corrals, distances or hashes. Returns the pushes made."""
    cells = floor.shape[0]
    occupied = np.zeros(cells, dtype=np.bool_)
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    boxes = start_boxes.copy()
    out_box = np.empty(4 * boxes.shape[0], dtype=np.int64)
    out_direction = np.empty(4 * boxes.shape[0], dtype=np.int64)
    stamp = 0
    made = 0
    offset = 0
    for i in range(lengths.shape[0]):
        back_to_start(occupied, boxes, start_boxes)
        player = start_player
        for j in range(offset, offset + lengths[i]):
            stamp += 1  # the player's area, walked here: a compiled call costs as much
            mark[player] = stamp
            queue[0] = player
            head, tail = 0, 1
            while head < tail:
                cell = queue[head]
                head += 1
                for direction in range(4):
                    near = cell + deltas[direction]
                    if floor[near] and not occupied[near] and mark[near] != stamp:
                        mark[near] = stamp
                        queue[tail] = near
                        tail += 1
            count = 0
            for k in range(boxes.shape[0]):
                for direction in range(4):
                    beyond = boxes[k] + deltas[direction]
                    if (
                        mark[boxes[k] - deltas[direction]] == stamp
                        and floor[beyond]
                        and not occupied[beyond]
                    ):
                        out_box[count] = k
                        out_direction[count] = direction
                        count += 1
            if count == 0:
                break
            choice = genes[j] % count
            k = out_box[choice]
            player = boxes[k]
            beyond = player + deltas[out_direction[choice]]
            occupied[player] = False
            occupied[beyond] = True
            boxes[k] = beyond
            while k > 0 and boxes[k - 1] > boxes[k]:  # keep the boxes sorted
                boxes[k - 1], boxes[k] = boxes[k], boxes[k - 1]
                k -= 1
            while k < boxes.shape[0] - 1 and boxes[k + 1] < boxes[k]:
                boxes[k + 1], boxes[k] = boxes[k], boxes[k + 1]
                k += 1
            made += 1
        final_player[i] = player
        offset += lengths[i]
    return made


def best_times(actions: Sequence[Callable[[], object]], repeats: int) -> list[float]:
    """The least thread CPU time of ``repeats`` calls of each action, called in turn (one call
    of each per round), so that a change in the machine's load reaches all of them alike."""
    best = [float("inf")] * len(actions)
    for _ in range(repeats):
        for k, action in enumerate(actions):
            started = time.thread_time()
            action()
            best[k] = min(best[k], time.thread_time() - started)
    return best


def pushes_made(level: Level, genes: np.ndarray, lengths: np.ndarray, objective: str) -> int:
    """Pushes the GA's push replay makes on the packed genomes with ``stop_on_deadlock`` off
    (every gene up to a dead end, counting the pushes a lost genome is cut back from)."""
    record = np.full((len(genes), 2), -1, dtype=np.int64)
    replay_push_packed(push_tables(level), genes, lengths, objective, False, record)
    return int((record[:, 0] >= 0).sum())


def levels() -> list[tuple[str, Level]]:
    bundled = read_levels(REPO_ROOT / "levels" / "seeds.xsb")
    found = []
    for label, path, spec in LEVELS:
        if path is None:
            found.append((label, select_levels(bundled, [spec])[0]))
        elif SHARED_LEVELS.is_dir():
            found.append((label, load_level(path, spec)))
    return found


def measure(label: str, level: Level, args: argparse.Namespace) -> dict:
    rng = np.random.default_rng(args.seed)
    lengths = np.full(args.genomes, args.genes, dtype=np.int32)
    move_genes = rng.integers(0, 4, size=int(lengths.sum())).astype(np.int32)
    push_genes = rng.integers(0, PUSH_GENE_RANGE, size=int(lengths.sum())).astype(np.int32)
    config = FitnessConfig()
    every = config.model_copy(update={"stop_on_deadlock": False})
    settings = [config, every, every.model_copy(update={"trim_to_best": False})]
    paths = [FitnessFunction(level, "moves", setting) for setting in settings]
    for path in paths:
        path.evaluate_columns(move_genes, lengths)  # compile first
    tables = move_tables(level)
    consumed, every_genes = (
        int(replay_move_packed(tables, move_genes, lengths, config.objective, stop).steps.sum())
        for stop in (True, False)
    )

    floor = np.ascontiguousarray(level.floor, dtype=np.bool_)
    deltas = np.array(level.deltas, dtype=np.int64)
    boxes = np.array(level.start.boxes, dtype=np.int64)
    final = np.empty(args.genomes, dtype=np.int64)

    def bare() -> None:
        bare_replay(floor, deltas, level.start.player, boxes, move_genes, lengths, final)

    bare()
    actions: list[Callable[[], object]] = [
        lambda path=path: path.evaluate_columns(move_genes, lengths) for path in paths
    ]
    move_seconds, best_seconds, end_seconds, bare_seconds = best_times(
        [*actions, bare], args.repeats
    )

    pushes = FitnessFunction(level, "pushes", config)
    every_pushes = FitnessFunction(level, "pushes", every)
    for push_path in (pushes, every_pushes):
        push_path.evaluate_columns(push_genes[:10], np.array([10], dtype=np.int32))
    push_every_genes = pushes_made(level, push_genes, lengths, every.objective)
    bare_pushes = bare_push_replay(
        floor, deltas, level.start.player, boxes, push_genes, lengths, final
    )
    push_seconds, push_every_seconds, bare_push_seconds = best_times(
        [
            lambda: pushes.evaluate_columns(push_genes, lengths),
            lambda: every_pushes.evaluate_columns(push_genes, lengths),
            lambda: bare_push_replay(
                floor, deltas, level.start.player, boxes, push_genes, lengths, final
            ),
        ],
        max(1, args.repeats // 2),
    )
    push_every_rate = push_every_genes / push_every_seconds
    bare_push_rate = bare_pushes / bare_push_seconds
    move_rate = consumed / move_seconds
    best_rate, end_rate = every_genes / best_seconds, every_genes / end_seconds
    bare_rate = len(move_genes) / bare_seconds
    return {
        "level": label,
        "size": f"{level.width}x{level.height}",
        "boxes": level.box_count,
        "move_genes_consumed": consumed,
        "move_seconds": move_seconds,
        "move_genes_per_s": move_rate,
        "bare_genes": len(move_genes),
        "bare_seconds": bare_seconds,
        "bare_genes_per_s": bare_rate,
        "ratio": move_rate / bare_rate,
        "every_genes": every_genes,
        "every_best_seconds": best_seconds,
        "every_best_genes_per_s": best_rate,
        "every_best_ratio": best_rate / bare_rate,
        "every_end_seconds": end_seconds,
        "every_end_genes_per_s": end_rate,
        "every_end_ratio": end_rate / bare_rate,
        "push_seconds": push_seconds,
        "push_genes_per_s": len(push_genes) / push_seconds,
        "push_genomes_per_s": args.genomes / push_seconds,
        "push_every_genes": push_every_genes,
        "push_every_seconds": push_every_seconds,
        "push_every_genes_per_s": push_every_rate,
        "bare_push_genes": bare_pushes,
        "bare_push_seconds": bare_push_seconds,
        "bare_push_genes_per_s": bare_push_rate,
        "push_every_ratio": push_every_rate / bare_push_rate,
    }


def main() -> int:
    args = parse_arguments()
    rows = [measure(label, level, args) for label, level in levels()]
    summary = {
        "benchmark": "kernel",
        "genomes": args.genomes,
        "genes_per_genome": args.genes,
        "seed": args.seed,
        "fitness": "FitnessConfig() defaults (matching, trim_to_best, stop_on_deadlock); "
        "every gene: stop_on_deadlock off, at the best point and (trim_to_best off) the end",
        "levels": rows,
        "numba": numba.__version__,
        **machine(),
    }
    table_rows = [
        {
            **row,
            "move_m": row["move_genes_per_s"] / 1e6,
            "bare_m": row["bare_genes_per_s"] / 1e6,
            "best_m": row["every_best_genes_per_s"] / 1e6,
            "end_m": row["every_end_genes_per_s"] / 1e6,
            "push_m": row["push_genes_per_s"] / 1e6,
            "push_every_m": row["push_every_genes_per_s"] / 1e6,
            "bare_push_m": row["bare_push_genes_per_s"] / 1e6,
        }
        for row in rows
    ]
    columns = [
        ("level", "level"),
        ("size", "size"),
        ("boxes", "boxes"),
        ("bare loop M genes/s", "bare_m"),
        ("GA moves M genes/s", "move_m"),
        ("ratio", "ratio"),
        ("every gene, best point M genes/s", "best_m"),
        ("ratio", "every_best_ratio"),
        ("every gene, end M genes/s", "end_m"),
        ("ratio", "every_end_ratio"),
        ("GA pushes M genes/s", "push_m"),
        ("push genomes/s", "push_genomes_per_s"),
        ("bare push loop M genes/s", "bare_push_m"),
        ("GA pushes, every gene M genes/s", "push_every_m"),
        ("ratio", "push_every_ratio"),
    ]
    report(summary, columns, table_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
