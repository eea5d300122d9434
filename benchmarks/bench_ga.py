"""Solve rates of the GA presets on Boxoban-hard and Microban, and the speed-up of 2 workers.

For each preset (``configs/<name>.toml``) and each level set, every level is evolved with the
preset's settings, the processes backend with ``--workers`` workers, and at most ``--seconds``
seconds per level (the preset's generation and evaluation limits stay). Reported per preset and
set: levels solved, solve rate, median evaluations and seconds to solve (over solved levels),
and evaluations per second (over all levels). Then, for each encoding, the speed-up of the
processes backend over serial, measured two ways: on one evaluation of the same random genomes
(best of ``--repeats``), and on whole GA runs of the encoding's preset with its islands
(``ga.islands.count``; one per worker when the preset has one population), for
``--speedup-generations`` generations on a level it does not solve; both backends must give
the same run. Beside the latter, what the cores allow: the throughput of ``--workers`` serial
runs at once over one alone (two processes on this kind of machine share caches and memory
bandwidth, so even independent runs gain less than 2x). The serial run, the processes run and
the runs at once take turns within each repeat, so that a machine that is busier at one moment
weighs on all three alike.

    python benchmarks/bench_ga.py                                 # the full benchmark (long)
    python benchmarks/bench_ga.py --presets pushes --sets microban --levels 10 --seconds 5

The full benchmark is long (4 presets x 255 levels x up to 60 s): ``--results FILE.jsonl``
appends one line per level as it finishes and, when run again, reuses the lines already there
(same preset, set, level, seconds and workers), so an interrupted benchmark can be continued.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

from _common import REPO_ROOT, best_time, machine, report, require_shared_levels

from evosoko.config import Config, load_config
from evosoko.errors import EvosokoError
from evosoko.evolve.evaluation import SerialEvaluator, make_evaluator
from evosoko.evolve.genomes import random_genes
from evosoko.evolve.runner import evolve_level
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level

PRESETS = ("seed004", "moves", "pushes", "hybrid")
LEVEL_SETS = {
    "boxoban-hard": ("boxoban/hard/000.txt", 100),
    "microban": ("microban.txt", None),
}
"""Level set name -> (file under ../shared/levels, levels used by default: None = all)."""

SPEEDUP_LEVEL = ("boxoban-hard", 0)
RUN_SPEEDUP_LEVEL = ("microban", 138)
"""Microban 139: no preset solves it in the generations of the whole-run speed-up."""


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def names(choices):
    def parse(text: str) -> list[str]:
        chosen = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in choices]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(choices)}; got {text!r}")
        return chosen

    return parse


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--presets",
        type=names(PRESETS),
        default=list(PRESETS),
        help="comma-separated presets from configs/ (default: all four)",
    )
    parser.add_argument(
        "--sets",
        type=names(tuple(LEVEL_SETS)),
        default=list(LEVEL_SETS),
        help="comma-separated level sets (default: boxoban-hard,microban)",
    )
    parser.add_argument(
        "--levels",
        type=positive,
        default=None,
        help="first N levels of each set (default: 100 of Boxoban, all Microban)",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="most seconds per level")
    parser.add_argument("--workers", type=positive, default=2, help="evaluation processes")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="JSONL file of per-level results, appended and reused",
    )
    parser.add_argument(
        "--speedup-genomes",
        type=positive,
        default=2000,
        help="genomes in the population timed for the speed-up",
    )
    parser.add_argument("--repeats", type=positive, default=3, help="speed-up timing repeats")
    parser.add_argument(
        "--speedup-generations",
        type=positive,
        default=100,
        help="generations of the whole-run speed-up",
    )
    parser.add_argument("--no-speedup", action="store_true", help="skip the speed-up measurement")
    return parser.parse_args()


def preset_config(preset: str, seconds: float, workers: int) -> Config:
    """The preset with the benchmark's time limit and backend."""
    path = REPO_ROOT / "configs" / f"{preset}.toml"
    config = load_config(path, ["parallel.backend=processes", f"parallel.workers={workers}"])
    limit = (
        seconds if config.run.budget.seconds is None else min(seconds, config.run.budget.seconds)
    )
    budget = config.run.budget.model_copy(update={"seconds": limit})
    return config.model_copy(update={"run": config.run.model_copy(update={"budget": budget})})


def level_set(name: str, count: int | None) -> list[Level]:
    relative, default_count = LEVEL_SETS[name]
    levels = read_levels(require_shared_levels() / relative)
    return levels[: count or default_count or len(levels)]


def evolve(level: Level, config: Config) -> dict:
    """Evolve one level; ``seconds`` is the wall time of the whole call (hybrid search seeding
    included), ``engine_seconds`` the engine's own clock; pool start-up is in neither."""
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        started = time.perf_counter()
        outcome = evolve_level(level, config, evaluator=evaluator)
        seconds = time.perf_counter() - started
    return {
        "solved": outcome.solved,
        "evaluations": outcome.evaluations,
        "seconds": round(seconds, 3),
        "engine_seconds": round(outcome.seconds, 3),
        "generations": outcome.generations,
        "moves": outcome.moves,
        "pushes": outcome.pushes,
    }


class ResultStore:
    """Per-level results kept in memory and, with ``--results``, in a JSONL file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[tuple, dict] = {}
        if path is not None and path.is_file():
            for line in path.read_text().splitlines():
                if line.strip():
                    record = json.loads(line)
                    self.known[self._key(record)] = record

    @staticmethod
    def _key(record: dict) -> tuple:
        return (
            record["preset"],
            record["set"],
            record["index"],
            record["limit_seconds"],
            record["workers"],
        )

    def get(self, **key) -> dict | None:
        return self.known.get(self._key(key))

    def add(self, record: dict) -> None:
        self.known[self._key(record)] = record
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(json.dumps(record) + "\n")


def warm_up(level: Level, config: Config) -> None:
    """One generation on ``level`` so that compiling the kernels is not timed."""
    budget = config.run.budget.model_copy(update={"generations": 1, "seconds": None})
    run = config.run.model_copy(update={"budget": budget})
    evolve(level, config.model_copy(update={"run": run}))


def run_preset(preset: str, set_name: str, levels: list[Level], args, store: ResultStore) -> dict:
    config = preset_config(preset, args.seconds, args.workers)
    warm_up(levels[0], config)
    records = []
    for position, level in enumerate(levels, start=1):
        key = {
            "preset": preset,
            "set": set_name,
            "index": position,
            "limit_seconds": args.seconds,
            "workers": args.workers,
        }
        record = store.get(**key)
        if record is None:
            record = {**key, "level": level.name, **evolve(level, config)}
            store.add(record)
        print(
            f"{preset} {set_name} {position}/{len(levels)} {level.name}: "
            f"{'solved' if record['solved'] else 'unsolved'} {record['seconds']:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        records.append(record)
    solved = [r for r in records if r["solved"]]
    seconds = sum(r["seconds"] for r in records)
    return {
        "preset": preset,
        "set": set_name,
        "levels": len(records),
        "solved": len(solved),
        "solve_rate": len(solved) / len(records) if records else 0.0,
        "median_evaluations": statistics.median(r["evaluations"] for r in solved)
        if solved
        else None,
        "median_seconds": statistics.median(r["seconds"] for r in solved) if solved else None,
        "evaluations_per_s": sum(r["evaluations"] for r in records) / seconds if seconds else 0.0,
        "encoding": config.ga.encoding,
    }


def speedup(encoding: str, level: Level, args) -> dict:
    """Serial vs processes time of one evaluation of the same population."""
    config = preset_config(
        "pushes" if encoding == "pushes" else "moves", args.seconds, args.workers
    )
    rng = random.Random(7)
    length = config.ga.initial_length if encoding == "pushes" else 200
    genomes = [tuple(random_genes(rng, length, encoding)) for _ in range(args.speedup_genomes)]
    timings = {}
    for backend in ("serial", "processes"):
        parallel = config.parallel.model_copy(update={"backend": backend})
        with make_evaluator(level, parallel, encoding, config.fitness) as evaluator:
            evaluator.map(genomes[: config.parallel.batch_size])  # start workers, compile kernels
            timings[backend], values = best_time(lambda: evaluator.map(genomes), args.repeats)
        timings[backend + "_values"] = values
    assert timings["serial_values"] == timings["processes_values"], "backends disagree"
    return {
        "encoding": encoding,
        "level": level.name,
        "genomes": len(genomes),
        "genes_per_genome": length,
        "workers": args.workers,
        "serial_s": timings["serial"],
        "processes_s": timings["processes"],
        "speedup": timings["serial"] / timings["processes"],
    }


def run_speedup(encoding: str, level: Level, args) -> dict:
    """Serial vs processes wall time of one whole GA run with the preset's islands, or one per
    worker when the preset has one population, and the ceiling (``--workers`` serial runs at
    once). Each repeat times all three in turn, so that all see the machine in the same state;
    each figure is the best of ``--repeats``."""
    config = preset_config(
        "pushes" if encoding == "pushes" else "moves", args.seconds, args.workers
    )
    count = config.ga.islands.count if config.ga.islands.count > 1 else args.workers
    islands = config.ga.islands.model_copy(update={"count": count})
    budget = config.run.budget.model_copy(
        update={"generations": args.speedup_generations, "seconds": None, "evaluations": None}
    )
    config = config.model_copy(
        update={
            "ga": config.ga.model_copy(update={"islands": islands}),
            "run": config.run.model_copy(update={"budget": budget}),
        }
    )
    configs = {
        backend: config.model_copy(
            update={"parallel": config.parallel.model_copy(update={"backend": backend})}
        )
        for backend in ("serial", "processes")
    }
    timings = {"serial": math.inf, "processes": math.inf, "together": math.inf}
    outcomes = {}
    global _ceiling_job
    _ceiling_job = (level, configs["serial"])
    with (  # the pool forks first, before the evaluator's pool starts threads in this process
        multiprocessing.get_context("fork").Pool(args.workers) as together,
        make_evaluator(level, configs["serial"].parallel, encoding, config.fitness) as serial,
        make_evaluator(level, configs["processes"].parallel, encoding, config.fitness) as processes,
    ):
        evaluators = {"serial": serial, "processes": processes}
        for evaluator in evaluators.values():
            evaluator.map([random_genes(random.Random(1), 5, encoding)])  # start workers
        together.map(_timed_serial_run, [False] * args.workers, chunksize=1)  # warm up
        for _ in range(args.repeats):
            for backend, evaluator in evaluators.items():
                seconds, outcome = best_time(
                    lambda b=backend, e=evaluator: evolve_level(level, configs[b], evaluator=e), 1
                )
                timings[backend] = min(timings[backend], seconds)
                outcomes[backend] = (outcome.best_genes, outcome.evaluations, outcome.generations)
            seconds = max(together.map(_timed_serial_run, [True] * args.workers, chunksize=1))
            timings["together"] = min(timings["together"], seconds)
    assert outcomes["serial"] == outcomes["processes"], "backends disagree"
    evaluations = outcomes["serial"][1]
    return {
        "encoding": encoding,
        "level": level.name,
        "islands": count,
        "generations": outcomes["serial"][2],
        "evaluations": evaluations,
        "workers": args.workers,
        "serial_s": timings["serial"],
        "processes_s": timings["processes"],
        "serial_evaluations_per_s": evaluations / timings["serial"],
        "processes_evaluations_per_s": evaluations / timings["processes"],
        "speedup": timings["serial"] / timings["processes"],
        "ceiling": args.workers * timings["serial"] / timings["together"],
    }


_ceiling_job: tuple[Level, Config] | None = None
"""The serial run that :func:`_timed_serial_run` makes in each forked process."""
_ceiling_evaluator = None


def _timed_serial_run(timed: bool) -> float:
    """In a forked process: the wall time of one serial run of ``_ceiling_job`` (its evaluator
    made once per process; ``timed`` False only loads it)."""
    global _ceiling_evaluator
    assert _ceiling_job is not None
    level, config = _ceiling_job
    if _ceiling_evaluator is None:
        _ceiling_evaluator = SerialEvaluator(level, config.ga.encoding, config.fitness)
        _ceiling_evaluator.map([random_genes(random.Random(1), 5, config.ga.encoding)])
    if not timed:
        return 0.0
    seconds, _ = best_time(lambda: evolve_level(level, config, evaluator=_ceiling_evaluator), 1)
    return seconds


def main() -> None:
    args = parse_arguments()
    warnings.simplefilter("ignore")  # solved-at-start levels and similar notes
    try:
        sets = {name: level_set(name, args.levels) for name in args.sets}
        store = ResultStore(args.results)
        started = time.perf_counter()
        rows, skipped = [], {}
        for preset in args.presets:
            try:
                preset_config(preset, args.seconds, args.workers)
            except EvosokoError as error:
                skipped[preset] = str(error)
                continue
            for set_name, levels in sets.items():
                try:
                    rows.append(run_preset(preset, set_name, levels, args, store))
                except ImportError as error:  # a preset whose engine part is not installed
                    skipped[preset] = f"{type(error).__name__}: {error}"
                    break
        speedups, run_speedups = [], []
        if not args.no_speedup:
            set_name, position = SPEEDUP_LEVEL
            level = level_set(set_name, position + 1)[position]
            speedups = [speedup(encoding, level, args) for encoding in ("moves", "pushes")]
            set_name, position = RUN_SPEEDUP_LEVEL
            level = level_set(set_name, position + 1)[position]
            run_speedups = [run_speedup(encoding, level, args) for encoding in ("moves", "pushes")]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    summary = {
        "presets": rows,
        "speedup": speedups,
        "run_speedup": run_speedups,
        "skipped": skipped,
        "seconds_per_level": args.seconds,
        "workers": args.workers,
        "levels_per_set": {name: len(levels) for name, levels in sets.items()},
        "wall_seconds": round(time.perf_counter() - started, 1),
        **machine(),
    }
    columns = [
        ("preset", "preset"),
        ("set", "set"),
        ("levels", "levels"),
        ("solved", "solved"),
        ("solve rate", "solve_rate"),
        ("median evals", "median_evaluations"),
        ("median s", "median_seconds"),
        ("evals/s", "evaluations_per_s"),
    ]
    shown = [{key: "-" if value is None else value for key, value in row.items()} for row in rows]
    report(summary, columns, shown)
    if speedups:
        print()
        for entry in speedups:
            print(
                f"speed-up of {entry['workers']} workers over serial ({entry['encoding']}, "
                f"{entry['genomes']} genomes on {entry['level']}): {entry['speedup']:.2f}x"
            )
        for entry in run_speedups:
            print(
                f"speed-up of {entry['workers']} workers over serial on a whole run "
                f"({entry['encoding']}, {entry['islands']} islands, {entry['generations']} "
                f"generations on {entry['level']}): {entry['speedup']:.2f}x "
                f"({entry['serial_evaluations_per_s']:,.0f} -> "
                f"{entry['processes_evaluations_per_s']:,.0f} evaluations/s); "
                f"{entry['workers']} serial runs at once: {entry['ceiling']:.2f}x"
            )
    for preset, reason in skipped.items():
        print(f"skipped {preset}: {reason}")


if __name__ == "__main__":
    main()
