"""Search guided by the deadlock network against push-A*: expanded nodes, time, pushes.

Runs ``push-astar``, ``push-learned`` and ``push-learned-source`` on the first ``--levels``
levels of Boxoban hard (default 100) with one time limit per level, one level after the other
in this process (kernels compiled and the model loaded before timing). Reports per algorithm:
levels solved, total and median expanded nodes, total and median seconds, and total pushes of
the solutions (push-A*'s are optimal), and the time per expanded node. Prints one JSON object,
then a markdown table.

    python benchmarks/bench_learned.py [--levels 100] [--time-limit 60] [--model PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics

from _common import machine, markdown_table, require_shared_levels

from evosoko.search import solve, warm_up
from evosoko.sokoban.formats import read_levels

ALGORITHMS = ("push-astar", "push-learned", "push-learned-source")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=100)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--model", default=None)
    parser.add_argument("--algo", action="append", choices=ALGORITHMS)
    arguments = parser.parse_args()
    levels = read_levels(require_shared_levels() / "boxoban" / "hard" / "000.txt")
    levels = levels[: arguments.levels]
    warm_up()
    solve(levels[0], "push-learned", model=arguments.model, node_limit=5)  # loads the model
    report = {"levels": len(levels), "time_limit": arguments.time_limit, "machine": machine()}
    rows = []
    for algo in arguments.algo or ALGORITHMS:
        results = [
            solve(level, algo, time_limit=arguments.time_limit, model=arguments.model)
            for level in levels
        ]
        expanded = [r.expanded for r in results]
        seconds = [r.seconds for r in results]
        summary = {
            "solved": sum(r.solved for r in results),
            "expanded": sum(expanded),
            "median_expanded": statistics.median(expanded),
            "seconds": round(sum(seconds), 3),
            "median_seconds": round(statistics.median(seconds), 4),
            "pushes": sum(r.pushes for r in results if r.solved),
            "ms_per_expansion": round(1000 * sum(seconds) / max(1, sum(expanded)), 4),
            "per_level": [[r.status, r.expanded, round(r.seconds, 4), r.pushes] for r in results],
        }
        report[algo] = summary
        rows.append({"algo": algo, **{k: v for k, v in summary.items() if k != "per_level"}})
    print(json.dumps(report))
    columns = [
        ("algorithm", "algo"),
        ("solved", "solved"),
        ("expanded", "expanded"),
        ("median expanded", "median_expanded"),
        ("seconds", "seconds"),
        ("median s", "median_seconds"),
        ("pushes", "pushes"),
        ("ms per expansion", "ms_per_expansion"),
    ]
    print(markdown_table(columns, rows))


if __name__ == "__main__":
    main()
