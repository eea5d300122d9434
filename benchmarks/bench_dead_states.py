"""How many of the states push-fess expands are provably lost by a cluster deadlock test.

Runs push-fess on XSokoban screens to a node limit, draws a sample of the states it expanded
(fixed seed) and tests each with :func:`evosoko.sokoban.corral_deadlock.cluster_deadlock`:

- ``last_lost``: the cluster of the box pushed last is lost: the states the search's own test
  (``[search.fess] cluster_deadlocks``) skips when it is on, the roots of lost subtrees;
- ``any_lost``: some cluster of the state is lost (a lost root and every state below it).

By default the search runs without cluster tests (``--with-cluster-tests`` turns them on, to
see what they leave), so the figures say how much of the search is spent below lost states.

    python benchmarks/bench_dead_states.py [--levels 4 12 19] [--nodes 100000] [--sample 600]
        [--limit 500] [--with-cluster-tests] [--search-limit N]

``--search-limit`` sets the positions of the search's own cluster tests (``cluster_limit``). States
the search popped and then skipped as lost at the last push are among those sampled: they were
expanded no further, so only ``any_lost`` beyond ``last_lost`` counts work spent below a lost state.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import load_level, machine, positive, report

from evosoko.search import FessSettings, solve
from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.corral_deadlock import cluster_deadlock, make_corral_scratch


def expanded_states(
    level, nodes: int, settings: FessSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes, player, last step) of every state push-fess expanded within ``nodes``."""
    from evosoko.search.algorithms import algorithm_named
    from evosoko.search.fess.run import FeatureSpaceRun
    from evosoko.search.search_run import DEFAULT_MEMORY

    solve(level, "push-fess", node_limit=1)  # compiled before the search
    run = FeatureSpaceRun(
        level, algorithm_named("push-fess"), "matching", None, nodes, settings, 0, DEFAULT_MEMORY
    )
    run.search()
    store = run.store
    closed = np.flatnonzero(store.field("closed") == 1)
    return (
        store.field("boxes")[closed].astype(np.int64),
        store.field("actual")[closed].astype(np.int64),
        store.field("step")[closed].astype(np.int64),
    )


def lost_counts(level, states, sample: int, limit: int) -> dict:
    """Cluster tests on a sample of ``states``: how many are lost at the last push, at all."""
    boxes, players, steps = states
    rng = np.random.default_rng(0)
    chosen = rng.choice(len(boxes), size=min(sample, len(boxes)), replace=False)
    tables = level_arrays(level)
    scratch = make_corral_scratch(level.cells, limit)
    last = every = 0
    for row in chosen.tolist():
        occupied = np.zeros(level.cells, dtype=np.bool_)
        occupied[boxes[row]] = True
        player, code = int(players[row]), int(steps[row])
        lost = [
            bool(cluster_deadlock(tables, occupied, player, int(box), scratch))
            for box in boxes[row]
        ]
        pushed = player + int(tables.deltas[code & 3]) if 0 <= code < 4 * level.cells else -1
        last += bool(pushed >= 0 and occupied[pushed] and lost[list(boxes[row]).index(pushed)])
        every += any(lost)
    return {"sampled": len(chosen), "last_lost": last, "any_lost": every}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=positive, nargs="+", default=[4, 12, 19])
    parser.add_argument("--nodes", type=positive, default=100_000, help="states push-fess expands")
    parser.add_argument("--sample", type=positive, default=600, help="expanded states tested")
    parser.add_argument("--limit", type=positive, default=500, help="positions per test")
    parser.add_argument("--with-cluster-tests", action="store_true")
    parser.add_argument("--search-limit", type=positive, help="positions per test in the search")
    args = parser.parse_args()
    settings = FessSettings(
        cluster_deadlocks=1 << 14 if args.with_cluster_tests else 0,
        cluster_limit=args.search_limit or FessSettings().cluster_limit,
    )

    rows = []
    for index in args.levels:
        level = load_level("xsokoban.txt", index)
        started = time.process_time()
        states = expanded_states(level, args.nodes, settings)
        counts = lost_counts(level, states, args.sample, args.limit)
        share = counts["any_lost"] / max(counts["sampled"], 1)
        rows.append(
            {
                "screen": index,
                "boxes": level.box_count,
                **counts,
                "any_share": round(share, 3),
                "cpu_seconds": round(time.process_time() - started, 1),
            }
        )
    summary = {
        "benchmark": "dead-states",
        "machine": machine(),
        "nodes": args.nodes,
        "limit": args.limit,
        "cluster_tests_in_search": args.with_cluster_tests,
        "search_limit": settings.cluster_limit,
        "levels": rows,
    }
    columns = [
        ("screen", "screen"),
        ("boxes", "boxes"),
        ("sampled", "sampled"),
        ("lost at the last push", "last_lost"),
        ("lost by some cluster", "any_lost"),
        ("share", "any_share"),
    ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
