"""The engine's DEAP toolbox, made from the registry, and variation (DEAP's varAnd).

Every operator comes from the part the configuration names (:mod:`evosoko.evolve.parts`), bound
to its parameters and to the context values it asks for (the run's ``rng``, the genome limits,
the ranking ``key``...). Growth (``ga.grow_while_under``), the push macro of move genomes
(``ga.mutation.push_macro``) and the box macro of push genomes (``ga.mutation.box_macro``) are
registered beside them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from deap import base

from evosoko.config import Config
from evosoko.evolve import operators
from evosoko.evolve.genomes import gene_range
from evosoko.evolve.individuals import Genome, invalidate
from evosoko.evolve.parts import parts_of
from evosoko.sokoban.level import Level


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
