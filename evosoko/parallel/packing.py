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


def packed_rows(genomes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed form of ``genomes[i, :lengths[i]]`` (a padded matrix, one genome per row)."""
    genomes = np.asarray(genomes)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    if genomes.ndim != 2 or lengths.shape != (len(genomes),):
        raise ValueError("genomes must be a 2-D array with one length per row")
    if len(lengths) and (lengths.min() < 0 or lengths.max() > genomes.shape[1]):
        raise ValueError(f"lengths must lie in 0..{genomes.shape[1]} (the genome array's width)")
    used = np.arange(genomes.shape[1]) < lengths[:, None]
    return np.ascontiguousarray(genomes[used], dtype=np.int32), lengths
