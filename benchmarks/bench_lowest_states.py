"""Are the states a search rated closest to solved alive? The stored states of lowest h, checked.

For each XSokoban screen given: the search (default push-fess-bi) runs for ``--time-limit`` CPU
seconds; the ``--states`` distinct box placements of lowest heuristic among the states it stored
(push-fess-bi: its own push-fess's store) are each set up as a level of their own (the player
where it stood) and searched with push-astar for ``--check-limit`` seconds. A check that ends
``unsolvable`` proves the state dead: the search stored and rated best a dead end that its
deadlock tests did not catch.

    python benchmarks/bench_lowest_states.py --levels 41,71 [--algo push-fess-bi]
        [--time-limit 60] [--states 4] [--check-limit 60]

Prints one JSON object on its first line, then a markdown table with a row per state checked.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from _common import level_numbers, machine, markdown_table, positive, require_shared_levels

from evosoko.errors import EvosokoError
from evosoko.search import solve, warm_up
from evosoko.search.algorithms import algorithm_named, heuristic_for
from evosoko.search.search_run import DEFAULT_MEMORY
from evosoko.search.settings import settings_for
from evosoko.search.solver import _run_class
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.state import State


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--levels", type=level_numbers, required=True, help="XSokoban screens: 41,71 or 16-20"
    )
    parser.add_argument("--algo", default="push-fess-bi", help="the search whose store is read")
    parser.add_argument("--time-limit", type=float, default=60.0, help="its CPU seconds")
    parser.add_argument("--states", type=positive, default=4, help="states checked per screen")
    parser.add_argument(
        "--check-limit", type=float, default=60.0, help="seconds of each push-astar check"
    )
    return parser.parse_args()


def lowest_states(level: Level, algo: str, time_limit: float, count: int) -> tuple[str, list]:
    """The search's status and its ``count`` stored states of lowest h with distinct boxes,
    each as (node, h, closed, boxes, player where it stood)."""
    algorithm = algorithm_named(algo)
    heuristic = heuristic_for(algorithm, None)
    settings = settings_for(algorithm.name)
    warm_up([algorithm.name], level.cells)  # as solve does: compiling is not search time
    run = _run_class(algorithm)(
        level, algorithm, heuristic, time_limit, None, settings, 0, DEFAULT_MEMORY, clock="cpu"
    )
    status = run.search()
    nodes = run.store.arrays.nodes
    h = nodes.h[: run.store.size]
    found, seen = [], set()
    for node in np.argsort(h, kind="stable").tolist():
        boxes = tuple(int(box) for box in nodes.boxes[node])
        if boxes not in seen:
            seen.add(boxes)
            found.append((node, int(h[node]), int(nodes.closed[node]), boxes, nodes.actual[node]))
        if len(found) == count:
            break
    return status, found


def check_state(level: Level, boxes: tuple[int, ...], player: int, limit: float) -> dict:
    """push-astar from the position of ``boxes`` and ``player``: its status and expansions."""
    rows = level.rows(State.of(int(player), boxes))
    position = level_from_rows(rows, title=f"{level.name} (a stored state)")
    result = solve(position, "push-astar", time_limit=limit)
    return {"check": result.status, "check_expanded": result.expanded}


def main() -> None:
    args = parse_arguments()
    shared = require_shared_levels()
    try:
        levels = read_levels(shared / "xsokoban.txt")
        screens = args.levels
        if max(screens) > len(levels):
            raise ValueError(f"--levels: screen {max(screens)} past the last, {len(levels)}")
        warm_up([args.algo, "push-astar"])
        rows = []
        for screen in screens:
            level = levels[screen - 1]
            status, states = lowest_states(level, args.algo, args.time_limit, args.states)
            for node, h, closed, boxes, player in states:
                rows.append(
                    {
                        "screen": screen,
                        "search": status,
                        "node": node,
                        "h": h,
                        "expanded_by_search": bool(closed),
                        "on_goals": int(level.goals[list(boxes)].sum()),
                        "boxes": len(boxes),
                        **check_state(level, boxes, player, args.check_limit),
                    }
                )
                print(f"screen {screen}: node {node} h {h}: {rows[-1]['check']}", file=sys.stderr)
    except (EvosokoError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    report = {
        "benchmark": "lowest_states",
        "machine": machine(),
        "algo": args.algo,
        "time_limit": args.time_limit,
        "states": rows,
    }
    print(json.dumps(report))
    print()
    columns = [
        ("screen", "screen"),
        ("node", "node"),
        ("h", "h"),
        ("on goals", "on_goals"),
        ("boxes", "boxes"),
        ("push-astar", "check"),
        ("its expansions", "check_expanded"),
    ]
    print(markdown_table(columns, rows))


if __name__ == "__main__":
    main()
