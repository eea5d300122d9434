"""The generational loop: determinism, resume, stop reasons, verified outcomes."""

from __future__ import annotations

import json

import pytest
from evolve_levels import comparable, run, small_level

from evosoko.config import load_config
from evosoko.evolve.engine import Engine
from evosoko.evolve.evaluation import SerialEvaluator
from evosoko.sokoban.solutions import verify_solution

HARD_ENOUGH = 64  # Microban 65: not solved in a few generations


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_solves_a_small_level_with_a_verified_solution(encoding):
    level = small_level("two-boxes")
    outcome, stats = run(level, [f"ga.encoding={encoding}", "run.budget.generations=300"])
    assert outcome.solved and outcome.status == "solved"
    verification = verify_solution(level, outcome.solution)
    assert verification.valid and verification.solved
    assert (outcome.moves, outcome.pushes) == (verification.moves, verification.pushes)
    assert stats[0].generation == 0 and stats[-1].solved
    assert outcome.generations == stats[-1].generation
    assert outcome.evaluations == stats[-1].evaluations


@pytest.mark.parametrize(
    "encoding, extra",
    [
        ("moves", []),
        ("pushes", []),
        ("moves", ["ga.mutation.push_macro=0.5", "fitness.trim_to_best=false"]),
        ("pushes", ["ga.age_memory=false", "fitness.trim_to_best=false"]),
    ],
)
def test_same_seed_same_run(microban, encoding, extra):
    level = microban[HARD_ENOUGH]
    overrides = [
        f"ga.encoding={encoding}",
        "run.budget.generations=15",
        "ga.population=30",
        "ga.offspring=30",
        *extra,
        "run.seed=5",
    ]
    first, first_stats = run(level, overrides)
    second, second_stats = run(level, overrides)
    assert comparable(first_stats) == comparable(second_stats)
    assert first.best.genes == second.best.genes
    _other, other_stats = run(level, overrides[:-1] + ["run.seed=6"])
    assert comparable(other_stats) != comparable(first_stats)


LOST_SEARCH = [
    "fitness.lost_search_nodes=500",
    "fitness.lost_search_age=0",
    "ga.stagnation_restart=none",
]
MEMETIC = [
    *LOST_SEARCH,
    "hybrid.enabled=true",
    "hybrid.node_budget=1",
    "hybrid.memetic_every=1",
    "hybrid.memetic_node_budget=20",
]
MOVES_PRESET_LIKE = [
    "ga.encoding=moves",
    "ga.mutation.push_macro=0.5",
    "ga.mutation.tail_genes=5",
    "fitness.trim_to_best=false",
]


@pytest.mark.parametrize(
    "selection, extra",
    [
        ("tournament", []),
        ("truncation", []),
        ("mu_plus_lambda", []),
        ("mu_comma_lambda", []),
        ("nsga2", []),
        ("tournament", MOVES_PRESET_LIKE),
        ("tournament", LOST_SEARCH),
        ("tournament", MEMETIC),
    ],
)
def test_resume_equals_uninterrupted(microban, selection, extra):
    level = microban[HARD_ENOUGH]
    overrides = [
        "ga.encoding=pushes",
        f"ga.selection={selection}",
        "ga.population=20",
        "ga.offspring=24",
        "output.checkpoint_every=5",
        "ga.stagnation_restart=4",
        *([] if selection == "nsga2" else ["ga.age_patience=2"]),  # NSGA-II ages nothing
        "run.seed=11",
        *extra,
    ]
    whole, whole_stats = run(level, overrides + ["run.budget.generations=20"])
    checkpoints = []
    half, half_stats = run(
        level, overrides + ["run.budget.generations=10"], on_checkpoint=checkpoints.append
    )
    assert half.exhausted == "generations"
    saved = json.loads(json.dumps(checkpoints[-1]))  # really plain data
    assert saved["generation"] == 10
    assert bool(saved["lost_positions"]) == (extra in (LOST_SEARCH, MEMETIC))  # exercised
    assert bool(saved["memetic_searched"]) == (extra is MEMETIC)
    resumed, resumed_stats = run(
        level, overrides + ["run.budget.generations=20"], resume_state=saved
    )
    assert comparable(half_stats + resumed_stats) == comparable(whole_stats)
    assert resumed.best.genes == whole.best.genes
    assert resumed.evaluations == whole.evaluations
    assert [e.genes for e in resumed.hall_of_fame] == [e.genes for e in whole.hall_of_fame]


def test_should_stop_interrupts_with_a_checkpoint(microban):
    level = microban[HARD_ENOUGH]
    calls = []
    checkpoints = []
    outcome, _stats = run(
        level,
        ["run.budget.generations=50", "output.checkpoint_every=0"],
        should_stop=lambda: calls.append(1) or len(calls) > 3,
        on_checkpoint=checkpoints.append,
    )
    assert outcome.status == "interrupted" and outcome.generations == 3
    assert len(checkpoints) == 1 and checkpoints[0]["generation"] == 3


def test_evaluation_budget(microban):
    outcome, _stats = run(
        microban[HARD_ENOUGH], ["run.budget.evaluations=500", "ga.population=50", "ga.offspring=50"]
    )
    assert outcome.exhausted == "evaluations"
    assert 500 <= outcome.evaluations < 550
    assert not outcome.solved and outcome.solution is None
    assert verify_solution(microban[HARD_ENOUGH], outcome.best.lurd).valid


@pytest.mark.parametrize(
    "encoding, extra",
    [
        ("pushes", ["fitness.trim_to_best=true"]),
        ("pushes", ["fitness.trim_to_best=false"]),
        ("moves", ["fitness.trim_to_best=true", "ga.min_length=60", "ga.initial_length=80"]),
        ("moves", ["fitness.trim_to_best=false"]),
    ],
)
def test_an_unsolved_levels_best_prefix_replays_to_its_distance(microban, encoding, extra):
    """The best individual's play is the prefix its fitness scores: replayed, it reaches a
    position of the reported distance (genes beyond it, kept for min_length, are not played)."""
    from evosoko.config import FitnessConfig
    from evosoko.evolve.distances import box_distance
    from evosoko.evolve.fitness import FitnessFunction
    from evosoko.evolve.genomes import genes_from_lurd

    level = microban[HARD_ENOUGH]
    outcome, stats = run(level, [f"ga.encoding={encoding}", "run.budget.generations=8", *extra])
    best = outcome.best
    assert not outcome.solved and not best.solved and best.lurd == outcome.best.lurd
    check = verify_solution(level, best.lurd)
    assert check.valid and not check.solved
    assert (check.moves, check.pushes) == (best.moves, best.pushes)
    assert best.distance == outcome.fitness["distance"] == min(s.best_distance for s in stats)
    if encoding == "moves":  # the distance of the position the plain replay ends in
        assert box_distance(level, "matching", check.final.boxes) == best.distance
    config = load_config(None, [f"ga.encoding={encoding}", *extra])
    (scored,) = FitnessFunction(level, encoding, config.fitness)([outcome.best.genes])
    at_end = FitnessFunction(level, encoding, FitnessConfig(trim_to_best=False))
    (replayed,) = at_end([genes_from_lurd(level, encoding, best.lurd)])
    # the prefix ends at the position the fitness scored: same boxes, same player area
    assert (replayed.distance, replayed.state_hash) == (best.distance, scored.state_hash)


def test_a_solved_levels_best_is_its_solution():
    level = small_level("two-boxes")
    outcome, _ = run(level, ["run.budget.generations=300"])
    assert outcome.solved
    assert (outcome.best.lurd, outcome.best.distance, outcome.best.solved) == (
        outcome.solution,
        0,
        True,
    )
    assert (outcome.best.moves, outcome.best.pushes) == (outcome.moves, outcome.pushes)


def test_stagnation_restarts_keep_the_hall_of_fame(microban):
    level = microban[HARD_ENOUGH]
    outcome, stats = run(
        level,
        [
            "ga.stagnation_restart=3",
            "run.budget.generations=30",
            "ga.population=10",
            "ga.offspring=10",
            "ga.hall_of_fame=3",
        ],
    )
    assert outcome.restarts >= 1 and stats[-1].restarts == outcome.restarts
    best_so_far = [s.best_distance for s in stats]
    assert outcome.fitness["distance"] <= min(best_so_far)
    assert len(outcome.hall_of_fame) == 3


def test_duplicates_are_eliminated(microban):
    level = microban[HARD_ENOUGH]
    common = ["run.budget.generations=20", "ga.age_patience=none"]
    _, with_elimination = run(level, common + ["fitness.eliminate_duplicates=true"])
    _, without = run(level, common + ["fitness.eliminate_duplicates=false"])
    mean = lambda stats: sum(s.diversity for s in stats) / len(stats)
    assert mean(with_elimination) > mean(without)


def test_source_ga_settings_run(microban):
    level = microban[0]
    config = load_config(
        None,
        [
            "ga.encoding=moves",
            "ga.selection=truncation",
            "ga.offspring=50",
            "ga.elitism=0",
            "ga.crossover.kind=block",
            "ga.crossover.probability=1.0",
            "ga.mutation.replace_rate=0.05",
            "ga.mutation.insert_rate=0.05",
            "ga.mutation.delete_rate=0",
            "ga.mutation.duplication=0",
            "ga.mutation.inversion=0",
            "ga.mutation.tail_regrowth=0",
            "ga.grow_while_under=50",
            "fitness.objective=manhattan",
            "fitness.trim_to_best=false",
            "fitness.stop_on_deadlock=false",
            "fitness.length_objective=false",
            "run.budget.generations=5",
        ],
    )
    engine = Engine(level, config, SerialEvaluator(level, "moves", config.fitness))
    outcome = engine.run()
    assert outcome.solved or outcome.generations == 5
    if not outcome.solved:  # children grow by 10 genes a generation while under 50
        assert max(len(individual) for individual in engine.population) >= 50


def test_checkpoint_of_another_level_is_refused(microban):
    config = load_config(None, ["run.budget.generations=2"])
    evaluator = SerialEvaluator(microban[0], "pushes", config.fitness)
    engine = Engine(microban[0], config, evaluator)
    engine.run()
    state = engine.checkpoint()
    with pytest.raises(Exception, match="level"):
        Engine(
            microban[1],
            config,
            SerialEvaluator(microban[1], "pushes", config.fitness),
            resume_state=state,
        )


def _individual(distance, state_hash, age=0):
    """A one-gene individual scored at ``distance`` in the position ``state_hash``."""
    from evosoko.evolve.fitness import Evaluation
    from evosoko.evolve.individuals import Individuals
    from evosoko.evolve.objectives import Objectives

    return Individuals(Objectives()).new([0], Evaluation(False, distance, 1, 1, state_hash), age)


def _aged_rank(patience):
    from evosoko.evolve.objectives import Objectives
    from evosoko.evolve.ranking import rank_key

    return rank_key(Objectives(), patience, 0.0)


def _rank_key(patience, pressure, lost):
    from evosoko.evolve.objectives import Objectives
    from evosoko.evolve.ranking import rank_key

    return rank_key(Objectives(), patience, pressure, lost)


def test_aging_ranks_old_positions_lower():
    from evosoko.evolve.ranking import share_ages

    old_close, young_far, child_of_old = _individual(1, 5, 9), _individual(3, 6), _individual(1, 5)
    share_ages([old_close, young_far, child_of_old])
    assert child_of_old.age == 9  # a child reaching an old position is not young
    assert _aged_rank(4)(young_far) == _aged_rank(4)(old_close)  # 1 + 9 // 4 = 3
    assert _aged_rank(3)(young_far) > _aged_rank(3)(old_close)  # 1 + 9 // 3 = 4 > 3
    assert _aged_rank(10)(old_close) > _aged_rank(10)(young_far)  # 1 + 0 < 3


def test_lost_positions_rank_behind_all_others():
    near_but_lost = _individual(distance=1, state_hash=7)
    far = _individual(distance=90, state_hash=8)
    lost = {7}
    assert _rank_key(None, 0.0, lost)(far) > _rank_key(None, 0.0, lost)(near_but_lost)
    assert _rank_key(4, 0.0, lost)(far) > _rank_key(4, 0.0, lost)(near_but_lost)
    assert _rank_key(None, 0.0, set())(near_but_lost) > _rank_key(None, 0.0, set())(far)


def test_lost_search_ranks_the_stuck_best_position_last(microban):
    """Microban 77: the lost search proves some of the best positions lost, and none of them
    is the population's best by rank afterwards."""
    level = microban[76]
    config = load_config(
        None,
        [
            "ga.encoding=pushes",
            "run.budget.generations=20",
            "ga.population=20",
            "ga.offspring=24",
            "run.seed=11",
            *LOST_SEARCH,
        ],
    )
    engine = Engine(level, config, SerialEvaluator(level, "pushes", config.fitness))
    engine.run()
    assert engine.lost_positions
    best = max(engine.population, key=engine.rank)
    assert best.evaluation.state_hash not in engine.lost_positions
    for individual in engine.population:
        if individual.evaluation.state_hash in engine.lost_positions:
            assert engine.rank(individual) < engine.rank(best)


def test_aging_moves_the_population_on(microban):
    level = microban[HARD_ENOUGH]
    _, plain = run(level, ["run.budget.generations=40", "run.seed=2"])
    _, aged = run(level, ["run.budget.generations=40", "run.seed=2", "ga.age_patience=2"])
    assert comparable(plain) != comparable(aged)


@pytest.mark.parametrize("crossover", ["block", "one_point", "two_point", "messy"])
@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_toolbox_operators_keep_deaps_contract_on_one_gene_parents(encoding, crossover):
    """The registered mate and mutate change DEAP individuals in place and return them in a
    tuple, within the configured lengths, from parents of one gene."""
    from deap import creator

    level = small_level("two-boxes")
    config = load_config(
        None,
        [
            f"ga.encoding={encoding}",
            f"ga.crossover.kind={crossover}",
            "ga.min_length=1",
            "ga.max_length=6",
            "ga.initial_length=3",
            "ga.mutation.tail_genes=2",
        ],
    )
    from evosoko.evolve.genomes import gene_range

    engine = Engine(level, config, SerialEvaluator(level, encoding, config.fitness), seed=3)
    toolbox = engine.toolbox
    for _ in range(50):
        first, second = creator.EvosokoGenome([0]), creator.EvosokoGenome([1])
        children = toolbox.mate(first, second)
        assert isinstance(children, tuple) and children[0] is first and children[1] is second
        (mutant,) = toolbox.mutate(first)
        assert mutant is first and type(mutant) is creator.EvosokoGenome
        for genome in (first, second):
            assert 1 <= len(genome) <= 6
            assert all(0 <= gene < gene_range(encoding) for gene in genome)
