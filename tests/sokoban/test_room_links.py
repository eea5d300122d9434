"""Rooms and links (sokoban.rooms): hand-made levels, and the cut property on random boards."""

from __future__ import annotations

from collections import deque

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from level_strategies import quiet_level

from evosoko.sokoban.rooms import blocked_links, room_links

# Two rooms joined by a doorway (row 3, column 3).
DOORWAY = ["#######",
           "#  @  #",
           "#  $  #",
           "### ###",
           "#  .  #",
           "#     #",
           "#######"]  # fmt: skip
# Two rooms joined by a tunnel that bends round a wall corner (row 2, columns 3-4).
BENT = ["#########",
        "#  ######",
        "# @  ####",
        "#  #  ###",
        "####  ..#",
        "####$$  #",
        "####    #",
        "#########"]  # fmt: skip
# One room with a gap between two pillars (row 3, column 4) and a dead-end niche (row 1,
# column 8).
PILLARS = ["##########",
           "#      # #",
           "#        #",
           "#  # #   #",
           "#        #",
           "#  @  $ .#",
           "##########"]  # fmt: skip
# Three tunnels meet in one cell (row 2, column 2): one leads to another room, two end dead.
HUB = ["########",
       "#####$ #",
       "#  .  @#",
       "## #####",
       "## #####",
       "########"]  # fmt: skip


def _partition(rows):
    level = quiet_level(rows)
    room, link, ends = room_links(level.floor, level.deltas)
    return level, room, link, len(ends)


def _blocked(level, link, *cells, ends=None):
    """Blocked links with boxes on ``cells`` (with ``ends``: only those cut apart)."""
    boxes = np.array([level.cell(r, c) for r, c in cells], dtype=np.int64)
    seen = np.zeros(max(1, int(link.max()) + 1), dtype=np.int64)
    occupied = np.zeros(level.cells, dtype=np.bool_)
    occupied[boxes] = True
    region = _regions(level, occupied)
    no_ends = np.zeros((0, 2), dtype=np.int64)
    count = blocked_links(link, boxes, seen, no_ends if ends is None else ends, occupied, region)
    assert not seen.any()
    return count


def _regions(level, occupied):
    """A label per free floor cell, one per region of free floor (plain Python)."""
    region = np.full(level.cells, -1, dtype=np.int64)
    for start in np.flatnonzero(level.floor & ~occupied).tolist():
        if region[start] >= 0:
            continue
        region[start] = start
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for delta in level.deltas:
                nxt = cell + delta
                if level.floor[nxt] and not occupied[nxt] and region[nxt] < 0:
                    region[nxt] = start
                    queue.append(nxt)
    return region


# Two rooms joined by two doorways (row 3, columns 2 and 5).
TWO_DOORS = ["########",
             "#  @   #",
             "#  $   #",
             "## ## ##",
             "#  .   #",
             "#      #",
             "########"]  # fmt: skip


def test_a_doorway_links_two_rooms_and_a_box_on_it_blocks_the_link():
    level, room, link, links = _partition(DOORWAY)
    door = level.cell(3, 3)
    assert links == 1 and link[door] == 0 and room[door] == -1
    above, below = room[level.cell(2, 3)], room[level.cell(4, 3)]
    assert above >= 0 and below >= 0 and above != below
    assert _blocked(level, link, (3, 3)) == 1
    assert _blocked(level, link, (2, 3), (4, 3)) == 0
    ends = room_links(level.floor, level.deltas)[2]
    assert sorted(room[ends[0]].tolist()) == sorted([above, below])
    assert _blocked(level, link, (3, 3), ends=ends) == 1  # the only way: cut


def test_a_blocked_door_of_two_is_no_cut():
    level, _, link, links = _partition(TWO_DOORS)
    ends = room_links(level.floor, level.deltas)[2]
    assert links == 2
    assert _blocked(level, link, (3, 2)) == 1
    assert _blocked(level, link, (3, 2), ends=ends) == 0  # the player walks round by the other
    assert _blocked(level, link, (3, 2), (3, 5), ends=ends) == 2
    assert _blocked(level, link, (3, 2), (4, 5), ends=ends) == 1  # a box on the other's end


def test_a_tunnel_round_a_bend_is_one_link():
    level, room, link, links = _partition(BENT)
    tunnel = [level.cell(2, c) for c in (3, 4)]
    assert links == 1
    assert [int(link[c]) for c in tunnel] == [0, 0]
    assert room[level.cell(2, 2)] != room[level.cell(3, 4)]
    assert _blocked(level, link, (2, 3), (2, 4)) == 1  # two boxes, one link
    assert _blocked(level, link, (5, 4), (5, 5)) == 0


def test_a_gap_between_pillars_and_a_dead_end_are_no_links():
    level, room, link, links = _partition(PILLARS)
    gap, niche = level.cell(3, 4), level.cell(1, 8)
    assert links == 0
    assert room[gap] == -1 and room[niche] == -1  # passages, but each meets only the one room
    assert len({int(r) for r in room if r >= 0}) == 1
    assert _blocked(level, link, (3, 4), (1, 8)) == 0


def test_three_tunnels_meet_in_a_room_of_one_cell_and_only_one_is_a_link():
    level, room, link, links = _partition(HUB)
    hub = level.cell(2, 2)
    assert links == 1
    assert room[hub] >= 0 and link[hub] == -1
    assert link[level.cell(2, 3)] == link[level.cell(2, 4)] == 0
    assert link[level.cell(2, 1)] == link[level.cell(3, 2)] == link[level.cell(4, 2)] == -1
    assert _blocked(level, link, (2, 3), (2, 4), (2, 1), (4, 2)) == 1
    assert _blocked(level, link, (2, 1), (4, 2)) == 0


@st.composite
def floors(draw):
    """(flat floor, deltas) of a board of up to 9 x 9 inner cells, about half of them walls:
    many one-wide passages. Its border is wall, as on a closed level."""
    height, width = draw(st.integers(1, 9)) + 2, draw(st.integers(1, 9)) + 2
    inner = [r * width + c for r in range(1, height - 1) for c in range(1, width - 1)]
    open_cells = draw(st.lists(st.booleans(), min_size=len(inner), max_size=len(inner)))
    floor = np.zeros(height * width, dtype=np.bool_)
    floor[[cell for cell, is_open in zip(inner, open_cells, strict=True) if is_open]] = True
    return floor, (-width, width, -1, 1)


@settings(max_examples=300)
@given(floors(), st.data())
def test_links_are_one_wide_cuts_between_two_rooms(board, data):
    floor_array, deltas = board
    room, link, link_ends = room_links(floor_array, deltas)
    links = len(link_ends)
    floor = np.flatnonzero(floor_array).tolist()
    for k in range(links):
        cells = [c for c in floor if link[c] == k]
        ends = {int(room[c + d]) for c in cells for d in deltas if room[c + d] >= 0}
        assert len(ends) == 2 and all(room[c] == -1 for c in cells)
        assert {int(room[c]) for c in link_ends[k]} == ends
        assert all(any(c + d in cells for d in deltas) for c in link_ends[k].tolist())
        area = set(cells) | {c for c in floor if room[c] in ends}
        first, second = sorted(ends)
        start = next(c for c in floor if room[c] == first)
        assert _reaches(deltas, area, start, second, room, blocked=None)
        box = data.draw(st.sampled_from(cells))
        assert not _reaches(deltas, area, start, second, room, blocked=box)
    boxes = data.draw(st.lists(st.sampled_from(floor), unique=True, max_size=6)) if floor else []
    expected = len({int(link[b]) for b in boxes if link[b] >= 0})
    seen = np.zeros(max(1, links), dtype=np.int64)
    occupied = np.zeros(floor_array.shape[0], dtype=np.bool_)
    occupied[boxes] = True
    no_ends = np.zeros((0, 2), dtype=np.int64)
    array = np.array(boxes, dtype=np.int64)
    assert blocked_links(link, array, seen, no_ends, occupied, seen) == expected
    assert not seen.any()


def _reaches(deltas, area, start, target_room, room, blocked):
    """Whether the player walks from ``start`` to a cell of ``target_room`` inside ``area``."""
    seen = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if room[cell] == target_room:
            return True
        for delta in deltas:
            nxt = cell + delta
            if nxt in area and nxt != blocked and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False
