"""Boards drawn in several tile sets: the pictures the screenshot reader learns from.

Two kinds: palettes of evosoko's own renderer (:func:`evosoko.sokoban.render.board_image`:
the same shapes in other colours), and looks of our own drawn here tile by tile with Pillow
(:data:`DRAWN`): ``crates`` (bricks, planked crates, a figure) and ``blocks`` (flat squares with
outlines and marks, dark outside), so that the reader learns shapes and contrasts, not one
renderer's colours. :func:`picture` adds what screenshots suffer: a margin, a crop of a few
pixels on any side, and noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evosoko.sokoban.level import Level, State

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

CLASSES = ("outside", "floor", "wall", "goal", "box", "box_on_goal", "player", "player_on_goal")
"""What a cell shows; its XSB character is :data:`CHARACTERS` at the same index."""
CHARACTERS = (" ", " ", "#", ".", "$", "*", "@", "+")

PALETTES: dict[str, dict[str, ColorType]] = {
    "evosoko": {},
    "night": {
        "background": "#101418",
        "floor": "#2b3340",
        "wall": "#7a8494",
        "goal": "#f2c14e",
        "box": "#b5562b",
        "box_on_goal": "#4caf50",
        "box_edge": "#e0e0e0",
        "player": "#5bc0eb",
    },
    "pastel": {
        "background": "#f7f1e3",
        "floor": "#ffffff",
        "wall": "#a3b1c6",
        "goal": "#e58fab",
        "box": "#f6c177",
        "box_on_goal": "#9ccfa4",
        "box_edge": "#6b5b4b",
        "player": "#7a6ff0",
    },
    "grey": {
        "background": "#ffffff",
        "floor": "#d9d9d9",
        "wall": "#404040",
        "goal": "#808080",
        "box": "#a0a0a0",
        "box_on_goal": "#606060",
        "box_edge": "#101010",
        "player": "#202020",
    },
}
"""Colour sets of evosoko's renderer (``evosoko`` is its own)."""


def cell_classes(level: Level, state: State | None = None) -> np.ndarray:
    """``int[height, width]``: the index in :data:`CLASSES` of every cell of the board."""
    state = level.start if state is None else state
    classes = np.where(level.floor, 1, 0)
    classes = np.where(level.walls, 2, classes)
    classes = np.where(level.goals, 3, classes)
    for box in state.boxes:
        classes[box] = 5 if level.goals[box] else 4
    classes[state.player] = 7 if level.goals[state.player] else 6
    return classes.reshape(level.height, level.width)


# ---- looks drawn here ---------------------------------------------------------------------
@dataclass(frozen=True)
class DrawnLook:
    """A tile set drawn with Pillow, one tile per class, scaled to any cell size."""

    name: str
    colours: dict[str, tuple[int, int, int]]

    def tile(self, kind: str, size: int):
        """The tile of class ``kind`` at ``size`` pixels (a Pillow image)."""
        from PIL import Image, ImageDraw

        c = self.colours
        image = Image.new("RGB", (size, size), c["outside"])
        draw = ImageDraw.Draw(image)
        s = size
        if kind == "outside":
            return image
        if kind == "wall":
            self._wall(draw, s)
            return image
        draw.rectangle((0, 0, s - 1, s - 1), fill=c["floor"])
        if self.name == "crates":
            draw.line((0, s - 1, s - 1, s - 1), fill=c["floor_line"], width=max(1, s // 24))
            draw.line((s - 1, 0, s - 1, s - 1), fill=c["floor_line"], width=max(1, s // 24))
        if kind in ("goal", "box_on_goal", "player_on_goal"):
            self._goal(draw, s)
        if kind in ("box", "box_on_goal"):
            self._box(draw, s, on_goal=kind == "box_on_goal")
        if kind in ("player", "player_on_goal"):
            self._player(draw, s)
        return image

    def _wall(self, draw, s: int) -> None:
        c = self.colours
        draw.rectangle((0, 0, s - 1, s - 1), fill=c["wall"])
        line = max(1, s // 16)
        if self.name == "crates":  # bricks: two courses, joints offset
            for y in (0, s // 3, 2 * s // 3):
                draw.line((0, y, s, y), fill=c["mortar"], width=line)
            for x, top, bottom in ((s // 4, 0, s // 3), (3 * s // 4, s // 3, 2 * s // 3)):
                draw.line((x, top, x, bottom), fill=c["mortar"], width=line)
            draw.line((s // 4, 2 * s // 3, s // 4, s), fill=c["mortar"], width=line)
        else:  # a bevelled block
            bevel = max(2, s // 8)
            draw.rectangle((0, 0, s - 1, bevel), fill=c["wall_light"])
            draw.rectangle((0, 0, bevel, s - 1), fill=c["wall_light"])
            draw.rectangle((0, s - 1 - bevel, s - 1, s - 1), fill=c["wall_dark"])
            draw.rectangle((s - 1 - bevel, 0, s - 1, s - 1), fill=c["wall_dark"])

    def _goal(self, draw, s: int) -> None:
        c = self.colours
        if self.name == "crates":  # a diamond
            m, r = s / 2, s * 0.22
            draw.polygon([(m, m - r), (m + r, m), (m, m + r), (m - r, m)], fill=c["goal"])
        else:  # a cross
            w = max(2, s // 10)
            a, b = s * 0.3, s * 0.7
            draw.line((a, a, b, b), fill=c["goal"], width=w)
            draw.line((a, b, b, a), fill=c["goal"], width=w)

    def _box(self, draw, s: int, on_goal: bool) -> None:
        c = self.colours
        fill = c["box_on_goal"] if on_goal else c["box"]
        inset = round(s * 0.1)
        line = max(1, s // 12)
        box = (inset, inset, s - 1 - inset, s - 1 - inset)
        draw.rectangle(box, fill=fill, outline=c["box_edge"], width=line)
        if self.name == "crates":
            draw.line((inset, inset, s - 1 - inset, s - 1 - inset), fill=c["box_edge"], width=line)
            draw.line((inset, s - 1 - inset, s - 1 - inset, inset), fill=c["box_edge"], width=line)
        else:
            inner = round(s * 0.3)
            draw.rectangle((inner, inner, s - 1 - inner, s - 1 - inner), outline=c["box_edge"])

    def _player(self, draw, s: int) -> None:
        c = self.colours
        if self.name == "crates":  # a head and a body
            r = s * 0.14
            draw.ellipse((s / 2 - r, s * 0.14, s / 2 + r, s * 0.14 + 2 * r), fill=c["player"])
            draw.polygon(
                [(s * 0.3, s * 0.85), (s * 0.7, s * 0.85), (s * 0.5, s * 0.38)], fill=c["player"]
            )
        else:  # a triangle pointing up
            draw.polygon(
                [(s * 0.2, s * 0.8), (s * 0.8, s * 0.8), (s * 0.5, s * 0.2)],
                fill=c["player"],
                outline=c["box_edge"],
            )


DRAWN: dict[str, DrawnLook] = {
    "crates": DrawnLook(
        "crates",
        {
            "outside": (34, 30, 28),
            "floor": (196, 178, 140),
            "floor_line": (170, 150, 115),
            "wall": (150, 60, 45),
            "mortar": (215, 205, 190),
            "goal": (40, 110, 200),
            "box": (222, 160, 60),
            "box_on_goal": (120, 190, 90),
            "box_edge": (90, 55, 20),
            "player": (30, 30, 30),
        },
    ),
    "blocks": DrawnLook(
        "blocks",
        {
            "outside": (0, 0, 0),
            "floor": (60, 60, 90),
            "wall": (90, 140, 200),
            "wall_light": (150, 190, 240),
            "wall_dark": (40, 70, 120),
            "goal": (250, 80, 80),
            "box": (240, 230, 90),
            "box_on_goal": (250, 120, 200),
            "box_edge": (20, 20, 20),
            "player": (80, 230, 120),
        },
    ),
}
"""Looks drawn tile by tile here (not by evosoko's renderer)."""

TILE_SETS = tuple(PALETTES) + tuple(DRAWN)
"""Every tile set by name."""


def draw_board(level: Level, state: State | None, cell: int, tile_set: str) -> np.ndarray:
    """``uint8[rows * cell, columns * cell, 3]``: the board drawn in ``tile_set``."""
    if tile_set in PALETTES:
        from evosoko.sokoban.render import board_image

        return board_image(level, state, cell, PALETTES[tile_set])
    look = DRAWN[tile_set]
    tiles = {kind: np.asarray(look.tile(kind, cell)) for kind in CLASSES}
    classes = cell_classes(level, state)
    image = np.zeros((level.height * cell, level.width * cell, 3), dtype=np.uint8)
    for row in range(level.height):
        for column in range(level.width):
            kind = CLASSES[classes[row, column]]
            image[row * cell : (row + 1) * cell, column * cell : (column + 1) * cell] = tiles[kind]
    return image


def background(tile_set: str) -> tuple[int, int, int]:
    """The colour around the board in ``tile_set`` (its outside)."""
    if tile_set in DRAWN:
        return DRAWN[tile_set].colours["outside"]
    from matplotlib.colors import to_rgb

    from evosoko.sokoban.render import COLOURS

    colour = PALETTES[tile_set].get("background", COLOURS["background"])
    red, green, blue = to_rgb(colour)
    return round(255 * red), round(255 * green), round(255 * blue)


def picture(
    image: np.ndarray,
    rng: np.random.Generator,
    margin: int = 0,
    fill: tuple[int, int, int] = (255, 255, 255),
    crop: tuple[int, int, int, int] = (0, 0, 0, 0),
    noise: float = 0.0,
) -> np.ndarray:
    """``image`` as a screenshot might show it: ``margin`` pixels of ``fill`` around it, then
    ``crop`` = (top, bottom, left, right) pixels cut off, then Gaussian noise of ``noise``."""
    height, width, _ = image.shape
    framed = np.empty((height + 2 * margin, width + 2 * margin, 3), dtype=np.uint8)
    framed[:] = np.array(fill, dtype=np.uint8)
    framed[margin : margin + height, margin : margin + width] = image
    top, bottom, left, right = crop
    framed = framed[top : framed.shape[0] - bottom, left : framed.shape[1] - right]
    if noise > 0:
        noisy = framed.astype(np.float32) + rng.normal(0, noise, framed.shape)
        framed = np.clip(np.round(noisy), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(framed)
