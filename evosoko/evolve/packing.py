"""Genome batches as two flat arrays: cheap to build, pickle and send to workers.

A batch of variable-length genomes travels as ``(genes, lengths)``: all genes in one flat int32
array and the length of each genome. Building it costs one pass over the genes, and it pickles
as two buffers instead of thousands of Python ints.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def pack_genomes(genomes: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """All genes of ``genomes`` in one flat int32 array, and the length of each genome."""
    lengths = np.fromiter(map(len, genomes), dtype=np.int32, count=len(genomes))
    genes = np.fromiter(
        itertools.chain.from_iterable(genomes), dtype=np.int32, count=int(lengths.sum())
    )
    return genes, lengths


def unpack_genomes(genes: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """The genomes packed by :func:`pack_genomes` (views into ``genes``)."""
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]]
    return [genes[start:end] for start, end in zip(starts, ends)]


def padded_matrix(genes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """int32[genomes, longest]: one genome per row, zero-padded, for the replay kernels."""
    width = max(1, int(lengths.max())) if len(lengths) else 1
    matrix = np.zeros((len(lengths), width), dtype=np.int32)
    matrix[np.arange(width) < lengths[:, None]] = genes
    return matrix
