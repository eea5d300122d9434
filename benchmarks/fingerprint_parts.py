"""The deterministic halves of ``push-fess-bi`` for :mod:`search_fingerprint`.

``push-fess-bi`` takes turns between its searches by the time each has had, so its own outcome
depends on the machine; each half alone is a function of the code:

- the forward search: push-fess with push-fess-bi's own settings (its cluster deadlock tests),
  without the pull searches, the ball and the plain push-fess searches beside it;
- one pull search from the solved position at the search's weight (3), to the node limit.
"""

from __future__ import annotations

import hashlib

import numpy as np

from evosoko.search import bidirectional
from evosoko.search.algorithms import ALGORITHMS
from evosoko.search.bidirectional import PullSearch
from evosoko.search.fess import FeatureSpaceRun
from evosoko.search.search_run import DEFAULT_MEMORY, Pruning
from evosoko.search.store import DUPLICATES, EXPANDED, GENERATED
from evosoko.sokoban.arrays import level_arrays


def _digest(solution: str | None) -> str:
    return hashlib.sha256(solution.encode()).hexdigest()[:16] if solution else ""


class _Forward(FeatureSpaceRun):
    @property
    def cluster_deadlocks(self) -> int:
        return bidirectional.CLUSTER_DEADLOCKS


def bidirectional_forward(level, node_limit: int) -> list:
    """``[status, expanded, generated, duplicates, digest]`` of push-fess-bi's forward search."""
    algorithm = ALGORITHMS["push-fess-bi"]
    run = _Forward(
        level, algorithm, "matching", None, node_limit, 3.0, Pruning(), 0, DEFAULT_MEMORY
    )
    result = run.result(run.search(), 0)
    return [
        str(result.stop),
        result.expanded,
        result.generated,
        result.duplicates,
        _digest(result.solution),
    ]


def bidirectional_pull(level, node_limit: int) -> list:
    """``[finished, expanded, generated, duplicates, digest of the stored states' hashes]`` of
    one pull search at weight 3 after at most ``node_limit`` expansions."""
    tab = level_arrays(level)
    pull = PullSearch(level, tab, level.cells, 300, 1 << 40)
    counters = pull.store.counters
    while not pull.finished and counters[EXPANDED] < node_limit:
        pull._chunk = int(node_limit - counters[EXPANDED])
        pull.step()
    hashes = np.ascontiguousarray(pull.store.field("hash"))
    return [
        "exhausted" if pull.finished else "node-limit",
        int(counters[EXPANDED]),
        int(counters[GENERATED]),
        int(counters[DUPLICATES]),
        hashlib.sha256(hashes.tobytes()).hexdigest()[:16],
    ]
