"""Packed genome batches: round trips and the padded matrix the kernels read."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from evosoko.evolve.evaluation import batch_size_for
from evosoko.evolve.packing import pack_genomes, padded_matrix, unpack_genomes

genome_lists = st.lists(st.lists(st.integers(0, 2**20), max_size=12), max_size=20)


@given(genome_lists)
def test_unpack_returns_the_packed_genomes(genomes):
    genes, lengths = pack_genomes(genomes)
    assert [row.tolist() for row in unpack_genomes(genes, lengths)] == genomes


@given(genome_lists.filter(bool))
def test_padded_matrix_holds_each_genome_in_its_row(genomes):
    matrix = padded_matrix(*pack_genomes(genomes))
    assert matrix.shape == (len(genomes), max(1, max(map(len, genomes))))
    for row, genome in zip(matrix, genomes):
        assert row[: len(genome)].tolist() == genome
        assert not np.any(row[len(genome) :])


def test_batches_give_every_worker_two_shares_but_never_exceed_the_batch_size():
    assert batch_size_for(100, 2, 256) == 25
    assert batch_size_for(2000, 2, 256) == 256
    assert batch_size_for(3, 2, 256) == 1
    assert batch_size_for(0, 2, 256) == 1
