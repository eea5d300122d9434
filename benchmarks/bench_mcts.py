"""Monte Carlo tree search's settings, compared under an iteration budget: levels solved and
iterations used, per setting.

A budget in iterations (``--node-limit``), not seconds, so the figures do not depend on the
machine's load: every setting runs the same iterations on the same levels and seeds. A setting
is a list of ``KEY=VALUE`` knobs of mcts's settings (:class:`evosoko.search.MctsSettings`, the
``[search.mcts]`` table: ``exploration``, ``temperature``, ``prior_uniform``, ``lost_reward``,
``rollout_pushes_per_distance``, ``rollout_extra_pushes``, ...; VALUE is TOML), separated by
commas; each ``--setting`` is one row, the defaults first.

    python benchmarks/bench_mcts.py --levels boxoban/medium/train-000.txt --first 50 \\
        --seeds 0,1,2 --node-limit 20000 \\
        --setting exploration=1 --setting prior_uniform=0.25

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

from evosoko.api import search_settings_of
from evosoko.errors import EvosokoError
from evosoko.search import MctsSettings, solve, warm_up
from evosoko.search.settings import settings_text
from evosoko.sokoban.formats import read_levels


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
        help="KEY=VALUE[,KEY=VALUE...] of [search.mcts]: one setting to compare with the defaults",
    )
    return parser.parse_args()


def parse_setting(text: str) -> MctsSettings:
    """``KEY=VALUE,...`` of ``[search.mcts]`` as settings; a bad key or value exits with status
    2 and one line."""
    overrides = [f"mcts.{part.strip()}" for part in filter(None, text.split(","))]
    try:
        return search_settings_of(None, overrides).mcts
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def run_setting(settings: MctsSettings, levels, seeds: list[int], args: argparse.Namespace) -> dict:
    started = time.perf_counter()
    solved = iterations = 0
    unsolved = []
    for seed in seeds:
        for level in levels:
            result = solve(
                level,
                "mcts",
                args.heuristic,
                node_limit=args.node_limit,
                seed=seed,
                settings=settings,
            )
            solved += result.solved
            iterations += result.expanded
            if not result.solved:
                unsolved.append(f"{level.name}/{seed}")
    text = settings_text(settings)
    return {
        "setting": "defaults" if text == "-" else text,
        "runs": len(levels) * len(seeds),
        "solved": solved,
        "iterations": iterations,
        "seconds": round(time.perf_counter() - started, 2),
        "unsolved": unsolved,
    }


def main() -> None:
    args = parse_arguments()
    shared = require_shared_levels()
    try:
        levels = read_levels(shared / args.levels)[: args.first]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    seeds = [int(seed) for seed in args.seeds.split(",")]
    settings = [MctsSettings()] + [parse_setting(text) for text in args.setting]
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
                "defaults": MctsSettings().model_dump(),
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
