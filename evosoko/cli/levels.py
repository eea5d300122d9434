"""Commands on level files: ``levels``, ``show`` and ``verify``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from evosoko.cli.common import (
    EXIT_FAILED,
    FormatOption,
    JsonOption,
    LevelFile,
    LevelId,
    LevelIds,
    StrictOption,
    app,
    fail,
    print_json,
    read_and_select,
    reports_errors,
    say,
    stdout,
)
from evosoko.text import plain_text


@app.command("levels")
@reports_errors
def levels_command(
    file: LevelFile,
    format: FormatOption = None,
    json_output: JsonOption = False,
    strict: StrictOption = False,
) -> None:
    """List the levels of a file: index, title, size and boxes (select one with -l #INDEX or
    -l title:TITLE)."""
    from evosoko.sokoban.formats import INDEX_PREFIX, TITLE_PREFIX
    from evosoko.sokoban.variants import level_rules

    levels, _ = read_and_select(file, format, None, strict)
    if json_output:
        for level in levels:
            print_json(
                {
                    "index": level.index,
                    "level": level.json_label,
                    "width": level.width,
                    "height": level.height,
                    "boxes": level.box_count,
                    "rules": level_rules(level).name,
                    "select_index": f"{INDEX_PREFIX}{level.index}",
                    "select_title": f"{TITLE_PREFIX}{level.title}" if level.title else None,
                }
            )
        return
    table = Table(
        title=plain_text(file),
        caption=f"-l {INDEX_PREFIX}INDEX selects by index, -l {TITLE_PREFIX}TITLE by title",
    )
    variants = any(level_rules(level).boxes_vanish for level in levels)
    columns = ("index", "title", "size", "boxes") + (("rules",) if variants else ())
    for column in columns:
        table.add_column(column, justify="right" if column not in ("title", "rules") else "left")
    for level in levels:
        table.add_row(
            str(level.index),
            plain_text(level.title or ""),
            f"{level.width}×{level.height}",
            str(level.box_count),
            *((level_rules(level).name,) if variants else ()),
        )
    stdout.print(table)


@app.command("show")
@reports_errors
def show_command(
    file: LevelFile,
    level_id: LevelId,
    format: FormatOption = None,
    solution: Annotated[
        str | None, typer.Option(help="A LURD solution to replay and draw.")
    ] = None,
    solutions: Annotated[
        Path | None,
        typer.Option(
            help="A collection whose levels carry Solution or Best notes (a run's "
            "solutions.sok): replay the chosen level's."
        ),
    ] = None,
    png: Annotated[Path | None, typer.Option(help="Draw the board to this PNG file.")] = None,
    gif: Annotated[
        Path | None,
        typer.Option(
            help="Animate the solution into this GIF file (--solution, --solutions, or the "
            "level's own Solution or Best note)."
        ),
    ] = None,
    fps: Annotated[float, typer.Option(help="Frames per second of the GIF (1 to 50).")] = 10.0,
    max_frames: Annotated[
        int,
        typer.Option(help="Longer solutions are sampled: every k-th step, the last kept (>= 2)."),
    ] = 400,
    strict: StrictOption = False,
) -> None:
    """Print a level as text; draw it to PNG, or animate a solution (or a GA's best prefix) to
    GIF."""
    from evosoko import api
    from evosoko.sokoban import render
    from evosoko.sokoban.render import MAX_FPS
    from evosoko.sokoban.solutions import replay_states
    from evosoko.sokoban.variants import level_rules

    if not 1 <= fps <= MAX_FPS:  # also refuses nan
        fail(f"--fps must be between 1 and {MAX_FPS}, got {fps:g}")
    if max_frames < 2:
        fail(f"--max-frames must be at least 2, got {max_frames}")
    if solution is not None and solutions is not None:
        fail("give at most one of --solution and --solutions")
    levels, (level,) = read_and_select(file, format, [level_id], strict)
    play = _stored_play(levels, level, solutions, solution, gif is not None)
    if gif is not None and play is None:
        fail(
            "--gif needs something to animate: --solution LURD, --solutions FILE, or a level "
            "that carries a Solution or Best note"
        )
    state = None
    if play is not None:
        verification = api.verify(level, play.lurd, path=play.path, line=play.line)
        if not verification.valid:
            fail(f"{level.name}: {verification.error}", EXIT_FAILED)
        state = verification.final
    say(f"{level.name}  ({level.width}×{level.height}, {level.box_count} boxes)")
    stdout.print(render.styled_board(level, state))
    note = level_rules(level).note()
    if note is not None:
        stdout.print(note, markup=False)
    if play is not None:
        verdict = "solved" if verification.solved else "not solved"
        if play.kind == "best":
            distance = "" if play.distance is None else f", distance {play.distance}"
            verdict += f" (the GA's best prefix{distance})"
        stdout.print(f"{verification.moves} moves, {verification.pushes} pushes: {verdict}")
    if png is not None:
        render.save_png(level, png, state)
        say(f"wrote {png}")
    if gif is not None:
        states = replay_states(level, verification.lurd)
        frames = render.save_gif(level, states, gif, fps=fps, max_frames=max_frames)
        say(f"wrote {gif} ({frames} frames)")


def _stored_play(levels, level, solutions: Path | None, solution: str | None, for_gif: bool):
    """What ``show`` replays: ``--solution``, the entry of ``--solutions`` for ``level``, or
    (for a GIF) the level's own Solution or Best note; None when there is nothing."""
    from evosoko import api
    from evosoko.sokoban.solution_files import SolutionEntry, stored_entry

    if solution is not None:
        return SolutionEntry(level, solution, "--solution")
    if solutions is not None:
        entries = api.stored_solutions(levels, solutions)
        for entry in entries:
            if entry.level is level:
                return entry
        fail(f"{solutions}: no Solution or Best note for level {level.name}")
    return stored_entry(level) if for_gif else None


@app.command("verify")
@reports_errors
def verify_command(
    file: LevelFile,
    level_ids: LevelIds = None,
    solution: Annotated[
        str | None, typer.Option(help="A LURD solution (run-length allowed).")
    ] = None,
    solutions: Annotated[
        Path | None,
        typer.Option(
            help="A collection whose levels carry Solution notes (and Best notes: a GA's best "
            "prefix of a level it did not solve, checked for legality only)."
        ),
    ] = None,
    format: FormatOption = None,
    json_output: JsonOption = False,
    strict: StrictOption = False,
) -> None:
    """Replay solutions and check them: exit 0 when every one is legal and solves its level
    (and every best prefix is legal)."""
    from evosoko import api
    from evosoko.sokoban.solution_files import SolutionEntry

    if (solution is None) == (solutions is None):
        fail("give exactly one of --solution and --solutions")
    if solution is not None and not level_ids:
        fail("--solution needs the level it solves: -l INDEX or -l TITLE")
    levels, chosen = read_and_select(file, format, level_ids, strict)
    if solution is not None:
        entries = [SolutionEntry(level, solution, "--solution", None) for level in chosen]
    elif solutions is not None:
        entries = api.stored_solutions(levels, solutions)
        if level_ids:
            wanted = {id(level) for level in chosen}
            entries = [entry for entry in entries if id(entry.level) in wanted]
        if not entries:
            fail(f"{solutions}: no solution for the chosen levels")
    else:  # neither: refused above
        fail("give exactly one of --solution and --solutions")
    all_good = True
    for entry in entries:
        all_good &= _report_verification(entry, json_output)
    if not all_good:
        raise typer.Exit(EXIT_FAILED)


def _report_verification(entry, json_output: bool) -> bool:
    from evosoko import api
    from evosoko.sokoban.variants import level_rules

    level = entry.level
    result = api.verify(level, entry.lurd, path=entry.path, line=entry.line)
    best = entry.kind == "best"
    error = result.error if not result.valid else None
    if result.valid and not result.solved and not best:
        error = f"the solution ends before {level_rules(level).solved_when}"
    if json_output:
        print_json(
            {
                "index": level.index,
                "level": level.json_label,
                "kind": entry.kind,
                "valid": result.valid,
                "solved": result.solved,
                "moves": result.moves,
                "pushes": result.pushes,
                "error": error,
            }
        )
    elif error is None and best:
        distance = "" if entry.distance is None else f", distance {entry.distance}"
        say(
            f"BEST    {level.name}: {result.moves} moves, {result.pushes} pushes "
            f"(a best prefix, not a solution{distance})"
        )
    elif error is None:
        say(f"OK      {level.name}: {result.moves} moves, {result.pushes} pushes")
    else:
        say(f"FAILED  {level.name}: {error} ({result.moves} moves, {result.pushes} pushes)")
    return error is None
