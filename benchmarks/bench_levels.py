"""Evolved levels measured: against SokEvo, against our generators, a MAP-Elites run, GA vs search.

Four measurements of issue 54, each a subcommand (every figure is push-A*'s optimal pushes and
expanded nodes, and every CPU figure is process CPU time, so that a loaded machine gives the
same counts):

- ``sokevo``: SokEvo on its own ground. For each SokEvo level of the chosen sizes (68 at 8x8,
  30 at 7x7 in ``large-dev/sokevo.xsb``) one evolution of the same size and box count
  (``configs/levels-sokevo.toml``, seed = the level's index, ``--seconds`` CPU seconds of
  certificates each), its best level solved again by push-A* with the same node limit as the
  SokEvo level. Medians, quartiles, maxima, the ratio of medians and the CPU per level.
- ``generators``: at an equal CPU budget per trial, an evolution against the reverse, markov
  and mask generators of ``evosoko generate``: the pushes and push-A* nodes of everything each
  produced, and of the best level of each trial.
- ``map-elites``: a run of ``configs/levels-map-elites.toml`` into a run folder: coverage, the
  hardest level per cell, the report (``--screenshot PNG``: drawn by headless Chromium).
- ``compare``: the GA (``configs/pushes.toml``) and push-A* on 20 evolved levels in one
  ``evosoko compare``: their solve rates.

Long measurements write each finished level to ``--out`` (JSON lines) as they go and skip the
ones already there when run again, so they can be stopped and continued.

    python benchmarks/bench_levels.py sokevo --sizes 8x8,7x7 --seconds 30 \\
        --out runs/bench/sokevo.jsonl
    python benchmarks/bench_levels.py generators --classes 8x8:7,7x7:6 --seconds 30 --trials 5
    python benchmarks/bench_levels.py map-elites --screenshot runs/bench/map-elites.png
    python benchmarks/bench_levels.py compare --levels levels/evolved-sokevo.xsb --count 20
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, machine, markdown_table, require_shared_levels

import evosoko
from evosoko.errors import ConfigError
from evosoko.generate import generation_spec
from evosoko.generate.generator import generate_one
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.session import evolve
from evosoko.search import solve
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.writing import write_levels

SOKEVO = "large-dev/sokevo.xsb"
PRESETS = REPO_ROOT / "configs"
NODE_LIMIT = 5_000_000
"""push-A*'s node limit for every level measured here, SokEvo's and ours."""


# ---- small helpers ----------------------------------------------------------------------------
def quartiles(values: list[float]) -> dict[str, float | int | None]:
    """Count, median, quartiles and maximum of ``values`` (None when empty)."""
    if not values:
        return {"n": 0, "median": None, "q1": None, "q3": None, "max": None}
    ordered = sorted(values)
    if len(ordered) > 1:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return {
        "n": len(ordered),
        "median": statistics.median(ordered),
        "q1": q1,
        "q3": q3,
        "max": ordered[-1],
    }


def push_astar(level: Level) -> dict[str, Any]:
    """push-A* on ``level`` with :data:`NODE_LIMIT`: status, optimal pushes, expanded, CPU."""
    started = time.process_time()
    found = solve(level, "push-astar", node_limit=NODE_LIMIT)
    return {
        "status": str(found.status),
        "pushes": found.pushes if found.solved else None,
        "expanded": int(found.expanded),
        "cpu": round(time.process_time() - started, 3),
    }


def done_records(path: Path | None) -> dict[str, dict]:
    """The records a previous run of this measurement wrote to ``path``, by key."""
    if path is None or not path.is_file():
        return {}
    records = {}
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short when the measurement was stopped
        records[record["key"]] = record
    return records


def append_record(path: Path | None, record: dict) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(record) + "\n")


def preset(name: str, **changes: Any) -> LevelsConfig:
    return evosoko.load_levels_config(PRESETS / f"{name}.toml").set(changes)


def evolved_levels(config: LevelsConfig) -> tuple[list[Level], dict[str, Any]]:
    """Run one evolution; the levels it emits, best first, and the run's figures."""
    evolved = evolve(config)
    return evolved.levels(), {
        "generations": evolved.evolution.generation,
        "certified": evolved.evolution.certifications,
        "certificate_cpu": round(evolved.evolution.cpu_seconds, 2),
        "cpu": round(evolved.process_seconds, 2),
        "stop": str(evolved.stop),
    }


# ---- sokevo --------------------------------------------------------------------------------------
def sokevo(arguments: argparse.Namespace) -> None:
    levels = read_levels(require_shared_levels() / SOKEVO)
    sizes = arguments.sizes.split(",")
    classes: dict[tuple[str, int], list[Level]] = {}
    for level in levels:
        size = f"{level.width}x{level.height}"
        if size in sizes and (not arguments.boxes or level.box_count in arguments.boxes):
            classes.setdefault((size, level.box_count), []).append(level)
    done = done_records(arguments.out)
    records = []
    for (size, boxes), theirs in sorted(classes.items()):
        key = f"sokevo-{size}-{boxes}-{arguments.seconds:g}"
        if key not in done:
            done[key] = sokevo_record(size, boxes, theirs, key, arguments.seconds)
            append_record(arguments.out, done[key])
            print(_progress_line(done[key]), file=sys.stderr, flush=True)
        records.append(done[key])
    if arguments.xsb:
        write_evolved(records, arguments.xsb, arguments.per_class)
    summary, rows = sokevo_summary(records, sizes, arguments.seconds)
    report(summary, SOKEVO_COLUMNS, rows)


def sokevo_record(
    size: str, boxes: int, theirs: list[Level], key: str, seconds: float
) -> dict[str, Any]:
    """SokEvo's levels of one size and box count against as many evolved ones: one evolution
    of ``seconds`` CPU seconds of certificates per SokEvo level, its best distinct levels."""
    count = len(theirs)
    config = preset(
        "levels-sokevo",
        **{
            "levels.name": f"sokevo-{size}-{boxes}",
            "levels.size": size,
            "levels.boxes": boxes,
            "levels.seed": boxes,
            "levels.population": max(16, count),
            "levels.offspring": max(16, count),
            "levels.budget.seconds": seconds * count,
            "output.keep": count,
        },
    )
    started = time.process_time()
    best, run = evolved_levels(config)
    cpu = time.process_time() - started
    evolved = []
    for level in best:
        ours = push_astar(level)
        notes = dict(level.notes)
        if ours["pushes"] != int(notes["Pushes"]):
            raise SystemExit(f"error: {key}: a fresh solve disagrees with the certificate")
        evolved.append({**ours, "rows": level.rows(), "solution": notes["Solution"]})
    return {
        "key": key,
        "size": size,
        "boxes": boxes,
        "sokevo": [{"title": level.title, **push_astar(level)} for level in theirs],
        "evolved": evolved,
        "run": run,
        "cpu": round(cpu, 2),
        "cpu_per_level": round(cpu / max(1, len(evolved)), 2),
    }


SOKEVO_COLUMNS = [
    ("size", "size"),
    ("levels", "n"),
    ("SokEvo median", "sokevo_median"),
    ("SokEvo max", "sokevo_max"),
    ("evolved median", "evolved_median"),
    ("evolved q1-q3", "evolved_quartiles"),
    ("evolved max", "evolved_max"),
    ("median ratio", "ratio"),
    ("CPU s per level (median)", "cpu_median"),
]


def sokevo_summary(
    records: list[dict], sizes: list[str], seconds: float
) -> tuple[dict[str, Any], list[dict]]:
    summary: dict[str, Any] = {
        "benchmark": "levels-sokevo",
        "seconds_per_level": seconds,
        "node_limit": NODE_LIMIT,
        "machine": machine(),
        "sizes": {},
    }
    rows = []
    for size in sizes:
        chosen = [record for record in records if record["size"] == size]
        sokevo_levels = [level for record in chosen for level in record["sokevo"]]
        evolved_levels = [level for record in chosen for level in record["evolved"]]
        theirs = quartiles([level["pushes"] for level in sokevo_levels if level["pushes"]])
        ours = quartiles([level["pushes"] for level in evolved_levels])
        cpu_total = sum(record["cpu"] for record in chosen)
        ratio = ours["median"] / theirs["median"] if ours["n"] and theirs["median"] else None
        summary["sizes"][size] = {
            "sokevo_pushes": theirs,
            "evolved_pushes": ours,
            "sokevo_expanded": quartiles([level["expanded"] for level in sokevo_levels]),
            "evolved_expanded": quartiles([level["expanded"] for level in evolved_levels]),
            "median_ratio": None if ratio is None else round(ratio, 3),
            "evolved_cpu_seconds_total": round(cpu_total, 1),
            "evolved_cpu_seconds_per_level": round(cpu_total / max(1, ours["n"]), 2),
            "by_boxes": {
                str(record["boxes"]): {
                    "sokevo": sorted(level["pushes"] or 0 for level in record["sokevo"]),
                    "evolved": sorted(level["pushes"] for level in record["evolved"]),
                    "cpu": record["cpu"],
                }
                for record in chosen
            },
        }
        rows.append(
            {
                "size": size,
                "n": f"{theirs['n']} / {ours['n']}",
                "sokevo": _spread(theirs),
                "evolved": _spread(ours),
                "ratio": "-" if ratio is None else f"{ratio:.2f}x",
                "cpu": summary["sizes"][size]["evolved_cpu_seconds_per_level"],
            }
        )
    return summary, rows


SOKEVO_COLUMNS = [
    ("size", "size"),
    ("levels (SokEvo / evolved)", "n"),
    ("SokEvo pushes median (q1-q3) max", "sokevo"),
    ("evolved pushes median (q1-q3) max", "evolved"),
    ("median ratio", "ratio"),
    ("evolution CPU s per level", "cpu"),
]


def write_evolved(records: list[dict], path: Path, per_class: int | None = None) -> None:
    """The evolved levels as one collection (the best ``per_class`` of each size and box
    count, or all), titled after their class and each carrying its certificate (replayed
    before it is written)."""
    from evosoko.sokoban.build import level_from_rows

    levels = []
    for record in sorted(records, key=lambda r: (r["size"], r["boxes"])):
        for number, evolved in enumerate(record["evolved"][:per_class], start=1):
            notes = (
                ("Certifier", "push-astar"),
                ("Pushes", str(evolved["pushes"])),
                ("Expanded", str(evolved["expanded"])),
                ("Class", f"{record['size']}, {record['boxes']} boxes (as SokEvo's)"),
                ("Solution", evolved["solution"]),
            )
            title = f"evolved-{record['size']}-{record['boxes']}-{number:02d}"
            level = level_from_rows(evolved["rows"], title=title, notes=notes)
            check = evosoko.verify(level, evolved["solution"])
            if not (check.solved and check.pushes == evolved["pushes"]):
                raise SystemExit(f"error: {title}: its solution does not solve it")
            levels.append(level)
    write_levels(levels, path)


def _progress_line(record: dict) -> str:
    theirs = sorted(level["pushes"] or 0 for level in record["sokevo"])
    ours = sorted(level["pushes"] for level in record["evolved"])
    return f"{record['key']}: SokEvo {theirs}, evolved {ours} ({record['cpu']} CPU s)"


# ---- generators ----------------------------------------------------------------------------------
GENERATORS = ("reverse", "markov", "mask")


def generators(arguments: argparse.Namespace) -> None:
    classes = [
        (size, int(boxes))
        for size, boxes in (item.split(":") for item in arguments.classes.split(","))
    ]
    done = done_records(arguments.out)
    records = []
    for size, boxes in classes:
        for trial in range(arguments.trials):
            for method in arguments.methods.split(","):
                key = f"{method}-{size}-{boxes}-{trial}-{arguments.seconds:g}"
                if key not in done:
                    done[key] = generator_record(method, size, boxes, trial, arguments.seconds)
                    done[key]["key"] = key
                    append_record(arguments.out, done[key])
                    print(f"{key}: {done[key]['best']}", file=sys.stderr, flush=True)
                records.append(done[key])
    summary = {
        "benchmark": "levels-generators",
        "seconds_per_trial": arguments.seconds,
        "trials": arguments.trials,
        "machine": machine(),
        "classes": {},
    }
    rows = []
    for size, boxes in classes:
        by_method = {}
        for method in arguments.methods.split(","):
            chosen = [
                r for r in records if (r["method"], r["size"], r["boxes"]) == (method, size, boxes)
            ]
            every = [p for r in chosen for p in r["pushes"]]
            nodes = [n for r in chosen for n in r["expanded"]]
            best = [r["best"] for r in chosen if r["best"] is not None]
            by_method[method] = {
                "levels": len(every),
                "pushes": quartiles(every),
                "expanded": quartiles(nodes),
                "best_per_trial": quartiles(best),
                "cpu": round(sum(r["cpu"] for r in chosen), 1),
            }
            rows.append(
                {
                    "class": f"{size}, {boxes} boxes",
                    "method": method,
                    "levels": len(every),
                    "pushes": _spread(quartiles(every)),
                    "nodes": _spread(quartiles(nodes)),
                    "best": _spread(quartiles(best)),
                    "cpu": by_method[method]["cpu"],
                }
            )
        summary["classes"][f"{size}:{boxes}"] = by_method
    report(summary, GENERATOR_COLUMNS, rows)


GENERATOR_COLUMNS = [
    ("class", "class"),
    ("method", "method"),
    ("levels", "levels"),
    ("pushes median (q1-q3) max", "pushes"),
    ("push-A* nodes median (q1-q3) max", "nodes"),
    ("best per trial median (q1-q3) max", "best"),
    ("CPU s", "cpu"),
]


def _spread(values: dict) -> str:
    if not values["n"]:
        return "-"
    return f"{values['median']:g} ({values['q1']:g}-{values['q3']:g}) {values['max']:g}"


def generator_record(method: str, size: str, boxes: int, trial: int, seconds: float) -> dict:
    """One trial of ``seconds`` CPU seconds: everything the method made, and its best level."""
    width, height = (int(side) for side in size.split("x"))
    if method == "evolved":
        config = preset(
            "levels-sokevo",
            **{
                "levels.size": size,
                "levels.boxes": boxes,
                "levels.seed": 1000 + trial,
                "levels.budget.seconds": seconds,
            },
        )
        evolved = evolve(config)
        levels = evolved.levels()
        cpu = evolved.process_seconds
    else:
        try:
            levels, cpu = generated_for(method, width, height, boxes, trial, seconds)
        except ConfigError as error:  # the method cannot make this class (e.g. mask, 7x7, 6)
            return {
                "method": method,
                "size": size,
                "boxes": boxes,
                "trial": trial,
                "pushes": [],
                "expanded": [],
                "best": None,
                "cpu": 0.0,
                "refused": error.message,
            }
    pushes = [int(dict(level.notes)["Pushes"]) for level in levels]
    expanded = [int(dict(level.notes)["Expanded"]) for level in levels]
    return {
        "method": method,
        "size": size,
        "boxes": boxes,
        "trial": trial,
        "pushes": pushes,
        "expanded": expanded,
        "best": max(pushes) if pushes else None,
        "cpu": round(cpu, 2),
    }


def generated_for(
    method: str, width: int, height: int, boxes: int, trial: int, seconds: float
) -> tuple[list[Level], float]:
    """Levels of ``method`` generated until ``seconds`` of process CPU time are spent (the
    generator's push-A* certificate, node limit 200,000, is its own)."""
    spec = generation_spec(method, width, height, boxes)
    generate_one(spec, 0)  # compiled before the clock starts
    master = random.Random(trial)
    levels = []
    started = time.process_time()
    while time.process_time() - started < seconds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            level = generate_one(spec, master.getrandbits(63))
        if level is not None:
            levels.append(level)
    return levels, time.process_time() - started


# ---- map-elites ----------------------------------------------------------------------------------
def map_elites(arguments: argparse.Namespace) -> None:
    config = evosoko.load_levels_config(PRESETS / "levels-map-elites.toml").set(
        {"output.dir": str(arguments.runs)}
    )
    if arguments.seconds is not None:
        config = config.set({"levels.budget.seconds": arguments.seconds})
    started = time.process_time()
    run = evosoko.evolve_levels(config)
    cpu = time.process_time() - started
    archive = config.levels.archive
    cells = archive.bins[0] * archive.bins[1]
    rows = []
    for level in run.levels:
        notes = dict(level.notes)
        rows.append(
            {
                "cell": notes["Cell"],
                "title": level.title,
                "pushes": int(notes["Pushes"]),
                "expanded": int(notes["Expanded"]),
            }
        )
    summary = {
        "benchmark": "levels-map-elites",
        "run_dir": str(run.run_dir),
        "status": run.status,
        "stop": run.stop,
        "cells": cells,
        "filled": len(run.levels),
        "coverage": round(len(run.levels) / cells, 3),
        "hardest": max((row["pushes"] for row in rows), default=None),
        "totals": run.summary["totals"],
        "cpu": round(cpu, 1),
        "machine": machine(),
    }
    if arguments.screenshot:
        summary["screenshot"] = screenshot(run.run_dir / "report.html", arguments.screenshot)
    report(
        summary,
        [("cell", "cell"), ("level", "title"), ("pushes", "pushes"), ("push-A* nodes", "expanded")],
        rows,
    )


def screenshot(page: Path, target: Path) -> str:
    """The report drawn by headless Chromium into ``target`` (what it found when absent)."""
    import shutil
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return "skipped: no chromium (apt-get install chromium)"
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1300,2400",
            f"--screenshot={target}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        check=True,
        timeout=300,
    )
    return str(target)


# ---- compare -------------------------------------------------------------------------------------
def compare(arguments: argparse.Namespace) -> None:
    every = read_levels(arguments.levels)
    hardest = sorted(every, key=lambda level: -int(dict(level.notes)["Pushes"]))
    levels = hardest[: arguments.count]  # the hardest by their certificates, ties in file order
    budget = evosoko.Budget(
        seconds=arguments.job_seconds, evaluations=arguments.evaluations, nodes=arguments.nodes
    )
    outcome = evosoko.compare(
        levels=levels,
        solvers={
            "ga-pushes": evosoko.preset("pushes").set("parallel.backend", "serial"),
            "push-astar": "push-astar",
        },
        seeds=list(range(arguments.seeds)),
        budget=budget,
        name="evolved-levels",
        backend=arguments.backend,
        workers=2,
        out=arguments.runs / "compare-evolved",
    )
    rows = [
        {
            "solver": summary.solver,
            "runs": summary.runs,
            "solved": summary.solved,
            "rate": f"{100 * summary.solve_rate:.0f}%",
            "median_pushes": summary.median_pushes,
        }
        for summary in outcome.summaries
    ]
    result = {
        "benchmark": "levels-compare",
        "levels": len(levels),
        "levels_file": str(arguments.levels),
        "budget": {
            "seconds": budget.seconds,
            "evaluations": budget.evaluations,
            "nodes": budget.nodes,
        },
        "seeds": arguments.seeds,
        "folder": str(outcome.folder),
        "solve_rates": {row["solver"]: row["rate"] for row in rows},
        "machine": machine(),
    }
    report(
        result,
        [
            ("solver", "solver"),
            ("runs", "runs"),
            ("solved", "solved"),
            ("solve rate", "rate"),
            ("median pushes", "median_pushes"),
        ],
        rows,
    )


# ---- the command line ----------------------------------------------------------------------------
def report(summary: dict, columns: list[tuple[str, str]], rows: list[dict]) -> None:
    print(json.dumps(summary))
    print()
    print(markdown_table(columns, rows))


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runs = REPO_ROOT / "runs" / "bench-levels"

    one = commands.add_parser("sokevo", help="evolved levels against SokEvo's, size by size")
    one.add_argument("--sizes", default="8x8,7x7", help="SokEvo sizes, e.g. 8x8,7x7")
    one.add_argument("--seconds", type=float, default=30.0, help="CPU s of certificates per level")
    one.add_argument("--out", type=Path, default=runs / "sokevo.jsonl")
    one.add_argument(
        "--boxes",
        type=lambda text: [int(n) for n in text.split(",")],
        default=None,
        help="only these box counts, e.g. 8,9 (to split the measurement between processes)",
    )
    one.add_argument("--xsb", type=Path, default=None, help="write the evolved levels here")
    one.add_argument("--per-class", type=int, default=None, help="--xsb: the best N of a class")
    one.set_defaults(run=sokevo)

    two = commands.add_parser("generators", help="evolution against reverse, markov and mask")
    two.add_argument("--classes", default="8x8:7,7x7:6", help="SIZE:BOXES,...")
    two.add_argument("--seconds", type=float, default=30.0, help="CPU s per trial and method")
    two.add_argument("--trials", type=int, default=3)
    two.add_argument("--methods", default=",".join(("evolved", *GENERATORS)), help="a subset")
    two.add_argument("--out", type=Path, default=runs / "generators.jsonl")
    two.set_defaults(run=generators)

    three = commands.add_parser("map-elites", help="a MAP-Elites run: coverage and hardest")
    three.add_argument("--seconds", type=float, default=None, help="override the preset budget")
    three.add_argument("--runs", type=Path, default=runs)
    three.add_argument("--screenshot", type=Path, default=None, help="PNG of the report")
    three.set_defaults(run=map_elites)

    four = commands.add_parser("compare", help="the GA and push-A* on evolved levels")
    four.add_argument("--levels", type=Path, default=REPO_ROOT / "levels" / "evolved-sokevo.xsb")
    four.add_argument("--count", type=int, default=20)
    four.add_argument("--seeds", type=int, default=1)
    four.add_argument("--job-seconds", type=float, default=60.0)
    four.add_argument("--evaluations", type=int, default=200_000)
    four.add_argument("--nodes", type=int, default=NODE_LIMIT)
    four.add_argument("--runs", type=Path, default=runs)
    four.add_argument("--backend", default="serial", help="serial or processes (2 workers)")
    four.set_defaults(run=compare)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_arguments()
    arguments.run(arguments)
