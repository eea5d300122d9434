"""The level GA's ask/tell: reproducible, its state a checkpoint, the GA's own survivals."""

from __future__ import annotations

import json

import pytest

from evosoko.budget import Budget
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.evolution import LevelEvolution, genes_from_text, genes_to_text
from evosoko.levelgen.loop import Loop, Scorer, Tally
from evosoko.parallel.jobs import SerialBackend

SMALL = {"levels.size": "7x7", "levels.boxes": 2, "levels.population": 6, "levels.offspring": 6}


def settings(**changes):
    return LevelsConfig().set({**SMALL, **changes}).levels


def drive(evolution: LevelEvolution, generations: int, tally: Tally | None = None) -> Tally:
    tally = tally or Tally()
    scorer = Scorer.of(evolution, SerialBackend())
    Loop(evolution, scorer, Budget(generations=generations), tally).run()
    return tally


def test_the_same_seed_evolves_the_same_levels():
    first, second = LevelEvolution(settings()), LevelEvolution(settings())
    drive(first, 4), drive(second, 4)
    assert [list(i) for i in first.population] == [list(i) for i in second.population]
    third = LevelEvolution(settings(**{"levels.seed": 1}))
    drive(third, 4)
    assert [list(i) for i in third.population] != [list(i) for i in first.population]


def test_survivors_are_feasible_and_the_best_never_gets_worse():
    evolution = LevelEvolution(settings())
    scorer = Scorer.of(evolution, SerialBackend())
    best = []
    for _ in range(5):
        evolution.tell(scorer.score(evolution.ask(), evolution.generation, Tally()))
        assert all(individual.evaluation.feasible for individual in evolution.population)
        best.append(max(individual.fitness.values[0] for individual in evolution.population))
    assert best == sorted(best) and len(evolution.population) == 6


def test_the_state_is_a_checkpoint_that_asks_for_the_same_boards():
    evolution = LevelEvolution(settings())
    drive(evolution, 3)
    state = json.loads(json.dumps(evolution.state()))
    restored = LevelEvolution(settings(), state=state)
    assert restored.ask() == evolution.ask()
    assert restored.batches == evolution.batches == 4
    with pytest.raises(Exception, match="between tell"):
        evolution.state()


def test_tell_needs_one_score_per_board():
    evolution = LevelEvolution(settings())
    evolution.ask()
    with pytest.raises(ValueError, match="one score per board"):
        evolution.tell([])


def test_map_elites_keeps_one_elite_per_cell():
    evolution = LevelEvolution(
        settings(
            **{
                "levels.selection": "map_elites",
                "levels.max_boxes": 4,
                "levels.archive.features": ["boxes", "floor"],
                "levels.archive.bins": [3, 4],
                "levels.archive.ranges": [[1.5, 4.5], [5.0, 25.0]],
            }
        )
    )
    drive(evolution, 4)
    cells = [individual.evaluation.cell for individual in evolution.population]
    assert len(cells) == len(set(cells)) > 3 and cells == sorted(cells)
    for individual in evolution.population:
        boxes, floor = individual.evaluation.features
        assert individual.evaluation.cell == evolution.settings.archive.cell((boxes, floor))


def test_nsga2_keeps_a_front_of_two_objectives():
    evolution = LevelEvolution(
        settings(
            **{
                "levels.selection": "nsga2",
                "levels.objective": [{"kind": "pushes"}, {"kind": "floor"}],
            }
        )
    )
    drive(evolution, 3)
    assert evolution.parts.weights == (1.0, -1.0)
    assert all(len(individual.fitness.values) == 2 for individual in evolution.population)


def test_the_deepest_start_keeps_the_developed_board():
    evolution = LevelEvolution(settings(**{"levels.start": "deepest"}))
    drive(evolution, 2)
    for individual in evolution.population:
        assert genes_to_text(individual) == individual.evaluation.board


def test_genes_travel_as_text():
    genes = [1, 0, 2, 4, 6, 8, 10, 1]
    assert genes_from_text(genes_to_text(genes)) == genes
    with pytest.raises(ValueError, match="wall cell"):
        genes_from_text("3")
