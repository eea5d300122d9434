"""Test support: hypothesis strategies for valid levels with titles and notes, as canonical rows."""

from __future__ import annotations

import warnings
from collections import deque

from hypothesis import assume
from hypothesis import strategies as st

from evosoko.errors import EvosokoWarning
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.level import Level

_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))

titles = st.text(_PRINTABLE, min_size=1, max_size=16).filter(lambda text: text == text.strip())
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_KEY_WORD = st.text(_LETTERS + "0123456789_-", min_size=1, max_size=6)
note_keys = st.builds(
    lambda first, rest, words: " ".join([first + rest, *words]),
    st.sampled_from(_LETTERS),
    st.text(_LETTERS + "0123456789_-", max_size=6),
    st.lists(_KEY_WORD, max_size=2),
) | st.sampled_from(["Solution", "solution", "Author", "Comment", "Date Created"])
note_values = st.text(_PRINTABLE, max_size=24).filter(lambda text: text == text.strip())
notes = st.lists(
    st.tuples(note_keys.filter(lambda key: key.lower() != "title"), note_values), max_size=3
)


@st.composite
def board_rows(draw, max_height: int = 8, max_width: int = 9) -> list[str]:
    """Canonical rows of a closed room with random inner walls, a player, k boxes, k goals."""
    height = draw(st.integers(3, max_height))
    width = draw(st.integers(3, max_width))
    inner = [(r, c) for r in range(1, height - 1) for c in range(1, width - 1)]
    kinds = draw(st.lists(st.integers(0, 3), min_size=len(inner), max_size=len(inner)))
    open_cells = {cell for cell, kind in zip(inner, kinds) if kind}  # kind 0: inner wall
    assume(open_cells)
    player = draw(st.sampled_from(sorted(open_cells)))
    room = sorted(_component(open_cells, player))
    assume(len(room) >= 2)
    count = draw(st.integers(1, min(4, len(room) - 1)))
    boxes = set(
        draw(
            st.lists(
                st.sampled_from([c for c in room if c != player]),
                min_size=count,
                max_size=count,
                unique=True,
            )
        )
    )
    goals = set(draw(st.lists(st.sampled_from(room), min_size=count, max_size=count, unique=True)))
    grid = [["#"] * width for _ in range(height)]
    for r, c in open_cells:
        grid[r][c] = " "
    for r, c in goals:
        grid[r][c] = "."
    for r, c in boxes:
        grid[r][c] = "*" if (r, c) in goals else "$"
    grid[player[0]][player[1]] = "+" if player in goals else "@"
    return ["".join(row) for row in grid]


@st.composite
def levels(draw) -> Level:
    """A valid level with an optional title and a few notes."""
    rows = draw(board_rows())
    return quiet_level(rows, title=draw(st.none() | titles), notes=draw(notes))


def quiet_level(rows, **keywords) -> Level:
    """``level_from_rows`` without the already-solved warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows, **keywords)


def _component(cells: set, start: tuple[int, int]) -> set:
    seen, queue = {start}, deque([start])
    while queue:
        r, c = queue.popleft()
        for step in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if step in cells and step not in seen:
                seen.add(step)
                queue.append(step)
    return seen
