"""Aging with memory: how many generations each position has spent in the population.

Plain aging (``ga.age_patience``) forgets a position's age when the position leaves the
population, so the population can cycle among the same local optima. :class:`AgeMemory`
remembers ages in a fixed table of counters indexed by the low bits of the position's Zobrist
hash (positions that share a slot share an age, which only ages them a little early), so a
position that comes back resumes its age and the search is pushed on to positions it has not
dwelt on: a bounded, checkpointable stand-in for a search's closed set.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence

import numpy as np

AGE_MEMORY_BITS = 16
"""The table holds ``2**AGE_MEMORY_BITS`` counters."""

_MAX_AGE = np.iinfo(np.uint16).max


class AgeMemory:
    """Ages of positions by hash slot; individuals carry theirs in ``individual.age``."""

    def __init__(self, bits: int = AGE_MEMORY_BITS) -> None:
        self.table = np.zeros(1 << bits, dtype=np.uint16)
        self._mask = (1 << bits) - 1

    def age(self, state_hash: int) -> int:
        """The remembered age of the position with ``state_hash``."""
        return int(self.table[state_hash & self._mask])

    def assign(self, individuals: Sequence) -> None:
        """Set every individual's ``age`` to its position's remembered age."""
        for individual in individuals:
            individual.age = self.age(individual.evaluation.state_hash)

    def advance(self, survivors: Sequence) -> None:
        """One more generation for each distinct position among ``survivors``; ages updated."""
        slots = {individual.evaluation.state_hash & self._mask for individual in survivors}
        for slot in slots:
            if self.table[slot] < _MAX_AGE:
                self.table[slot] += 1
        self.assign(survivors)

    def visit(self, individuals: Sequence) -> None:
        """One more unit of age for the position of every individual (repeats count again):
        positions that children keep landing on age faster than rarely reached ones."""
        for individual in individuals:
            slot = individual.evaluation.state_hash & self._mask
            if self.table[slot] < _MAX_AGE:
                self.table[slot] += 1

    def to_json(self) -> str:
        """The table as compact text (zlib, then base64) for a checkpoint."""
        return base64.b64encode(zlib.compress(self.table.tobytes(), 6)).decode("ascii")

    @classmethod
    def from_json(cls, text: str) -> AgeMemory:
        """Inverse of :meth:`to_json`."""
        table = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=np.uint16)
        bits = int(table.size).bit_length() - 1
        if table.size != 1 << bits:
            raise ValueError(f"an age table of {table.size} counters is not a power of two")
        memory = cls(bits)
        memory.table[:] = table
        return memory
