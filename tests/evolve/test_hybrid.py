"""Hybrid mode: search paths become genome prefixes; the memetic step extends a genome."""

from __future__ import annotations

import pytest

from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.genomes import decode
from evosoko.evolve.hybrid import level_at, memetic_improver, search_seeds
from evosoko.sokoban.level import DIRECTIONS
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import verify_solution

pytest.importorskip("evosoko.search")

HARDER = 9  # Microban 10


def hybrid_config(encoding: str, *extra: str):
    return load_config(
        None,
        ["hybrid.enabled=true", f"ga.encoding={encoding}", "run.budget.generations=5", *extra],
    )


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_a_solving_search_seeds_its_solution(microban, encoding):
    level = microban[HARDER]
    config = hybrid_config(encoding, "hybrid.node_budget=5000")
    with make_evaluator(level, config.parallel, encoding, config.fitness) as evaluator:
        outcome = evolve_level(level, config, evaluator=evaluator)
    assert outcome.solved and outcome.generations == 0
    assert verify_solution(level, outcome.solution).solved


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_frontier_paths_become_prefixes(microban, encoding):
    from evosoko.search import solve

    level = microban[HARDER]
    config = hybrid_config(encoding, "hybrid.node_budget=8", "hybrid.fraction=0.05")
    seeds = search_seeds(level, config)
    result = solve(level, "push-astar", node_limit=8, partial=5)
    assert not result.solved and 1 <= len(seeds) <= 5
    reached = {p.state.boxes for p in result.partial}
    along = {boxes for p in result.partial for boxes in positions_along(level, p.lurd)}
    finals = [decode(level, encoding, seed).final.boxes for seed in seeds]
    # A push genome stops before a push into a position it knows to be lost, and a frontier
    # state that A* has not expanded yet may be lost: its seed then ends earlier on the path.
    assert all(final in (reached if encoding == "moves" else along) for final in finals)
    assert any(final in reached for final in finals)


def positions_along(level, lurd: str) -> list[tuple[int, ...]]:
    """The box cells after each step of ``lurd`` from the start."""
    board = Board(level)
    positions = [board.state().boxes]
    for letter in lurd:
        assert board.step(DIRECTIONS.index(letter.lower()))
        positions.append(board.state().boxes)
    return positions


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_memetic_step_continues_from_the_reached_position(microban, encoding):
    level = microban[HARDER]
    config = hybrid_config(encoding, "hybrid.memetic_every=1", "hybrid.memetic_node_budget=3000")
    improve = memetic_improver(level, config)
    start = [1, 3] if encoding == "moves" else [0]
    before = decode(level, encoding, start)
    improved = improve(start)
    assert improved[: len(start)] == start and len(improved) > len(start)
    after = decode(level, encoding, improved)
    assert after.lurd.startswith(before.lurd)
    assert verify_solution(level, after.lurd).valid


def test_level_at_keeps_cells(microban):
    level = microban[3]
    moved = level_at(level, level.start)
    assert moved is not None and moved.key() == level.key()
