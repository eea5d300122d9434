"""Small cell tests that every compiled search takes: is a cell closed to a pushed box, are
all of a list of box cells on goals, and take them off an occupancy array."""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def all_on_goals(goals, cells):  # pragma: no cover - compiled
    """True when every cell of ``cells`` is a goal."""
    for cell in cells:
        if not goals[cell]:
            return False
    return True


@numba.njit(cache=True)
def clear_cells(occupied, cells):  # pragma: no cover - compiled
    """Mark every cell of ``cells`` free in ``occupied``."""
    for cell in cells:
        occupied[cell] = False


@numba.njit(cache=True, inline="always")
def box_blocked(floor, occupied, dead, cell):  # pragma: no cover - compiled
    """True when no box may be pushed onto ``cell``: a wall, a box, or a dead square."""
    return not floor[cell] or occupied[cell] or dead[cell]
