"""Classical search for Sokoban: move-level baselines and push-level solvers.

``solve(level, algo, ...)`` returns a :class:`SearchResult` whose solution has been replayed
and verified by :mod:`evosoko.sokoban.solutions`. ``ALGORITHMS`` lists the searches by name.
"""

from evosoko.search.algorithms import ALGORITHMS, Algorithm
from evosoko.search.heuristics import HEURISTICS, PUSH_HEURISTICS
from evosoko.search.paths import SearchBug
from evosoko.search.result import STATUSES, PartialPath, SearchResult
from evosoko.search.solver import Pruning, solve, warm_up

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
