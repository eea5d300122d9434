"""Do signals of a bounded push-fess predict that its settings solve a screen? For each
setting of the scan (scan/c1-*.jsonl, whose corral tests all ran at 200: see round 20's --set
fix), at 50,000 and 100,000 expansions: the scan's status, then (status, most packing over 200
frontier states, lowest h, frontier states returned, the five largest packings, fewest
out-of-plan), and the settings.

    python docs/xsokoban/round20/screen2.py 18
"""

import ast
import glob
import json
import sys
from functools import partial
from pathlib import Path

from evosoko.evolve.evaluation import ProcessPool
from evosoko.search.fess_settings import FessSettings, solve_fess
from evosoko.search.packing_order import packing_order
from evosoko.search.solver import warm_up
from evosoko.sokoban.formats import read_levels

HERE = Path(__file__).resolve().parent
LEVELS = HERE.parents[3] / "shared" / "levels" / "xsokoban.txt"


def signals(level, settings, nodes):
    result = solve_fess(level, settings, node_limit=nodes, partial=200)
    order = packing_order(level)
    packs = [order.packing(list(p.state.boxes)) for p in result.partial]
    plans = [order.out_of_plan(list(p.state.boxes)) for p in result.partial]
    lowest = min(p.h for p in result.partial) if result.partial else -1
    return (
        result.status,
        max(packs, default=-1),
        lowest,
        len(result.partial),
        sorted(packs)[-5:],
        min(plans, default=-1),
    )


def scanned_settings():
    for path in sorted(glob.glob(str(HERE / "scan" / "c1-*.jsonl"))):
        record = json.loads(open(path).readline())
        knobs = {}
        for part in record["settings"].replace(", ", ",").split():
            key, value = part.split("=")
            knobs[key.split(".")[-1]] = ast.literal_eval(value)
        yield record["status"], FessSettings(
            weight=record["weight"],
            alternate=knobs["ALTERNATE"],
            room_cap=knobs["ROOM_LINKS"],
            corral_deadlocks=200,
            pack_macros=knobs["PACK_MACROS"],
            cluster_deadlocks=knobs["CLUSTER_DEADLOCKS"],
            connectivity_limit=knobs["CONNECTIVITY_LIMIT"],
            cell_weights=tuple(knobs["CELL_WEIGHTS"]),
        )


def main() -> None:
    level = read_levels(LEVELS)[int(sys.argv[1]) - 1]
    configs = list(scanned_settings())
    pool = ProcessPool(2, warm_up=partial(warm_up, ["push-fess"], 0))
    pool.prepare(None)
    for nodes in (50_000, 100_000):
        futures = [pool.submit(signals, (level, settings, nodes)) for _, settings in configs]
        for (status, settings), future in zip(configs, futures):
            print(nodes, status, future.result(), settings, flush=True)
    pool.close()


if __name__ == "__main__":
    main()
