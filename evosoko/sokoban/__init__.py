"""The rules of Sokoban: levels, formats, moves, deadlocks, solutions and replay kernels.

This package knows nothing of search or evolution; it is the one source of truth for the rules.
"""

from evosoko.sokoban.level import DIRECTIONS, UNREACHABLE, Level, Origin, State

__all__ = ["DIRECTIONS", "UNREACHABLE", "Level", "Origin", "State"]
