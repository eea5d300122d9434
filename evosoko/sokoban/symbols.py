"""The alphabet every board, table and kernel shares: direction letters, the XSB characters
of a cell and the distance that means "no path".

These names sit below :mod:`evosoko.sokoban.level` (which hands them on) so that the modules
:class:`~evosoko.sokoban.level.Level` itself uses, its tables (:mod:`~evosoko.sokoban.analysis`)
and its pictures (:mod:`~evosoko.sokoban.render`), need not import the level back.
"""

from __future__ import annotations

DIRECTIONS = "udlr"
"""Direction letters, in the order used by every table, kernel and genome."""

UNREACHABLE = 1_000_000
"""Distance value for "no path": large enough to dominate, small enough to sum in int64."""

WALL, FLOOR, GOAL, BOX, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "#", " ", ".", "$", "*", "@", "+"
BOARD_CHARACTERS = frozenset("# .$*@+")
"""Canonical XSB characters of a board cell (floor is a space)."""
