"""The genome prefetch of the replay kernels: the right genomes asked for, never a fault."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from evosoko.evolve.prefetch import AHEAD, first_ahead, prefetch_ahead


@numba.njit
def starts_asked(genes, lengths):
    """Where each genome asked for by :func:`prefetch_ahead` starts, in the order asked."""
    asked = np.full(lengths.shape[0], -1, dtype=np.int64)
    ahead = first_ahead(lengths)
    for i in range(lengths.shape[0]):
        if i + AHEAD < lengths.shape[0]:
            asked[i + AHEAD] = ahead
        ahead = prefetch_ahead(genes, lengths, i, ahead)
    return asked


@pytest.mark.parametrize("count", [0, 1, AHEAD, AHEAD + 1, 40])
def test_each_genome_is_asked_for_at_its_start(count):
    rng = np.random.default_rng(count)
    lengths = rng.integers(0, 300, size=count).astype(np.int32)
    genes = np.zeros(int(lengths.sum()), dtype=np.int32)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if count else np.zeros(0)
    asked = starts_asked(genes, lengths)
    assert asked[:AHEAD].tolist() == [-1] * min(AHEAD, count)
    assert asked[AHEAD:].tolist() == starts[AHEAD:].tolist()


def test_asking_beyond_the_genes_does_not_fault():
    lengths = np.array([0, 0, 0, 0], dtype=np.int32)  # every start is past the (empty) array
    assert starts_asked(np.zeros(0, dtype=np.int32), lengths)[AHEAD:].tolist() == [0, 0]
