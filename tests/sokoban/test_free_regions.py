"""A child's regions of free floor from its parent's labels, against a plain-Python flood fill."""

from __future__ import annotations

import numpy as np
import pytest
from shared_microban import microban
from test_reach import flood

from evosoko.sokoban.arrays import level_arrays
from evosoko.sokoban.cell_sides import make_side_search, search_region
from evosoko.sokoban.corrals import (
    MARK_SLOTS,
    REGION_MARK,
    REGIONS,
    CorralBoard,
    make_pi_corral_scratch,
    pi_corral,
)
from evosoko.sokoban.free_regions import (
    NO_REGION,
    ParentRegions,
    child_label,
    regions_after_move,
    smallest_after_move,
)
from evosoko.sokoban.reach import explore


def components(level, occupied):
    """{cell: component number} of the free floor, by plain-Python flood fills."""
    number = {}
    for start in np.flatnonzero(level.floor & ~occupied).tolist():
        if start not in number:
            label = len(set(number.values()))
            number.update(dict.fromkeys(flood(level, start, occupied), label))
    return number


def labelled_parent(level, tables, player, boxes, occupied, stamp, scratch):
    """The :class:`ParentRegions` of a position: the player's walk, the search of its region
    and pi_corral's labels."""
    reach_mark, region_scratch, marks, sides = scratch
    _, smallest = explore(
        tables.floor,
        occupied,
        tables.deltas,
        player,
        reach_mark,
        stamp,
        np.zeros(level.cells, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )
    board = CorralBoard(tables.floor, tables.dead, tables.goals, tables.deltas)
    pi_corral(board, occupied, np.sort(boxes), reach_mark, stamp, region_scratch, marks)
    search_region(tables.floor, occupied, tables.deltas, smallest, sides)
    return ParentRegions(
        reach_mark,
        stamp,
        region_scratch.region,
        region_scratch.region_mark,
        marks[REGION_MARK],
        marks[REGIONS],
        region_scratch.region_smallest,
        smallest,
        sides,
        tables.deltas,
    )


def around(level, occupied, cell):
    """A free neighbour of ``cell`` (where the player stands after a move ends there)."""
    return next(
        cell + delta
        for delta in level.deltas
        if not occupied[cell + delta] and level.floor[cell + delta]
    )


def moves_of(level, boxes, occupied, rng):
    """(source, target) pairs: every push of a box onto free floor, and some longer moves."""
    free = np.flatnonzero(level.floor & ~occupied)
    for box in boxes.tolist():
        for delta in level.deltas:
            if level.floor[box + delta] and not occupied[box + delta]:
                yield box, box + delta
        target = int(rng.choice(free))
        if any(level.floor[target + d] and not occupied[target + d] for d in level.deltas):
            yield box, target  # the player can stand beside it


@pytest.mark.parametrize("title", ["93", "139", "144", "153", "155"])
def test_the_child_regions_are_those_of_a_full_walk(title):
    level = microban(title)
    tables = level_arrays(level)
    floor_cells = np.flatnonzero(level.floor)
    rng = np.random.default_rng(int(title))
    scratch = (
        np.zeros(level.cells, dtype=np.int64),
        make_pi_corral_scratch(level.cells),
        np.zeros(MARK_SLOTS, dtype=np.int64),
        make_side_search(level.cells),
    )
    told = walked = shortcuts = cut = 0
    for stamp in range(1, 301):
        picked = rng.choice(floor_cells, size=rng.integers(2, level.box_count + 2), replace=False)
        player, boxes = int(picked[0]), picked[1:].astype(np.int64)
        occupied = np.zeros(level.cells, dtype=bool)
        occupied[boxes] = True
        parent = labelled_parent(level, tables, player, boxes, occupied, stamp, scratch)
        assert parent.others + 1 == len(set(components(level, occupied).values()))
        for source, target in moves_of(level, boxes, occupied, rng):
            occupied[source], occupied[target] = False, True
            told_triple = regions_after_move(
                parent, tables.floor, occupied, tables.deltas, source, target
            )
            count = told_triple[0]
            if count < 0:
                walked += 1
            else:
                told += 1
                cut += told_triple[2] >= 0
                expected = components(level, occupied)
                assert count == len(set(expected.values()))
                labels = {
                    cell: child_label(parent, told_triple, source, occupied, cell)
                    for cell in floor_cells.tolist()
                }
                assert {cell for cell, label in labels.items() if label != NO_REGION} == set(
                    expected
                )
                pairs = {(labels[cell], expected[cell]) for cell in expected}
                assert len(pairs) == len({label for label, _ in pairs}) == count  # one to one
                player = (
                    source
                    if abs(target - source) in (1, level.deltas[1])
                    else around(level, occupied, target)
                )
                normalized = smallest_after_move(
                    parent, told_triple, source, target, occupied, player
                )
                if normalized >= 0:
                    shortcuts += 1
                    assert normalized == min(c for c in expected if expected[c] == expected[player])
            occupied[source], occupied[target] = True, False
    assert told > 100 and walked > 10 and cut > 10 and 0 < shortcuts < told  # all were met
