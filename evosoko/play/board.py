"""The board of ``evosoko play`` on screen: two characters per cell, in shape as well as
colour, dead boxes and the hinted box marked, and the widget that reports clicks on it."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from evosoko.play.hints import Hint
from evosoko.sokoban.level import Level, State
from evosoko.sokoban.variants import level_rules

CELLS = {
    "wall": ("██", "#555b66"),
    "floor": ("  ", None),
    "goal": ("··", "bold #e0475b"),
    "box": ("[]", "bold #d9952f"),
    "box_on_goal": ("{}", "bold #3fb866"),
    "player": ("@@", "bold #3f7ff0"),
    "player_on_goal": ("@·", "bold #3f7ff0"),
}
"""Two characters per cell (about square in a terminal): shape and colour of each kind."""

DEAD_BACKGROUND = "on #7a1f2b"
HINT_BACKGROUND = "on #6b5a12"


def board_text(
    level: Level, state: State, dead: tuple[int, ...] = (), hint: Hint | None = None
) -> Text:
    """The board as rich text: two characters per cell, dead boxes and the hinted box marked."""
    occupied = set(state.boxes)
    marked = {cell: DEAD_BACKGROUND for cell in dead}
    if hint is not None:
        marked[hint.box] = HINT_BACKGROUND
    paired = _paired_cells(level_rules(level).pairs(), state)
    text = Text(no_wrap=True, overflow="ignore")
    for row in range(level.height):
        if row:
            text.append("\n")
        for column in range(level.width):
            cell = row * level.width + column
            kind = _kind(level, cell, state.player, occupied)
            if kind is None:
                text.append("  ")
                continue
            shape, colour = paired.get(cell) or CELLS[kind]
            style = " ".join(part for part in (colour, marked.get(cell)) if part)
            text.append(shape, Style.parse(style) if style else None)
    return text


def _paired_cells(pairs, state) -> dict[int, tuple[str, str | None]]:
    """Given holes (``pairs``: the rules' (box, hole) cells): box ``n`` shows as ``[n`` and its
    open hole as ``·n`` in the pair's colour (the numbers of the ``Pairs`` note, 1-9 then
    letters); a filled hole is floor. Nothing under the standard rules (no pairs)."""
    from evosoko.sokoban.holes.render import pair_colour

    cells: dict[int, tuple[str, str | None]] = {}
    for number, (_, hole) in enumerate(pairs):
        label = "123456789abcdefghijklmnopqrstuvwxyz"[number % 35]
        colour = f"bold {pair_colour(number)}"
        cell = state.by_box[number]
        if cell >= 0:
            cells.setdefault(hole, ("·" + label, colour))
            cells[cell] = ("[" + label, colour)
        elif hole not in cells:
            cells[hole] = CELLS["player" if hole == state.player else "floor"]
    if state.player in cells and cells[state.player] != CELLS["player"]:
        del cells[state.player]  # the player on an open hole: as on a goal
    return cells


def _kind(level: Level, cell: int, player: int, occupied: set[int]) -> str | None:
    if level.walls[cell]:
        return "wall"
    if not level.floor[cell]:
        return None
    goal = bool(level.goals[cell])
    if cell == player:
        return "player_on_goal" if goal else "player"
    if cell in occupied:
        return "box_on_goal" if goal else "box"
    return "goal" if goal else "floor"


def legend() -> Text:
    """One line naming each kind of cell in its shape and colour."""
    text = Text()
    for kind, name in (
        ("wall", "wall"),
        ("goal", "goal"),
        ("box", "box"),
        ("box_on_goal", "box on goal"),
        ("player", "you"),
        ("player_on_goal", "you on a goal"),
    ):
        shape, colour = CELLS[kind]
        text.append(shape, Style.parse(colour))
        text.append(f" {name}   ")
    return text


class BoardView(Static):
    """The board; a click on it posts :class:`BoardView.Clicked` with the cell's row and
    column (two characters per cell)."""

    class Clicked(Message):
        """A click on the board at ``row``, ``column`` (0-based, possibly off the level)."""

        def __init__(self, row: int, column: int) -> None:
            super().__init__()
            self.row = row
            self.column = column

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.post_message(self.Clicked(offset.y, offset.x // 2))
