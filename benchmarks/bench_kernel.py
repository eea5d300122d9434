"""Moves per second of the numba replay kernel and of its plain-Python reference.

Replays the same random genomes (fixed seed; default 2,000 genomes x 200 moves) on Microban
level 1 and on the first Boxoban medium level, with the kernel (after a JIT warm-up, best of
several repeats) and with the reference (on the same genomes, or on the first
``--reference-genomes`` of them, best of two). A "move" is one gene consumed, legal or
skipped. Checks that both agree on the genomes they share, then prints one JSON object and a
markdown table (see benchmarks/README.md).

    python benchmarks/bench_kernel.py [--genomes 2000] [--moves 200] [--repeats 7]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields

import numba
import numpy as np
from _common import best_time, load_level, machine, report

from evosoko.sokoban.kernels import ReplayResult, replay_batch, replay_tables
from evosoko.sokoban.level import Level
from evosoko.sokoban.reference import replay_batch_reference

LEVELS = (
    ("microban 1", "microban.txt", "1"),
    ("boxoban medium 0", "boxoban/medium/train-000.txt", 1),
)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--genomes", type=positive, default=2000, help="genomes per level")
    parser.add_argument("--moves", type=positive, default=200, help="genes per genome")
    parser.add_argument(
        "--repeats", type=positive, default=7, help="kernel timing repeats (the best is kept)"
    )
    parser.add_argument(
        "--reference-genomes",
        type=positive,
        default=None,
        help="genomes replayed by the reference (default: all)",
    )
    parser.add_argument("--seed", type=int, default=20240611, help="seed of the random genomes")
    return parser.parse_args()


def results_agree(kernel: ReplayResult, reference: ReplayResult) -> bool:
    count = len(reference)
    return all(
        np.array_equal(getattr(kernel, f.name)[:count], getattr(reference, f.name))
        for f in fields(ReplayResult)
    )


def measure(label: str, level: Level, genomes: np.ndarray, args: argparse.Namespace) -> dict:
    tables = replay_tables(level)
    replay_batch(tables, genomes[:2])  # compile (or load the cached machine code) first
    kernel_seconds, kernel = best_time(lambda: replay_batch(tables, genomes), args.repeats)
    subset = genomes if args.reference_genomes is None else genomes[: args.reference_genomes]
    reference_seconds, reference = best_time(lambda: replay_batch_reference(tables, subset), 2)
    kernel_moves = int(kernel.steps.sum())
    reference_moves = int(reference.steps.sum())
    kernel_rate = kernel_moves / kernel_seconds
    reference_rate = reference_moves / reference_seconds
    return {
        "level": label,
        "size": f"{level.width}x{level.height}",
        "boxes": level.box_count,
        "kernel_moves": kernel_moves,
        "kernel_seconds": kernel_seconds,
        "kernel_moves_per_s": kernel_rate,
        "reference_moves": reference_moves,
        "reference_seconds": reference_seconds,
        "reference_moves_per_s": reference_rate,
        "speedup": kernel_rate / reference_rate,
        "solved": int(kernel.solved.sum()),
        "agree": results_agree(kernel, reference),
    }


def main() -> int:
    args = parse_arguments()
    rng = np.random.default_rng(args.seed)
    genomes = rng.integers(0, 4, size=(args.genomes, args.moves), dtype=np.int8)
    rows = [measure(label, load_level(path, spec), genomes, args) for label, path, spec in LEVELS]
    kernel_rate = sum(r["kernel_moves"] for r in rows) / sum(r["kernel_seconds"] for r in rows)
    reference_rate = sum(r["reference_moves"] for r in rows) / sum(
        r["reference_seconds"] for r in rows
    )
    summary = {
        "benchmark": "kernel",
        "genomes": args.genomes,
        "moves_per_genome": args.moves,
        "reference_genomes": min(args.reference_genomes or args.genomes, args.genomes),
        "seed": args.seed,
        "kernel_moves_per_s": kernel_rate,
        "reference_moves_per_s": reference_rate,
        "speedup": kernel_rate / reference_rate,
        "agree": all(r["agree"] for r in rows),
        "levels": rows,
        "numba": numba.__version__,
        **machine(),
    }
    table_rows = [
        {
            **r,
            "kernel_m": r["kernel_moves_per_s"] / 1e6,
            "reference_m": r["reference_moves_per_s"] / 1e6,
        }
        for r in rows
    ]
    columns = [
        ("level", "level"),
        ("size", "size"),
        ("boxes", "boxes"),
        ("kernel M moves/s", "kernel_m"),
        ("reference M moves/s", "reference_m"),
        ("speedup", "speedup"),
        ("agree", "agree"),
    ]
    report(summary, columns, table_rows)
    return 0 if summary["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
