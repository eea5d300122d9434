"""Small levels for the evolve tests, built in code (no files needed)."""

from __future__ import annotations

import warnings

from evosoko.sokoban.build import level_from_rows

SMALL_ROWS = {
    # Microban 1 (David W. Skinner)
    "microban-1": [
        "####",
        "# .#",
        "#  ###",
        "#*@  #",
        "#  $ #",
        "#  ###",
        "####",
    ],
    "corridor": [
        "#######",
        "#@ $ .#",
        "#######",
    ],
    "two-boxes": [
        "#######",
        "#     #",
        "# $$  #",
        "#@ ..##",
        "#######",
    ],
}


def small_level(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(SMALL_ROWS[name], title=name)
