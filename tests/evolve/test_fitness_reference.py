"""The GA's fitness stays what it was before its kernels were merged and rewritten (issue 18).

``data/fitness_reference.json`` holds fingerprints recorded from the code before that change
(:mod:`fitness_fingerprints`): per level and encoding, the evaluations of random and
nearly-solving genomes under five fitness settings, and for push genomes their decoding and
the lost search's verdicts. The default suite checks 1,000 genomes per encoding on each of the
20 levels; ``-m slow`` checks 100,000.
"""

from __future__ import annotations

import json

import pytest
from fitness_fingerprints import (
    LEVELS,
    REFERENCE,
    SHARED_LEVELS,
    level_fingerprints,
    level_key,
)


def reference(genomes: int) -> dict:
    if not (SHARED_LEVELS / "microban.txt").is_file():
        pytest.skip(f"no shared levels at {SHARED_LEVELS}")
    return json.loads(REFERENCE.read_text())[str(genomes)]["levels"]


def check(number: int, relative: str, index: int, genomes: int) -> None:
    expected = reference(genomes)[level_key(relative, index)]
    assert level_fingerprints(number, relative, index, genomes) == expected


@pytest.mark.parametrize(
    ("number", "relative", "index"), [(n, *level) for n, level in enumerate(LEVELS)]
)
def test_fitness_of_1000_genomes_per_encoding_is_unchanged(number, relative, index):
    check(number, relative, index, 1000)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("number", "relative", "index"), [(n, *level) for n, level in enumerate(LEVELS)]
)
def test_fitness_of_100000_genomes_per_encoding_is_unchanged(number, relative, index):
    check(number, relative, index, 100_000)
