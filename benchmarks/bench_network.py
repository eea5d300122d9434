"""What the deadlock network costs per expansion of a guided search, by architecture and path.

For each of the first ``--levels`` Boxoban hard levels, batches of ``--batch`` positions of the
level (random pushes from its start: what one expansion's children look like) are scored by:

- ``dense``: every cell of the board computed (:meth:`DeadlockNet.logits`, the only path of
  the networks shipped before the floor-only option),
- ``floor``: a floor-only network bound to the level (:class:`LevelNet`: a gather of the floor
  cells' neighbours and one matrix product per convolution),
- ``floor numba``: the same floor-only layers as plain numba loops (one multiply-add per tap,
  input channel and output channel, zero inputs skipped),

for the architecture of the shipped model at 24 and at 16 feature maps per convolution
(weights drawn at random: the cost does not depend on them). BLAS runs on one thread, as in
search. Prints one JSON object, then a markdown table of milliseconds per batch.

    python benchmarks/bench_network.py [--levels 20] [--batch 8] [--repeats 50]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from _common import machine, markdown_table, require_shared_levels

from evosoko.learn.data import random_positions
from evosoko.learn.features import encode_states, planes
from evosoko.learn.network import Architecture, load_model, save_model
from evosoko.sokoban.formats import read_levels


def random_weights(architecture: Architecture, rng: np.random.Generator) -> dict:
    shapes, channels = {}, architecture.in_channels
    for index, (out, _) in enumerate(architecture.convolutions):
        shapes[f"conv{index}.weight"] = (out, channels, 3, 3)
        shapes[f"conv{index}.bias"] = (out,)
        channels = out
    shapes |= {
        "hidden.weight": (architecture.hidden, 2 * channels),
        "hidden.bias": (architecture.hidden,),
        "out.weight": (1, architecture.hidden),
        "out.bias": (1,),
    }
    return {name: rng.normal(0, 0.3, shape).astype(np.float32) for name, shape in shapes.items()}


@numba.njit(fastmath=True, cache=True)
def _numba_layer(x, table, weight, bias, out):  # pragma: no cover - compiled
    for i in range(x.shape[0]):
        for f in range(table.shape[0]):
            total = bias.copy()
            for tap in range(9):
                row = table[f, tap]
                for c in range(x.shape[2]):
                    value = x[i, row, c]
                    if value != 0.0:
                        for o in range(weight.shape[2]):
                            total[o] += value * weight[tap, c, o]
            for o in range(weight.shape[2]):
                out[i, f, o] = max(total[o], 0.0)


def numba_logits(bound, codes: np.ndarray) -> np.ndarray:
    """The floor-only network of ``bound`` (a LevelNet) with numba loops for the layers."""
    network, count = bound.network, len(codes)
    cells = codes.shape[1] * codes.shape[2]
    x = np.zeros((count, cells + 1, network.architecture.in_channels), np.float32)
    x[:, :-1] = planes(codes.reshape(count, 1, cells)).reshape(count, -1, cells).transpose(0, 2, 1)
    floor = len(bound.floor_cells)
    for (matrix, bias, _), table in zip(network._convolutions, bound._tables):
        out = np.zeros((count, floor + 1, matrix.shape[1]), np.float32)
        _numba_layer(x, table, matrix.reshape(9, -1, matrix.shape[1]), bias, out)
        x = out
    x = x[:, :floor]
    return network._head(x.mean(axis=1), x.max(axis=1))


def per_batch(function, batches: list[np.ndarray], repeats: int) -> float:
    """Best of three: mean milliseconds per batch over ``repeats`` passes."""
    for batch in batches[:2]:
        function(batch)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(repeats):
            for batch in batches:
                function(batch)
        best = min(best, (time.perf_counter() - started) / (repeats * len(batches)))
    return 1000 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=20)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=50)
    arguments = parser.parse_args()
    levels = read_levels(require_shared_levels() / "boxoban" / "hard" / "000.txt")
    levels = levels[: arguments.levels]
    picker = random.Random(0)
    batches = []
    for level in levels:
        states, _ = random_positions(level, picker, arguments.batch, 12)
        batches.append((level, encode_states(level, states[: arguments.batch])))
    floor_share = np.mean([level.floor.sum() / level.cells for level in levels])
    rows, report = [], {"levels": len(levels), "batch": arguments.batch, "machine": machine()}
    with tempfile.TemporaryDirectory() as folder:
        for channels in (24, 16):
            shipped = Architecture()
            convolutions = tuple((channels, dilation) for _, dilation in shipped.convolutions)
            costs = {}
            for floor_only in (False, True):
                architecture = Architecture(convolutions=convolutions, floor_only=floor_only)
                path = Path(folder) / f"m{channels}{floor_only}.npz"
                save_model(
                    path, architecture, random_weights(architecture, np.random.default_rng(0))
                )
                network = load_model(path)
                with network.single_threaded():
                    if not floor_only:
                        costs["dense"] = per_batch(
                            network.logits, [codes for _, codes in batches], arguments.repeats
                        )
                        continue
                    bound = [(network.for_level(level), codes) for level, codes in batches]
                    costs["floor"] = per_batch(
                        lambda pair: pair[0].logits(pair[1]), bound, arguments.repeats
                    )
                    costs["floor numba"] = per_batch(
                        lambda pair: numba_logits(*pair), bound, arguments.repeats
                    )
            report[f"channels_{channels}"] = costs
            for path_name, cost in costs.items():
                rows.append(
                    {
                        "channels": channels,
                        "path": path_name,
                        "ms": round(cost, 4),
                        "per_position": round(cost / arguments.batch, 4),
                    }
                )
    report["floor_share"] = round(float(floor_share), 3)
    print(json.dumps(report))
    columns = [
        ("feature maps", "channels"),
        ("path", "path"),
        (f"ms per batch of {arguments.batch}", "ms"),
        ("ms per position", "per_position"),
    ]
    print(markdown_table(columns, rows))


if __name__ == "__main__":
    main()
