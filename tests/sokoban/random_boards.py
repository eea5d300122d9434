"""Test support: a hypothesis strategy for small random levels and a naive model of the rules.

The naive model works on ``(row, column)`` coordinates and Python sets, independently of the
flat arrays and kernels in ``evosoko.sokoban.rules``, so the two can check each other.
"""

from __future__ import annotations

import warnings
from collections import deque

from hypothesis import assume
from hypothesis import strategies as st

from evosoko.errors import EvosokoWarning
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.level import Level, State

MOVES = {0: (-1, 0), 1: (1, 0), 2: (0, -1), 3: (0, 1)}  # u d l r as (row, column) offsets


@st.composite
def small_levels(draw, max_boxes: int = 3, max_side: int = 6) -> Level:
    """A closed room of random size with random inner walls, a player, k boxes and k goals."""
    height = draw(st.integers(1, max_side - 1))
    width = draw(st.integers(2, max_side))
    inner_walls = draw(
        st.lists(st.integers(0, 3), min_size=height * width, max_size=height * width)
    )
    player = draw(st.integers(0, height * width - 1))
    open_cells = {
        divmod(i, width) for i, kind in enumerate(inner_walls) if kind != 0 or i == player
    }
    room = _component(open_cells, divmod(player, width))
    assume(len(room) >= 2)
    cells = sorted(room)
    start = divmod(player, width)
    box_count = draw(st.integers(1, min(max_boxes, len(cells) - 1)))
    unique_cells = lambda pool: st.lists(
        st.sampled_from(pool), min_size=box_count, max_size=box_count, unique=True
    )
    boxes = set(draw(unique_cells([c for c in cells if c != start])))
    goals = set(draw(unique_cells(cells)))
    rows = ["#" * (width + 2)]
    for r in range(height):
        row = "#"
        for c in range(width):
            row += _character((r, c), room, start, boxes, goals)
        rows.append(row + "#")
    rows.append("#" * (width + 2))
    return quiet_level(rows, title="random")


def quiet_level(rows: list[str], title: str = "test") -> Level:
    """``level_from_rows`` without the "already solved" warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows, title=title)


def _character(cell, room, player, boxes, goals) -> str:
    if cell not in room:
        return "#"
    goal = cell in goals
    if cell == player:
        return "+" if goal else "@"
    if cell in boxes:
        return "*" if goal else "$"
    return "." if goal else " "


def _component(open_cells: set, start: tuple[int, int]) -> set:
    seen = {start}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in MOVES.values():
            nxt = (r + dr, c + dc)
            if nxt in open_cells and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


class NaiveBoard:
    """The rules written the obvious way on coordinates, read from the level's XSB rows."""

    def __init__(self, level: Level, state: State | None = None) -> None:
        self.width = level.width
        rows = level.rows(state)
        self.walls = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"}
        self.goals = {
            (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in ".*+"
        }
        self.boxes = {
            (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "$*"
        }
        self.player = next(
            (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "@+"
        )

    def step(self, direction: int) -> tuple[bool, bool]:
        """(legal, pushed); changes the position only when legal."""
        dr, dc = MOVES[direction]
        target = (self.player[0] + dr, self.player[1] + dc)
        if target in self.walls:
            return False, False
        if target in self.boxes:
            beyond = (target[0] + dr, target[1] + dc)
            if beyond in self.walls or beyond in self.boxes:
                return False, False
            self.boxes.remove(target)
            self.boxes.add(beyond)
            self.player = target
            return True, True
        self.player = target
        return True, False

    def distances(self) -> dict[tuple[int, int], int]:
        """Walking distance from the player to every cell reachable without pushing."""
        distance = {self.player: 0}
        queue = deque([self.player])
        while queue:
            r, c = queue.popleft()
            for dr, dc in MOVES.values():
                nxt = (r + dr, c + dc)
                if nxt not in self.walls and nxt not in self.boxes and nxt not in distance:
                    distance[nxt] = distance[(r, c)] + 1
                    queue.append(nxt)
        return distance

    def cell(self, position: tuple[int, int]) -> int:
        return position[0] * self.width + position[1]

    def state(self) -> State:
        return State.of(self.cell(self.player), [self.cell(b) for b in self.boxes])

    def is_solved(self) -> bool:
        return self.boxes <= self.goals
