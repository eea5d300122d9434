"""A level title in a script the plots' font lacks is one ``warning:`` line naming the plot
(issue 55, item 8): matplotlib's raw ``UserWarning: Glyph ... missing`` reached stderr."""

from __future__ import annotations

import warnings

from evosoko.errors import EvosokoWarning
from evosoko.experiment.plots.compare import draw_compare


def _row(level: str) -> dict:
    return {
        "solver": "bfs",
        "kind": "search",
        "level_index": 1,
        "level": level,
        "seed": None,
        "status": "solved",
        "solved": True,
        "seconds": 0.5,
        "unit": "nodes",
        "used": 20,
        "moves": 10,
        "pushes": 3,
        "solution": "R",
    }


def test_missing_glyphs_are_one_warning_naming_the_plot(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw_compare(tmp_path, [_row("漢字 level")], 5.0, {"nodes": 100}, ["bfs"])
    assert [type(w.message) for w in caught] == [EvosokoWarning]
    message = caught[0].message
    assert message.path == str(tmp_path / "plots" / "levels.png")
    assert "no glyph for 漢, 字" in message.message
    assert (tmp_path / "plots" / "levels.png").stat().st_size > 1000


def test_titles_the_font_has_give_no_warning(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw_compare(tmp_path, [_row("plain level")], 5.0, {"nodes": 100}, ["bfs"])
    assert caught == []
