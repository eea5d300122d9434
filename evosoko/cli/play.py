"""The ``play`` command: a terminal Sokoban game with hints, replays and saved solutions."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import FormatOption, LevelFile, app, fail, read_and_select, reports_errors


def default_save_path(levels_file: Path) -> Path:
    """``<level file stem>-solutions.sok`` in the current folder."""
    return Path(f"{levels_file.stem}-solutions.sok")


@app.command("play")
@reports_errors
def play_command(
    file: LevelFile,
    level_id: Annotated[
        str | None,
        typer.Option("--level", "-l", help="The level to start with: a 1-based index or a title."),
    ] = None,
    format: FormatOption = None,
    solutions: Annotated[
        Path | None,
        typer.Option(
            help="A collection with Solution or Best notes (a run's solutions.sok) for A to replay."
        ),
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            help="Where S saves solved levels (default: <level file>-solutions.sok here)."
        ),
    ] = None,
    progress: Annotated[
        Path | None,
        typer.Option(
            help="Where solved marks and best solutions are kept from game to game (default: "
            "$EVOSOKO_PLAY_PROGRESS, else $XDG_STATE_HOME/evosoko/play.json, else "
            "~/.local/state/evosoko/play.json)."
        ),
    ] = None,
) -> None:
    """Play levels in the terminal: undo, hints from push-A*, replays of solutions.

    Arrows or w a s d move; u undo, y redo, r restart; n / p next / previous level; h hint;
    A replays a solution (space pauses, + and - set the speed, a move takes over); S saves a
    solved level's solution; l lists the levels with solved marks and bests, g goes to a level
    by number or title; ? lists every key; q quits. A click walks to a cell or pushes a box
    next to you.
    """
    from evosoko.play.stored import read_stored_solutions

    levels, chosen = read_and_select(file, format, [level_id] if level_id else None)
    stored = read_stored_solutions(levels, solutions) if solutions is not None else {}
    if solutions is not None and not stored:
        fail(f"{solutions}: no Solution or Best note matches a level of {file}")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("evosoko play needs a terminal (stdin and stdout are not one)")
    from evosoko.play.app import PlayApp
    from evosoko.play.progress import default_progress_path, load_progress

    kept, notice = load_progress(progress or default_progress_path(os.environ))
    position = next(n for n, level in enumerate(levels) if level is chosen[0])
    PlayApp(
        levels,
        position,
        stored=stored,
        save_path=save if save is not None else default_save_path(file),
        source=str(file),
        progress=kept,
        notice=notice,
    ).run()
