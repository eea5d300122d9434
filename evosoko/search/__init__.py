"""Classical search for Sokoban: move-level baselines and push-level solvers.

``solve(level, algo, heuristic=None, time_limit=None, node_limit=None, partial=0,
settings=None)`` returns a :class:`SearchResult` (status ``solved``/``budget``/``memory-limit``/
``unsolvable`` of :mod:`evosoko.status`, ``budget`` naming its ``exhausted`` seconds or nodes,
``unsolvable`` only when the space was exhausted; the replay-verified LURD solution, moves,
pushes, states expanded/generated/duplicates, seconds, the settings it ran with, and with
``partial=k`` the k best frontier paths). A search's knobs are its family's settings model
(:class:`SearchSettings` holds one of each: ``push``, ``fess``, ``fess_bi``, ``mcts``; see
:mod:`evosoko.search.settings`). ``ALGORITHMS`` lists the searches:

- move level (one state per player cell and boxes; dead squares pruned): ``bfs``, ``dfs``,
  ``random``, ``astar``, ``greedy``;
- push level (boxes + normalized player; compiled kernels): ``push-bfs``, ``push-astar``,
  ``push-wastar``, ``push-greedy``, ``push-idastar``, with dead squares, freeze deadlocks,
  bipartite deadlocks (matching), PI-corral pruning and dead-end tunnel macros (all keep
  push-optimality and completeness), and goal-room packing macros in the non-optimal ones;
- ``push-fess`` (:mod:`evosoko.search.fess.run`), a feature-space search for large levels, and
  ``push-fess-bi`` (:mod:`evosoko.search.bidirectional`), push-fess with a pull search from the
  solved position beside it, until the two reach a common state;
- ``mcts`` (:mod:`evosoko.search.mcts.run`), Monte Carlo tree search over the push genomes'
  candidate pushes, seeded (``seed``); ``expanded`` counts its iterations.

On a given-holes level (its rules, :func:`evosoko.sokoban.variants.level_rules`, are given
holes) ``mcts`` plays the variant itself; the four
given-holes searches (``push-bfs``, ``push-astar``, ``push-wastar``, ``push-greedy``) are
:mod:`evosoko.search.given_holes`'s, and any other search refuses the level.

``evosoko.solve`` (:mod:`evosoko.api`) returns a search's outcome as the
:class:`~evosoko.result.Result` every solver returns (:meth:`SearchResult.as_result`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evosoko.search.algorithms import ALGORITHMS, Algorithm
    from evosoko.search.heuristics import HEURISTICS, PUSH_HEURISTICS
    from evosoko.search.paths import SearchBug
    from evosoko.search.result import STATUSES, PartialPath, SearchPart, SearchResult
    from evosoko.search.settings import (
        BidirectionalSettings,
        FessSettings,
        MctsSettings,
        PushSettings,
        SearchSettings,
    )
    from evosoko.search.solver import solve, warm_up

_MODULES = {
    "ALGORITHMS": "evosoko.search.algorithms",
    "Algorithm": "evosoko.search.algorithms",
    "HEURISTICS": "evosoko.search.heuristics",
    "PUSH_HEURISTICS": "evosoko.search.heuristics",
    "SearchBug": "evosoko.search.paths",
    "STATUSES": "evosoko.search.result",
    "PartialPath": "evosoko.search.result",
    "SearchPart": "evosoko.search.result",
    "SearchResult": "evosoko.search.result",
    "BidirectionalSettings": "evosoko.search.settings",
    "FessSettings": "evosoko.search.settings",
    "MctsSettings": "evosoko.search.settings",
    "PushSettings": "evosoko.search.settings",
    "SearchSettings": "evosoko.search.settings",
    "solve": "evosoko.search.solver",
    "warm_up": "evosoko.search.solver",
}
"""Where each public name lives: imported on first use, so that the settings models load
without the compiled kernels (a run configuration holds them)."""

__all__ = [
    "ALGORITHMS",
    "HEURISTICS",
    "PUSH_HEURISTICS",
    "STATUSES",
    "Algorithm",
    "BidirectionalSettings",
    "FessSettings",
    "MctsSettings",
    "PartialPath",
    "PushSettings",
    "SearchBug",
    "SearchPart",
    "SearchResult",
    "SearchSettings",
    "solve",
    "warm_up",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'evosoko.search' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
