"""The values of a configuration's own fitness terms, for a batch of genomes.

A term (``[[fitness.terms]]``, see :mod:`evosoko.evolve.registry`) is a function of the level
and the position a genome reaches at its scored point: ``term(level, state, **params)``; it may
also ask for the genome's ``evaluation``, its scored ``genes`` and the ``encoding``. Each
genome is replayed in Python up to its scored point
(:func:`evosoko.evolve.genomes.decode_scored`), so terms cost far more than the compiled
built-in values: a few hundred genomes a second per term-free replay. They run where the
genomes are scored (in the workers with the processes and Dask backends) and their
values travel with the evaluations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from evosoko.config import FitnessConfig
from evosoko.evolve.genomes import decode_scored
from evosoko.parallel.packing import unpack_genomes
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    from evosoko.evolve.fitness import Evaluation


def term_matrix(
    level: Level,
    encoding: str,
    config: FitnessConfig,
    genes: np.ndarray,
    lengths: np.ndarray,
    evaluations: Sequence[Evaluation],
) -> np.ndarray:
    """float64[genomes, terms]: each term's value at each genome's scored position
    (``evaluations``: the batch's evaluations so far, whose ``keep`` says where that is)."""
    values = np.zeros((len(lengths), len(config.terms)), dtype=np.float64)
    if not len(lengths):
        return values
    terms = [(term.operator, term.params) for term in config.terms]
    for number, (genome, evaluation) in enumerate(zip(unpack_genomes(genes, lengths), evaluations)):
        scored = genome[: evaluation.keep].tolist()
        state = decode_scored(level, encoding, scored, config).final
        context = {"evaluation": evaluation, "genes": scored, "encoding": encoding}
        for index, (operator, params) in enumerate(terms):
            values[number, index] = float(operator.bind(params, context)(level, state))
    return values
