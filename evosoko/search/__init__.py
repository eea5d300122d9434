"""Classical search for Sokoban: move-level baselines and push-level solvers.

``solve(level, algo, heuristic=None, time_limit=None, node_limit=None, weight=3.0, partial=0)``
returns a :class:`SearchResult` (status ``solved``/``budget``/``memory-limit``/``unsolvable``
of :mod:`evosoko.status`, ``budget`` naming its ``exhausted`` seconds or nodes, ``unsolvable``
only when the space was exhausted; the replay-verified LURD
solution, moves, pushes, states expanded/generated/duplicates, seconds, and with ``partial=k`` the k best frontier paths). ``ALGORITHMS`` lists the searches:

- move level (one state per player cell and boxes; dead squares pruned): ``bfs``, ``dfs``,
  ``random``, ``astar``, ``greedy``;
- push level (boxes + normalized player; compiled kernels): ``push-bfs``, ``push-astar``,
  ``push-wastar``, ``push-greedy``, ``push-idastar``, with dead squares, freeze deadlocks,
  bipartite deadlocks (matching), PI-corral pruning and dead-end tunnel macros (all keep
  push-optimality and completeness), and goal-room packing macros in the non-optimal ones;
- ``push-fess`` (:mod:`evosoko.search.fess`), a feature-space search for large levels, and
  ``push-fess-bi`` (:mod:`evosoko.search.bidirectional`), push-fess with a pull search from the
  solved position beside it, until the two reach a common state;
- ``mcts`` (:mod:`evosoko.search.mcts`), Monte Carlo tree search over the push genomes'
  candidate pushes, seeded (``seed``); ``expanded`` counts its iterations.

On a given-holes level (``level.pairing`` set) ``mcts`` plays the variant itself; the four
given-holes searches (``push-bfs``, ``push-astar``, ``push-wastar``, ``push-greedy``) are
:mod:`evosoko.search.given_holes`'s, and any other search refuses the level.

``evosoko.solve`` (:mod:`evosoko.api`) returns a search's outcome as the
:class:`~evosoko.result.Result` every solver returns (:meth:`SearchResult.as_result`).
"""

from evosoko.search.algorithms import ALGORITHMS, Algorithm
from evosoko.search.heuristics import HEURISTICS, PUSH_HEURISTICS
from evosoko.search.paths import SearchBug
from evosoko.search.result import STATUSES, PartialPath, SearchResult
from evosoko.search.search_run import Pruning
from evosoko.search.solver import solve, warm_up

__all__ = [
    "ALGORITHMS",
    "HEURISTICS",
    "PUSH_HEURISTICS",
    "STATUSES",
    "Algorithm",
    "PartialPath",
    "Pruning",
    "SearchBug",
    "SearchResult",
    "solve",
    "warm_up",
]
