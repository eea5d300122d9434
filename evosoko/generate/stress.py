"""Large synthetic levels that probe the limits: long corridors, open rooms and box lattices.

They are deterministic XSB rows for tests and benchmarks (``benchmarks/bench_limits.py``): a
search must solve them or stop within its budget, never crash or claim ``unsolvable``.
"""

from __future__ import annotations


def corridor_rows(length: int, pushes: int = 1) -> list[str]:
    """A one-cell-wide corridor of ``length`` floor cells: the player at the west end, the box
    ``pushes`` cells short of the goal at the east end (so the box sits at a large cell index)."""
    if not 1 <= pushes <= length - 2:
        raise ValueError(f"pushes must be 1..{length - 2}, not {pushes}")
    inside = [" "] * length
    inside[0] = "@"
    inside[length - 1 - pushes] = "$"
    inside[length - 1] = "."
    return ["#" * (length + 2), "#" + "".join(inside) + "#", "#" * (length + 2)]


def room_rows(
    width: int, height: int, player: tuple[int, int], box: tuple[int, int], goal: tuple[int, int]
) -> list[str]:
    """An open ``width`` x ``height`` board (walls included) with one box and one goal;
    positions are ``(row, column)`` inside the wall ring."""
    grid = [["#"] * width] + [["#"] + [" "] * (width - 2) + ["#"] for _ in range(height - 2)]
    grid.append(["#"] * width)
    for (row, column), char in ((goal, "."), (box, "$"), (player, "@")):
        if not (0 < row < height - 1 and 0 < column < width - 1):
            raise ValueError(f"({row}, {column}) is not inside a {width}x{height} board")
        grid[row][column] = "*" if char == "$" and grid[row][column] == "." else char
    return ["".join(row) for row in grid]


def lattice_rows(boxes: int, columns: int = 20) -> list[str]:
    """A room with ``boxes`` boxes on a lattice (one free cell between neighbours) in its west
    half and as many goals on a lattice in its east half, the player in the north-west corner.

    Every box can be pushed, so searches branch on every box: each expansion costs time in
    proportion to the box count (and a full matching on ``boxes**3``).
    """
    if boxes < 1 or columns < 1:
        raise ValueError("boxes and columns must be positive")
    lattice_rows_count = -(-boxes // columns)
    inner_width = 4 * columns + 6
    inner_height = 2 * lattice_rows_count + 3
    grid = [[" "] * inner_width for _ in range(inner_height)]
    for index in range(boxes):
        row = 2 + 2 * (index // columns)
        column = 2 + 2 * (index % columns)
        grid[row][column] = "$"
        grid[row][2 * columns + 2 + column] = "."
    grid[0][0] = "@"
    wall = "#" * (inner_width + 2)
    return [wall, *("#" + "".join(row) + "#" for row in grid), wall]
