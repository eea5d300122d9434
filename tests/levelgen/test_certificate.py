"""Certificates: the search's solution replayed, box changes, dead boxes, the deepest start."""

from __future__ import annotations

from evosoko.evolve.registry import level_objectives
from evosoko.levelgen.certificate import (
    Certifier,
    Scored,
    ScoreJob,
    box_changes,
    certify_level,
    deepest_start,
    score_job,
)
from evosoko.levelgen.space import LevelSpace
from evosoko.search import solve
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.solutions import verify_solution

TWO_BOXES = ["#######", "#.$ @ #", "#  $. #", "#     #", "#######"]


def test_a_solved_level_has_a_verified_optimal_certificate():
    level = level_from_rows(TWO_BOXES)
    certificate = certify_level(level, Certifier())
    assert certificate.status == "solved" and certificate.solved
    check = verify_solution(level, certificate.solution)
    assert check.solved and check.pushes == certificate.pushes == 2
    assert certificate.expanded > 0 and certificate.cpu_seconds >= 0


def test_box_changes_count_switches_between_boxes():
    level = level_from_rows(TWO_BOXES)
    assert box_changes(level, "lL") == 0
    assert box_changes(level, "lLdR") == 1  # box one, then box two
    assert box_changes(level, "ddlluRuL") == 1  # box two, then box one
    corridor = level_from_rows(["#######", "#@$  .#", "#######"])
    assert box_changes(corridor, "RRR") == 0  # one box all the way


def test_a_box_on_a_dead_square_needs_no_search():
    dead = ["######", "#$   #", "#  .@#", "######"]
    found = certify_level(level_from_rows(dead), Certifier())
    assert found.status == "unsolvable" and found.expanded == 0


def test_an_unsolvable_level_and_a_capped_search_are_not_solved():
    stuck = ["#######", "#@$ $.#", "#   #.#", "#######"]
    found = certify_level(level_from_rows(stuck), Certifier())
    assert found.status == "unsolvable" and not found.solved
    capped = certify_level(level_from_rows(TWO_BOXES), Certifier(nodes=1))
    assert (capped.status, capped.exhausted, capped.solved) == ("budget", "nodes", False)


def test_the_deepest_start_needs_the_most_pushes():
    space = LevelSpace.of(7, 5, 2)
    genes = space.genes_of(level_from_rows(TWO_BOXES))
    developed, depth = deepest_start(genes, 7, 5, 100_000)
    level = space.level(developed)
    assert solve(level, "push-astar").pushes == depth > 2


def test_a_score_job_measures_its_objectives_and_round_trips():
    space = LevelSpace.of(7, 5, 2)
    genes = tuple(space.genes_of(level_from_rows(TWO_BOXES)))
    objectives = tuple((level_objectives.get(name), {}) for name in ("pushes", "floor", "boxes"))
    job = ScoreJob(genes, 7, 5, Certifier(), objectives)
    result = score_job(job)
    assert result["values"] == [2.0, 15.0, 2.0] and result["board"] is None
    deep = score_job(ScoreJob(genes, 7, 5, Certifier(), objectives, start="deepest"))
    assert deep["values"][0] > 2 and deep["board"] is not None
    score = Scored("k", *_parts(deep))
    assert Scored.from_dict(score.to_dict()) == score


def _parts(result):
    from evosoko.levelgen.certificate import Certificate

    return (
        Certificate(**result["certificate"]),
        tuple(result["values"]),
        None,
        0,
        result["board"],
    )
