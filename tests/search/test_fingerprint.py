"""Every search finds on Microban what it found before issue 50's rebuild, byte for byte.

``data/microban_fingerprint.json`` holds, per algorithm and Microban level, the status,
expanded, generated and duplicate counts and a digest of the solution of a search with a node
limit of 2,000 (``benchmarks/search_fingerprint.py --out``; push-fess-bi whole, recorded
once its turns followed the work, and by its two halves alone, see
``benchmarks/fingerprint_parts.py``, with its packing macros on and its packing order pulling
boxes back to their starts, ``pull_off_to``; the FESS searches' rows of
the 11 levels whose filled goals wall the player's start off follow the packing order that
lets the player stand beyond them, :mod:`evosoko.search.packing_order`). The default suite
checks levels
1-40 (the learned searches 1-5); the slow variant checks all 155 for every algorithm.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STORED = json.loads((Path(__file__).parent / "data" / "microban_fingerprint.json").read_text())
LEARNED = ("push-learned", "push-learned-source")
QUICK_LEVELS = {name: 5 if name in LEARNED else 40 for name in STORED["runs"]}


@pytest.fixture(scope="module")
def fingerprinter():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import search_fingerprint
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    shared = ROOT.parent / "shared" / "levels" / "microban.txt"
    if not shared.is_file():
        pytest.skip(f"no shared levels at {shared}")
    from evosoko.sokoban.formats import read_levels

    return search_fingerprint, read_levels(shared)


def _check(fingerprinter, algorithm: str, last: int) -> None:
    module, microban = fingerprinter
    levels = [(number, microban[number - 1]) for number in range(1, last + 1)]
    found = module.fingerprint(levels, [algorithm], STORED["node_limit"], progress=False)
    stored = {algorithm: {str(n): STORED["runs"][algorithm][str(n)] for n, _ in levels}}
    assert module.differences(found, stored) == []


@pytest.mark.parametrize("algorithm", sorted(STORED["runs"]))
def test_a_search_finds_what_it_found(fingerprinter, algorithm):
    _check(fingerprinter, algorithm, QUICK_LEVELS[algorithm])


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", sorted(STORED["runs"]))
def test_every_search_finds_what_it_found_on_all_of_microban(fingerprinter, algorithm):
    _check(fingerprinter, algorithm, 155)
