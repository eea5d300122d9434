"""DEAP's own algorithm on evosoko's parts: ``algorithms.eaMuPlusLambda`` solves a level.

    python examples/deap_loop.py

:func:`evosoko.evolve.deap_toolbox` gives a DEAP toolbox of the parts a configuration names
(``mate``, ``mutate`` and ``select`` from evosoko's registry, ``clone``), ``individual`` and
``population`` (DEAP individuals: lists of genes with a ``deap.base.Fitness``), ``evaluate``,
and ``map``, which scores a whole population in one call of evosoko's evaluator (in this
process, on a worker pool or on a Dask cluster). DEAP's algorithms take it as it is; its
hall of fame, statistics and logbook work as DEAP documents them.

DEAP's algorithms draw from the ``random`` module (seeded here); evosoko's operators draw from
the generator given to the toolbox. The level is hard-01 of the bundled starter.xsb.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy
from deap import algorithms, tools

import evosoko
from evosoko.evolve import deap_toolbox, make_evaluator
from evosoko.evolve.genomes import decode
from evosoko.sokoban.solutions import verify_solution

LEVELS = Path(__file__).resolve().parent.parent / "levels" / "starter.xsb"


def main(seed: int = 1):
    level = evosoko.load_levels(LEVELS, ["hard-01"])[0]
    config = evosoko.preset("default").set("parallel.backend", "serial")
    random.seed(seed)
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        toolbox = deap_toolbox(level, config, evaluator, random.Random(seed))
        population = toolbox.population(n=50)
        hall_of_fame = tools.HallOfFame(1)
        stats = tools.Statistics(lambda individual: individual.fitness.values[1])  # distance
        stats.register("min", numpy.min)
        population, logbook = algorithms.eaMuPlusLambda(
            population,
            toolbox,
            mu=50,
            lambda_=100,
            cxpb=0.6,
            mutpb=0.3,
            ngen=40,
            stats=stats,
            halloffame=hall_of_fame,
            verbose=False,
        )
    best = hall_of_fame[0]
    fitness = config.fitness
    lurd = decode(
        level,
        config.ga.encoding,
        best,
        objective=fitness.objective,
        stop_on_deadlock=fitness.stop_on_deadlock,
        pi_corrals=fitness.pi_corrals,
    ).lurd
    solved = best.evaluation.solved and verify_solution(level, lurd).solved
    distances = [int(distance) for distance in logbook.select("min")]
    print(f"{level.name}: best distance per generation {distances}")
    print(f"{'solved' if solved else 'not solved'}: {lurd}")
    return solved, lurd


if __name__ == "__main__":
    main()
