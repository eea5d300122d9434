"""Parts of the GA that live outside evosoko, named in tests as ``plugin_parts:NAME``.

Plain functions with the registry's contracts (none of them is registered), so configurations
reach them only by where they live.
"""

from __future__ import annotations

import random


def swap_genes(genome, rng: random.Random, swap_rate: float = 0.05, window: int = 3):
    """Each gene, with probability ``swap_rate``, trades places with one of the next
    ``window``."""
    for index in range(len(genome) - 1):
        if rng.random() < swap_rate:
            other = min(len(genome) - 1, index + rng.randint(1, window))
            genome[index], genome[other] = genome[other], genome[index]
    return (genome,)


def uniform_crossover(first, second, rng: random.Random, swap: float = 0.5):
    """Each gene of the common length swapped with probability ``swap``."""
    for index in range(min(len(first), len(second))):
        if rng.random() < swap:
            first[index], second[index] = second[index], first[index]
    return first, second


def best_half(individuals, count: int, rng: random.Random, key):
    """Parents drawn uniformly from the better half."""
    ranked = sorted(individuals, key=key, reverse=True)[: max(1, len(individuals) // 2)]
    return [rng.choice(ranked) for _ in range(count)]


def boxes_on_walls(level, state, weight: int = 1) -> int:
    """Boxes that touch a wall on some side, times ``weight`` (fewer is better)."""
    touching = 0
    for box in state.boxes:
        if any(level.walls[box + delta] for delta in level.deltas):
            touching += 1
    return weight * touching
