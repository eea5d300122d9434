"""Drawing a given-holes level (:mod:`evosoko.sokoban.holes.board`): pairs by colour and number.

Box ``i`` and its hole share a colour and the label ``i`` (reading order, from 1, as in the
``Pairs`` note). A hole is a coloured ring with its number; a box is a rounded square in its
colour with its number. When a box vanishes into its hole, the box disappears and the hole is
drawn filled (a plain dark disc, no number): floor from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from evosoko.sokoban.holes.pairing import VANISHED
from evosoko.sokoban.variants import given_pairing

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

    from evosoko.sokoban.level import Level
    from evosoko.sokoban.state import State

PAIR_COLOURS = (
    "#d1495b",  # red
    "#2e86ab",  # blue
    "#3a9a5b",  # green
    "#8e5cc4",  # purple
    "#e07a1f",  # orange
    "#17a398",  # teal
    "#b5487f",  # magenta
    "#6b7a1f",  # olive
    "#5b6ee1",  # indigo
    "#a0522d",  # brown
)
"""One colour per pair, repeated past ten pairs (the numbers still tell them apart)."""
FILLED_HOLE = "#8a8270"
LABEL = "white"


def pair_colour(number: int) -> str:
    """The colour of pair ``number`` (0-based)."""
    return PAIR_COLOURS[number % len(PAIR_COLOURS)]


def paired_pieces(
    level: Level, axes, player_colour: ColorType, box_edge: ColorType
) -> Callable[[State], None]:
    """Draw the holes on ``axes`` and return the function that places boxes and player for a
    state (a :class:`~evosoko.sokoban.holes.board.HolesState`; a plain :class:`State` draws
    each box in the colour of the hole it stands on, if any)."""
    from matplotlib.patches import Circle, FancyBboxPatch

    pairing = given_pairing(level)
    count = len(pairing.holes)
    font = 30 if count < 10 else 22  # points; a cell is one inch, so 72 points fill it
    holes = []
    hole_labels = []
    for number, hole in enumerate(pairing.holes):
        row, column = level.position(hole)
        ring = Circle(
            (column + 0.5, row + 0.5),
            0.3,
            facecolor="none",
            edgecolor=pair_colour(number),
            linewidth=6.0,  # points: a twelfth of a cell
            zorder=2,
        )
        axes.add_patch(ring)
        holes.append(ring)
        hole_labels.append(
            axes.text(
                column + 0.5,
                row + 0.52,
                str(number + 1),
                color=pair_colour(number),
                fontsize=font,
                fontweight="bold",
                ha="center",
                va="center",
                zorder=2,
            )
        )
    inset = 0.12
    boxes = []
    box_labels = []
    for number in range(count):
        patch = FancyBboxPatch(
            (0, 0),
            1 - 2 * inset,
            1 - 2 * inset,
            boxstyle="round,pad=0,rounding_size=0.12",
            facecolor=pair_colour(number),
            edgecolor=box_edge,
            linewidth=2.0,
            zorder=3,
        )
        axes.add_patch(patch)
        boxes.append(patch)
        box_labels.append(
            axes.text(
                0,
                0,
                str(number + 1),
                color=LABEL,
                fontsize=font,
                fontweight="bold",
                ha="center",
                va="center",
                zorder=3.5,
            )
        )
    player = Circle((0, 0), 0.32, color=player_colour, zorder=4)
    axes.add_patch(player)
    hole_number = {hole: number for number, hole in enumerate(pairing.holes)}

    def show(state: State) -> None:
        by_box = getattr(state, "by_box", None)
        if by_box is None:  # a plain State: colour each box by the hole it stands on
            cells = list(state.boxes)
            numbers = [hole_number.get(cell, n) for n, cell in enumerate(cells)]
            by_box = [VANISHED] * count
            for number, cell in zip(numbers, cells):
                by_box[number] = cell
        for number, cell in enumerate(by_box):
            gone = cell == VANISHED
            boxes[number].set_visible(not gone)
            box_labels[number].set_visible(not gone)
            holes[number].set_facecolor(FILLED_HOLE if gone else "none")
            holes[number].set_edgecolor(FILLED_HOLE if gone else pair_colour(number))
            hole_labels[number].set_visible(not gone)
            if not gone:
                row, column = level.position(cell)
                boxes[number].set_x(column + inset)
                boxes[number].set_y(row + inset)
                box_labels[number].set_position((column + 0.5, row + 0.52))
        row, column = level.position(state.player)
        player.set_center((column + 0.5, row + 0.5))

    return show
