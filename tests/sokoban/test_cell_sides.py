"""The sides of each cell from one depth-first search, against walks of the floor without it."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from evosoko.sokoban.cell_sides import label_sides, make_side_search, search_region
from tests.search.tiny_levels import microban, tiny_levels


def walked_sides(floor, deltas, occupied=None) -> list[list[int]]:
    """The sides of every free cell (``floor``, not ``occupied``), numbered as
    :func:`label_sides` does: walks of the free floor without the cell from each neighbour."""
    floor, deltas = list(floor), [int(d) for d in deltas]
    free = [bool(f) and not (occupied is not None and occupied[c]) for c, f in enumerate(floor)]
    sides = [[-1] * 4 for _ in floor]
    for x, open_cell in enumerate(free):
        if not open_cell:
            continue
        regions: list[set[int]] = []
        for k, step in enumerate(deltas):
            start = x + step
            if not free[start]:
                continue
            found = [i for i, region in enumerate(regions) if start in region]
            if found:
                sides[x][k] = found[0]
                continue
            region, todo = {start}, [start]
            while todo:
                cell = todo.pop()
                for other in (cell + d for d in deltas):
                    if free[other] and other != x and other not in region:
                        region.add(other)
                        todo.append(other)
            regions.append(region)
            sides[x][k] = len(regions) - 1
    return sides


def _each_box_lifted(level):
    """With each box of the level lifted in turn (the others in place, as the box paths see
    them), one search of the region around it from one scratch (its clock runs on): the sides
    of every cell it found, against walks."""
    deltas = np.array(level.deltas, dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[list(level.start.boxes)] = True
    search = make_side_search(level.cells)
    side = np.zeros(4, dtype=np.int64)
    for box in level.start.boxes:
        occupied[box] = False
        expected = walked_sides(level.floor, deltas, occupied)
        before = search.clock[0]
        search_region(level.floor, occupied, deltas, box, search)
        found = np.flatnonzero(search.tree[0] > before)
        assert box in found
        for x in found:
            label_sides(level.floor, occupied, deltas, search, int(x), side)
            assert side.tolist() == expected[x]
        for x in found:  # the region found is closed: every free neighbour in it
            for delta in deltas:
                y = int(x + delta)
                assert bool(level.floor[y] and not occupied[y]) == (y in found)
        occupied[box] = True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_levels(max_boxes=4))
def test_the_sides_of_each_cell_are_those_of_walks_without_it(level):
    _each_box_lifted(level)


def test_the_sides_of_each_cell_are_those_of_walks_without_it_on_microban():
    for level in microban("1", "60", "96", "144"):
        _each_box_lifted(level)
