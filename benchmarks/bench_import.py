"""Reading levels from pictures: boards recovered cell for cell, over tile sets and scales.

Draws ``--boards`` boards that the cell classifier never saw (real positions of the bundled
levels and, when the shared folder is there, of Microban: random pushes from the start, so
boxes stand on goals and the player on a goal now and then), cycling through every tile set
(evosoko's renderer in four palettes, and two looks drawn tile by tile), cell sizes from 16 to
64 pixels, crops of 0 to 4 pixels on each side, margins and noise. Each picture is read with
:func:`evosoko.learn.screenshots.read_board` (the grid found from the picture alone, or with
``--size``: with the board's size in cells given) and compared with the board, cell for
cell.

Prints one JSON object on its first line, then a markdown table per tile set.

    python benchmarks/bench_import.py [--boards 50] [--seed 1] [--size] [--cells FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from _common import SHARED_LEVELS, machine, markdown_table

from evosoko.learn.data import random_positions, with_start
from evosoko.learn.screenshots import load_cell_classifier, read_board
from evosoko.learn.tilesets import TILE_SETS, background, draw_board, picture
from evosoko.sokoban.formats import read_levels

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_boards(count: int, seed: int) -> list[dict]:
    """``count`` pictures with what they show: tile set, cell size, crop, level rows."""
    levels = read_levels(REPO_ROOT / "levels" / "starter.xsb")
    levels += read_levels(REPO_ROOT / "levels" / "seeds.xsb")
    if (SHARED_LEVELS / "microban.txt").is_file():
        levels += read_levels(SHARED_LEVELS / "microban.txt")
    rng = np.random.default_rng(seed)
    picker = random.Random(seed)
    boards = []
    for number in range(count):
        level = levels[picker.randrange(len(levels))]
        states, _ = random_positions(level, picker, 1, 12)
        state = states[0] if states else level.start
        tile_set = TILE_SETS[number % len(TILE_SETS)]
        cell = 16 + (48 * number) // max(1, count - 1)
        crop = tuple(int(v) for v in rng.integers(0, 5, size=4))
        margin = int(rng.integers(0, cell)) if number % 3 == 0 else 0
        noise = (0.0, 2.0, 6.0)[number % 3]
        image = picture(
            draw_board(level, state, cell, tile_set), rng, margin, background(tile_set), crop, noise
        )
        expected = with_start(level, state).rows()
        boards.append(
            {
                "image": image,
                "tile_set": tile_set,
                "cell": cell,
                "crop": crop,
                "margin": margin,
                "noise": noise,
                "rows": expected,
                "size": (level.width, level.height),
            }
        )
    return boards


def cell_errors(expected: list[str], read: list[str]) -> tuple[int, int]:
    """Cells of ``expected`` read wrong, and cells in all (rows padded with blanks)."""
    height = max(len(expected), len(read))
    width = max(max(map(len, expected)), max(map(len, read), default=0))
    wrong = 0
    for row in range(height):
        a = expected[row].ljust(width) if row < len(expected) else " " * width
        b = read[row].ljust(width) if row < len(read) else " " * width
        wrong += sum(x != y for x, y in zip(a, b))
    return wrong, sum(len(row.rstrip()) for row in expected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--size", "--with-size", dest="with_size", action="store_true", help="pass the board size"
    )
    parser.add_argument("--cells", help="a cell classifier file (default: the shipped one)")
    arguments = parser.parse_args()
    classifier = load_cell_classifier(arguments.cells)
    results = []
    for board in test_boards(arguments.boards, arguments.seed):
        started = time.perf_counter()
        size = board["size"] if arguments.with_size else None
        reading = read_board(board["image"], size, classifier)
        seconds = time.perf_counter() - started
        wrong, cells = cell_errors(board["rows"], reading.rows)
        results.append(
            {
                "tile_set": board["tile_set"],
                "cell": board["cell"],
                "crop": board["crop"],
                "margin": board["margin"],
                "noise": board["noise"],
                "found_cell": round(reading.grid.cell, 2),
                "wrong_cells": wrong,
                "cells": cells,
                "recovered": reading.rows == board["rows"],
                "seconds": round(seconds, 3),
            }
        )
        if not results[-1]["recovered"]:
            print(
                f"not recovered: {board['tile_set']} {board['cell']} px crop {board['crop']}:\n"
                + "\n".join(board["rows"])
                + "\nread as\n"
                + "\n".join(reading.rows),
                file=sys.stderr,
            )
    summary = {
        "boards": len(results),
        "recovered": sum(r["recovered"] for r in results),
        "cells": sum(r["cells"] for r in results),
        "wrong_cells": sum(r["wrong_cells"] for r in results),
        "seconds_per_board": round(sum(r["seconds"] for r in results) / len(results), 3),
        "with_size": arguments.with_size,
        "machine": machine(),
        "boards_detail": results,
    }
    import json

    print(json.dumps(summary))
    rows = []
    for tile_set in TILE_SETS:
        mine = [r for r in results if r["tile_set"] == tile_set]
        if mine:
            rows.append(
                {
                    "tile_set": tile_set,
                    "boards": len(mine),
                    "recovered": sum(r["recovered"] for r in mine),
                    "wrong": sum(r["wrong_cells"] for r in mine),
                    "cells": f"{min(r['cell'] for r in mine)}-{max(r['cell'] for r in mine)}",
                }
            )
    columns = [
        ("tile set", "tile_set"),
        ("boards", "boards"),
        ("recovered", "recovered"),
        ("wrong cells", "wrong"),
        ("px per cell", "cells"),
    ]
    print(markdown_table(columns, rows))


if __name__ == "__main__":
    main()
