"""Operator contracts: in place, a tuple back, lengths in bounds; statistics with fixed seeds."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from evosoko.config import MutationConfig
from evosoko.evolve import operators

GENE_RANGE = 4


def genome(rng: random.Random, length: int) -> list[int]:
    return [rng.randrange(GENE_RANGE) for _ in range(length)]


class Individual(list):
    """A list subclass standing in for a DEAP individual: its class must survive."""


def test_mut_replace_rate_and_contract():
    rng = random.Random(1)
    changed = total = 0
    for _ in range(200):
        parent = Individual(genome(rng, 50))
        before = list(parent)
        result = operators.mut_replace(parent, rng, 0.2, GENE_RANGE)
        assert isinstance(result, tuple) and result[0] is parent and type(parent) is Individual
        assert len(parent) == 50
        changed += sum(a != b for a, b in zip(before, parent))
        total += 50
    # a replaced gene differs with probability 3/4
    assert 0.13 < changed / total < 0.17


def test_mut_insert_respects_max_and_rate():
    rng = random.Random(2)
    growth = []
    for _ in range(200):
        parent = genome(rng, 40)
        (child,) = operators.mut_insert(parent, rng, 0.1, GENE_RANGE, max_length=1000)
        growth.append(len(child) - 40)
    assert 3.0 < sum(growth) / len(growth) < 5.0
    full = genome(rng, 10)
    operators.mut_insert(full, rng, 1.0, GENE_RANGE, max_length=12)
    assert len(full) == 12


def test_mut_insert_keeps_original_order():
    rng = random.Random(3)
    parent = list(range(4)) * 5
    original = list(parent)
    operators.mut_insert(parent, rng, 0.5, 100, max_length=100)
    iterator = iter(parent)
    assert all(gene in iterator for gene in original)  # original is a subsequence


def test_mut_delete_respects_min_and_rate():
    rng = random.Random(4)
    shrink = []
    for _ in range(200):
        parent = genome(rng, 40)
        operators.mut_delete(parent, rng, 0.1, min_length=1)
        shrink.append(40 - len(parent))
    assert 3.0 < sum(shrink) / len(shrink) < 5.0
    short = genome(rng, 5)
    operators.mut_delete(short, rng, 1.0, min_length=3)
    assert len(short) == 3
    single = [2]
    assert operators.mut_delete(single, rng, 1.0, min_length=1) == ([2],)


def test_block_duplication_and_inversion():
    rng = random.Random(5)
    for _ in range(100):
        parent = list(range(10))
        operators.mut_duplicate_block(parent, rng, max_block=3, max_length=20)
        extra = len(parent) - 10
        assert 1 <= extra <= 3
        counts = Counter(parent)
        assert sum(c - 1 for c in counts.values()) == extra
        inverted = list(range(10))
        operators.mut_invert_block(inverted, rng, max_block=4)
        assert sorted(inverted) == list(range(10)) and inverted != list(range(10))
    at_max = list(range(5))
    operators.mut_duplicate_block(at_max, rng, 3, max_length=5)
    assert at_max == list(range(5))
    one = [3]
    assert operators.mut_invert_block(one, rng, 4) == ([3],)
    assert operators.mut_duplicate_block(one, rng, 4, 10) == ([3, 3],)


def test_tail_regrowth_keeps_the_first_half():
    rng = random.Random(6)
    for length in (1, 2, 7, 30):
        for _ in range(50):
            parent = list(range(100, 100 + length))
            operators.mut_regrow_tail(parent, rng, GENE_RANGE, 1, 40, tail_length=10)
            assert 1 <= len(parent) <= 40
            assert parent[: length // 2] == list(range(100, 100 + length // 2))
            assert len(parent) >= length // 2 + 1 or len(parent) == 40


def test_tail_regrowth_with_cut_back_changes_only_the_end():
    rng = random.Random(16)
    for length in (1, 3, 30):
        for _ in range(50):
            parent = list(range(100, 100 + length))
            operators.mut_regrow_tail(parent, rng, GENE_RANGE, 1, 40, tail_length=3, cut_back=2)
            kept = max(0, length - 2)
            assert parent[:kept] == list(range(100, 100 + kept))
            assert kept + 1 <= len(parent) <= min(40, length + 3)


def test_grow_like_the_source_ga():
    rng = random.Random(7)
    short = genome(rng, 45)
    operators.grow(short, rng, GENE_RANGE, under=50, by=10, max_length=100)
    assert len(short) == 55
    operators.grow(short, rng, GENE_RANGE, under=50, by=10, max_length=100)
    assert len(short) == 55


@pytest.mark.parametrize("length", [1, 2, 25])
def test_mutate_stays_within_bounds(length):
    rng = random.Random(8)
    config = MutationConfig(
        replace_rate=0.3,
        insert_rate=0.3,
        delete_rate=0.3,
        duplication=1.0,
        inversion=1.0,
        tail_regrowth=1.0,
    )
    for _ in range(300):
        parent = Individual(genome(rng, length))
        result = operators.mutate(parent, rng, config, GENE_RANGE, 1, 30, tail_length=10)
        assert result == (parent,) and type(parent) is Individual
        assert 1 <= len(parent) <= 30
        assert all(0 <= g < GENE_RANGE for g in parent)


def test_block_crossover_swaps_whole_blocks():
    rng = random.Random(9)
    swapped_blocks = 0
    for _ in range(200):
        first, second = Individual([0] * 12), Individual([1] * 14)
        result = operators.cx_block(first, second, rng, block_size=3)
        assert result[0] is first and result[1] is second
        assert len(first) == 12 and len(second) == 14
        for start in range(0, 12, 3):
            block = first[start : start + 3]
            assert block in ([0, 0, 0], [1, 1, 1])
            assert second[start : start + 3] == [1 - block[0]] * 3
            swapped_blocks += block[0]
        assert second[12:] == [1, 1]
    assert 0.45 < swapped_blocks / 800 < 0.55


@pytest.mark.parametrize("operator", ["one_point", "two_point", "messy", "block"])
@pytest.mark.parametrize(("length_a", "length_b"), [(1, 1), (1, 6), (6, 1), (10, 17)])
def test_crossovers_preserve_genes_and_bounds(operator, length_a, length_b):
    rng = random.Random(10)
    changed = 0
    for _ in range(200):
        first = Individual(["a"] * length_a)
        second = Individual(["b"] * length_b)
        if operator == "block":
            result = operators.cx_block(first, second, rng, 2)
        elif operator == "messy":
            result = operators.cx_messy(first, second, rng, 1, 20)
        else:
            result = getattr(operators, f"cx_{operator}")(first, second, rng)
        assert result[0] is first and result[1] is second
        assert type(first) is Individual
        assert Counter(first + second) == Counter(["a"] * length_a + ["b"] * length_b)
        assert 1 <= len(first) <= 20 and 1 <= len(second) <= 20
        changed += first != ["a"] * length_a
    if (length_a, length_b) != (1, 1) or operator != "one_point":
        assert changed > 0


def test_one_point_takes_tails_at_the_same_cut():
    rng = random.Random(11)
    first, second = list(range(10)), list(range(100, 110))
    operators.cx_one_point(first, second, rng)
    cut = next(i for i, g in enumerate(first) if g >= 100)
    assert first == list(range(cut)) + list(range(100 + cut, 110))
    assert second == list(range(100, 100 + cut)) + list(range(cut, 10))


def test_messy_crossover_changes_lengths_within_bounds():
    rng = random.Random(12)
    lengths = set()
    for _ in range(300):
        first, second = list(range(10)), list(range(100, 120))
        operators.cx_messy(first, second, rng, min_length=5, max_length=22)
        assert 5 <= len(first) <= 22 and 5 <= len(second) <= 22
        assert len(first) + len(second) == 30
        # first is a prefix of the first parent followed by a suffix of the second
        split = next((i for i, g in enumerate(first) if g >= 100), len(first))
        assert first[:split] == list(range(split))
        assert first[split:] == list(range(120 - (len(first) - split), 120))
        lengths.add(len(first))
    assert len(lengths) > 8
