"""A fitness term of your own: the room the player has to move, as a tie-breaker.

    python examples/custom_fitness.py

Two positions at the same distance from solved are not equally promising: one where the
player can still walk almost everywhere keeps more pushes open than one where the boxes have
shut it into a corner. ``player_room`` counts the floor cells the player can reach; placed
after ``distance`` in the lexicographic fitness, it breaks ties between equal distances (more
room is better). The GA runs on the same levels and seed with and without it, and each
result's fitness shows the term by name.

In a run configuration the same term is a table, with the function named by where it lives::

    [[fitness.terms]]
    kind = "examples.custom_fitness:player_room"   # or a registered name: "room"
    after = "distance"
    maximize = true

A term is computed in Python at the position each genome reaches (far slower than the
compiled built-in values), in the workers with the processes and Dask backends.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import evosoko
from evosoko.sokoban.level import flood_fill

LEVELS = Path(__file__).resolve().parent.parent / "levels" / "starter.xsb"


@evosoko.register_fitness_term("room", maximize=True)
def player_room(level: evosoko.Level, state: evosoko.State, walls_only: bool = False) -> int:
    """Floor cells the player can walk to (``walls_only``: ignoring the boxes)."""
    passable = np.array(level.floor, dtype=bool)
    if not walls_only:
        passable[list(state.boxes)] = False
    return int(flood_fill(passable, level.neighbours, state.player).sum())


def evolve_both(levels=None, evaluations: int = 1500):
    """The plain GA and the GA with the room term, on the same levels and seed."""
    levels = levels or evosoko.load_levels(LEVELS, ["hard-01", "hard-02", "hard-05"])
    plain = (
        evosoko.preset("default")
        .set("ga.population", 40)
        .set("ga.offspring", 40)
        .set("parallel.backend", "serial")
        .set("run.budget.evaluations", evaluations)
    )
    with_room = plain.set("fitness.terms", [{"kind": "room", "after": "distance"}])
    return evosoko.evolve(levels, plain), evosoko.evolve(levels, with_room)


def _outcome(result: evosoko.Result) -> str:
    if result.solved:
        return f"solved after {result.cost} evaluations"
    return (
        f"unsolved ({result.status} budget spent: {result.cost}), "
        f"best distance {result.best.distance}"
    )


def main() -> None:
    plain, with_room = evolve_both()
    for before, after in zip(plain, with_room):
        print(f"{before.level_name}: plain {_outcome(before)}; with room {_outcome(after)}")
        print(f"    best fitness with room: {after.fitness}")


if __name__ == "__main__":
    main()
