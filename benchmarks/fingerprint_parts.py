"""The two halves of ``push-fess-bi`` alone, for :mod:`search_fingerprint` (which pins the
whole search as well): they were pinned before issue 50's rebuild, when the whole search took
turns by the clock.

- the forward search: push-fess with push-fess-bi's own settings (its cluster deadlock tests),
  without the pull searches, the ball and the plain push-fess searches beside it;
- one pull search from the solved position at the search's weight (3), to the node limit.
"""

from __future__ import annotations

import hashlib

import numpy as np

from evosoko.search import BidirectionalSettings, FessSettings, solve
from evosoko.search.bidirectional import PullSearch
from evosoko.search.store import DUPLICATES, EXPANDED, GENERATED
from evosoko.sokoban.arrays import level_arrays


def _digest(solution: str | None) -> str:
    return hashlib.sha256(solution.encode()).hexdigest()[:16] if solution else ""


def bidirectional_forward(level, node_limit: int) -> list:
    """``[status, expanded, generated, duplicates, digest]`` of push-fess-bi's forward search:
    push-fess with push-fess-bi's settings (its fields of :class:`FessSettings`)."""
    own = BidirectionalSettings()
    settings = FessSettings.model_validate(
        {name: getattr(own, name) for name in FessSettings.model_fields}
    )
    result = solve(level, "push-fess", node_limit=node_limit, settings=settings)
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
        pull.step(int(node_limit - counters[EXPANDED]))
    hashes = np.ascontiguousarray(pull.store.field("hash"))
    return [
        "exhausted" if pull.finished else "node-limit",
        int(counters[EXPANDED]),
        int(counters[GENERATED]),
        int(counters[DUPLICATES]),
        hashlib.sha256(hashes.tobytes()).hexdigest()[:16],
    ]
