"""Levels per second of each generation method, with every level re-verified by replay.

For each method (reverse, markov, mask) and each room (8x8 with 3 and 4 boxes, 10x10 with 3 and
4 boxes) generates ``--per-room`` levels (default 25, so 100 per method) with a fixed seed, after
a warm-up that compiles the numba kernels. Every level's stored solution is replayed by
``verify_solution``: it must be legal, solve the level, and have the stored numbers of pushes
and moves. Prints one JSON object (rates, attempts, the distribution of optimal pushes per
method) and then a markdown table.

    python benchmarks/bench_generate.py [--per-room 25] [--seed 1] [--methods reverse,mask]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

import numba
from _common import machine, report

from evosoko.generate import METHODS, generate_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution

ROOMS = ((8, 8, 3), (8, 8, 4), (10, 10, 3), (10, 10, 4))


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def method_list(text: str) -> list[str]:
    methods = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in methods if name not in METHODS]
    if unknown or not methods:
        raise argparse.ArgumentTypeError(f"choose among {', '.join(METHODS)}")
    return methods


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-room", type=positive, default=25, help="levels per method and room")
    parser.add_argument("--seed", type=int, default=1, help="generation seed of every run")
    parser.add_argument("--methods", type=method_list, default=list(METHODS))
    return parser.parse_args()


def verified(level: Level) -> bool:
    """The stored solution replays, solves the level and matches the stored pushes and moves."""
    notes = dict(level.notes)
    check = verify_solution(level, notes["Solution"])
    return (
        check.valid
        and check.solved
        and check.pushes == int(notes["Pushes"])
        and check.moves == int(notes["Moves"])
    )


def measure(method: str, width: int, height: int, boxes: int, count: int, seed: int) -> dict:
    attempts = [0]

    def progress(_accepted: int, tried: int) -> None:
        attempts[0] = tried

    started = time.perf_counter()
    levels = generate_levels(method, width, height, boxes, count, seed=seed, on_progress=progress)
    seconds = time.perf_counter() - started
    pushes = [int(dict(level.notes)["Pushes"]) for level in levels]
    expanded = [int(dict(level.notes)["Expanded"]) for level in levels]
    return {
        "method": method,
        "size": f"{width}x{height}",
        "boxes": boxes,
        "levels": len(levels),
        "attempts": attempts[0],
        "seconds": seconds,
        "levels_per_s": len(levels) / seconds,
        "verified": sum(verified(level) for level in levels),
        "pushes": pushes,
        "pushes_median": statistics.median(pushes),
        "pushes_min": min(pushes),
        "pushes_max": max(pushes),
        "expanded_median": statistics.median(expanded),
    }


def distribution(pushes: list[int]) -> dict:
    """min / median / max and a histogram in bins of 5 pushes (``"0-4"``, ``"5-9"``, ...)."""
    bins = Counter(5 * (p // 5) for p in pushes)
    return {
        "min": min(pushes),
        "median": statistics.median(pushes),
        "max": max(pushes),
        "histogram": {f"{low}-{low + 4}": bins[low] for low in sorted(bins)},
    }


def main() -> int:
    args = parse_arguments()
    for method in args.methods:  # compile or load the numba kernels outside the timings
        generate_levels(method, 7, 7, 2, 1, seed=0)
    rows = [
        measure(method, width, height, boxes, args.per_room, args.seed)
        for method in args.methods
        for width, height, boxes in ROOMS
    ]
    methods = {}
    for method in args.methods:
        mine = [row for row in rows if row["method"] == method]
        pushes = [p for row in mine for p in row["pushes"]]
        methods[method] = {
            "levels": sum(row["levels"] for row in mine),
            "verified": sum(row["verified"] for row in mine),
            "levels_per_s": sum(row["levels"] for row in mine)
            / sum(row["seconds"] for row in mine),
            "pushes": distribution(pushes),
        }
    all_verified = all(row["verified"] == row["levels"] for row in rows)
    summary = {
        "benchmark": "generate",
        "per_room": args.per_room,
        "seed": args.seed,
        "all_verified": all_verified,
        "methods": methods,
        "runs": [{k: v for k, v in row.items() if k != "pushes"} for row in rows],
        "numba": numba.__version__,
        **machine(),
    }
    columns = [
        ("method", "method"),
        ("room", "size"),
        ("boxes", "boxes"),
        ("levels", "levels"),
        ("verified", "verified"),
        ("attempts", "attempts"),
        ("levels/s", "levels_per_s"),
        ("pushes min", "pushes_min"),
        ("median", "pushes_median"),
        ("max", "pushes_max"),
        ("A* expanded (median)", "expanded_median"),
    ]
    report(summary, columns, rows)
    return 0 if all_verified else 1


if __name__ == "__main__":
    sys.exit(main())
