"""Push-level best-first search ordered by a learned deadlock network (``push-learned*``).

The push kernel expands one node at a time (:func:`evosoko.search.push_kernel.push_search` with a
chunk of one and a stack as its own frontier, so the children it generates are left there in one
piece); this driver then encodes all of them at once, asks the network for each child's probability
of being dead in one batched call, and files them in its own priority queue by a
:class:`GuideRule`. Nothing is pruned on the network's word (only the kernel's sound pruning
applies), so the search stays complete: a level it cannot solve is reported ``unsolvable`` only
after its whole space has been exhausted, and every solution is replay-verified by
:mod:`evosoko.search.solver` like any other.

Two rules:

- ``push-learned-source``, the source document's: a child whose dead probability is under 0.2
  is ordered by its heuristic (Manhattan distance by default, as there), and comes before any
  child at 0.2 or more; those are ordered by their probability, the less likely dead first;
- ``push-learned``: the same two tiers, but both ordered by ``g + 3 h`` with the matching
  heuristic, and the threshold at 0.5 (see the module's measurements in the README).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from evosoko.search.result import MEMORY_LIMIT, NODE_LIMIT, SOLVED, TIMEOUT, UNSOLVABLE
from evosoko.search.store import (
    CHUNK,
    EXHAUSTED,
    EXPANDED,
    FRONT_HEAD,
    FRONT_SIZE,
    NEED_SPACE,
    RESUME_NODE,
    SOLUTION,
)

_SCALE = 1_000_000
"""Probabilities are ordered as integers in millionths."""

BATCH_CELLS = 1 << 13
"""Board cells (children x cells of the board) the network reads in one call; before each call
the clock is read. A Microban level (up to 8,192 / 4 / boxes cells: all but Microban 144, whose
expansions have fewer new children than its 56 a call) scores the children of one expansion in
one call, so its searches are the same as at 1 << 15; the 261-box lattice of
``benchmarks/bench_limits.py`` (2,904 cells, about 1,000 children per expansion) 2 children a
call (at 1 << 15, 11 children took about 0.3 s on the 2-core machine of
``benchmarks/README.md`` under load 7 and push-learned-source ended at 2.30 s of a 2 s limit;
at 1 << 22 one call took 13 s); a board of a million cells one child a call, which the network
computes in pieces, reading the clock between them (:data:`evosoko.learn.network.PIECE_ROWS`)."""


class _OutOfTime(Exception):
    """The time limit passed between two batches of the network."""


@dataclass(frozen=True)
class GuideRule:
    """How a child's probability ``p`` of being dead and its ``g``, ``h`` make its priority.

    Children with ``p < threshold`` come first, ordered by ``g * g_weight + h * h_weight``; the
    others after them, ordered by ``p`` (``likely_dead_by = "probability"``) or by the same cost
    (``"cost"``). Ties go to fewer moves, then to the child generated first.
    """

    threshold: float
    g_weight: int
    h_weight: int
    likely_dead_by: str = "cost"

    def keys(self, p: np.ndarray, g: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``int64`` priorities (smaller first) of a batch of children."""
        cost = g.astype(np.int64) * self.g_weight + h.astype(np.int64) * self.h_weight
        likely_dead = p >= self.threshold
        if self.likely_dead_by == "probability":
            cost = np.where(likely_dead, np.round(p * _SCALE).astype(np.int64), cost)
        return (likely_dead.astype(np.int64) << 40) + cost


RULES = {
    "push-learned-source": GuideRule(0.2, 0, 1, "probability"),
    "push-learned": GuideRule(0.5, 1, 3, "cost"),
}
"""The rule of each learned algorithm, by name."""


@lru_cache(maxsize=4)
def guide_network(model: str | None):
    """The deadlock network of ``model`` (a path; None: the one shipped), loaded once."""
    from evosoko.learn.network import load_model

    return load_model(model)


def run_guided(run) -> str:
    """Run the search of a :class:`evosoko.search.search_run.SearchRun` to the end or its budget.

    Returns the status, as ``_Run._run_kernel`` does; the statistics live in the run's store.
    """
    from evosoko.learn.features import PositionEncoder

    rule = RULES[run.algorithm.name]

    def check_clock() -> None:
        if run.out_of_time():
            raise _OutOfTime

    try:  # a big board's tables are made in pieces, the clock read between them
        network = guide_network(run.model).for_level(run.level, check_clock)
    except _OutOfTime:
        return TIMEOUT
    encoder = PositionEncoder(run.level)
    store = run.store
    run.params[CHUNK] = 1
    queue: list[tuple[int, int, int, int]] = []
    order = 0
    known: dict[int, float] = {}  # node -> p: a node reached again by a shorter path is the
    # same position (its boxes and the player's region), so the network is asked once

    def file_children() -> None:
        nonlocal order
        counters = store.counters
        count = int(counters[FRONT_SIZE])
        if count == 0:
            return
        ids = store.frontier[1][:count].astype(np.int64)
        counters[FRONT_SIZE] = counters[FRONT_HEAD] = 0
        nodes = store.nodes
        node_list = ids.tolist()
        p = np.array([known.get(node, -1.0) for node in node_list], dtype=np.float32)
        new = np.flatnonzero(p < 0)
        batch = max(1, BATCH_CELLS // run.level.cells)
        for start in range(0, len(new), batch):
            check_clock()
            part = new[start : start + batch]
            fresh = ids[part]
            codes = encoder.encode(nodes.boxes[fresh], nodes.actual[fresh])
            p[part] = network.probabilities(codes, check_clock)  # in pieces on a big board
            known.update(zip(fresh.tolist(), p[part].tolist()))
        keys = rule.keys(p, nodes.g[ids], nodes.h[ids])
        moves = nodes.moves[ids].tolist()
        for key, move_count, node in zip(keys.tolist(), moves, node_list):
            heapq.heappush(queue, (key, move_count, order, node))
            order += 1

    if run.out_of_time():  # the set-up (the network's tables of a large board) is timed
        return TIMEOUT
    with network.single_threaded():
        try:
            file_children()  # the root, put there by _add_root
            return _expand_in_order(run, queue, file_children)
        except _OutOfTime:
            return TIMEOUT


def _expand_in_order(run, queue: list, file_children) -> str:
    store = run.store
    while queue:
        if run.node_limit is not None and int(store.counters[EXPANDED]) >= run.node_limit:
            return NODE_LIMIT
        if run.out_of_time():
            return TIMEOUT
        node = heapq.heappop(queue)[3]
        if store.nodes.closed[node]:
            continue
        frontier_keys, frontier_ids = store.frontier
        frontier_keys[0], frontier_ids[0] = 0, node
        store.counters[FRONT_SIZE], store.counters[FRONT_HEAD] = 1, 0
        while True:  # one expansion, over several calls when the store grows or its work
            # limit cuts it short (the kernel then goes on from the successor it stopped at)
            code = run._call_kernel()
            run._note_progress()
            if code == NEED_SPACE:
                if not run.make_room():
                    return MEMORY_LIMIT
            elif store.counters[RESUME_NODE] < 0 or store.counters[SOLUTION] >= 0:
                break
            if run.out_of_time():
                return TIMEOUT
        if store.counters[SOLUTION] >= 0:
            return SOLVED
        if code == EXHAUSTED:  # cannot happen: the node was open
            continue
        file_children()
    return UNSOLVABLE
