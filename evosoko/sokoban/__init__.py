"""The rules of Sokoban: levels, formats, moves, deadlocks, solutions, and their kernels.

This package knows nothing of search or evolution; it is the one source of truth for the rules,
and holds each rule's compiled kernel once, for the search, the GA and the Python rules alike:
reachability (:mod:`~evosoko.sokoban.reach`), freeze deadlocks (:mod:`~evosoko.sokoban.freeze`),
PI-corrals (:mod:`~evosoko.sokoban.corrals`), push distances and the matching
(:mod:`~evosoko.sokoban.analysis`, :mod:`~evosoko.sokoban.matching`), hashing
(:mod:`~evosoko.sokoban.zobrist`), all on one level's arrays (:mod:`~evosoko.sokoban.arrays`).
"""

from evosoko.sokoban.level import DIRECTIONS, UNREACHABLE, Level, Origin, State

__all__ = ["DIRECTIONS", "UNREACHABLE", "Level", "Origin", "State"]
