"""Classical search on the shared collections: levels solved, time per level, and the seed table.

Suites (single process, one level after the other, kernels compiled before timing):

- ``microban``: the 155 Microban levels with ``push-astar`` (default 10 s per level);
- ``boxoban``: the 3,000 Boxoban levels (unfiltered, medium, hard; default 10 s per level);
- ``boxoban-medium``: the 1,000 levels of Boxoban's medium ``train-000.txt`` alone (with
  ``--levels 1-50``: the levels of ``configs/compare-mcts.toml``);
- ``xsokoban``: the 90 XSokoban screens (default 60 s per level);
- ``seeds``: every move-level algorithm on ``seed000-case3`` beside the source document's
  figures (moves, states searched).

Prints one JSON object on its first line, then a markdown table per suite. Long runs report
progress on stderr. Time limits count wall-clock seconds, or with ``--clock cpu`` the CPU
seconds the search process got (so that a loaded, shared machine gives each level the same work
as a quiet one); each level records the clock, the wall seconds, the process CPU time and the
load average.

    python benchmarks/bench_search.py --suite microban --suite seeds [--time-limit 10]
        [--clock wall|cpu] [--algo push-astar] [--heuristic matching] [--levels 1-40]
        [--node-limit N] [--seed N] [--results FILE.jsonl] [--set fess.cluster_width=400]

``--seed`` drives the stochastic algorithms (``random``, ``mcts``).

``--set KEY=VALUE`` (repeatable) sets a knob of the searches' settings, a key of the
``[search]`` table (:mod:`evosoko.search.settings`; VALUE is TOML), e.g. ``--set
fess.cluster_width=400 --set fess.cluster_limit=6000``, as ``evosoko solve --set`` does. Each
level's line records the settings that differ from the defaults, and results of other settings
are not reused.

``--results FILE.jsonl`` appends one line per level as it finishes and reuses the lines of the
same suite, file, level, algorithm, heuristic, weight, limits and clock when run again, so a
long run (XSokoban: 90 levels x 60 s per algorithm) can be stopped and continued, or re-run
elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _common import machine, markdown_table, require_shared_levels

from evosoko.api import search_settings_of
from evosoko.errors import EvosokoError
from evosoko.search import PushSettings, SearchSettings, solve, warm_up
from evosoko.search.settings import settings_text
from evosoko.sokoban.formats import read_levels, select_levels

SUITES = {
    "microban": (("microban.txt",), 10.0),
    "boxoban": (
        (
            "boxoban/unfiltered/train-000.txt",
            "boxoban/medium/train-000.txt",
            "boxoban/hard/000.txt",
        ),
        10.0,
    ),
    "boxoban-medium": (("boxoban/medium/train-000.txt",), 10.0),
    "xsokoban": (("xsokoban.txt",), 60.0),
}
SEED_LEVEL = ("seeds/seeds.xsb", "seed000-case3")
SOURCE_FIGURES = {  # moves, states searched (../shared/levels/README.md)
    "dfs": (71, 13254),
    "bfs": (34, 17720),
    "random": (34, 20254),
    "astar": (34, 13316),
    "greedy": (45, 7751),
}


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--suite",
        action="append",
        choices=[*SUITES, "seeds"],
        help="suite to run (repeatable; default: all)",
    )
    parser.add_argument("--algo", default="push-astar", help="algorithm of the level suites")
    parser.add_argument("--heuristic", default=None, help="heuristic (default: the algorithm's)")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds per level (default: 10, XSokoban 60)",
    )
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="what the time limit counts: wall seconds or the search process's CPU seconds",
    )
    parser.add_argument("--node-limit", type=int, default=None, help="expansions per level")
    parser.add_argument(
        "--weight", type=float, default=None, help="weight of push-wastar (default: settings')"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of random and mcts")
    parser.add_argument(
        "--levels",
        type=level_numbers,
        default=None,
        help="1-based level numbers within each file, ranges or single ones: 1-40, 31,60-65",
    )
    parser.add_argument(
        "--results", type=Path, default=None, help="JSONL file of per-level results (resumable)"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a knob of the [search] settings (repeatable): fess.cluster_width=400",
    )
    return parser.parse_args()


def search_settings(overrides: list[str]) -> tuple[SearchSettings, str]:
    """The settings of ``--set KEY=VALUE`` overrides, and the knobs that differ from the
    defaults as one line for the results (empty: none). Raises ``ConfigError`` naming an
    unknown key (with the closest one) or a bad value."""
    settings = search_settings_of(None, overrides)
    line = settings_text(settings)
    return settings, "" if line == "-" else line


OLD_DEFAULTS = {"seed": 0, "clock": "wall", "settings": ""}
"""Key fields missing from lines written before they existed, and what those lines ran with."""


class ResultStore:
    """Per-level results, appended to a JSONL file (when given) and reused from it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[tuple, dict] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    self.known[self.key(record)] = record

    @staticmethod
    def key(record: dict) -> tuple:
        return tuple(
            record.get(name, OLD_DEFAULTS.get(name))  # lines of files before --seed, --clock
            for name in (
                "suite",
                "file",
                "index",
                "algo",
                "heuristic",
                "weight",
                "time_limit",
                "node_limit",
                "seed",
                "clock",
                "settings",
            )
        )

    def get(self, key: dict) -> dict | None:
        return self.known.get(self.key(key))

    def add(self, record: dict) -> None:
        self.known[self.key(record)] = record
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(json.dumps(record) + "\n")


def level_numbers(text: str) -> list[int]:
    """The 1-based level numbers of ``--levels``: comma-separated numbers and ranges
    (``1-40``, ``31,60-65``), in the order given, each once."""
    numbers: dict[int, None] = {}
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()) or int(first) < 1:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a level number or range (e.g. 1-40 or 31,60-65)"
            )
        end = int(last) if dash else int(first)
        if end < int(first):
            raise argparse.ArgumentTypeError(f"the range {part.strip()!r} is empty")
        numbers.update(dict.fromkeys(range(int(first), end + 1)))
    return list(numbers)


def level_indices(numbers: list[int] | None, count: int) -> list[int]:
    """0-based indices of the selected levels a file of ``count`` levels holds."""
    if numbers is None:
        return list(range(count))
    return [number - 1 for number in numbers if number <= count]


def run_suite(name: str, args: argparse.Namespace, shared, store: ResultStore) -> dict:
    files, default_limit = SUITES[name]
    limit = args.time_limit or default_limit
    rows = []
    for relative in files:
        levels = read_levels(shared / relative)
        for index in level_indices(args.levels, len(levels)):
            level = levels[index]
            key = {
                "suite": name,
                "file": relative,
                "index": index + 1,
                "algo": args.algo,
                "heuristic": args.heuristic,
                "weight": args.weight_used,
                "time_limit": limit,
                "node_limit": args.node_limit,
                "seed": args.seed,
                "clock": args.clock,
                "settings": args.settings_line,
            }
            row = store.get(key)
            if row is None:
                cpu_started = time.process_time()
                result = solve(
                    level,
                    args.algo,
                    args.heuristic,
                    time_limit=limit,
                    node_limit=args.node_limit,
                    weight=args.weight,
                    settings=args.search_settings,
                    seed=args.seed,
                    clock=args.clock,
                )
                cpu_seconds = time.process_time() - cpu_started
                row = {
                    **key,
                    "id": level.name,
                    "status": result.status,
                    "pushes": result.pushes,
                    "moves": result.moves,
                    "expanded": result.expanded,
                    "seconds": round(result.seconds, 4),
                    "cpu_seconds": round(cpu_seconds, 4),
                    "load": round(os.getloadavg()[0], 2),
                    "solution": result.solution,
                }
                store.add(row)
            rows.append({k: v for k, v in row.items() if k != "solution"})
            print(
                f"{name} {relative} {level.name}: {row['status']} {row['seconds']:.2f}s",
                file=sys.stderr,
                flush=True,
            )
    seconds = [row["seconds"] for row in rows]
    solved = [row for row in rows if row["status"] == "solved"]
    summary = {
        "algo": args.algo,
        "heuristic": args.heuristic,
        "weight": args.weight_used,
        "seed": args.seed,
        "time_limit": limit,
        "clock": args.clock,
        "settings": args.settings_line,
        "levels": len(rows),
        "solved": len(solved),
        "median_seconds": statistics.median(seconds) if seconds else None,
        "max_seconds": max(seconds) if seconds else None,
        "total_seconds": round(sum(seconds), 2),
        "total_cpu_seconds": round(sum(row["cpu_seconds"] for row in rows), 2),
        "unsolved": [
            f"{row['file']}:{row['id']}" if len(files) > 1 else row["id"]
            for row in rows
            if row["status"] != "solved"
        ],
    }
    if len(files) == 1:
        summary["per_level"] = rows
    return summary


def run_seeds(shared) -> list[dict]:
    path, title = SEED_LEVEL
    level = select_levels(read_levels(shared / path), [title])[0]
    rows = []
    for algo, heuristic in [
        ("bfs", None),
        ("dfs", None),
        ("random", None),
        ("astar", None),
        ("astar", "manhattan-source"),
        ("greedy", None),
        ("greedy", "manhattan-source"),
    ]:
        result = solve(level, algo, heuristic)
        source_moves, source_states = SOURCE_FIGURES[algo]
        rows.append(
            {
                "algo": algo,
                "heuristic": result.heuristic,
                "moves": result.moves,
                "expanded": result.expanded,
                "generated": result.generated,
                "duplicates": result.duplicates,
                "seconds": round(result.seconds, 4),
                "source_moves": source_moves,
                "source_states": source_states,
            }
        )
    return rows


def main() -> None:
    args = parse_arguments()
    try:
        args.search_settings, args.settings_line = search_settings(args.overrides)
        family = args.search_settings.family(args.algo)
        family_weight = getattr(family, "weight", PushSettings().weight)
        args.weight_used = family_weight if args.weight is None else args.weight
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    shared = require_shared_levels()
    suites = args.suite or [*SUITES, "seeds"]
    started = time.perf_counter()
    report: dict = {"benchmark": "search", "machine": machine(), "suites": {}}
    store = ResultStore(args.results)
    warm_up()
    try:
        for name in suites:
            report["suites"][name] = (
                run_seeds(shared) if name == "seeds" else run_suite(name, args, shared, store)
            )
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report))
    for name, data in report["suites"].items():
        print()
        print(f"### {name}")
        print()
        if name == "seeds":
            print(
                markdown_table(
                    [
                        ("algorithm", "algo"),
                        ("heuristic", "heuristic"),
                        ("moves", "moves"),
                        ("expanded", "expanded"),
                        ("generated", "generated"),
                        ("source moves", "source_moves"),
                        ("source states", "source_states"),
                    ],
                    data,
                )
            )
        else:
            unsolved = ", ".join(data["unsolved"]) or "-"
            print(
                markdown_table(
                    [
                        ("algorithm", "algo"),
                        ("limit s", "time_limit"),
                        ("clock", "clock"),
                        ("levels", "levels"),
                        ("solved", "solved"),
                        ("median s", "median_seconds"),
                        ("max s", "max_seconds"),
                        ("unsolved", "unsolved_text"),
                        ("settings", "settings_text"),
                    ],
                    [{**data, "unsolved_text": unsolved, "settings_text": data["settings"] or "-"}],
                )
            )


if __name__ == "__main__":
    main()
