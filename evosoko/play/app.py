"""``evosoko play``: a terminal Sokoban game on textual, with hints and replays from evosoko.

Keys: arrows or ``w a s d`` move; ``u`` (or ``z``, backspace) undoes, ``y`` redoes, ``r``
restarts (undoable); ``n`` / ``p`` go to the next / previous level; ``h`` asks push-A* for a
hint; ``A`` replays a solution (the ``--solutions`` file's, the level's own ``Solution:`` note,
else a fresh push-A* solution from the current position), ``space`` pauses it, ``+`` / ``-``
change its speed, and any move takes over from it; ``S`` saves a solved level's solution; ``l``
opens the level browser (solved marks, best moves/pushes) and ``g`` goes to a level by number or
title; ``?`` lists every key; ``q`` quits. A click on the board walks or pushes
(:mod:`evosoko.play.mouse`); ``u`` takes back a whole click. A level solved by the player's own
steps is kept in the progress file (:mod:`evosoko.play.progress`). Cells differ in shape as well
as colour, so the board reads without colour too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Static

from evosoko.errors import EvosokoError
from evosoko.play.board import BoardView, board_text, legend
from evosoko.play.browser import LevelBrowser
from evosoko.play.catalogue import SOLVED_MARK, level_number, level_rows
from evosoko.play.game import Game
from evosoko.play.hints import (
    HINT_SECONDS,
    LOST,
    PUSH,
    SOLVE_SECONDS,
    Hint,
    Plan,
    hint_from,
    plan_from,
    warm_up,
)
from evosoko.play.mouse import click_steps
from evosoko.play.progress import Progress
from evosoko.play.stored import StoredSolution, save_solution, stored_solution
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.text import plain

SPEEDS = (1, 2, 4, 8, 16, 32, 64)
"""Replay speeds, in steps per second."""
DEFAULT_SPEED = 8


@dataclass
class Replay:
    """A solution being replayed: its steps, how many are taken, and what it is."""

    lurd: str
    taken: int
    label: str
    solves: bool
    paused: bool = False


class PlayApp(App[None]):
    """Play the levels of a collection; see the module docstring for the keys."""

    TITLE = "evosoko play"
    CSS = """
    Screen { background: #16181d; }
    #title { height: auto; padding: 0 1; background: #2a2f3a; color: #f0f0f0; text-style: bold; }
    #notes { height: auto; max-height: 3; padding: 0 1; color: #9aa0aa; }
    #board-area { height: 1fr; align: center middle; }
    #board { width: auto; height: auto; padding: 1 2; }
    #status { height: auto; padding: 0 1; background: #20242c; }
    #message { height: auto; min-height: 2; padding: 0 1; }
    #legend { height: 1; padding: 0 1; color: #9aa0aa; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "toggle_keys", "keys"),
        Binding("up,w", "move('u')", "move", show=False),
        Binding("down,s", "move('d')", "move", show=False),
        Binding("left,a", "move('l')", "move", show=False),
        Binding("right,d", "move('r')", "move", show=False),
        Binding("u,z,backspace", "undo", "undo"),
        Binding("y", "redo", "redo"),
        Binding("r", "restart", "restart"),
        Binding("n,pagedown", "level(1)", "next"),
        Binding("p,pageup", "level(-1)", "previous"),
        Binding("h", "hint", "hint"),
        Binding("A", "replay", "replay"),
        Binding("space", "pause", "pause", show=False),
        Binding("plus,equals_sign", "speed(1)", "faster", show=False),
        Binding("minus", "speed(-1)", "slower", show=False),
        Binding("S", "save", "save"),
        Binding("l", "browse(False)", "levels"),
        Binding("g", "browse(True)", "go to"),
        Binding("q,escape", "quit", "quit"),
    ]

    def __init__(
        self,
        levels: list[Level],
        position: int = 0,
        *,
        stored: dict[int, StoredSolution] | None = None,
        save_path: str | Path = "solutions.sok",
        source: str = "",
        warm: bool = True,
        progress: Progress | None = None,
        notice: str = "",
    ) -> None:
        """``progress``: where solved levels are kept (None: nowhere); ``notice``: a line to
        show when the game starts (say, that a damaged progress file was set aside)."""
        super().__init__()
        if not levels:
            raise ValueError("no levels to play")
        self.levels = levels
        self.position = position
        self.stored = dict(stored or {})
        self.save_path = Path(save_path)
        self.source = source
        self.games: dict[int, Game] = {}
        self.message = Text()
        self.hint: Hint | None = None
        self.replay: Replay | None = None
        self.speed = DEFAULT_SPEED
        self.searching = False
        self.warming = False
        self._timer: Timer | None = None
        self._warm = warm
        self.progress = progress
        self._notice = notice

    # ---- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="notes")
        # not focusable: the arrow keys move the player even when a big board scrolls
        with VerticalScroll(id="board-area", can_focus=False), Center():
            yield BoardView(id="board")
        yield Static(id="status")
        yield Static(id="message")
        yield Static(legend(), id="legend")
        yield Footer()

    def on_mount(self) -> None:
        self._show_level()
        if self._notice:
            self._say(self._notice, "bold yellow")
        if self._warm:
            self._warm_up()

    @work(thread=True, group="warm-up")
    def _warm_up(self) -> None:
        self.warming = True
        self.call_from_thread(self._refresh_status)
        try:
            warm_up()
        finally:
            self.warming = False
            self.call_from_thread(self._refresh_status)

    # ---- the game ------------------------------------------------------------------------------
    @property
    def level(self) -> Level:
        """The level on screen."""
        return self.levels[self.position]

    @property
    def game(self) -> Game:
        """The game of the level on screen (kept while the player visits other levels)."""
        if self.position not in self.games:
            self.games[self.position] = Game(self.level)
        return self.games[self.position]

    def solution_for(self, position: int) -> StoredSolution | None:
        """What ``A`` replays without searching: the ``--solutions`` file's entry, else the
        level's own ``Solution:`` note."""
        if position in self.stored:
            return self.stored[position]
        level = self.levels[position]
        try:
            own = stored_solution(level, "the level file")
        except EvosokoError:
            return None
        return own if own is not None and own.solves else None

    # ---- actions -------------------------------------------------------------------------------
    def action_move(self, letter: str) -> None:
        took_over = self._stop_replay()
        if self.game.step(DIRECTIONS.index(letter)):
            self._player_moved(took_over)
        else:
            self._say("that way is blocked")

    def on_board_view_clicked(self, event: BoardView.Clicked) -> None:
        """Walk or push as :func:`evosoko.play.mouse.click_steps` says, as one action."""
        level = self.level
        if not (0 <= event.row < level.height and 0 <= event.column < level.width):
            return
        board = self.game.board
        click = click_steps(
            level, board.player, board.occupied, level.cell(event.row, event.column)
        )
        if not click.lurd:
            self._say(click.reason)
            return
        took_over = self._stop_replay()
        self.game.take([DIRECTIONS.index(letter.lower()) for letter in click.lurd])
        self._player_moved(took_over)

    def action_undo(self) -> None:
        self._stop_replay()
        self._moved() if self.game.undo() else self._say("nothing to undo")

    def action_redo(self) -> None:
        self._stop_replay()
        self._moved() if self.game.redo() else self._say("nothing to redo")

    def action_restart(self) -> None:
        self._stop_replay()
        self.game.restart()
        self._moved("back at the start (y redoes the steps)")

    def action_level(self, offset: int) -> None:
        target = self.position + offset
        if not 0 <= target < len(self.levels):
            self._say("no more levels that way")
            return
        self._go_to(target)

    def action_toggle_keys(self) -> None:
        """Show (or hide) the panel that lists every key of the screen, the footer's and more."""
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_browse(self, go_to: bool) -> None:
        """Open the level browser (``go_to``: with the cursor in its go-to line)."""
        self._stop_replay()
        rows = level_rows(self.levels, self.progress)
        browser = LevelBrowser(self.levels, rows, self.position, go_to=go_to)
        self.push_screen(browser, self._browsed)

    def _browsed(self, position: int | None) -> None:
        if position is not None and position != self.position:
            self._go_to(position)

    def _go_to(self, position: int) -> None:
        self._stop_replay()
        self.position = position
        self.hint = None
        self._say("")  # a hint or a "saved" line was about the level left
        self._show_level()

    def action_hint(self) -> None:
        if self.game.solved:
            self._say("the level is solved")
            return
        if self.searching:
            self._say("push-A* is still searching")
            return
        wait = " once its kernels are compiled (first run only)" if self.warming else ""
        self._say(f"asking push-A* for a hint (at most {HINT_SECONDS:g} s of search{wait})...")
        self._search("hint", HINT_SECONDS)

    def action_replay(self) -> None:
        if self.replay is not None:
            self._stop_replay("replay stopped")
            return
        stored = self.solution_for(self.position)
        if stored is not None:
            self.game.restart()
            self._start_replay(stored.lurd, stored.describe(), stored.solves)
            return
        if self.searching:
            self._say("push-A* is still searching")
            return
        self._say(f"no stored solution: push-A* is solving from here (at most {SOLVE_SECONDS:g} s)")
        self._search("replay", SOLVE_SECONDS)

    def action_pause(self) -> None:
        if self.replay is None:
            return
        self.replay.paused = not self.replay.paused
        self._refresh_status()

    def action_speed(self, change: int) -> None:
        index = SPEEDS.index(self.speed) + change
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index))]
        if self._timer is not None:
            self._timer.stop()
            self._timer = self.set_interval(1 / self.speed, self._replay_tick)
        self._refresh_status()

    def action_save(self) -> None:
        game = self.game
        if not game.solved:
            self._say("solve the level first, then S saves the solution")
            return
        try:
            count = save_solution(self.save_path, self.levels, self.position, game.lurd())
        except EvosokoError as error:
            self._say(f"not saved: {error}", "bold red")
            return
        self._say(
            f"saved {game.moves} moves, {game.pushes} pushes to {self.save_path} "
            f"({count} solution{'s' if count != 1 else ''}; "
            f"check: evosoko verify {self.source or 'LEVELS'} --solutions {self.save_path})",
            "green",
        )

    # ---- search in a thread --------------------------------------------------------------------
    def _search(self, purpose: str, seconds: float) -> None:
        self.searching = True
        self._refresh_status()
        self._run_search(purpose, self.position, self.game.state(), seconds)

    @work(thread=True, group="search")
    def _run_search(self, purpose: str, position: int, state: State, seconds: float) -> None:
        try:
            plan = plan_from(self.levels[position], state, seconds)
        except Exception as error:  # noqa: BLE001 - the game goes on; the message says why
            plan = Plan("error", lurd=str(error))
        self.call_from_thread(self._search_done, purpose, position, state, plan)

    def _search_done(self, purpose: str, position: int, state: State, plan: Plan) -> None:
        self.searching = False
        if position != self.position or state != self.game.state():
            self._say("the position changed while push-A* searched; ask again")
            return
        if plan.status == "error":
            self._say(f"push-A* failed: {plan.lurd}", "bold red")
        elif plan.status == LOST:
            self._say("push-A* proves this position lost: undo (u) or restart (r)", "bold red")
        elif plan.status != PUSH:
            self._say(
                f"push-A* ran out of time ({plan.seconds:.1f} s) before finding a solution "
                "from here"
            )
        elif purpose == "hint":
            self.hint = hint_from(self.level, state, plan)
            if self.hint is None:
                self._say("push-A* found no push to suggest")
            else:
                self._say(f"hint: {self.hint.describe(self.level)}", "bold yellow")
                self._refresh_board()
        else:
            label = f"push-A* solution from here ({len(plan.lurd)} moves, {plan.pushes} pushes)"
            self._start_replay(plan.lurd, label, True)
        self._refresh_status()

    # ---- replay --------------------------------------------------------------------------------
    def _start_replay(self, lurd: str, label: str, solves: bool) -> None:
        self.replay = Replay(lurd, 0, label, solves)
        self.hint = None
        self._timer = self.set_interval(1 / self.speed, self._replay_tick)
        self._say(
            f"replaying the {label}: space pauses, + and - change the speed, a move takes over"
        )
        self._moved(keep_message=True)

    def _replay_tick(self) -> None:
        replay = self.replay
        if replay is None or replay.paused:
            return
        if replay.taken >= len(replay.lurd):
            if self.game.solved:
                self._stop_replay("replay finished: solved")
            else:
                self._stop_replay(
                    f"replay finished: the {replay.label} ends here, not solved; "
                    "play on from here (h asks push-A* for a hint)"
                )
            return
        if not self.game.step(DIRECTIONS.index(replay.lurd[replay.taken].lower())):
            self._stop_replay(f"replay stopped: step {replay.taken + 1} is illegal here")
            return
        replay.taken += 1
        self._moved(keep_message=True)

    def _stop_replay(self, message: str | None = None) -> bool:
        """End the replay (if any) and say ``message``; True when a replay was running."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        running = self.replay is not None
        if running:
            self.replay = None
            if message is None:
                message = "replay stopped: you have the board"
        if message:
            self._say(message)
        self._refresh_status()
        return running

    # ---- the progress file ---------------------------------------------------------------------
    def _player_moved(self, took_over: bool) -> None:
        """Draw the player's own action; a solve is kept in the progress file."""
        solved = self.game.solved
        note = self._record() if solved else ""
        self._moved(keep_message=took_over and not solved, note=note)

    def _record(self) -> str:
        """Keep the solved level's solution in the progress file; a note for the solved line."""
        if self.progress is None:
            return ""
        try:
            recorded = self.progress.record(self.level, self.game.lurd())
        except EvosokoError as error:
            return f" (not kept in the progress file: {error})"
        self._show_title()
        return f" ({recorded.news or recorded.after.describe() + ' stays'})"

    # ---- drawing -------------------------------------------------------------------------------
    def _moved(
        self, message: str | None = None, keep_message: bool = False, note: str = ""
    ) -> None:
        self.hint = None
        if message is not None:
            self._say(message)
        elif not keep_message:
            game = self.game
            if game.solved:
                self._say(
                    f"Solved in {game.moves} moves and {game.pushes} pushes{note}! "
                    f"S saves the solution to {self.save_path}, n goes to the next level",
                    "bold green",
                )
            else:
                self.message = Text()
                self.query_one("#message", Static).update(self.message)
        self._refresh_board()
        self._refresh_status()

    def _say(self, message: str, style: str = "") -> None:
        self.message = Text(plain(message), style=style)
        self.query_one("#message", Static).update(self.message)

    def _show_level(self) -> None:
        level = self.level
        self._show_title()
        notes = [(k, v) for k, v in level.notes if k.lower() not in ("solution", "best")]
        notes_text = Text(
            "   ".join(f"{plain(k)}: {plain(v)}" for k, v in notes), overflow="ellipsis"
        )
        self.query_one("#notes", Static).update(notes_text)
        self._refresh_board()
        self._refresh_status()

    def _show_title(self) -> None:
        level = self.level
        number = level_number(level, self.position)
        name = plain(level.title) if level.title else f"level {number}"
        title = Text(f"level {self.position + 1} of {len(self.levels)}: ")
        title.append(name)
        title.append(f"   ({level.width}×{level.height}, {level.box_count} boxes)")
        record = self.progress.of(level) if self.progress is not None else None
        if record is not None:
            title.append(f"   {SOLVED_MARK} solved, {record.describe()} (moves/pushes)", "green")
        self.query_one("#title", Static).update(title)

    def _refresh_board(self) -> None:
        game = self.game
        deadlock = game.deadlock()
        dead = deadlock.cells if deadlock else ()
        self.query_one("#board", Static).update(
            board_text(game.level, game.state(), dead, self.hint)
        )

    def _refresh_status(self) -> None:
        game = self.game
        text = Text()
        text.append(f"moves {game.moves}  pushes {game.pushes}  ", "bold")
        text.append(f"{game.rules.home} {game.boxes_on_goals}/{game.level.box_count}")
        if game.solved:
            text.append("   SOLVED", "bold green")
        else:
            deadlock = game.deadlock()
            if deadlock is not None:
                text.append(f"   DEAD: {deadlock.reason}", "bold red")
        if self.replay is not None:
            state = "paused" if self.replay.paused else f"{self.speed} steps/s"
            text.append(f"   replay {self.replay.taken}/{len(self.replay.lurd)} ({state})", "cyan")
        if self.searching:
            text.append("   push-A* searching...", "yellow")
        elif self.warming:
            text.append("   compiling push-A* (first run only)...", "dim")
        self.query_one("#status", Static).update(text)
