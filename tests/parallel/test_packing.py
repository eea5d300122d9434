"""Packed genome batches (what the replay kernels read): round trips and padded input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evosoko.evolve.evaluation import batch_size_for
from evosoko.parallel.packing import pack_genomes, packed_rows, unpack_genomes

genome_lists = st.lists(st.lists(st.integers(0, 2**20), max_size=12), max_size=20)


@given(genome_lists)
def test_unpack_returns_the_packed_genomes(genomes):
    genes, lengths = pack_genomes(genomes)
    assert [row.tolist() for row in unpack_genomes(genes, lengths)] == genomes


@given(genome_lists.filter(bool))
def test_padded_rows_pack_like_the_genomes(genomes):
    width = max(1, max(map(len, genomes)))
    matrix = np.full((len(genomes), width), 7, dtype=np.int64)  # padding never read
    for row, genome in zip(matrix, genomes):
        row[: len(genome)] = genome
    genes, lengths = packed_rows(matrix, [len(genome) for genome in genomes])
    expected = pack_genomes(genomes)
    assert genes.tolist() == expected[0].tolist() and lengths.tolist() == expected[1].tolist()


def test_padded_rows_need_one_length_per_row_within_the_width():
    with pytest.raises(ValueError, match="2-D"):
        packed_rows(np.zeros(3), [1])
    with pytest.raises(ValueError, match="0..2"):
        packed_rows(np.zeros((1, 2)), [3])


def test_batches_give_every_worker_two_shares_but_never_exceed_the_batch_size():
    assert batch_size_for(100, 2, 256) == 25
    assert batch_size_for(2000, 2, 256) == 256
    assert batch_size_for(3, 2, 256) == 1
    assert batch_size_for(0, 2, 256) == 1
