"""Aging with memory: ages survive leaving the population and round-trip through checkpoints."""

from __future__ import annotations

from types import SimpleNamespace

from evosoko.evolve.aging import AgeMemory
from evosoko.evolve.fitness import Evaluation


def member(state_hash: int):
    return SimpleNamespace(evaluation=Evaluation(False, 3, 4, 4, state_hash), age=0)


def test_each_distinct_position_ages_once_per_generation():
    memory = AgeMemory(bits=8)
    twins = [member(5), member(5), member(9)]
    memory.advance(twins)
    memory.advance(twins)
    assert [m.age for m in twins] == [2, 2, 2]
    assert memory.age(5) == 2 and memory.age(7) == 0


def test_a_returning_position_resumes_its_age():
    memory = AgeMemory(bits=8)
    old = member(2**63 + 17)
    for _ in range(3):
        memory.advance([old])
    memory.advance([member(1)])  # the position left the population
    back = member(2**63 + 17)
    memory.assign([back])
    assert back.age == 3


def test_the_table_round_trips_through_text():
    memory = AgeMemory(bits=10)
    memory.advance([member(h) for h in range(0, 3000, 7)])
    again = AgeMemory.from_json(memory.to_json())
    assert (again.table == memory.table).all()
    assert again.age(14) == 1


def test_visits_age_popular_positions_faster():
    memory = AgeMemory(bits=8)
    memory.visit([member(3), member(3), member(3), member(4)])
    assert memory.age(3) == 3 and memory.age(4) == 1
