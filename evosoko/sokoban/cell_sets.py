"""Two loops over a list of box cells that every compiled search takes: are they all on goals,
and take them off an occupancy array."""

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
