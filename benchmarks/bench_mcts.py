"""Monte Carlo tree search's settings, compared under an iteration budget: levels solved and
iterations used, per setting.

A budget in iterations (``--node-limit``), not seconds, so the figures do not depend on the
machine's load: every setting runs the same iterations on the same levels and seeds. A setting
is a list of ``NAME=VALUE`` overrides of the module constants of :mod:`evosoko.search.mcts`
(``EXPLORATION_CONSTANT``, ``POLICY_TEMPERATURE``, ``PRIOR_UNIFORM_SHARE``,
``LOST_REWARD_FACTOR``, ``ROLLOUT_PUSHES_PER_DISTANCE``, ``ROLLOUT_EXTRA_PUSHES``); each
``--setting`` is one row, the defaults first.

    python benchmarks/bench_mcts.py --levels boxoban/medium/train-000.txt --first 50 \\
        --seeds 0,1,2 --node-limit 20000 \\
        --setting EXPLORATION_CONSTANT=1 --setting PRIOR_UNIFORM_SHARE=0.25

Prints one JSON object, then a markdown table: levels x seeds solved, the iterations of all runs
(an unsolved run counts its whole budget), seconds, and the levels left unsolved.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from _common import machine, markdown_table, positive, require_shared_levels

from evosoko.errors import EvosokoError
from evosoko.search import mcts, solve, warm_up
from evosoko.sokoban.formats import read_levels

TUNABLE = (
    "EXPLORATION_CONSTANT",
    "POLICY_TEMPERATURE",
    "PRIOR_UNIFORM_SHARE",
    "LOST_REWARD_FACTOR",
    "ROLLOUT_PUSHES_PER_DISTANCE",
    "ROLLOUT_EXTRA_PUSHES",
)


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--levels", default="boxoban/medium/train-000.txt", help="file under ../shared/levels"
    )
    parser.add_argument("--first", type=positive, default=50, help="the file's first N levels")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds")
    parser.add_argument("--node-limit", type=positive, default=20_000, help="iterations per run")
    parser.add_argument("--heuristic", default="matching", help="the reward's objective")
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        help="NAME=VALUE[,NAME=VALUE...]: one setting to compare with the defaults",
    )
    return parser.parse_args()


def parse_setting(text: str) -> dict[str, float]:
    """``NAME=VALUE,...`` as a dict; unknown names exit with status 2."""
    setting = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in TUNABLE:
            print(
                f"error: unknown setting {name!r}; choose from {', '.join(TUNABLE)}",
                file=sys.stderr,
            )
            raise SystemExit(2)
        setting[name] = int(value) if name.startswith("ROLLOUT") else float(value)
    return setting


def run_setting(setting: dict, levels, seeds: list[int], args: argparse.Namespace) -> dict:
    defaults = {name: getattr(mcts, name) for name in TUNABLE}
    for name, value in setting.items():
        setattr(mcts, name, value)
    try:
        started = time.perf_counter()
        solved = iterations = 0
        unsolved = []
        for seed in seeds:
            for level in levels:
                result = solve(level, "mcts", args.heuristic, node_limit=args.node_limit, seed=seed)
                solved += result.solved
                iterations += result.expanded
                if not result.solved:
                    unsolved.append(f"{level.name}/{seed}")
        return {
            "setting": " ".join(f"{k}={v}" for k, v in setting.items()) or "defaults",
            "runs": len(levels) * len(seeds),
            "solved": solved,
            "iterations": iterations,
            "seconds": round(time.perf_counter() - started, 2),
            "unsolved": unsolved,
        }
    finally:
        for name, value in defaults.items():
            setattr(mcts, name, value)


def main() -> None:
    args = parse_arguments()
    shared = require_shared_levels()
    try:
        levels = read_levels(shared / args.levels)[: args.first]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    seeds = [int(seed) for seed in args.seeds.split(",")]
    settings = [{}] + [parse_setting(text) for text in args.setting]
    warm_up(["mcts"])
    rows = []
    for setting in settings:
        rows.append(run_setting(setting, levels, seeds, args))
        print(f"{rows[-1]['setting']}: {rows[-1]['solved']}/{rows[-1]['runs']}", file=sys.stderr)
    print(
        json.dumps(
            {
                "benchmark": "mcts",
                "machine": machine(),
                "load": round(os.getloadavg()[0], 2),
                "levels": args.levels,
                "first": args.first,
                "seeds": seeds,
                "node_limit": args.node_limit,
                "defaults": {name: getattr(mcts, name) for name in TUNABLE},
                "rows": rows,
            }
        )
    )
    print()
    table = [{**row, "unsolved_text": ", ".join(row["unsolved"]) or "-"} for row in rows]
    print(
        markdown_table(
            [
                ("setting", "setting"),
                ("runs", "runs"),
                ("solved", "solved"),
                ("iterations", "iterations"),
                ("seconds", "seconds"),
                ("unsolved", "unsolved_text"),
            ],
            table,
        )
    )


if __name__ == "__main__":
    main()
