"""The GA under the given-holes rules: replay kernels, pairing-aware fitness, verified runs."""

from __future__ import annotations

import random

import pytest
from evolve_levels import run
from hypothesis import given, settings
from hypothesis import strategies as st

from evosoko.config import FitnessConfig, ParallelConfig
from evosoko.errors import ConfigError
from evosoko.evolve import make_evaluator
from evosoko.evolve.fitness import FitnessFunction
from evosoko.evolve.genomes import decode, random_genes
from evosoko.search.given_holes import paired_distance
from evosoko.sokoban.holes.board import VANISHED
from evosoko.sokoban.solutions import verify_solution
from tests.sokoban.given_holes_levels import SWAP_SOLUTION, given_holes_levels, swap

PROCESSES = ParallelConfig(backend="processes", workers=2, batch_size=7)


def test_a_solving_move_genome_is_solved_at_its_length():
    level = swap()
    genes = ["udlr".index(letter.lower()) for letter in SWAP_SOLUTION]
    (evaluation,) = FitnessFunction(level, "moves", FitnessConfig())([genes + [0, 1]])
    assert evaluation.solved and evaluation.length == len(SWAP_SOLUTION)
    decoded = decode(level, "moves", genes + [0, 1])
    assert decoded.solved and decoded.lurd == SWAP_SOLUTION
    assert decoded.final.by_box == (VANISHED, VANISHED)


def test_the_distance_is_paired_not_the_nearest_hole():
    level = swap()
    (evaluation,) = FitnessFunction(level, "moves", FitnessConfig(trim_to_best=False))([[0]])
    # box 1 is 2 pushes from the near hole 1 but 5 from its own hole 2; box 2 is 4 from its
    # own hole 1 (a standard matching would pair them the other way: 2 + 3)
    assert evaluation.distance == paired_distance(level, level.start.boxes) == 5 + 4


@settings(max_examples=40, deadline=None)
@given(
    given_holes_levels(max_boxes=3),
    st.sampled_from(["moves", "pushes"]),
    st.booleans(),
    st.integers(0, 2**16),
)
def test_kernel_replay_agrees_with_the_rules(level, encoding, trim, seed):
    """The compiled replay and the Python rules reach the same position: a decoded genome's
    final position has the distance the kernel scored, and its LURD replays legally."""
    rng = random.Random(seed)
    genomes = [random_genes(rng, rng.randint(0, 30), encoding) for _ in range(6)]
    fitness = FitnessFunction(level, encoding, FitnessConfig(trim_to_best=trim))
    for genome, evaluation in zip(genomes, fitness(genomes)):
        decoded = decode(level, encoding, genome[: evaluation.keep])
        check = verify_solution(level, decoded.lurd)
        assert check.valid and check.solved == evaluation.solved == decoded.solved
        if not evaluation.solved:
            assert paired_distance(level, decoded.final.by_box) == evaluation.distance
        if encoding == "pushes":
            assert decoded.pushes == evaluation.keep


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_processes_rebuild_the_variant_and_equal_serial(encoding):
    level = swap()
    rng = random.Random(3)
    genomes = [random_genes(rng, rng.randint(1, 40), encoding) for _ in range(40)]
    with make_evaluator(level, ParallelConfig(), encoding, FitnessConfig()) as serial:
        expected = serial.map(genomes)
    with make_evaluator(level, PROCESSES, encoding, FitnessConfig()) as pool:
        assert pool.map(genomes) == expected
    assert any(evaluation.solved for evaluation in expected) or encoding == "moves"


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_ga_solutions_of_the_variant_verify(encoding):
    level = swap()
    outcome, _ = run(level, [f"ga.encoding={encoding}", "run.budget.generations=300"])
    assert outcome.solved
    check = verify_solution(level, outcome.solution)
    assert check.valid and check.solved
    assert check.final.by_box == (VANISHED, VANISHED)
    assert (outcome.moves, outcome.pushes) == (check.moves, check.pushes)


def test_a_seeding_search_of_another_variant_is_refused_and_speed_ups_switched_off(caplog):
    with pytest.raises(ConfigError, match="hybrid.algorithm = push-fess"):
        run(swap(), ["hybrid.enabled=true", "hybrid.algorithm=push-fess"])
    seeded, _ = run(swap(), ["hybrid.enabled=true"])
    assert seeded.solved and seeded.generations == 0  # the seeding search solved it
    outcome, _ = run(
        swap(),
        [
            "ga.encoding=moves",
            "ga.mutation.push_macro=0.5",
            "run.budget.generations=300",
        ],
    )
    assert outcome.solved and verify_solution(swap(), outcome.solution).solved
    assert "ga.mutation.push_macro" in caplog.text
    boxed, _ = run(
        swap(),
        [
            "ga.encoding=pushes",
            "ga.mutation.box_macro=0.5",
            "fitness.lost_search_nodes=100",  # the lost search reads push genomes only
            "run.budget.generations=300",
        ],
    )
    assert boxed.solved and verify_solution(swap(), boxed.solution).solved
    assert "ga.mutation.box_macro" in caplog.text and "lost_search_nodes" in caplog.text


def test_map_elites_refuses_a_given_holes_level():
    from evosoko.config import load_config
    from evosoko.errors import EvosokoError
    from evosoko.evolve.engine import Engine
    from evosoko.evolve.evaluation import SerialEvaluator

    config = load_config(None, ["ga.survival.kind=map_elites", "ga.encoding=pushes"])
    level = swap()
    with pytest.raises(EvosokoError, match="has given holes; map_elites needs the standard"):
        Engine(level, config, SerialEvaluator(level, "pushes", config.fitness))
