"""Hybrid mode: search paths become genome prefixes; the memetic step extends a genome; both
under the standard and the given-holes rules."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from evolve_levels import comparable, run

from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import decode, genes_from_lurd
from evosoko.evolve.hybrid import level_at, memetic_improver, search_seeds
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.holes.board import VANISHED, HolesState
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


def test_the_seeding_search_is_on_the_levels_clock(microban, monkeypatch):
    """Its seconds count in the result and against the budget; its time limit is the budget's."""
    import time

    from evosoko.evolve import hybrid

    asked = {}

    def slow_seeds(level, config, time_limit=None, clock="wall"):
        asked["time_limit"], asked["clock"] = time_limit, clock
        time.sleep(0.3)
        return []

    monkeypatch.setattr(hybrid, "search_seeds", slow_seeds)
    level = microban[HARDER]
    config = hybrid_config("pushes", "run.budget.generations=1", "run.budget.seconds=900")
    with make_evaluator(level, config.parallel, "pushes", config.fitness) as evaluator:
        outcome = evolve_level(level, config, evaluator=evaluator)
        assert asked == {"time_limit": 900, "clock": "wall"}
        assert outcome.seconds >= 0.3
        short = load_config(
            None, ["hybrid.enabled=true", "ga.encoding=pushes", "run.budget.seconds=0.2"]
        )
        stopped = evolve_level(level, short, evaluator=evaluator)
    assert stopped.exhausted == "seconds" and stopped.generations == 0


def test_the_seeding_search_stops_at_its_time_limit(microban, monkeypatch):
    import evosoko.search

    real_solve, statuses = evosoko.search.solve, []

    def solve(*args, **kwargs):
        result = real_solve(*args, **kwargs)
        statuses.append(str(result.stop))
        return result

    monkeypatch.setattr(evosoko.search, "solve", solve)
    config = hybrid_config("pushes", "hybrid.node_budget=100000000")
    assert search_seeds(microban[HARDER], config, time_limit=0.0) == []  # no search at all
    search_seeds(microban[HARDER], config, time_limit=1e-9)
    search_seeds(microban[HARDER], config)
    assert statuses == ["budget: seconds", "solved"]


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
    outcome = improve(start)
    improved = outcome.genes
    assert not outcome.lost
    assert improved[: len(start)] == start and len(improved) > len(start)
    after = decode(level, encoding, improved)
    assert after.lurd.startswith(before.lurd)
    assert verify_solution(level, after.lurd).valid


def test_level_at_keeps_cells(microban):
    level = microban[3]
    moved = level_at(level, level.start)
    assert moved is not None and moved.key() == level.key()


# ---- given-holes levels -------------------------------------------------------------------------
GIVEN_HOLES = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"


def given_holes_level(title: str):
    return next(level for level in read_levels(GIVEN_HOLES) if level.title == title)


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_given_holes_seeds_decode_to_the_partial_paths_positions(encoding):
    from evosoko.search import solve

    level = given_holes_level("holes-medium-02")
    config = hybrid_config(
        encoding, "ga.population=100", "hybrid.node_budget=8", "hybrid.fraction=0.03"
    )
    seeds = search_seeds(level, config)
    result = solve(level, "push-astar", node_limit=8, partial=3)
    assert not result.solved and len(seeds) == len(result.partial) == 3
    finals = [decode(level, encoding, seed).final for seed in seeds]
    # the variant's search prunes exactly the pushes its genomes leave out: every seed reaches
    # its frontier state, the player included (a path ends with a push)
    assert finals == [path.state for path in result.partial]
    assert all(isinstance(final, HolesState) for final in finals)


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
@pytest.mark.parametrize("budget", [5, 3000])
def test_given_holes_memetic_step_starts_after_a_vanished_box(encoding, budget):
    level = given_holes_level("holes-easy-01")
    prefix = "ddrdL"  # the first push of the level's solution: box 1 vanishes in its hole
    config = hybrid_config(
        encoding, "hybrid.memetic_every=1", f"hybrid.memetic_node_budget={budget}"
    )
    genes = genes_from_lurd(level, encoding, prefix)
    before = decode(level, encoding, genes)
    assert before.final.by_box[0] == VANISHED and not before.solved
    improved = memetic_improver(level, config)(genes).genes
    assert improved is not None and improved[: len(genes)] == genes and len(improved) > len(genes)
    after = decode(level, encoding, improved)
    assert after.lurd.startswith(before.lurd) and after.final.by_box[0] == VANISHED
    check = verify_solution(level, after.lurd)
    assert check.valid and check.final == after.final
    old, new = FitnessFunction(level, encoding, config.fitness)([genes, improved])
    assert new.solved or new.distance <= old.distance
    assert new.solved == (budget == 3000)


def test_given_holes_memetic_step_leaves_a_solved_genome():
    level = given_holes_level("holes-easy-01")
    config = hybrid_config("moves", "hybrid.memetic_every=1")
    solved = genes_from_lurd(level, "moves", "ddrdLllddrUUUdddrUUruL")  # the file's solution
    outcome = memetic_improver(level, config)(solved)
    assert outcome.genes is None and not outcome.lost


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_a_hybrid_run_solves_a_given_holes_level_the_same_on_processes(encoding):
    level = given_holes_level("holes-hard-01")
    overrides = [
        "hybrid.enabled=true",
        f"ga.encoding={encoding}",
        "ga.population=20",
        "ga.offspring=20",
        "hybrid.node_budget=50",
        "hybrid.memetic_every=1",
        "hybrid.memetic_node_budget=100",
        "run.budget.generations=40",
        "run.seed=7",
    ]
    serial, serial_stats = run(level, overrides)
    assert serial.solved
    check = verify_solution(level, serial.solution)
    assert check.valid and check.solved and all(cell == VANISHED for cell in check.final.by_box)
    pooled, pooled_stats = run(level, [*overrides, "parallel.backend=processes"])
    assert (pooled.solution, pooled.generations) == (serial.solution, serial.generations)
    assert comparable(pooled_stats) == comparable(serial_stats)


XSOKOBAN = Path(__file__).parents[2] / ".." / "shared" / "levels" / "xsokoban.txt"
XSOKOBAN_3_PUSH_FESS = (
    "ldDllddddlLLLLLLLulDrdLurrrrrrrrruuuurrDulldddrRdLLLLLLLLLLdlUruLdrrrrrrrrrrrrruLLdlluuuurrdDD"
    "uuullddddrRuuuLrdddlllluuRDrdrruuuuuullllddRDuluurrrrdddlLruLrruulDDldDuurrddddllLLLLLLLLulDr"
    "rrrrrrrrrruuuullddDuuurrddddlLrruuuLulDDurrdddllLLrrrruuulldDuurrdddlLrrurrdLuluullddlldLLLLL"
    "dlUruLdrrrrrrurrdLuruurrddLLdlLLLLLLulDrrrrrrrrurrrdLLLLLLLLLLLrrrrrruRdrruruulldDrdLLLLLLLdl"
    "UruLdrrrrruuRdrrruullDDrdLLLLLLLulDrrrrruurruuruulllddRDDDrdLLLLLLLrrrrruuruuluurDDDDDrdLLLLL"
    "dlUruLdrrrruururruLruulldDDDDrdLLLLLL"
)
"""push-fess's solution of XSokoban screen 3 (60 CPU-seconds, 142 pushes)."""


def xsokoban_screen_3():
    """XSokoban screen 3 and a push-fess solution of it: its sixth push leaves a PI-corral's
    barrier (skipped without ../shared)."""
    if not XSOKOBAN.exists():
        pytest.skip("../shared/levels/xsokoban.txt is absent")
    return read_levels(XSOKOBAN)[2], XSOKOBAN_3_PUSH_FESS


def test_search_paths_become_whole_genomes_without_pi_corrals():
    level, solution = xsokoban_screen_3()
    pushes = sum(letter.isupper() for letter in solution)
    assert len(genes_from_lurd(level, "pushes", solution)) == 5  # cut at the corral
    genes = genes_from_lurd(level, "pushes", solution, pi_corrals=False)
    assert len(genes) == pushes
    decoded = decode(level, "pushes", genes, pi_corrals=False)
    assert decoded.solved and decoded.pushes == pushes
    assert not decode(level, "pushes", genes).solved  # the genes mean other pushes with them


def test_a_hybrid_run_without_pi_corrals_keeps_the_seeding_searchs_solution():
    level, _ = xsokoban_screen_3()
    overrides = [
        "hybrid.algorithm=push-fess",
        "hybrid.node_budget=20000",
        "ga.population=20",
        "ga.offspring=20",
        "run.budget.generations=1",
    ]
    kept = hybrid_config("pushes", *overrides, "fitness.pi_corrals=false")
    cut = hybrid_config("pushes", *overrides)
    with make_evaluator(level, kept.parallel, "pushes", kept.fitness) as evaluator:
        outcome = evolve_level(level, kept, evaluator=evaluator)
    assert outcome.solved and outcome.generations == 0
    assert verify_solution(level, outcome.solution).solved
    with make_evaluator(level, cut.parallel, "pushes", cut.fitness) as evaluator:
        assert not evolve_level(level, cut, evaluator=evaluator).solved


# ---- lost positions -----------------------------------------------------------------------------
def random_push_genomes(rng, count: int, longest: int = 25) -> list[list[int]]:
    from evosoko.evolve.genomes import gene_range

    top = gene_range("pushes")
    return [[rng.randrange(top) for _ in range(rng.randrange(3, longest))] for _ in range(count)]


def test_a_memetic_search_that_exhausts_its_space_proves_the_position_lost(microban):
    """Positions reached by random push genomes: the improver calls one lost exactly when
    push-A* (no budget) finds it unsolvable, as far as its budget reaches."""
    from evosoko.search import solve

    rng = random.Random(5)
    config = hybrid_config("pushes", "hybrid.memetic_every=1", "hybrid.memetic_node_budget=5000")
    lost = extended = 0
    for level in microban[:40:3]:
        improve = memetic_improver(level, config)
        for genes in random_push_genomes(rng, 6):
            outcome = improve(genes)
            final = decode(level, "pushes", genes).final
            status = solve(level_at(level, final), "push-astar", time_limit=20).status
            if outcome.lost:
                assert outcome.genes is None and status == "unsolvable"
                lost += 1
            elif outcome.genes is not None:
                assert status != "unsolvable" and outcome.genes[: len(genes)] == genes
                extended += 1
    assert lost >= 3 and extended >= 10  # both sides were exercised


def test_a_memetic_step_ranks_a_proven_lost_position_last_and_searches_the_next(microban):
    """Microban 36, where the GA's first best position is a dead end: every position the memetic
    search proves lost joins the engine's lost positions, none is searched twice, after a proof
    the step goes on to another position in the same generation, and the level is solved (with
    the proofs thrown away, the step searched the same lost position for 30 generations)."""
    from evosoko.evolve.engine import Engine
    from evosoko.evolve.evaluation import SerialEvaluator
    from evosoko.evolve.fitness import FitnessFunction

    level = microban[35]
    config = hybrid_config(
        "pushes",
        "hybrid.node_budget=1",  # seeds of one expansion: the GA and the memetic step solve it
        "run.budget.generations=30",
        "ga.population=20",
        "ga.offspring=24",
        "run.seed=11",
        "fitness.lost_search_nodes=50",  # the engine ranks by lost positions...
        "fitness.lost_search_age=1000000",  # ...that its own lost search never looks for
        "hybrid.memetic_every=1",
        "hybrid.memetic_node_budget=3000",
    )
    improve, score = (
        memetic_improver(level, config),
        FitnessFunction(level, "pushes", config.fitness),
    )
    searched: list[tuple[int, int, bool]] = []
    engine = None

    def recording(genes):
        outcome = improve(genes)
        position = score([genes])[0].state_hash
        searched.append((engine.generation, position, outcome.lost))
        return outcome

    engine = Engine(
        level, config, SerialEvaluator(level, "pushes", config.fitness), improve=recording
    )
    outcome = engine.run()
    proven = {position for _, position, lost in searched if lost}
    assert proven and proven <= engine.lost_positions
    positions = [position for _, position, _ in searched]
    assert len(set(positions)) == len(positions)
    after_a_proof = [
        later
        for (generation, _, lost), (later, _, _) in itertools.pairwise(searched)
        if lost and later == generation
    ]
    assert after_a_proof and outcome.solved
