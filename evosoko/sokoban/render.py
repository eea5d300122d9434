"""Pictures of a board: text for the terminal, PNG images and animated GIFs of a solution.

Images are drawn with matplotlib on an Agg canvas (no display needed): walls, floor, goals,
boxes (another colour on a goal) and the player; cells outside the walls stay blank. A GIF has
one frame per step of the solution; a long solution is sampled down to at most ``max_frames``
frames (every k-th step, the final position always included) so that memory stays bounded.
A board too large for :data:`MAX_IMAGE_PIXELS` is drawn with smaller cells, and a GIF of it
keeps fewer frames (:data:`MAX_GIF_PIXELS`).
Every file is written atomically: to a temporary file beside the target, then renamed over it.

Nothing here imports the level but for its type: a level draws itself in a notebook through
:func:`board_png` (``Level._repr_png_``).
"""

from __future__ import annotations

import functools
import io
import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

import numpy as np
from rich.text import Text

from evosoko.atomic import atomic_path
from evosoko.errors import EvosokoWarning, OutOfMemory
from evosoko.sokoban.holes.pairing import HolesState, holes_rows
from evosoko.sokoban.state import Position, State
from evosoko.sokoban.symbols import BOX, BOX_ON_GOAL, GOAL, PLAYER, PLAYER_ON_GOAL, WALL
from evosoko.sokoban.variants import level_rules

if TYPE_CHECKING:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.typing import ColorType
    from PIL import Image

    from evosoko.sokoban.level import Level

MAX_FPS = 50
"""GIF delays are stored in hundredths of a second and viewers slow down anything faster."""

DEFAULT_MAX_FRAMES = 400
"""Frames kept in memory while a GIF is encoded (each one byte per pixel once quantized)."""

MAX_IMAGE_PIXELS = 16_000_000
"""The largest picture drawn (4000x4000): a larger board is drawn with smaller cells (at least
4 pixels, so that every board the parser accepts fits)."""

MAX_GIF_PIXELS = 400_000_000
"""Pixels of all the frames a GIF encoder holds (one byte each once quantized): a GIF of a
large board keeps fewer frames."""

DRAWING_BYTES_PER_PIXEL = 60
"""Peak memory of drawing one pixel of a board's picture (matplotlib's Agg canvas and image
resampling; measured on a 4000x4000 picture of a 1000x1000 board: 0.95 GB)."""

FINAL_FRAME_HOLD_MS = 1000
"""Extra time the solved position stays on screen before the animation loops."""

TEXT_STYLES = {
    WALL: "bold bright_black",
    GOAL: "bold red",
    BOX: "bold dark_orange",
    BOX_ON_GOAL: "bold green",
    PLAYER: "bold bright_blue",
    PLAYER_ON_GOAL: "bold bright_blue",
}

COLOURS: dict[str, ColorType] = {
    "outside": (0.0, 0.0, 0.0, 0.0),
    "floor": "#ece4cf",
    "wall": "#555b66",
    "goal": "#d1495b",
    "box": "#c98a2c",
    "box_on_goal": "#3a9a5b",
    "box_edge": "#3d2b12",
    "player": "#2f6bd8",
    "background": "white",
}


# ---- text ---------------------------------------------------------------------------------------
def board_text(level: Level, state: Position | None = None) -> str:
    """The board in ``state`` (default: the start) as canonical XSB rows, one per line."""
    return "\n".join(_rows(level, state))


def _rows(level: Level, state: Position | None) -> list[str]:
    """XSB rows of ``state``; under the given-holes rules a filled hole is floor."""
    if isinstance(state, HolesState):
        return holes_rows(level, state)
    return level.rows(state)


def styled_board(level: Level, state: Position | None = None) -> Text:
    """The board as rich text, one style per kind of cell (plain when printed to a pipe)."""
    text = Text(no_wrap=True, overflow="ignore")
    for number, row in enumerate(_rows(level, state)):
        if number:
            text.append("\n")
        for char in row:
            text.append(char, style=TEXT_STYLES.get(char))
    return text


# ---- images -------------------------------------------------------------------------------------
Arguments = ParamSpec("Arguments")
Drawn = TypeVar("Drawn")


def _needs_memory(
    draw: Callable[Concatenate[Level, Arguments], Drawn],
) -> Callable[Concatenate[Level, Arguments], Drawn]:
    """Turn a ``MemoryError`` while ``draw`` draws its level into one :class:`OutOfMemory`
    that says how large the picture is (a traceback otherwise, under ``ulimit -v``)."""

    @functools.wraps(draw)
    def drawing(level: Level, *args: Arguments.args, **kwargs: Arguments.kwargs) -> Drawn:
        try:
            return draw(level, *args, **kwargs)
        except MemoryError:
            pixels = level.cells * fitted_cell_pixels(level, 32) ** 2
            raise OutOfMemory(
                f"not enough memory to draw this {level.width}x{level.height} board: its "
                f"picture of up to {pixels:,} pixels needs about "
                f"{pixels * DRAWING_BYTES_PER_PIXEL / 1e6:,.0f} MB"
            ) from None

    return drawing


@_needs_memory
def save_png(
    level: Level, path: str | os.PathLike, state: State | None = None, cell_pixels: int = 32
) -> None:
    """Draw the board in ``state`` (default: the start) to a PNG of ``cell_pixels`` per cell
    (fewer on a board too large for :data:`MAX_IMAGE_PIXELS`)."""
    figure, dpi = _drawn_board(level, state, cell_pixels)
    with atomic_path(path) as temporary:
        figure.savefig(temporary, format="png", dpi=dpi)


@_needs_memory
def board_png(level: Level, state: State | None = None, cell_pixels: int = 24) -> bytes:
    """The board in ``state`` (default: the start) as PNG bytes, as :func:`save_png` writes it:
    how a level shows itself in a notebook (``Level._repr_png_``)."""
    figure, dpi = _drawn_board(level, state, cell_pixels)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _drawn_board(level: Level, state: State | None, cell_pixels: int) -> tuple[Figure, int]:
    """The figure of the board in ``state`` (default: the start) and the dots per inch that
    give it ``cell_pixels`` per cell, fewer on a board too large (:func:`fitted_cell_pixels`)."""
    cell_pixels = fitted_cell_pixels(level, cell_pixels)
    figure, show = _board_figure(level, cell_pixels)
    show(state if state is not None else level.start)
    return figure, cell_pixels


@_needs_memory
def board_image(
    level: Level,
    state: State | None = None,
    cell_pixels: int = 32,
    colours: Mapping[str, ColorType] | None = None,
) -> np.ndarray:
    """The board in ``state`` as an ``uint8[height, width, 3]`` RGB array, as :func:`save_png`
    draws it; ``colours`` replaces some of :data:`COLOURS` (another tile set)."""
    figure, show = _board_figure(level, cell_pixels, colours)
    show(state if state is not None else level.start)
    canvas = _agg_canvas(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def fitted_cell_pixels(level: Level, cell_pixels: int) -> int:
    """``cell_pixels``, or fewer (never below 4) so that the picture of ``level`` has at most
    :data:`MAX_IMAGE_PIXELS` pixels."""
    return max(4, min(cell_pixels, math.isqrt(MAX_IMAGE_PIXELS // level.cells)))


def gif_frame_steps(step_count: int, max_frames: int = DEFAULT_MAX_FRAMES) -> list[int]:
    """Which positions (0 = start, ``step_count`` = final) a GIF of ``step_count`` steps shows.

    Every position when they fit in ``max_frames``; otherwise every k-th one with the smallest k
    that fits, plus the final position.
    """
    if max_frames < 2:
        raise ValueError("a GIF needs room for at least 2 frames")
    positions = step_count + 1
    stride = max(1, math.ceil((positions - 1) / (max_frames - 1))) if positions > max_frames else 1
    steps = list(range(0, step_count + 1, stride))
    if steps[-1] != step_count:
        steps.append(step_count)
    return steps


@_needs_memory
def save_gif(
    level: Level,
    states: Sequence[State],
    path: str | os.PathLike,
    fps: float = 10,
    max_frames: int = DEFAULT_MAX_FRAMES,
    cell_pixels: int = 24,
) -> int:
    """Animate ``states`` (start first) into a looping GIF; return the number of frames written.

    ``fps`` outside 1..``MAX_FPS`` is clamped into it, with an :class:`EvosokoWarning` (nan is
    a ``ValueError``); the final position is held for an extra second. Every frame shares one
    palette that holds the board's colours exactly as :func:`save_png` draws them. A board too
    large for :data:`MAX_IMAGE_PIXELS` gets smaller cells, and fewer frames are kept when they
    would pass :data:`MAX_GIF_PIXELS`.
    """
    from PIL import Image

    if not states:
        raise ValueError("a GIF needs at least one state")
    if math.isnan(float(fps)):
        raise ValueError("fps must be a number of frames per second, not nan")
    clamped = min(max(float(fps), 1.0), MAX_FPS)
    if clamped != fps:
        warnings.warn(
            EvosokoWarning(f"{fps:g} frames per second is out of 1..{MAX_FPS}; using {clamped:g}"),
            stacklevel=2,
        )
    fps = clamped
    cell_pixels = fitted_cell_pixels(level, cell_pixels)
    frame_pixels = level.cells * cell_pixels**2
    max_frames = max(2, min(max_frames, MAX_GIF_PIXELS // frame_pixels))
    steps = gif_frame_steps(len(states) - 1, max_frames)
    figure, show = _board_figure(level, cell_pixels)
    frames = _quantized_frames(figure, show, [states[i] for i in steps], level)
    first = next(frames)
    frame_ms = round(1000 / fps)
    durations = [frame_ms] * len(steps)
    durations[-1] += FINAL_FRAME_HOLD_MS
    with atomic_path(path) as temporary:
        first.save(
            temporary,
            format="GIF",
            save_all=True,
            append_images=frames,
            duration=durations,
            loop=0,
            disposal=1,
            optimize=False,
        )
    with Image.open(path) as written:
        return int(getattr(written, "n_frames", 1))


def _quantized_frames(
    figure: Figure, show: Callable[[State], None], states: Sequence[State], level: Level
) -> Iterator[Image.Image]:
    """Render each state and map it onto one palette shared by every frame (1 byte per pixel).

    The palette is made from pictures that hold every kind of cell: the first and last
    positions and one with every box on a goal. So a colour that appears only later (a box on a
    goal) keeps its own entry, exactly as the PNG renderer draws it.
    """
    from PIL import Image

    canvas = _agg_canvas(figure)

    def rendered(state: State) -> Image.Image:
        show(state)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        return Image.fromarray(rgba[:, :, :3].copy(), mode="RGB")

    solved = State.of(states[0].player, level.goal_cells.tolist())
    palette = _palette([rendered(states[0]), rendered(states[-1]), rendered(solved)])
    for state in states:
        yield rendered(state).quantize(palette=palette, dither=Image.Dither.NONE)


def _agg_canvas(figure: Figure) -> FigureCanvasAgg:
    """The Agg canvas :func:`_board_figure` gives its figure (pixels are read from it)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        raise TypeError("boards are drawn on an Agg canvas (see _board_figure)")
    return canvas


def _palette(pictures: Sequence[Image.Image]) -> Image.Image:
    """A palette image holding every colour of ``pictures`` exactly when there are at most 256,
    else the 256 that median cut chooses over all of them."""
    from PIL import Image

    width, height = pictures[0].size
    sheet = Image.new("RGB", (width, height * len(pictures)))
    for number, picture in enumerate(pictures):
        sheet.paste(picture, (0, number * height))
    colours = sheet.getcolors(maxcolors=256)
    if colours is None:
        return sheet.quantize(colors=256, dither=Image.Dither.NONE)
    flat = [channel for _, colour in colours if isinstance(colour, tuple) for channel in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + flat[:3] * (256 - len(colours)))
    return palette


def _board_figure(
    level: Level, cell_pixels: int, colours: Mapping[str, ColorType] | None = None
) -> tuple[Figure, Callable[[State], None]]:
    """A figure of the static board and a function that moves its boxes and player to a state.

    The figure is ``width x height`` inches at ``cell_pixels`` dots per inch, so every cell is
    exactly ``cell_pixels`` pixels wide in the output. ``colours`` overrides :data:`COLOURS`.
    """
    palette: dict[str, ColorType] = {**COLOURS, **(colours or {})}
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch

    if cell_pixels < 4:
        raise ValueError("cell_pixels must be at least 4")
    width, height = level.width, level.height
    figure = Figure(figsize=(width, height), dpi=cell_pixels, facecolor=palette["background"])
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_axis_off()
    axes.set_xlim(0, width)
    axes.set_ylim(height, 0)

    tiles = np.zeros((level.cells, 4), dtype=np.uint8)  # bytes: a quarter of floats' memory
    tiles[:] = _rgba_bytes(palette["outside"])
    tiles[level.floor] = _rgba_bytes(palette["floor"])
    tiles[level.walls] = _rgba_bytes(palette["wall"])
    axes.imshow(
        tiles.reshape(height, width, 4),
        extent=(0, width, height, 0),
        interpolation="nearest",
        aspect="auto",
    )
    if level_rules(level).boxes_vanish:  # given holes: pairs by colour and number
        from evosoko.sokoban.holes.render import paired_pieces

        return figure, paired_pieces(level, axes, COLOURS["player"], COLOURS["box_edge"])
    for goal in level.goal_cells.tolist():
        row, column = level.position(goal)
        axes.add_patch(Circle((column + 0.5, row + 0.5), 0.17, color=palette["goal"], zorder=2))

    inset = 0.12
    boxes = [
        FancyBboxPatch(
            (0, 0),
            1 - 2 * inset,
            1 - 2 * inset,
            boxstyle="round,pad=0,rounding_size=0.12",
            edgecolor=palette["box_edge"],
            linewidth=2.0,
            zorder=3,
        )
        for _ in level.start.boxes
    ]
    for box in boxes:
        axes.add_patch(box)
    player = Circle((0, 0), 0.32, color=palette["player"], zorder=4)
    axes.add_patch(player)

    def show(state: State) -> None:
        for patch, cell in zip(boxes, state.boxes):
            row, column = level.position(cell)
            patch.set_x(column + inset)
            patch.set_y(row + inset)
            patch.set_facecolor(palette["box_on_goal"] if level.goals[cell] else palette["box"])
        row, column = level.position(state.player)
        player.set_center((column + 0.5, row + 0.5))

    return figure, show


def _rgba_bytes(colour) -> tuple[int, ...]:
    from matplotlib.colors import to_rgba

    return tuple(round(255 * channel) for channel in to_rgba(colour))
