"""A loop of your own over evosoko's GA: ask for genomes, evaluate them, tell the evaluations.

    python examples/ask_tell.py

:class:`evosoko.evolve.Engine` speaks evosoko's loop protocol (:mod:`evosoko.evolve.loop`):
``ask()`` gives the genomes to evaluate next, ``tell(evaluations)`` takes their evaluations in
the same order, ``done`` says when it has stopped (solved, out of budget), and between
generations ``engine.state`` is its frozen, validated state, which is also its checkpoint:
saved as JSON and given back as ``Engine(..., state=read_state(data))``, a loop continues
exactly where it was. ``engine.run()`` is this loop with the engine's own evaluator.

Here the loop is written out on a bundled level (starter.xsb, hard-01): the evaluator is any
of evosoko's (serial here; processes or Dask alike), the state after generation 5 is kept as
JSON, and a second loop resumed from it ends where the whole loop ended.
"""

from __future__ import annotations

import json
from pathlib import Path

import evosoko
from evosoko.evolve import Engine, make_evaluator, read_state

LEVELS = Path(__file__).resolve().parent.parent / "levels" / "starter.xsb"
SAVE_AT = 5


def evolve(level, config, evaluator, state=None):
    """The loop: the level's result and the state after generation ``SAVE_AT`` (as JSON)."""
    engine = Engine(level, config, state=state)
    saved = None
    while not engine.done:
        genomes = engine.ask()  # tuples of genes
        engine.tell(evaluator.map(genomes))  # their evaluations, in order
        if engine.between_generations and engine.generation == SAVE_AT:
            saved = json.dumps(engine.state.to_json())
    return engine.result(), saved


def main() -> evosoko.Result:
    level = evosoko.load_levels(LEVELS, ["hard-01"])[0]
    config = evosoko.preset("default").set(
        {
            "ga.population": 40,
            "ga.offspring": 40,
            "parallel.backend": "serial",
            "run.budget.generations": 60,
            "run.budget.seconds": None,
        }
    )
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        whole, saved = evolve(level, config, evaluator)
        assert saved is not None, "the loop ended before the state was saved"
        resumed, _ = evolve(level, config, evaluator, state=read_state(json.loads(saved)))
    print(f"{level.name}: {whole.stop} after {whole.generations} generations")
    if whole.solved:
        print(f"solution ({len(whole.best.lurd)} moves): {whole.best.lurd}")
    same = (resumed.best.genes, resumed.evaluations) == (whole.best.genes, whole.evaluations)
    print(f"resumed from generation {SAVE_AT}: {'the same run' if same else 'a different run'}")
    return whole


if __name__ == "__main__":
    main()
