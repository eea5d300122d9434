"""The engine's DEAP toolbox, made from the registry, and variation (DEAP's varAnd).

Every operator comes from the part the configuration names (:mod:`evosoko.evolve.parts`), bound
to its parameters and to the context values it asks for (the run's ``rng``, the genome limits,
the ranking ``key``...). Growth (``ga.grow_while_under``), the push macro of move genomes
(``ga.mutation.push_macro``) and the box macro of push genomes (``ga.mutation.box_macro``) are
registered beside them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from deap import base

from evosoko.config import Config
from evosoko.evolve import operators
from evosoko.evolve.genomes import gene_range, random_genes
from evosoko.evolve.individuals import Genome, Individuals, invalidate
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.parts import parts_of
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.evolve.evaluation import Evaluator


def build_toolbox(
    level: Level,
    config: Config,
    rng: random.Random,
    key: Callable,
    identity: Callable | None,
) -> base.Toolbox:
    """``clone`` (:meth:`~evosoko.evolve.individuals.Genome.clone`), ``mate``, ``mutate``,
    ``select`` (parents), ``survive``, ``grow`` and, when on, ``push_macro`` (move genomes) or
    ``box_macro`` (push genomes)."""
    ga = config.ga
    context = {
        "rng": rng,
        "gene_range": gene_range(ga.encoding),
        "gene_choices": gene_range(ga.encoding),
        "min_length": ga.min_length,
        "max_length": ga.max_length,
        "initial_length": ga.initial_length,
        "encoding": ga.encoding,
        "level": level,
        "key": key,
        "identity": identity,
    }
    parts = parts_of(config)
    toolbox = base.Toolbox()
    toolbox.register("clone", Genome.clone)
    for alias, part in (
        ("mutate", parts.mutation),
        ("mate", parts.crossover),
        ("select", parts.parents),
        ("survive", parts.survival),
    ):
        toolbox.register(alias, part.operator.bind(part.params, context))
    toolbox.register(
        "grow",
        operators.grow,
        rng=rng,
        gene_range=context["gene_range"],
        under=ga.grow_while_under,
        by=ga.grow_by,
        max_length=ga.max_length,
    )
    if ga.encoding == "moves" and ga.mutation.push_macro > 0:
        from evosoko.evolve.macros import mut_append_push
        from evosoko.evolve.push_replay import push_tables

        toolbox.register(
            "push_macro",
            mut_append_push,
            rng=rng,
            level=level,
            tables=push_tables(level),
            max_length=ga.max_length,
        )
    if ga.encoding == "pushes" and ga.mutation.box_macro > 0:
        from evosoko.evolve.box_macros import mut_append_box_path
        from evosoko.evolve.push_replay import push_tables
        from evosoko.search.packing_order import packing_order

        toolbox.register(
            "box_macro",
            mut_append_box_path,
            rng=rng,
            tables=push_tables(level, corrals=config.fitness.pi_corrals),
            layer=packing_order(level).layer,
            objective=config.fitness.objective,
            stop_on_deadlock=config.fitness.stop_on_deadlock,
            max_length=ga.max_length,
        )
    return toolbox


def vary(parents: Sequence, toolbox: base.Toolbox, rng: random.Random, config: Config) -> list:
    """Clone the parents, then cross pairs and mutate (DEAP's varAnd, with the run's rng):
    each pair with ``ga.crossover.probability``, each child with ``ga.mutation.probability``,
    then the push or box macro and growth."""
    ga = config.ga
    offspring = [toolbox.clone(parent) for parent in parents]
    for i in range(1, len(offspring), 2):
        if rng.random() < ga.crossover.probability:
            toolbox.mate(offspring[i - 1], offspring[i])
            invalidate(offspring[i - 1])
            invalidate(offspring[i])
    for child in offspring:
        if rng.random() < ga.mutation.probability:
            toolbox.mutate(child)
            invalidate(child)
        if hasattr(toolbox, "push_macro") and rng.random() < ga.mutation.push_macro:
            toolbox.push_macro(child)
            invalidate(child)
        if hasattr(toolbox, "box_macro") and rng.random() < ga.mutation.box_macro:
            toolbox.box_macro(child)
            invalidate(child)
        if ga.grow_while_under and len(child) < ga.grow_while_under:
            toolbox.grow(child)
            invalidate(child)
    return offspring


def deap_toolbox(
    level: Level, config: Config, evaluator: Evaluator, rng: random.Random
) -> base.Toolbox:
    """evosoko's parts as a DEAP toolbox for DEAP's own algorithms (``algorithms.eaSimple``,
    ``eaMuPlusLambda``, a loop of your own): what :func:`build_toolbox` registers (``mate``,
    ``mutate``, ``select``: the parts ``config`` names, drawing from ``rng``; ``clone``), and

    - ``individual(genes)``: a DEAP individual (a list with a ``deap.base.Fitness`` of the
      configuration's fitness values and weights);
    - ``population(n)``: ``n`` individuals of ``ga.initial_length`` random genes;
    - ``evaluate(individual)``: its fitness values, replayed by ``evaluator``;
    - ``map(evaluate, individuals)``: the fitness values of all of them in one call of
      ``evaluator.map`` (its batches on its workers), as DEAP's algorithms call it.

    Selection compares DEAP fitnesses (``select`` without the engine's age and length
    pressure); each evaluated individual keeps its :class:`~evosoko.evolve.fitness.Evaluation`
    as ``individual.evaluation``. See ``examples/deap_loop.py``.
    """
    ga = config.ga
    individuals = Individuals(Objectives.of(config))
    toolbox = build_toolbox(level, config, rng, attrgetter("fitness"), None)

    def evaluate_all(_evaluate: object, population: Iterable) -> list[tuple[float, ...]]:
        chosen = list(population)
        evaluations = evaluator.map([tuple(individual) for individual in chosen])
        values = []
        for individual, evaluation in zip(chosen, evaluations, strict=True):
            individual.evaluation = evaluation
            values.append(individuals.objectives.values(evaluation))
        return values

    toolbox.register("individual", individuals.new)
    toolbox.register(
        "population",
        lambda n: [
            individuals.new(random_genes(rng, ga.initial_length, ga.encoding)) for _ in range(n)
        ],
    )
    toolbox.register("map", evaluate_all)
    toolbox.register("evaluate", lambda individual: evaluate_all(None, [individual])[0])
    return toolbox
