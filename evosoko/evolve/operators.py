"""Variable-length mutation and crossover of genomes, with an explicit random generator.

Every operator follows DEAP's contract: it modifies its genome(s) in place (by slice
assignment, so DEAP individuals keep their class) and returns them in a tuple. Each takes the
run's ``random.Random`` as ``rng`` (never the global ``random`` module) and keeps genome
lengths within ``[min_length, max_length]`` when its inputs are within them. Operators do not
touch fitness; the engine invalidates it.
"""

from __future__ import annotations

import math
import random
from collections.abc import MutableSequence, Sequence
from typing import Protocol

Genome = MutableSequence[int]


class MutationRates(Protocol):
    """What :func:`mutate` reads: a :class:`~evosoko.config.MutationConfig`, or the rates
    the built-in mutation is given."""

    replace_rate: float
    insert_rate: float
    delete_rate: float
    duplication: float
    inversion: float
    block_size: int
    tail_regrowth: float
    tail_genes: int | None


# ---- mutation ---------------------------------------------------------------------------------
def event_positions(rng: random.Random, count: int, rate: float) -> list[int]:
    """The indices in ``0..count-1`` hit by independent events of probability ``rate`` each.

    Drawn by geometric jumps between hits (one random number per hit, not per index), which is
    what makes per-gene mutation of long genomes cheap.
    """
    if rate <= 0 or count <= 0:
        return []
    if rate >= 1:
        return list(range(count))
    scale = 1.0 / math.log1p(-rate)
    hits = []
    index = int(math.log(1.0 - rng.random()) * scale)
    while index < count:
        hits.append(index)
        index += 1 + int(math.log(1.0 - rng.random()) * scale)
    return hits


def mut_replace(genome: Genome, rng: random.Random, rate: float, gene_range: int) -> tuple[Genome]:
    """Replace each gene, with probability ``rate``, by a random gene (possibly the same)."""
    for index in event_positions(rng, len(genome), rate):
        genome[index] = int(rng.random() * gene_range)
    return (genome,)


def mut_insert(
    genome: Genome, rng: random.Random, rate: float, gene_range: int, max_length: int
) -> tuple[Genome]:
    """Before each gene, with probability ``rate``, insert a random gene (up to ``max_length``)."""
    room = max_length - len(genome)
    hits = event_positions(rng, len(genome), rate)[: max(0, room)]
    if hits:
        result: list[int] = []
        start = 0
        for index in hits:
            result.extend(genome[start:index])
            result.append(int(rng.random() * gene_range))
            start = index
        result.extend(genome[start:])
        genome[:] = result
    return (genome,)


def mut_delete(genome: Genome, rng: random.Random, rate: float, min_length: int) -> tuple[Genome]:
    """Delete each gene with probability ``rate``, never below ``min_length`` genes."""
    surplus = len(genome) - min_length
    hits = event_positions(rng, len(genome), rate)[: max(0, surplus)]
    for index in reversed(hits):
        del genome[index]
    return (genome,)


def mut_duplicate_block(
    genome: Genome, rng: random.Random, max_block: int, max_length: int
) -> tuple[Genome]:
    """Repeat a random block of 1..``max_block`` genes right after itself (up to ``max_length``)."""
    room = max_length - len(genome)
    if not genome or room <= 0:
        return (genome,)
    size = rng.randint(1, min(max_block, len(genome), room))
    start = rng.randint(0, len(genome) - size)
    genome[start + size : start + size] = genome[start : start + size]
    return (genome,)


def mut_invert_block(genome: Genome, rng: random.Random, max_block: int) -> tuple[Genome]:
    """Reverse a random block of 2..``max_block`` genes (nothing when shorter than 2)."""
    if len(genome) < 2 or max_block < 2:
        return (genome,)
    size = rng.randint(2, min(max_block, len(genome)))
    start = rng.randint(0, len(genome) - size)
    genome[start : start + size] = genome[start : start + size][::-1]
    return (genome,)


def mut_regrow_tail(
    genome: Genome,
    rng: random.Random,
    gene_range: int,
    min_length: int,
    max_length: int,
    tail_length: int,
    cut_back: int | None = None,
) -> tuple[Genome]:
    """Cut the genome near its end and append 1..``tail_length`` random genes.

    The cut removes up to ``cut_back`` genes from the end, or (None) up to half of them; it
    keeps ``min_length``; the result has at most ``max_length`` genes.
    """
    length = len(genome)
    lowest = length // 2 if cut_back is None else max(0, length - cut_back)
    cut = rng.randint(lowest, length)
    grown = rng.randint(1, max(1, tail_length))
    new_length = min(max_length, max(min_length, cut + grown))
    cut = min(cut, new_length)
    genome[cut:] = [int(rng.random() * gene_range) for _ in range(new_length - cut)]
    return (genome,)


def grow(
    genome: Genome, rng: random.Random, gene_range: int, under: int, by: int, max_length: int
) -> tuple[Genome]:
    """Append ``by`` random genes when the genome is shorter than ``under`` (the source GA's)."""
    if len(genome) < under:
        top = gene_range - 1
        genome.extend(rng.randint(0, top) for _ in range(min(by, max_length - len(genome))))
    return (genome,)


def mutate(
    genome: Genome,
    rng: random.Random,
    config: MutationRates,
    gene_range: int,
    min_length: int,
    max_length: int,
    tail_length: int,
) -> tuple[Genome]:
    """Apply every mutation of ``config`` in turn: tail regrowth, block duplication and
    inversion (each with its probability), then per-gene deletion, insertion and replacement."""
    if rng.random() < config.tail_regrowth:
        mut_regrow_tail(
            genome, rng, gene_range, min_length, max_length, tail_length, config.tail_genes
        )
    if rng.random() < config.duplication:
        mut_duplicate_block(genome, rng, config.block_size, max_length)
    if rng.random() < config.inversion:
        mut_invert_block(genome, rng, config.block_size)
    mut_delete(genome, rng, config.delete_rate, min_length)
    mut_insert(genome, rng, config.insert_rate, gene_range, max_length)
    mut_replace(genome, rng, config.replace_rate, gene_range)
    return (genome,)


# ---- crossover --------------------------------------------------------------------------------
def mut_one_gene(
    genome: Genome, rng: random.Random, gene_choices: int | Sequence[int]
) -> tuple[Genome]:
    """One gene, at a uniform position, changed to another of its values (``gene_choices``:
    how many values a gene takes, the same for all or one count per position)."""
    if not genome:
        return (genome,)
    position = rng.randrange(len(genome))
    count = gene_choices if isinstance(gene_choices, int) else gene_choices[position]
    if count > 1:
        genome[position] = (genome[position] + 1 + rng.randrange(count - 1)) % count
    return (genome,)


def cx_uniform(
    first: Genome, second: Genome, rng: random.Random, swap: float = 0.5
) -> tuple[Genome, Genome]:
    """Each position both parents have exchanged with probability ``swap`` (lengths kept)."""
    for position in range(min(len(first), len(second))):
        if rng.random() < swap:
            first[position], second[position] = second[position], first[position]
    return first, second


def cx_block(
    first: Genome, second: Genome, rng: random.Random, block_size: int
) -> tuple[Genome, Genome]:
    """Block crossover (the source GA's): each block of ``block_size`` genes of the common
    length is swapped between the parents with probability 1/2; lengths do not change."""
    common = min(len(first), len(second))
    for start in range(0, common, block_size):
        if rng.random() < 0.5:
            end = min(start + block_size, common)
            first[start:end], second[start:end] = second[start:end], first[start:end]
    return first, second


def cx_one_point(first: Genome, second: Genome, rng: random.Random) -> tuple[Genome, Genome]:
    """Swap the tails after one cut point ``1..min length`` taken at the same index in both."""
    common = min(len(first), len(second))
    if common < 1:
        return first, second
    cut = rng.randint(1, common)
    first[cut:], second[cut:] = second[cut:], first[cut:]
    return first, second


def cx_two_point(first: Genome, second: Genome, rng: random.Random) -> tuple[Genome, Genome]:
    """Swap the genes between two cut points (the same in both parents); lengths do not change."""
    common = min(len(first), len(second))
    if common < 1:
        return first, second
    low, high = sorted(rng.sample(range(common + 1), 2))
    first[low:high], second[low:high] = second[low:high], first[low:high]
    return first, second


def cx_messy(
    first: Genome, second: Genome, rng: random.Random, min_length: int, max_length: int
) -> tuple[Genome, Genome]:
    """Messy one-point crossover: cut each parent at its own point and swap the tails.

    The first cut is uniform over ``0..len(first)``; the second is uniform among the cuts that
    keep both children within ``[min_length, max_length]`` (no change when there is none).
    """
    length_a, length_b = len(first), len(second)
    cut_a = rng.randint(0, length_a)
    # child a: cut_a + (length_b - cut_b); child b: cut_b + (length_a - cut_a)
    low = max(0, cut_a + length_b - max_length, min_length - length_a + cut_a)
    high = min(length_b, cut_a + length_b - min_length, max_length - length_a + cut_a)
    if low > high:
        return first, second
    cut_b = rng.randint(low, high)
    first[cut_a:], second[cut_b:] = second[cut_b:], first[cut_a:]
    return first, second
