"""Fingerprints of the GA's fitness on random genomes, to hold it fixed while its kernels change.

For each of 20 shared levels (10 Microban, 5 Boxoban medium, 5 Boxoban hard) and each encoding,
random genomes drawn from a fixed seed (a quarter of them mutants of a stored solution, so that
solved and nearly solved genomes are common too) are scored by :class:`FitnessFunction` under five
fitness settings; a fingerprint is the SHA-256 of the six evaluation columns, with a few sums to
read when it differs. Push genomes also fingerprint their decoding (:func:`push_choices` and back,
:func:`genes_for_pushes`) and the lost search's verdicts at their scored positions.

``tests/evolve/data/fitness_reference.json`` holds the fingerprints of the code as it was before
the kernels were merged and rewritten (issue 18); :mod:`test_fitness_reference` compares. To
record them again (only when the fitness is meant to change)::

    PYTHONPATH=. python tests/evolve/fitness_fingerprints.py [--genomes 100000] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from evosoko.config import FitnessConfig
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import genes_from_lurd
from evosoko.evolve.lost_search import is_lost
from evosoko.evolve.push_replay import genes_for_pushes, push_choices, push_tables
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level

SHARED_LEVELS = Path(__file__).resolve().parents[2] / ".." / "shared" / "levels"
REFERENCE = Path(__file__).resolve().parent / "data" / "fitness_reference.json"
SOLUTIONS = Path(__file__).resolve().parent / "data" / "fitness_solutions.json"
"""A solution (LURD) of each level, found by push-A* (push-weighted A* on Microban 93 and 144)."""

LEVELS = (
    *(("microban.txt", index) for index in (1, 2, 3, 4, 5, 10, 30, 60, 93, 144)),
    *(("boxoban/medium/train-000.txt", index) for index in (1, 2, 3, 4, 5)),
    *(("boxoban/hard/000.txt", index) for index in (1, 2, 3, 4, 5)),
)
"""(file under the shared level folder, 1-based index) of the 20 levels."""

SETTINGS = {
    "default": FitnessConfig(),
    "untrimmed": FitnessConfig(trim_to_best=False),
    "untrimmed-no-stop": FitnessConfig(trim_to_best=False, stop_on_deadlock=False),
    "nearest-goal-no-stop": FitnessConfig(objective="nearest_goal", stop_on_deadlock=False),
    "nearest-goal-untrimmed": FitnessConfig(objective="nearest_goal", trim_to_best=False),
    "manhattan-trim": FitnessConfig(objective="manhattan", trim_to_best=True),
    "manhattan-untrimmed-no-stop": FitnessConfig(
        objective="manhattan", trim_to_best=False, stop_on_deadlock=False
    ),
    "matching-no-stop-trim": FitnessConfig(stop_on_deadlock=False, trim_to_best=True),
}
"""Fitness settings fingerprinted: ``default`` (the defaults of :class:`FitnessConfig`, which
score the best point) and ``untrimmed`` (the presets': the end) on every genome, the others on a
tenth."""

FULL = ("default", "untrimmed")

GENE_RANGE = {"moves": 4, "pushes": 720}
LONGEST = {"moves": 400, "pushes": 120}
DECODED = 300
"""Push genomes per level whose decoding is fingerprinted."""
LOST_CHECKED = 60
"""Push genomes per level whose scored position goes to the lost search (300 positions)."""


def level_at(relative: str, index: int) -> Level:
    return read_levels(SHARED_LEVELS / relative)[index - 1]


def level_key(relative: str, index: int) -> str:
    return f"{relative}#{index}"


def random_genomes(
    seed: int, encoding: str, count: int, solution: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(genes, lengths) packed as the engine packs them. Random lengths 0..LONGEST; a third of
    the random move genomes walk in runs of one direction (1 to 6 steps), which pushes boxes
    farther; every fourth genome is ``solution`` with 0 to 7 genes replaced, inserted or
    deleted, then cut or extended at random."""
    rng = np.random.default_rng(seed)
    top = GENE_RANGE[encoding]
    genomes = []
    for i in range(count):
        if i % 4 == 3:
            genomes.append(_mutant(rng, solution, top))
            continue
        length = int(rng.integers(0, LONGEST[encoding] + 1))
        if encoding == "moves" and i % 3 == 0:
            runs = rng.integers(0, 4, size=length)
            genome = np.repeat(runs, rng.integers(1, 7, size=length))[:length]
        else:
            genome = rng.integers(0, top, size=length)
        genomes.append(genome.astype(np.int32))
    lengths = np.array([len(g) for g in genomes], dtype=np.int32)
    genes = np.concatenate(genomes) if genomes else np.zeros(0, dtype=np.int32)
    return genes.astype(np.int32), lengths


def _mutant(rng: np.random.Generator, solution: list[int], top: int) -> np.ndarray:
    genome = list(solution)
    for _ in range(int(rng.integers(0, 8))):
        where = int(rng.integers(0, len(genome) + 1))
        kind = int(rng.integers(0, 3))
        if kind == 0 and where < len(genome):
            genome[where] = int(rng.integers(0, top))
        elif kind == 1:
            genome.insert(where, int(rng.integers(0, top)))
        elif where < len(genome):
            del genome[where]
    cut = int(rng.integers(0, 3))
    if cut == 0 and genome:
        genome = genome[: int(rng.integers(0, len(genome) + 1))]
    elif cut == 1:
        genome += rng.integers(0, top, size=int(rng.integers(0, 30))).tolist()
    return np.array(genome, dtype=np.int32)


def solution_genes(level: Level, key: str, encoding: str) -> list[int]:
    lurd = json.loads(SOLUTIONS.read_text())[key]
    return genes_from_lurd(level, encoding, lurd)


def digest(arrays) -> str:
    sha = hashlib.sha256()
    for array in arrays:
        array = np.asarray(array)
        dtype = np.uint8 if array.dtype == np.bool_ else array.dtype
        sha.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
    return sha.hexdigest()


def column_fingerprint(columns) -> dict:
    """The fingerprint of the six fitness columns (the cell column, -1 without map_elites,
    came later and is not part of the reference)."""
    columns = columns[:6]
    solved, distance, length, _, state_hash, gap = columns
    return {
        "sha256": digest(columns),
        "solved": int(np.sum(solved)),
        "distance": int(np.sum(distance)),
        "length": int(np.sum(length)),
        "gap": int(np.sum(gap)),
        "hash_xor": int(np.bitwise_xor.reduce(state_hash.astype(np.uint64)))
        if len(state_hash)
        else 0,
    }


def slice_packed(genes, lengths, count):
    return genes[: int(lengths[:count].sum())], lengths[:count]


def fitness_fingerprints(
    level: Level, encoding: str, seed: int, genomes: int, solution: list[int]
) -> dict:
    genes, lengths = random_genomes(seed, encoding, genomes, solution)
    result = {}
    for name, config in SETTINGS.items():
        count = genomes if name in FULL else max(1, genomes // 10)
        fitness = FitnessFunction(level, encoding, config)
        columns = fitness.evaluate_columns(*slice_packed(genes, lengths, count))
        result[name] = {"genomes": count, **column_fingerprint(columns)}
    return result


def decoding_fingerprint(level: Level, seed: int, solution: list[int]) -> dict:
    genes, lengths = random_genomes(seed, "pushes", DECODED, solution)
    tables = push_tables(level)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    pushes_made, round_trip, verdicts = [], [], []
    scored = FitnessFunction(level, "pushes", FitnessConfig()).evaluate_columns(genes, lengths)
    for i in range(DECODED):
        genome = genes[starts[i] : starts[i + 1]]
        pushes = push_choices(tables, genome)
        pushes_made.append(pushes)
        round_trip.append(genes_for_pushes(tables, pushes))
        if i < LOST_CHECKED:
            boxes = set(tables.start_boxes.tolist())
            player = int(tables.start_player)
            for box, direction in pushes[: int(scored[2][i])]:
                boxes.remove(box)
                boxes.add(box + int(tables.deltas[direction]))
                player = box
            verdicts.append(is_lost(tables, player, sorted(boxes), 300))
    return {
        "choices_sha256": hashlib.sha256(json.dumps(pushes_made).encode()).hexdigest(),
        "pushes": sum(len(p) for p in pushes_made),
        "round_trip_sha256": hashlib.sha256(json.dumps(round_trip).encode()).hexdigest(),
        "lost": sum(verdicts),
        "lost_sha256": hashlib.sha256(json.dumps(verdicts).encode()).hexdigest(),
    }


def level_fingerprints(number: int, relative: str, index: int, genomes: int) -> dict:
    level = level_at(relative, index)
    key = level_key(relative, index)
    entry = {}
    for offset, encoding in enumerate(("moves", "pushes")):
        seed = 1000 * number + offset
        solution = solution_genes(level, key, encoding)
        entry[encoding] = fitness_fingerprints(level, encoding, seed, genomes, solution)
    entry["decoding"] = decoding_fingerprint(
        level, 1000 * number + 7, solution_genes(level, key, "pushes")
    )
    return entry


def all_fingerprints(genomes: int) -> dict:
    return {
        "genomes": genomes,
        "levels": {
            level_key(relative, index): level_fingerprints(number, relative, index, genomes)
            for number, (relative, index) in enumerate(LEVELS)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--genomes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--out", type=Path, default=REFERENCE)
    args = parser.parse_args()
    recorded = json.loads(args.out.read_text()) if args.out.exists() else {}
    for genomes in args.genomes:
        recorded[str(genomes)] = all_fingerprints(genomes)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        print(f"recorded {genomes} genomes per encoding and level into {args.out}", flush=True)


if __name__ == "__main__":
    main()
