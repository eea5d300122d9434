"""Sketches become levels; fingerprints ignore the title and where in its region the player is."""

from __future__ import annotations

import numpy as np

from evosoko.generate.sketch import Sketch, bordered_room, fingerprint, interior_cells

ROWS = ["######", "#    #", "# ## #", "#    #", "######"]


def sketch(player: int, boxes=(8,), goals=(20,)) -> Sketch:
    walls = np.array([c == "#" for row in ROWS for c in row], dtype=bool)
    return Sketch(6, 5, walls, goals, boxes, player)


def test_rows_and_level():
    level = sketch(7, boxes=(8, 20), goals=(20, 22)).to_level(title="t", notes=(("Pushes", "3"),))
    assert level.rows() == ["######", "#@$  #", "# ## #", "# * .#", "######"]
    assert level.title == "t" and level.notes == (("Pushes", "3"),)
    assert level.start.boxes == (8, 20) and level.box_count == 2


def test_fingerprint_ignores_player_cell_within_its_region_and_title():
    assert fingerprint(sketch(7).to_level(title="a")) == fingerprint(sketch(21).to_level())
    assert fingerprint(sketch(7).to_level()) != fingerprint(sketch(7, boxes=(9,)).to_level())


def test_room_helpers():
    walls = bordered_room(5, 4)
    assert walls.reshape(4, 5)[1:-1, 1:-1].sum() == 0 and walls.sum() == 20 - 6
    assert interior_cells(5, 4) == [6, 7, 8, 11, 12, 13]
    assert interior_cells(6, 6, 2) == [14, 15, 20, 21]
    assert sketch(7).is_solved() is False
    assert Sketch(6, 5, bordered_room(6, 5), (8,), (8,), 7).is_solved()


def test_only_walls_touching_the_floor_are_drawn():
    rows = ["#######", "#######", "##  ###", "##  ###", "#######", "#######"]
    walls = np.array([c == "#" for row in rows for c in row], dtype=bool)
    sketch = Sketch(7, 6, walls, goals=(16,), boxes=(17,), player=24)
    assert sketch.rows() == ["", " ####", " #.$#", " # @#", " ####", ""]
    assert sketch.to_level().rows() == ["####", "#.$#", "# @#", "####"]
