"""Small cell tests that every compiled search takes: is a cell closed to a pushed box, are
all of a list of box cells on goals; take them off an occupancy array, copy them."""

from __future__ import annotations

import numba

from evosoko.reference_counts import uncounted


@uncounted
def all_on_goals(goals, cells):  # pragma: no cover - compiled
    """True when every cell of ``cells`` is a goal."""
    for cell in cells:
        if not goals[cell]:
            return False
    return True


@uncounted
def clear_cells(occupied, cells):  # pragma: no cover - compiled
    """Mark every cell of ``cells`` free in ``occupied``."""
    for cell in cells:
        occupied[cell] = False


@numba.njit(cache=True, inline="always")
def copy_cells(target, source):  # pragma: no cover - compiled
    """Copy ``source`` into ``target`` (of the same length) element by element: numba's slice
    assignment compiles far slower and may allocate a temporary, which a kernel compiled
    without reference counts cannot."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@numba.njit(cache=True, inline="always")
def box_blocked(floor, occupied, dead, cell):  # pragma: no cover - compiled
    """True when no box may be pushed onto ``cell``: a wall, a box, or a dead square."""
    return not floor[cell] or occupied[cell] or dead[cell]
