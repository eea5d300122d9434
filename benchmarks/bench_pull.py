"""Speed of push-fess-bi's pull search alone, on XSokoban screens.

Runs :class:`evosoko.search.bidirectional.PullSearch` from the solved position of each screen for a
fixed number of expansions (in kernel calls of at most 1,000) and reports the pulls expanded per
CPU-second, with a digest of the stored boxes: two versions of the kernel that store the same states
in the same order print the same digest. A first screen is run once before timing (compilation).

    python benchmarks/bench_pull.py [--levels 11,20,42,71] [--expansions 100000]
"""

from __future__ import annotations

import argparse
import hashlib
import time

from _common import machine, positive, report, require_shared_levels

from evosoko.search.bidirectional import PullSearch
from evosoko.search.store import DUPLICATES, EXPANDED, GENERATED, NODES
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.formats import read_levels

CHUNK = 1000
"""Expansions per kernel call."""


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="11,20,42,71", help="XSokoban screens, by number")
    parser.add_argument("--expansions", type=positive, default=100_000, help="per screen")
    return parser.parse_args()


def pull_for(level, expansions: int) -> dict:
    """Expand ``expansions`` pulls of ``level`` (fewer if its states run out); the figures."""
    pull = PullSearch(level, level_arrays(level), level.cells, 300, 1 << 24)
    counters = pull.store.counters
    started = time.process_time()
    while counters[EXPANDED] < expansions and not pull.finished:
        pull.step(CHUNK)
    seconds = time.process_time() - started
    size = int(counters[NODES])
    digest = hashlib.sha1(pull.store.nodes[0][:size].tobytes()).hexdigest()[:10]
    return {
        "level": level.name,
        "expanded": int(counters[EXPANDED]),
        "generated": int(counters[GENERATED]),
        "duplicates": int(counters[DUPLICATES]),
        "stored": size,
        "cpu_seconds": round(seconds, 3),
        "expanded_per_s": round(counters[EXPANDED] / max(seconds, 1e-9)),
        "digest": digest,
    }


def main() -> None:
    arguments = parse_arguments()
    levels = read_levels(require_shared_levels() / "xsokoban.txt")
    chosen = [levels[int(number) - 1] for number in arguments.levels.split(",")]
    pull_for(levels[0], CHUNK)  # compile
    rows = [pull_for(level, arguments.expansions) for level in chosen]
    summary = {"benchmark": "pull", "machine": machine(), "expansions": arguments.expansions}
    summary["per_level"] = rows
    columns = [
        ("level", "level"),
        ("expanded", "expanded"),
        ("stored", "stored"),
        ("CPU s", "cpu_seconds"),
        ("expanded/s", "expanded_per_s"),
        ("digest", "digest"),
    ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
