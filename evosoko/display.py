"""How evosoko's objects show themselves in Jupyter: boards as images, results as tables with
their fitness chart and an animation of what they play.

- a :class:`~evosoko.sokoban.level.Level` is a PNG of its board (``Level._repr_png_``, drawn by
  :func:`evosoko.sokoban.render.board_png`);
- a :class:`~evosoko.result.Result` is a small table (status, solution length, cost, time),
  the GA's fitness chart (best so far, best and mean of each generation) and an animated GIF of
  its solution, or of the GA's best prefix when it did not solve the level
  (:mod:`evosoko.result_display`);
- a run (``evosoko.run``, ``evosoko.open_run``) is its table of levels and its fitness plot,
  and a comparison (``evosoko.compare``) its summary table (:mod:`evosoko.experiment.notebook`).

Each object draws itself with a module beside it or below it; this module gathers those
functions in one place for scripts: :func:`board_png` and :func:`solution_gif` return the
image bytes. Images are embedded as base64 data, so a saved notebook shows them without the
files. Nothing here touches ``pyplot``: a notebook keeps its own matplotlib backend.
"""

from __future__ import annotations

from evosoko.experiment.notebook import comparison_html, run_html
from evosoko.result_display import GIF_FRAMES, result_html, solution_gif
from evosoko.sokoban.render import board_png

__all__ = [
    "GIF_FRAMES",
    "board_png",
    "comparison_html",
    "result_html",
    "run_html",
    "solution_gif",
]
