"""Evaluation throughput of the serial, processes and dask backends on the same population.

For a Microban and a Boxoban-hard level, one population of random genomes (``--genomes`` of
``--genes`` genes, fixed seed) is evaluated by each backend: ``serial``, ``processes`` with
``--workers`` workers and ``dask`` on a local cluster of ``--workers`` single-threaded worker
processes (127.0.0.1 only), for each batch size in ``--batch-sizes``. Reported per level,
backend and batch size: the best of ``--repeats`` wall times of one ``map`` call, evaluations
per second and the speed-up over serial (same batch size). Every backend's results are checked
equal to serial's. Start-up (pool or cluster, kernel compilation) is excluded: each evaluator
maps the whole population once before it is timed.

Per-batch overhead: the median wall time of ``--round-trips`` calls of ``map`` on a single
short genome (one batch of one genome), minus serial's time for the same call, is the cost of
one round trip to a worker (submit, pickle both ways, schedule, gather).

    python benchmarks/bench_parallel.py               # defaults: 2000 push genomes, 2 workers
    python benchmarks/bench_parallel.py --batch-sizes 8,32,256 --repeats 5 --encoding moves
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings

from _common import best_time, load_level, machine, report

from evosoko.config import FitnessConfig, ParallelConfig
from evosoko.errors import EvosokoError
from evosoko.evolve.evaluation import make_evaluator
from evosoko.evolve.genomes import random_genes
from evosoko.sokoban.level import Level

LEVELS = (("microban", "microban.txt", 60), ("boxoban-hard", "boxoban/hard/000.txt", 1))
"""(label, file under ../shared/levels, 1-based index) of the levels timed."""

BACKENDS = ("serial", "processes", "dask")


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        message = f"expected comma-separated integers, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--genomes", type=positive, default=2000, help="population size")
    parser.add_argument("--genes", type=positive, default=40, help="genes per genome")
    parser.add_argument("--encoding", choices=("pushes", "moves"), default="pushes")
    parser.add_argument("--workers", type=positive, default=2, help="processes / dask workers")
    parser.add_argument(
        "--batch-sizes",
        type=positive_list,
        default=[32, 256],
        help="comma-separated genomes per task (default: 32,256)",
    )
    parser.add_argument("--repeats", type=positive, default=3, help="timed map calls (best kept)")
    parser.add_argument(
        "--round-trips",
        type=positive,
        default=50,
        help="single-genome map calls timed for the per-batch overhead",
    )
    return parser.parse_args()


def parallel_config(backend: str, workers: int, batch_size: int) -> ParallelConfig:
    if backend == "dask":
        return ParallelConfig(backend="dask", local_workers=workers, batch_size=batch_size)
    return ParallelConfig(backend=backend, workers=workers, batch_size=batch_size)


def median_call(action, calls: int) -> float:
    """Median wall time of ``calls`` calls of ``action``."""
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(level: Level, backend: str, genomes: list, batch_size: int, args) -> dict:
    """Throughput and single-genome round trip of one backend; its results for checking."""
    config = parallel_config(backend, args.workers, batch_size)
    started = time.perf_counter()
    with make_evaluator(level, config, args.encoding, FitnessConfig()) as evaluator:
        evaluator.map(genomes)  # start-up, kernel compilation, every worker warm
        startup = time.perf_counter() - started
        seconds, values = best_time(lambda: evaluator.map(genomes), args.repeats)
        round_trip = median_call(lambda: evaluator.map(genomes[:1]), args.round_trips)
    return {"seconds": seconds, "values": values, "round_trip": round_trip, "startup": startup}


def level_rows(label: str, level: Level, args) -> list[dict]:
    rng = random.Random(11)
    genomes = [tuple(random_genes(rng, args.genes, args.encoding)) for _ in range(args.genomes)]
    rows = []
    for batch_size in args.batch_sizes:
        timings = {
            backend: measure(level, backend, genomes, batch_size, args) for backend in BACKENDS
        }
        serial = timings["serial"]
        for backend in BACKENDS:
            timing = timings[backend]
            if timing["values"] != serial["values"]:
                raise AssertionError(f"{backend} disagrees with serial on {label}")
            rows.append(
                {
                    "level": f"{label} {level.name}",
                    "backend": backend,
                    "workers": 1 if backend == "serial" else args.workers,
                    "batch_size": batch_size,
                    "seconds": round(timing["seconds"], 4),
                    "evaluations_per_s": round(len(genomes) / timing["seconds"], 1),
                    "speedup": round(serial["seconds"] / timing["seconds"], 3),
                    "round_trip_ms": round(1000 * timing["round_trip"], 3),
                    "overhead_ms": round(1000 * (timing["round_trip"] - serial["round_trip"]), 3),
                    "startup_s": round(timing["startup"], 2),
                }
            )
    return rows


def main() -> None:
    args = parse_arguments()
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    try:
        levels = [(label, load_level(path, index)) for label, path, index in LEVELS]
        rows = [row for label, level in levels for row in level_rows(label, level, args)]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    summary = {
        "genomes": args.genomes,
        "genes_per_genome": args.genes,
        "encoding": args.encoding,
        "workers": args.workers,
        "repeats": args.repeats,
        "round_trips": args.round_trips,
        "rows": rows,
        "wall_seconds": round(time.perf_counter() - started, 1),
        **machine(),
    }
    columns = [
        ("level", "level"),
        ("backend", "backend"),
        ("workers", "workers"),
        ("batch", "batch_size"),
        ("map s", "seconds"),
        ("evals/s", "evaluations_per_s"),
        ("speed-up", "speedup"),
        ("round trip ms", "round_trip_ms"),
        ("overhead ms", "overhead_ms"),
        ("start-up s", "startup_s"),
    ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
