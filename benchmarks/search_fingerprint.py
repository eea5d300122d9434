"""Fingerprint of every search: what it finds on Microban 1-155 within a node limit.

For each algorithm of :data:`evosoko.search.ALGORITHMS` and each Microban level, one search
with a node limit (no time limit, so the outcome is a function of the code alone) gives a row
``[status, expanded, generated, duplicates, solution digest]`` (the digest: the first 16 hex
digits of the SHA-256 of the LURD solution, empty when unsolved). ``push-fess-bi`` also by its
two halves alone, ``push-fess-bi/forward`` (its own push-fess with its settings and no side
searches) and ``push-fess-bi/pull`` (one pull search from the solved position at the search's
weight, to the node limit): they hold what it found before issue 50's rebuild, when its turns
followed the clock and the whole search could not be pinned.

Used to show that a refactoring of the searches keeps them byte for byte::

    python benchmarks/search_fingerprint.py --out /tmp/before.json      # on the old code
    python benchmarks/search_fingerprint.py --compare /tmp/before.json  # on the new code

``tests/search/data/microban_fingerprint.json`` is such a file (node limit 2,000, recorded
before issue 50's rebuild, the whole ``push-fess-bi`` after its turns came to follow the work);
``tests/search/test_fingerprint.py`` compares against it. Prints
one JSON object (``{"runs": N, "identical": N, "different": [...]}``) and a table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from _common import markdown_table, require_shared_levels
from fingerprint_parts import bidirectional_forward, bidirectional_pull

from evosoko.search import ALGORITHMS, solve, warm_up
from evosoko.sokoban.formats import read_levels
from evosoko.status import read_stop

NODE_LIMIT = 2000
BIDIRECTIONAL = "push-fess-bi"
PARTS = (f"{BIDIRECTIONAL}/forward", f"{BIDIRECTIONAL}/pull")


def digest(solution: str | None) -> str:
    """First 16 hex digits of the SHA-256 of ``solution`` ('' for none)."""
    return hashlib.sha256(solution.encode()).hexdigest()[:16] if solution else ""


def algorithm_names() -> list[str]:
    """Every algorithm, and push-fess-bi's two parts."""
    return [*ALGORITHMS, *PARTS]


def search_row(level, algorithm: str, node_limit: int) -> list:
    """``[status, expanded, generated, duplicates, digest]`` of one search (the status as
    ``str(Stop)``: ``"solved"``, ``"budget: nodes"``, ...)."""
    if algorithm in PARTS:
        return _bidirectional_part(level, algorithm, node_limit)
    result = solve(level, algorithm, node_limit=node_limit)
    return [
        str(result.stop),
        result.expanded,
        result.generated,
        result.duplicates,
        digest(result.solution),
    ]


def _bidirectional_part(level, part: str, node_limit: int) -> list:
    if part.endswith("/forward"):
        return bidirectional_forward(level, node_limit)
    return bidirectional_pull(level, node_limit)


def fingerprint(levels, algorithms: list[str], node_limit: int, progress: bool = True) -> dict:
    """``{algorithm: {level number: row}}`` (level numbers 1-based, as strings)."""
    warm_up(sorted({name.partition("/")[0] for name in algorithms}))
    runs: dict[str, dict[str, list]] = {}
    for algorithm in algorithms:
        started = time.perf_counter()
        rows = runs.setdefault(algorithm, {})
        for number, level in levels:
            rows[str(number)] = search_row(level, algorithm, node_limit)
        if progress:
            seconds = time.perf_counter() - started
            print(f"{algorithm}: {len(levels)} levels, {seconds:.1f} s", file=sys.stderr)
    return runs


def same_words(row: list | None, unit: str = "nodes") -> list | None:
    """``row`` with its status in today's vocabulary (:func:`evosoko.status.read_stop`): a file
    recorded before it says ``node-limit`` where a search now says ``budget: nodes``."""
    if row is None:
        return None
    word, _, exhausted = row[0].partition(": ")
    if word == "exhausted":  # a pull search's own word: its space is exhausted
        return row
    return [str(read_stop(word, exhausted or None, unit=unit)), *row[1:]]


def differences(found: dict, stored: dict) -> list[dict]:
    """One entry per (algorithm, level) whose row differs from the stored one (statuses
    compared in today's vocabulary)."""
    different = []
    for algorithm, rows in found.items():
        unit = "iterations" if algorithm == "mcts" else "nodes"
        for number, row in rows.items():
            expected = stored.get(algorithm, {}).get(number)
            if same_words(expected, unit) != same_words(row, unit):
                different.append(
                    {"algorithm": algorithm, "level": number, "found": row, "stored": expected}
                )
    return different


def fingerprint_document(node_limit: int, runs: dict) -> str:
    """The JSON file of a fingerprint, one line per search (so a diff shows the searches that
    changed)."""
    algorithms = []
    for algorithm in sorted(runs):
        rows = runs[algorithm]
        lines = ",\n".join(
            f"    {json.dumps(number)}: {json.dumps(rows[number])}"
            for number in sorted(rows, key=int)
        )
        algorithms.append(f"  {json.dumps(algorithm)}: {{\n{lines}\n  }}")
    head = f'{{"collection": "microban.txt", "node_limit": {node_limit}, "runs": {{\n'
    return head + ",\n".join(algorithms) + "\n}}\n"


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--out", type=Path, help="write the fingerprint to this JSON file")
    action.add_argument("--compare", type=Path, help="compare with a stored fingerprint")
    parser.add_argument("--node-limit", type=int, default=None, help="expansions per search")
    parser.add_argument("--algo", action="append", help="only these algorithms (repeatable)")
    parser.add_argument("--levels", default="1-155", help="Microban levels, e.g. 1-40")
    return parser.parse_args()


def level_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    arguments = parse_arguments()
    microban = read_levels(require_shared_levels() / "microban.txt")
    numbers = level_range(arguments.levels)
    levels = [(number, microban[number - 1]) for number in numbers]
    stored = json.loads(arguments.compare.read_text()) if arguments.compare else None
    node_limit = arguments.node_limit or (stored["node_limit"] if stored else NODE_LIMIT)
    algorithms = arguments.algo or (list(stored["runs"]) if stored else algorithm_names())
    runs = fingerprint(levels, algorithms, node_limit)
    if arguments.out:
        arguments.out.write_text(fingerprint_document(node_limit, runs))
        print(json.dumps({"runs": sum(len(rows) for rows in runs.values()), "written": True}))
        return
    assert stored is not None
    different = differences(runs, stored["runs"])
    total = sum(len(rows) for rows in runs.values())
    print(json.dumps({"runs": total, "identical": total - len(different), "different": different}))
    table = [
        {
            "algorithm": algorithm,
            "levels": len(rows),
            "different": sum(1 for entry in different if entry["algorithm"] == algorithm),
        }
        for algorithm, rows in runs.items()
    ]
    columns = [("algorithm", "algorithm"), ("levels", "levels"), ("different", "different")]
    print(markdown_table(columns, table))
    raise SystemExit(1 if different else 0)


if __name__ == "__main__":
    main()
