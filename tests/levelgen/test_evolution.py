"""The level GA on the ask/tell protocol: reproducible, its state a checkpoint, the GA's own
survivals, older checkpoints read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evosoko.errors import EvosokoError
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.evolution import LevelEvolution
from evosoko.levelgen.scoring import Scorer
from evosoko.levelgen.state import genes_from_text, genes_to_text, read_levels_state
from evosoko.parallel.jobs import SerialBackend
from evosoko.status import Status

SMALL = {"levels.size": "7x7", "levels.boxes": 2, "levels.population": 6, "levels.offspring": 6}
OLD_CHECKPOINT = Path(__file__).parent / "data" / "checkpoint-v1.json"
"""The checkpoint of the 7x7 run of tests/levelgen/test_run.py cut after generation 3, as
evosoko wrote it before the level loop's state was a :class:`LevelsState`."""


def settings(**changes):
    return LevelsConfig().set({**SMALL, **changes}).levels


def evolved(generations: int, **changes) -> LevelEvolution:
    """A level evolution run to ``generations`` generations after the first population."""
    chosen = settings(**{"levels.budget.generations": generations, **changes})
    evolution = LevelEvolution(chosen, scorer=Scorer.of(chosen, SerialBackend()))
    evolution.run()
    return evolution


def test_the_same_seed_evolves_the_same_levels():
    first, second = evolved(4), evolved(4)
    assert [list(i) for i in first.population] == [list(i) for i in second.population]
    assert first.stop is not None and first.stop.status == Status.BUDGET
    third = evolved(4, **{"levels.seed": 1})
    assert [list(i) for i in third.population] != [list(i) for i in first.population]


def test_driven_by_ask_and_tell_it_keeps_feasible_survivors_and_a_best_that_only_grows():
    chosen = settings(**{"levels.budget.generations": 4})
    evolution = LevelEvolution(chosen)
    scorer = Scorer.of(chosen, SerialBackend())
    best = []
    while not evolution.done:
        scores = scorer.score(evolution.ask(), evolution.generation)
        assert scores is not None
        evolution.tell(scores)
        assert all(individual.evaluation.feasible for individual in evolution.population)
        best.append(max(individual.fitness.values[0] for individual in evolution.population))
    assert best == sorted(best) and len(best) == 5 and len(evolution.population) == 6
    assert evolution.generation == 4 and evolution.evaluations == 30
    assert evolution.certifications <= 30 and evolution.cpu_seconds > 0
    result = evolution.result()
    assert result.pushes == best[-1] and result.level is not None


def test_the_state_is_a_checkpoint_that_asks_for_the_same_boards():
    evolution = evolved(3)
    state = read_levels_state(json.loads(json.dumps(evolution.state.to_json())), "x")
    assert state == evolution.state.model_copy(update={"seconds": state.seconds})
    chosen = settings(**{"levels.budget.generations": 5})
    restored = LevelEvolution(chosen, state=state)
    again = LevelEvolution(chosen, state=evolution.state)
    assert restored.ask() == again.ask() and restored.generation == 4
    with pytest.raises(RuntimeError, match="between generations"):
        restored.state  # noqa: B018 - its boards are asked, not told


def test_an_older_checkpoint_is_read_into_the_state():
    data = json.loads(OLD_CHECKPOINT.read_text())
    state = read_levels_state(data, "tiny")
    assert state.generation == data["generation"] == 3 and state.level == "tiny"
    assert state.evaluations == data["evolution"]["evaluations"]
    assert state.certifications == data["tally"]["certifications"]
    assert [member.genes for member in state.population] == [
        member["genes"] for member in data["evolution"]["population"]
    ]
    data["evolution"]["version"] = 7
    with pytest.raises(EvosokoError, match="version 7"):
        read_levels_state(data, "tiny")


def test_a_damaged_checkpoint_is_one_line_naming_the_value():
    state = evolved(1).state.to_json()
    state["population"][0]["genes"] = "zz"
    with pytest.raises(EvosokoError, match=r"population\.0\.genes"):
        read_levels_state(state, "x")
    with pytest.raises(EvosokoError, match="not a JSON object"):
        read_levels_state([], "x")


def test_tell_needs_one_score_per_board():
    evolution = LevelEvolution(settings())
    evolution.ask()
    with pytest.raises(ValueError, match="0 evaluations for 6 genomes"):
        evolution.tell([])


def test_run_needs_a_scorer():
    with pytest.raises(RuntimeError, match="without a scorer"):
        LevelEvolution(settings()).run()


def test_map_elites_keeps_one_elite_per_cell():
    evolution = evolved(
        4,
        **{
            "levels.selection": "map_elites",
            "levels.max_boxes": 4,
            "levels.archive.features": ["boxes", "floor"],
            "levels.archive.bins": [3, 4],
            "levels.archive.ranges": [[1.5, 4.5], [5.0, 25.0]],
        },
    )
    cells = [individual.evaluation.cell for individual in evolution.population]
    assert len(cells) == len(set(cells)) > 3 and cells == sorted(cells)
    for individual in evolution.population:
        boxes, floor = individual.evaluation.features
        assert individual.evaluation.cell == evolution.settings.archive.cell((boxes, floor))


def test_nsga2_keeps_a_front_of_two_objectives():
    evolution = evolved(
        3,
        **{
            "levels.selection": "nsga2",
            "levels.objective": [{"kind": "pushes"}, {"kind": "floor"}],
        },
    )
    assert evolution.parts.weights == (1.0, -1.0)
    assert all(len(individual.fitness.values) == 2 for individual in evolution.population)


def test_the_deepest_start_keeps_the_developed_board():
    evolution = evolved(2, **{"levels.start": "deepest"})
    for individual in evolution.population:
        assert genes_to_text(individual) == individual.evaluation.board


def test_genes_travel_as_text():
    genes = [1, 0, 2, 4, 6, 8, 10, 1]
    assert genes_from_text(genes_to_text(genes)) == genes
    with pytest.raises(ValueError, match="wall cell"):
        genes_from_text("3")
    with pytest.raises(ValueError, match="hexadecimal"):
        genes_from_text("g")
