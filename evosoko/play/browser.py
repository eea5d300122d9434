"""The level browser of ``evosoko play`` (keys ``l`` and ``g``): a table of the collection's
levels with their solved marks and bests, a filter line that goes to a level by number or title.

The screen returns the position of the chosen level, or None when the player goes back
(``escape``). Its rows come from :mod:`evosoko.play.catalogue`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Static

from evosoko.errors import EvosokoError
from evosoko.play.catalogue import SOLVED_MARK, LevelRow, find_level
from evosoko.sokoban.level import Level

COLUMNS = ("#", "title", "size", "boxes", "solved", "fewest moves", "fewest pushes")
"""The table's columns; bests read ``moves/pushes``."""


class LevelBrowser(ModalScreen[int | None]):
    """Every level of the collection in a table; Enter on a row, or a number or title typed in
    the line above it, goes to that level. Being modal, it keeps the game's keys off."""

    CSS = """
    LevelBrowser { align: center middle; }
    #browser { width: 100%; height: 100%; background: #16181d; padding: 0 1; }
    #browser-help { height: auto; color: #9aa0aa; }
    #goto { height: 3; }
    #levels { height: 1fr; }
    #browser-message { height: auto; min-height: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back to the game"),
    ]

    def __init__(
        self, levels: Sequence[Level], rows: list[LevelRow], current: int, *, go_to: bool
    ) -> None:
        super().__init__()
        self.levels = levels
        self.rows = rows
        self.current = current
        self.go_to = go_to

    def compose(self) -> ComposeResult:
        solved = sum(row.solved for row in self.rows)
        with Vertical(id="browser"):
            yield Static(
                f"{len(self.rows)} levels, {solved} solved; bests read moves/pushes. Enter "
                "goes to the level; type a number or part of a title to filter; Esc goes back.",
                id="browser-help",
            )
            yield Input(
                placeholder="go to: level number or title", id="goto", select_on_focus=False
            )
            yield DataTable(cursor_type="row", zebra_stripes=True, id="levels")
            yield Static(id="browser-message")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#levels", DataTable)
        table.add_columns(*COLUMNS)
        self._fill("")
        self.query_one("#goto" if self.go_to else "#levels").focus()

    def _fill(self, text: str) -> None:
        """Show the rows that ``text`` keeps, the cursor on the current level if shown."""
        table = self.query_one("#levels", DataTable)
        table.clear()
        for row in self.rows:
            if row.matches(text):
                table.add_row(*_cells(row, row.position == self.current), key=str(row.position))
        if str(self.current) in table.rows:
            table.move_cursor(row=table.get_row_index(str(self.current)))

    def on_key(self, event: events.Key) -> None:
        """A character typed in the list goes to the go-to line."""
        goto = self.query_one("#goto", Input)
        if not goto.has_focus and event.is_printable and event.character not in (None, " "):
            goto.focus()
            goto.insert_text_at_cursor(event.character or "")
            event.stop()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)
        self._say("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            self.dismiss(find_level(self.levels, event.value))
        except EvosokoError as error:
            self._say(error.message)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.dismiss(int(event.row_key.value))

    def action_back(self) -> None:
        self.dismiss(None)

    def _say(self, message: str) -> None:
        self.query_one("#browser-message", Static).update(Text(message, style="bold red"))


def _cells(row: LevelRow, current: bool) -> tuple[Text | str | int, ...]:
    number = Text(f"{'▶' if current else ' '}{row.number}", style="bold" if current else "")
    return (
        number,
        Text(row.title),
        row.size,
        row.boxes,
        Text(SOLVED_MARK, style="bold green") if row.solved else "",
        row.fewest_moves,
        row.fewest_pushes,
    )
