"""Test support for the search tests: tiny random levels and the shared level files."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import assume
from hypothesis import strategies as st

from evosoko.errors import EvosokoWarning, LevelFormatError
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.state import State

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_LEVELS = REPO_ROOT.parent / "shared" / "levels"
BUNDLED_SEEDS = REPO_ROOT / "levels" / "seeds.xsb"


# A level whose only box can never reach the goal: a corner the box cannot leave.
STUCK = ["######",
         "#$   #",
         "#  @.#",
         "######"]  # fmt: skip
# Two boxes in a one-cell-wide corridor: the far goal cannot be reached past the near box.
BLOCKED = ["#######",
           "#@$$..#",
           "#######"]  # fmt: skip
# A goal room three cells deep behind one doorway (column 6 of row 2).
ROOM = ["##########",
        "#..   #  #",
        "#..      #",
        "#..   #  #",
        "#######$ #",
        "#  $  $  #",
        "#  $$ @$ #",
        "#        #",
        "##########"]  # fmt: skip


def quiet_level(rows: list[str], title: str = "test") -> Level:
    """``level_from_rows`` without the "already solved" warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows, title=title)


def seed_level(title: str) -> Level:
    """A level of the project's bundled seed collection."""
    return select_levels(read_levels(BUNDLED_SEEDS), [title])[0]


def microban(*titles: str) -> list[Level]:
    """Microban levels by title; skips the test when the shared level folder is absent."""
    return shared("microban.txt", *titles)


def shared(name: str, *titles: str) -> list[Level]:
    """Levels of a shared collection by title; skips the test when the folder is absent."""
    path = SHARED_LEVELS / name
    if not path.is_file():
        pytest.skip(f"no shared levels at {SHARED_LEVELS}")
    return select_levels(read_levels(path), [f"title:{title}" for title in titles])


def xsokoban_41_last_box(box: tuple[int, int], player: tuple[int, int]) -> Level:
    """XSokoban 41 with 14 boxes on goals (every goal but the one below the door of the room
    above), the last box on ``box`` and the player on ``player`` (row, column), as a level of
    its own; skips the test when the shared level folder is absent."""
    level = shared("xsokoban.txt", "screen.41")[0]
    goal_left = level.cell(10, 11)
    assert level.goals[goal_left]
    boxes = [goal for goal in level.goal_cells.tolist() if goal != goal_left]
    state = State.of(level.cell(*player), tuple(sorted([*boxes, level.cell(*box)])))
    return quiet_level(level.rows(state), title="XSokoban 41, the last box")


@st.composite
def tiny_levels(draw, max_boxes: int = 3) -> Level:
    """A walled room of at most 5x5 inner cells with random walls, boxes, goals and player."""
    height = draw(st.integers(2, 5))
    width = draw(st.integers(2, 5))
    cells = [(r, c) for r in range(height) for c in range(width)]
    walls = set(draw(st.lists(st.sampled_from(cells), max_size=len(cells) // 3, unique=True)))
    free = [cell for cell in cells if cell not in walls]
    assume(len(free) >= 3)
    box_count = draw(st.integers(1, min(max_boxes, len(free) - 1)))
    boxes = draw(
        st.lists(st.sampled_from(free), min_size=box_count, max_size=box_count, unique=True)
    )
    goals = draw(
        st.lists(st.sampled_from(free), min_size=box_count, max_size=box_count, unique=True)
    )
    player = draw(st.sampled_from([cell for cell in free if cell not in boxes]))
    rows = ["#" * (width + 2)]
    for r in range(height):
        row = ""
        for c in range(width):
            cell = (r, c)
            goal = cell in goals
            if cell in walls:
                row += "#"
            elif cell == player:
                row += "+" if goal else "@"
            elif cell in boxes:
                row += "*" if goal else "$"
            else:
                row += "." if goal else " "
        rows.append("#" + row + "#")
    rows.append("#" * (width + 2))
    try:
        return quiet_level(rows, title="tiny")
    except LevelFormatError:
        assume(False)
        raise


def search_signature(result) -> tuple:
    """What must be equal between two runs of one search: status, solution and statistics."""
    return (
        result.status,
        result.solution,
        result.expanded,
        result.generated,
        result.duplicates,
        result.moves,
        result.pushes,
    )


def flood(level: Level, start: int, blocked) -> set[int]:
    """The floor reached from ``start`` without entering a cell of ``blocked``, in plain Python."""
    seen, todo = {start}, [start]
    while todo:
        cell = todo.pop()
        for delta in level.deltas:
            nxt = cell + delta
            if level.floor[nxt] and nxt not in blocked and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
