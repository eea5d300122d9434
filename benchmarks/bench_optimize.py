"""How much ``evosoko optimize`` shortens solutions: GA solutions on Boxoban, search on XSokoban.

Two suites, each reading solutions that another command wrote:

- ``--compare RUN_DIR``: the solved GA rows of an ``evosoko compare`` folder (its
  ``results.csv``, e.g. of ``configs/compare-boxoban.toml``) are optimized moves first; the
  report gives, per solver, the median moves and pushes before and after, beside the median of
  BFS's move-optimal counts on the same levels (BFS is run here).
- ``--search JSONL``: the solved rows of ``bench_search.py --results`` (XSokoban) are optimized
  pushes first; the report gives their pushes before and after against the best known push
  counts (``--best-known``, default ``../shared/levels/xsokoban-best-pushes.csv``).

``--results FILE.jsonl`` appends one line per solution and reuses it on a rerun with the same
objective and seconds. Prints one JSON object, then a markdown table.

    python benchmarks/bench_optimize.py --compare runs/CMP --seconds 10 --results opt.jsonl
    python benchmarks/bench_optimize.py --search xsokoban-fess.jsonl --seconds 60
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
from pathlib import Path

from _common import SHARED_LEVELS, machine, markdown_table

from evosoko.optimize import optimize_solution
from evosoko.search import solve
from evosoko.sokoban.formats import read_levels


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", type=Path, help="an evosoko compare output folder")
    parser.add_argument("--search", type=Path, help="a bench_search.py --results JSONL file")
    parser.add_argument(
        "--best-known",
        type=Path,
        default=SHARED_LEVELS / "xsokoban-best-pushes.csv",
        help="CSV of best known push counts (screen, best_known_pushes, ...)",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per solution")
    parser.add_argument("--objective", default=None, help="moves, pushes or pareto")
    parser.add_argument("--results", type=Path, default=None, help="JSONL of per-solution rows")
    arguments = parser.parse_args()
    if (arguments.compare is None) == (arguments.search is None):
        parser.error("give exactly one of --compare and --search")
    return arguments


class Rows:
    """Per-solution rows, appended to a JSONL file and reused from it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[tuple, dict] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.known[self.key(row)] = row

    @staticmethod
    def key(row: dict) -> tuple:
        fields = ("source", "solver", "level", "seed", "objective", "seconds")
        return tuple(row.get(name) for name in fields)

    def get(self, key: dict) -> dict | None:
        return self.known.get(self.key(key))

    def add(self, row: dict) -> None:
        self.known[self.key(row)] = row
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(json.dumps(row) + "\n")


def optimized_row(key: dict, level, lurd: str) -> dict:
    result = optimize_solution(level, lurd, key["objective"], key["seconds"])
    return {
        **key,
        "moves_before": result.original.moves,
        "pushes_before": result.original.pushes,
        "moves_after": result.best.moves,
        "pushes_after": result.best.pushes,
        "optimize_seconds": round(result.seconds, 3),
        "load": round(os.getloadavg()[0], 2),
    }


def compare_suite(args, rows: Rows) -> dict:
    config = (args.compare / "compare.toml").read_text(encoding="utf-8")
    import tomllib

    levels_path = Path(tomllib.loads(config)["compare"]["levels"])
    if not levels_path.is_absolute():
        levels_path = args.compare / levels_path
    levels = read_levels(levels_path)
    objective = args.objective or "moves"
    bfs_moves: dict[int, int] = {}
    out = []
    with open(args.compare / "results.csv", encoding="utf-8") as file:
        records = [
            r for r in csv.DictReader(file) if r["kind"] == "ga" and r["solved"] in ("1", "True")
        ]
    for record in records:
        index = int(record["level_index"])
        level = levels[index - 1]
        key = {
            "source": str(args.compare),
            "solver": record["solver"],
            "level": index,
            "seed": record["seed"],
            "objective": objective,
            "seconds": args.seconds,
        }
        row = rows.get(key)
        if row is None:
            row = optimized_row(key, level, record["solution"])
            rows.add(row)
        if index not in bfs_moves:
            bfs_moves[index] = solve(level, "bfs", time_limit=60).moves
        row["bfs_moves"] = bfs_moves[index]
        out.append(row)
        print(
            f"{record['solver']} {index} seed {record['seed']}: moves {row['moves_before']} -> "
            f"{row['moves_after']} (bfs {row['bfs_moves']}), pushes {row['pushes_before']} -> "
            f"{row['pushes_after']}",
            file=sys.stderr,
            flush=True,
        )
    summary = {}
    for solver in sorted({row["solver"] for row in out}):
        mine = [row for row in out if row["solver"] == solver]
        summary[solver] = {
            "solutions": len(mine),
            "median_moves_before": statistics.median(r["moves_before"] for r in mine),
            "median_moves_after": statistics.median(r["moves_after"] for r in mine),
            "median_pushes_before": statistics.median(r["pushes_before"] for r in mine),
            "median_pushes_after": statistics.median(r["pushes_after"] for r in mine),
            "median_bfs_moves": statistics.median(r["bfs_moves"] for r in mine),
            "at_bfs_optimum": sum(r["moves_after"] == r["bfs_moves"] for r in mine),
        }
    return {"objective": objective, "seconds": args.seconds, "solvers": summary}


def search_suite(args, rows: Rows) -> dict:
    best_known = {}
    with open(args.best_known, encoding="utf-8") as file:
        for record in csv.DictReader(file):
            best_known[int(record["screen"])] = int(record["best_known_pushes"])
    objective = args.objective or "pushes"
    out = []
    levels_cache: dict[str, list] = {}
    for line in args.search.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("status") != "solved" or not record.get("solution"):
            continue
        relative = record["file"]
        if relative not in levels_cache:
            levels_cache[relative] = read_levels(SHARED_LEVELS / relative)
        level = levels_cache[relative][record["index"] - 1]
        key = {
            "source": str(args.search),
            "solver": record["algo"],
            "level": record["index"],
            "seed": None,
            "objective": objective,
            "seconds": args.seconds,
        }
        row = rows.get(key)
        if row is None:
            row = optimized_row(key, level, record["solution"])
            rows.add(row)
        row["best_known"] = best_known.get(record["index"])
        out.append(row)
        print(
            f"{record['algo']} {record['index']}: pushes {row['pushes_before']} -> "
            f"{row['pushes_after']} (best known {row['best_known']}), moves "
            f"{row['moves_before']} -> {row['moves_after']}",
            file=sys.stderr,
            flush=True,
        )
    summary = {}
    for solver in sorted({row["solver"] for row in out}):
        mine = [row for row in out if row["solver"] == solver and row["best_known"]]
        summary[solver] = {
            "solutions": len(mine),
            "levels": [r["level"] for r in mine],
            "pushes_before": sum(r["pushes_before"] for r in mine),
            "pushes_after": sum(r["pushes_after"] for r in mine),
            "best_known": sum(r["best_known"] for r in mine),
            "at_best_known": sum(r["pushes_after"] <= r["best_known"] for r in mine),
            "median_excess_before": statistics.median(
                r["pushes_before"] / r["best_known"] - 1 for r in mine
            )
            if mine
            else None,
            "median_excess_after": statistics.median(
                r["pushes_after"] / r["best_known"] - 1 for r in mine
            )
            if mine
            else None,
        }
    return {"objective": objective, "seconds": args.seconds, "solvers": summary}


def main() -> None:
    args = parse_arguments()
    rows = Rows(args.results)
    if args.compare is not None:
        report = {"benchmark": "optimize", "suite": "compare", **compare_suite(args, rows)}
        columns = [
            ("solver", "solver"),
            ("solutions", "solutions"),
            ("moves before", "median_moves_before"),
            ("moves after", "median_moves_after"),
            ("BFS moves", "median_bfs_moves"),
            ("at BFS optimum", "at_bfs_optimum"),
            ("pushes before", "median_pushes_before"),
            ("pushes after", "median_pushes_after"),
        ]
    else:
        report = {"benchmark": "optimize", "suite": "search", **search_suite(args, rows)}
        columns = [
            ("solver", "solver"),
            ("solutions", "solutions"),
            ("pushes before", "pushes_before"),
            ("pushes after", "pushes_after"),
            ("best known", "best_known"),
            ("at best known", "at_best_known"),
            ("median excess before", "median_excess_before"),
            ("median excess after", "median_excess_after"),
        ]
    report["machine"] = machine()
    print(json.dumps(report))
    print()
    table = [{"solver": name, **data} for name, data in report["solvers"].items()]
    print(markdown_table(columns, table))


if __name__ == "__main__":
    main()
