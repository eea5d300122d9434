"""The numba replay kernel against its plain-Python twin, and the kernel's own contract."""

from __future__ import annotations

import warnings
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.kernels import (
    ReplayResult,
    replay_batch,
    replay_tables,
    state_hash,
)
from evosoko.sokoban.level import (
    DIRECTIONS,
    UNREACHABLE,
    Level,
    State,
    flood_fill,
    neighbour_table,
)
from evosoko.sokoban.reference import replay_batch_reference

# Boards from ../shared/levels/seeds/seeds.xsb ('-' floor) and Microban 1, embedded so that the
# kernel tests run without the shared folder.
SEED_BOARDS = {
    "seed000-example": """
##########
#--------#
#.$@-----#
#--------#
#.$------#
#--------#
##########""",
    "seed000-case3": """
--######
--#----#
###$$$-#
#@-$..-#
#-$...##
####--#-
---####-""",
    "seed004-blog": """
----#####----------
----#---#----------
----##--#----------
--###--###---------
--#--#-#-#---------
###################
#-------##----$-.*#
#-------##-$@---.*#
#####---##----$-.*#
--------###########
----#######--------""",
    "microban-1": """
####
#-.#
#--###
#*@--#
#--$-#
#--###
####""",
    "corridor": """
#######
#.$@$.#
#######""",
    "two-rooms": """
#######
#.   .#
#     #
# $$  #
# @   #
#######""",
}

# Shortest solutions found by breadth-first search over moves (seed000-case3: 34 moves, the
# optimum the source documents report).
SOLUTIONS = {
    "microban-1": "dlUrrrdLullddrUluRuulDrddrruLdlUU",
    "seed000-case3": "dRRRurruullDDLdlluRRRuurrdLulDulDD",
    "corridor": "lrr",
}


def board(text: str, title: str) -> Level:
    rows = text.strip("\n").split("\n")
    return level_from_rows([row.replace("-", " ") for row in rows], title=title)


def genes(lurd: str) -> list[int]:
    return [DIRECTIONS.index(ch.lower()) for ch in lurd]


def random_level(rng: np.random.Generator, height: int, width: int, boxes: int) -> Level:
    """A closed random room with ``boxes`` boxes and goals, not already solved."""
    while True:
        walls = rng.random((height, width)) < 0.2
        walls[[0, -1], :] = walls[:, [0, -1]] = True
        passable = ~walls.ravel()
        open_cells = np.flatnonzero(passable)
        player = int(rng.choice(open_cells))
        region = np.flatnonzero(flood_fill(passable, neighbour_table(width, height), player))
        region = region[region != player]
        if len(region) < 2 * boxes + 2:
            continue
        box_cells = rng.choice(region, boxes, replace=False)
        goal_cells = rng.choice(region, boxes, replace=False)
        if set(box_cells.tolist()) == set(goal_cells.tolist()):
            continue
        grid = np.where(walls.ravel(), "#", " ").astype("<U1")
        grid[goal_cells] = "."
        for cell in box_cells.tolist():
            grid[cell] = "*" if grid[cell] == "." else "$"
        grid[player] = "@"
        rows = ["".join(grid[r * width : (r + 1) * width]) for r in range(height)]
        return level_from_rows(rows, title=f"random-{height}x{width}-{boxes}")


def _levels() -> list[Level]:
    rng = np.random.default_rng(20240611)
    levels = [board(text, title) for title, text in SEED_BOARDS.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for height, width, boxes in [(5, 5, 1), (6, 7, 2), (7, 7, 3), (8, 9, 4)]:
            levels.append(random_level(rng, height, width, boxes))
    return levels


LEVELS = _levels()
LEVEL_BY_TITLE = {level.title: level for level in LEVELS}
BOTH_IMPLEMENTATIONS = pytest.mark.parametrize(
    "replay", [replay_batch, replay_batch_reference], ids=["kernel", "reference"]
)


def random_genomes(rng: np.random.Generator, count: int, width: int = 300):
    genomes = rng.integers(0, 4, size=(count, width), dtype=np.int8)
    lengths = rng.integers(0, width + 1, size=count).astype(np.int32)
    lengths[:3] = [0, 1, width]
    return genomes, lengths


def assert_same(kernel: ReplayResult, reference: ReplayResult) -> None:
    for field in fields(ReplayResult):
        got, expected = getattr(kernel, field.name), getattr(reference, field.name)
        assert got.dtype == expected.dtype, field.name
        mismatch = np.flatnonzero(got != expected)
        assert len(mismatch) == 0, (
            f"{field.name} differs for genome {mismatch[0]}: kernel {got[mismatch[0]]}, "
            f"reference {expected[mismatch[0]]}"
        )


def random_state(rng: np.random.Generator, level: Level) -> State:
    cells = rng.choice(np.flatnonzero(level.floor), level.box_count + 1, replace=False)
    return State.of(int(cells[0]), cells[1:].tolist())


# ---- kernel and reference agree ------------------------------------------------------------


@pytest.mark.parametrize("stop_on_deadlock", [False, True])
@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.title)
def test_kernel_agrees_with_reference_on_random_genomes(level: Level, stop_on_deadlock: bool):
    rng = np.random.default_rng([LEVELS.index(level), stop_on_deadlock])
    genomes, lengths = random_genomes(rng, 600)  # 10 levels x 2 flags x 600 = 12,000 genomes
    tables = replay_tables(level)
    kernel = replay_batch(tables, genomes, lengths, stop_on_deadlock)
    reference = replay_batch_reference(tables, genomes, lengths, stop_on_deadlock)
    assert_same(kernel, reference)
    assert kernel.steps[0] == 0


def test_random_genomes_exercise_every_outcome():
    """The agreement tests above are only meaningful if the genomes solve, stop and push."""
    outcomes = {"solved": 0, "deadlocked": 0, "improved": 0}
    for level in LEVELS:
        genomes, lengths = random_genomes(np.random.default_rng(7), 300)
        result = replay_batch(replay_tables(level), genomes, lengths, stop_on_deadlock=True)
        outcomes["solved"] += int(result.solved.sum())
        outcomes["deadlocked"] += int(result.deadlocked.sum())
        outcomes["improved"] += int((result.best_prefix > 0).sum())
    assert all(count > 20 for count in outcomes.values()), outcomes


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.title)
def test_kernel_agrees_with_reference_from_random_starts(level: Level):
    rng = np.random.default_rng([LEVELS.index(level), 2])
    tables = replay_tables(level)
    for _ in range(20):
        start = random_state(rng, level)
        genomes, lengths = random_genomes(rng, 20, width=120)
        for stop in (False, True):
            assert_same(
                replay_batch(tables, genomes, lengths, stop, start=start),
                replay_batch_reference(tables, genomes, lengths, stop, start=start),
            )


@settings(max_examples=300, deadline=None)
@given(
    level=st.sampled_from(LEVELS),
    genomes=st.lists(st.lists(st.integers(0, 3), max_size=80), min_size=1, max_size=8),
    stop_on_deadlock=st.booleans(),
)
def test_kernel_agrees_with_reference_property(level, genomes, stop_on_deadlock):
    width = max(len(genome) for genome in genomes)
    array = np.zeros((len(genomes), width), dtype=np.int8)
    for row, genome in enumerate(genomes):
        array[row, : len(genome)] = genome
    lengths = np.array([len(genome) for genome in genomes], dtype=np.int32)
    tables = replay_tables(level)
    assert_same(
        replay_batch(tables, array, lengths, stop_on_deadlock),
        replay_batch_reference(tables, array, lengths, stop_on_deadlock),
    )


@pytest.mark.slow
def test_kernel_agrees_with_reference_at_scale():
    rng = np.random.default_rng(99)
    for level in LEVELS:
        genomes, lengths = random_genomes(rng, 20_000)
        tables = replay_tables(level)
        for stop in (False, True):
            assert_same(
                replay_batch(tables, genomes, lengths, stop),
                replay_batch_reference(tables, genomes, lengths, stop),
            )


# ---- the contract on hand-made cases ---------------------------------------------------------


@pytest.mark.parametrize("title", sorted(SOLUTIONS))
@BOTH_IMPLEMENTATIONS
def test_known_solution_solves_and_stops(title: str, replay):
    level = LEVEL_BY_TITLE[title]
    solution = genes(SOLUTIONS[title])
    trailing = genes("udlr" * 5)
    genomes = np.array([solution + trailing], dtype=np.int8)
    shorter = np.array([len(solution) - 1], dtype=np.int32)
    result = replay(replay_tables(level), genomes)
    assert result.row(0) | {"final_hash": 0} == {
        "solved": True,
        "solved_at": len(solution),
        "boxes_on_goals": level.box_count,
        "best_prefix": len(solution),
        "best_score": 0,
        "final_hash": 0,
        "deadlocked": False,
        "steps": len(solution),
    }
    unfinished = replay(replay_tables(level), genomes, shorter)
    assert not unfinished.solved[0] and unfinished.solved_at[0] == -1
    assert unfinished.steps[0] == len(solution) - 1
    assert unfinished.boxes_on_goals[0] == level.box_count - 1


@BOTH_IMPLEMENTATIONS
def test_illegal_genes_are_consumed_without_effect(replay):
    tables = replay_tables(LEVEL_BY_TITLE["corridor"])
    # #.$@$.#: "u" hits a wall, "l" pushes the left box home, the second "l" would push it into
    # the wall, "d" hits a wall, "r" walks back and the last "r" pushes the right box home.
    result = replay(tables, np.array([genes("ulldrr")], dtype=np.int8))
    assert result.solved[0] and result.solved_at[0] == 6 and result.steps[0] == 6
    assert result.best_prefix[0] == 6 and result.best_score[0] == 0


@BOTH_IMPLEMENTATIONS
def test_best_prefix_is_the_earliest_lowest_score(replay):
    tables = replay_tables(LEVEL_BY_TITLE["corridor"])
    # "l" lowers the score to 1 after gene 1; later walking keeps it at 1: the earliest wins.
    result = replay(tables, np.array([genes("lrlrl")], dtype=np.int8))
    assert result.best_prefix[0] == 1 and result.best_score[0] == 1
    assert result.boxes_on_goals[0] == 1 and not result.solved[0]
    empty = replay(tables, np.zeros((1, 0), dtype=np.int8))
    assert empty.best_prefix[0] == 0 and empty.best_score[0] == 2 and empty.steps[0] == 0


@BOTH_IMPLEMENTATIONS
def test_stop_on_deadlock_at_dead_square(replay):
    level = board("#####\n#   #\n# $ #\n# @.#\n#####", "dead")
    tables = replay_tables(level)
    assert tables.dead[level.cell(1, 2)] and tables.nearest[level.cell(1, 2)] == UNREACHABLE
    genomes = np.array([genes("uuuu")], dtype=np.int8)
    stopped = replay(tables, genomes, stop_on_deadlock=True)
    assert stopped.deadlocked[0] and stopped.steps[0] == 1 and not stopped.solved[0]
    assert stopped.best_prefix[0] == 0 and stopped.best_score[0] == 2
    kept_on = replay(tables, genomes)
    assert not kept_on.deadlocked[0] and kept_on.steps[0] == 4


@BOTH_IMPLEMENTATIONS
def test_stop_on_deadlock_at_frozen_square(replay):
    level = LEVEL_BY_TITLE["two-rooms"]
    tables = replay_tables(level)
    # Both boxes pushed against the top wall side by side: neither cell is dead (goals share
    # the row), but the 2x2 square of two walls and two boxes off goal can never open.
    moves = genes("uuddruu" + "lr" * 3)
    assert not tables.dead[level.cell(1, 2)] and not tables.dead[level.cell(1, 3)]
    stopped = replay(tables, np.array([moves], dtype=np.int8), stop_on_deadlock=True)
    assert stopped.deadlocked[0] and stopped.steps[0] == 7
    kept_on = replay(tables, np.array([moves], dtype=np.int8))
    assert not kept_on.deadlocked[0] and kept_on.steps[0] == len(moves)


@BOTH_IMPLEMENTATIONS
def test_solved_start_consumes_nothing(replay):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        level = board("#####\n#@*.#\n#  $#\n#####", "almost")
    solved_start = State.of(level.cell(1, 1), [level.cell(1, 2), level.cell(1, 3)])
    genomes = np.array([genes("rd")], dtype=np.int8)
    result = replay(replay_tables(level), genomes, start=solved_start)
    assert result.solved[0] and result.solved_at[0] == 0 and result.steps[0] == 0
    assert result.best_prefix[0] == 0 and result.best_score[0] == 0


# ---- hashing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.title)
def test_state_hash_matches_final_hash(level: Level):
    rng = np.random.default_rng(3)
    tables = replay_tables(level)
    states = [level.start] + [random_state(rng, level) for _ in range(30)]
    nothing = np.zeros((1, 0), dtype=np.int8)
    for state in states:
        assert replay_batch(tables, nothing, start=state).final_hash[0] == state_hash(tables, state)
        assert replay_batch_reference(tables, nothing, start=state).final_hash[0] == state_hash(
            tables, state
        )


def test_same_boxes_and_player_region_hash_equally():
    level = LEVEL_BY_TITLE["microban-1"]
    tables = replay_tables(level)
    walks = ["", "r", "rrd", "ul"]  # no push: the boxes stay and the player's region too
    pushes = ["dlU", "dlUd", "dlUdd"]  # one push, then walking in the new region
    rows = [genes(walk) for walk in walks + pushes]
    width = max(map(len, rows))
    genomes = np.zeros((len(rows), width), dtype=np.int8)
    for row, moves in enumerate(rows):
        genomes[row, : len(moves)] = moves
    lengths = np.array([len(moves) for moves in rows], dtype=np.int32)
    hashes = replay_batch(tables, genomes, lengths).final_hash.tolist()
    assert len(set(hashes[: len(walks)])) == 1
    assert len(set(hashes[len(walks) :])) == 1
    assert hashes[0] != hashes[-1]
    assert hashes[0] == state_hash(tables, level.start)


def test_player_region_changes_the_hash():
    level = board("########\n#@ $  .#\n########", "split")
    tables = replay_tables(level)
    left, right = level.cell(1, 2), level.cell(1, 5)
    box = [level.cell(1, 3)]
    corner = level.cell(1, 1)
    assert state_hash(tables, State.of(left, box)) == state_hash(tables, State.of(corner, box))
    assert state_hash(tables, State.of(left, box)) != state_hash(tables, State.of(right, box))


# ---- tables and inputs ------------------------------------------------------------------------


def test_tables_mirror_the_level_and_are_cached():
    level = LEVEL_BY_TITLE["seed004-blog"]
    tables = replay_tables(level)
    assert replay_tables(level) is tables
    assert tables.width == level.width and tables.deltas.tolist() == list(level.deltas)
    assert np.array_equal(tables.floor, level.floor) and np.array_equal(tables.goal, level.goals)
    assert np.array_equal(tables.nearest, level.nearest_goal_distance)
    assert np.array_equal(tables.dead, level.dead_squares)
    assert tables.start_player == level.start.player
    assert tables.start_boxes.tolist() == list(level.start.boxes)
    assert np.flatnonzero(tables.start_occupied).tolist() == list(level.start.boxes)
    assert tables.zobrist_box.dtype == np.uint64 and not tables.zobrist_box.flags.writeable
    twin = board(SEED_BOARDS["seed004-blog"], "seed004-blog")
    assert replay_tables(twin) is not tables
    assert np.array_equal(replay_tables(twin).zobrist_box, tables.zobrist_box)
    assert np.array_equal(replay_tables(twin).zobrist_player, tables.zobrist_player)


def test_bad_inputs_are_rejected():
    level = LEVEL_BY_TITLE["microban-1"]
    tables = replay_tables(level)
    with pytest.raises(ValueError, match="0..3"):
        replay_batch(tables, np.array([[0, 4]], dtype=np.int8))
    with pytest.raises(ValueError, match="0..3"):
        replay_batch_reference(tables, np.array([[0, 4]], dtype=np.int8))
    with pytest.raises(ValueError, match="lengths"):
        replay_batch(tables, np.zeros((2, 3), dtype=np.int8), np.array([1, 4]))
    with pytest.raises(ValueError, match="2-D"):
        replay_batch(tables, np.zeros(3, dtype=np.int8))
    with pytest.raises(ValueError, match="boxes"):
        no_boxes = State.of(level.start.player, [])
        replay_batch(tables, np.zeros((1, 1), dtype=np.int8), start=no_boxes)
    wall = State.of(0, level.start.boxes)
    with pytest.raises(ValueError, match="floor"):
        replay_batch(tables, np.zeros((1, 1), dtype=np.int8), start=wall)
    # genes past a genome's length are never read, and other integer dtypes are accepted
    padded = np.array([[1, 9], [0, 0]], dtype=np.int64)
    result = replay_batch(tables, padded, np.array([1, 2]))
    assert result.steps.tolist() == [1, 2]
    assert len(replay_batch(tables, np.zeros((0, 5), dtype=np.int8))) == 0
