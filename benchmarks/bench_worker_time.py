"""How long an evaluation worker takes for its half of a population, against this process.

A diagnostic for the 2-worker speed-up. Two forked workers get half of a population each over
a pipe, as the process pool's workers do, and each reports the time its evaluation alone took
(no pickling, no waiting). In ``block`` mode a worker sleeps in ``recv`` between rounds (what a
pool worker does); in ``spin`` mode it polls the pipe without sleeping, so its CPU never idles.
Reported: the in-process time of one half, and per mode the median and best of ``--repeats``
worker times and of whole round trips (send both halves, gather both results). If the workers'
own times exceed the in-process time, the lost speed-up is in the computation, not in the
transport; the round trip minus the worker time is the transport.

    python benchmarks/bench_worker_time.py --repeats 40
"""

from __future__ import annotations

import argparse
import multiprocessing
import pickle
import random
import statistics
import time
import warnings

from _common import load_level, machine, report

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import random_genes
from evosoko.parallel.packing import pack_genomes


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genomes", type=int, default=2000, help="population size")
    parser.add_argument("--genes", type=int, default=20, help="push genes per genome")
    parser.add_argument("--repeats", type=int, default=40, help="round trips per mode")
    return parser.parse_args()


def _worker(connection, fitness: FitnessFunction, spin: bool) -> None:
    while True:
        while spin and not connection.poll(0):
            pass
        message = connection.recv_bytes()
        if not message:
            return
        started = time.perf_counter()
        fitness.evaluate_columns(*pickle.loads(message))
        connection.send_bytes(pickle.dumps(time.perf_counter() - started))


def measure(fitness: FitnessFunction, halves: list, spin: bool, repeats: int) -> dict:
    """Worker and round-trip times (ms) of ``repeats`` rounds with two workers."""
    context = multiprocessing.get_context("fork")
    pipes, workers = [], []
    for _ in halves:
        parent, child = context.Pipe()
        process = context.Process(target=_worker, args=(child, fitness, spin), daemon=True)
        process.start()
        pipes.append(parent)
        workers.append(process)
    work, rounds = [], []
    for _ in range(repeats + 1):  # the first round warms the workers up
        started = time.perf_counter()
        for pipe, half in zip(pipes, halves):
            pipe.send_bytes(pickle.dumps(half, protocol=5))
        times = [pickle.loads(pipe.recv_bytes()) for pipe in pipes]
        rounds.append(time.perf_counter() - started)
        work.extend(times)
        time.sleep(0.005)  # the parent's own work between generations
    for pipe, process in zip(pipes, workers):
        pipe.send_bytes(b"")
        process.join()
    work, rounds = work[len(halves) :], rounds[1:]
    return {
        "worker_ms_median": round(1000 * statistics.median(work), 2),
        "worker_ms_best": round(1000 * min(work), 2),
        "round_trip_ms_median": round(1000 * statistics.median(rounds), 2),
        "round_trip_ms_best": round(1000 * min(rounds), 2),
    }


def main() -> None:
    args = parse_arguments()
    warnings.simplefilter("ignore")
    level = load_level("boxoban/hard/000.txt", 1)
    fitness = FitnessFunction(level, "pushes", FitnessConfig())
    rng = random.Random(7)
    genomes = [random_genes(rng, args.genes, "pushes") for _ in range(args.genomes)]
    middle = len(genomes) // 2
    halves = [pack_genomes(genomes[:middle]), pack_genomes(genomes[middle:])]
    fitness.evaluate_columns(*halves[0])  # compile the kernels before anything is timed
    in_process = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        fitness.evaluate_columns(*halves[0])
        in_process.append(time.perf_counter() - started)
    modes = {
        mode: measure(fitness, halves, mode == "spin", args.repeats) for mode in ("block", "spin")
    }
    result = {
        "benchmark": "worker_time",
        "machine": machine(),
        "level": level.name,
        "genomes": args.genomes,
        "genes_per_genome": args.genes,
        "in_process_half_ms_median": round(1000 * statistics.median(in_process), 2),
        "modes": modes,
    }
    in_process_row = dict.fromkeys(next(iter(modes.values())), "")
    in_process_row.update(
        mode="in process (one half)", worker_ms_median=result["in_process_half_ms_median"]
    )
    rows = [in_process_row]
    rows += [{"mode": mode, **values} for mode, values in modes.items()]
    columns = (
        ("worker waits by", "mode"),
        ("half: median ms", "worker_ms_median"),
        ("half: best ms", "worker_ms_best"),
        ("round trip: median ms", "round_trip_ms_median"),
        ("round trip: best ms", "round_trip_ms_best"),
    )
    report(result, columns, rows)


if __name__ == "__main__":
    main()
