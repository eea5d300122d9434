"""The ``generate`` command: certified level generation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import EXIT_FAILED, app, fail, reports_errors, say, stderr


@app.command("generate")
@reports_errors
def generate_command(
    method: Annotated[str, typer.Option("--method", help="reverse, markov or mask.")],
    size: Annotated[
        str, typer.Option("--size", help="Room WIDTHxHEIGHT, walls included, e.g. 8x8.")
    ],
    boxes: Annotated[int, typer.Option("--boxes", help="Boxes (and goals) per level.")],
    count: Annotated[int, typer.Option("--count", help="How many distinct levels.")],
    out: Annotated[Path, typer.Option("--out", help="The XSB collection to write.")],
    min_pushes: Annotated[
        int | None, typer.Option("--min-pushes", help="Fewest optimal pushes.")
    ] = None,
    max_pushes: Annotated[
        int | None, typer.Option("--max-pushes", help="Most optimal pushes.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="The same seed gives the same levels.")] = 0,
    title: Annotated[
        str | None, typer.Option("--title", help="Title prefix (default: the method).")
    ] = None,
    append: Annotated[
        bool, typer.Option("--append", help="Add to the levels already in --out.")
    ] = False,
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            help="standard, or given-holes: each box belongs to one hole and vanishes in it.",
        ),
    ] = "standard",
    pairing: Annotated[
        str,
        typer.Option(
            "--pairing",
            help="given-holes: solution (each box's hole is the goal the certified solution "
            "takes it to) or random (drawn, kept when solvable).",
        ),
    ] = "solution",
) -> None:
    """Generate levels, each certified by push-A* with its solution stored in the file."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evosoko.generate import GenerationError, generate_levels, generation_spec, parse_size
    from evosoko.sokoban.formats import read_levels, write_levels

    width, height = parse_size(size)
    generation_spec(method, width, height, boxes, min_pushes, max_pushes)  # bad input fails here
    if count < 1:
        fail(f"--count must be at least 1, got {count}")
    existing = read_levels(out) if append and out.exists() else []
    columns = (
        TextColumn(f"generating ({method})"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[attempts]} attempts"),
        TimeElapsedColumn(),
    )
    with Progress(
        *columns, console=stderr, transient=True, disable=not stderr.is_terminal
    ) as progress:
        task = progress.add_task("generate", total=count, attempts=0)
        try:
            levels = generate_levels(
                method,
                width,
                height,
                boxes,
                count,
                min_pushes,
                max_pushes,
                seed,
                on_progress=lambda done, tried: progress.update(
                    task, completed=done, attempts=tried
                ),
                avoid=existing,
                title_prefix=title,
                rules=rules,
                pairing=pairing,
            )
        except GenerationError as error:
            fail(str(error), EXIT_FAILED)
    write_levels([*existing, *levels], out)
    pushes = sorted(int(dict(level.notes)["Pushes"]) for level in levels)
    say(
        f"wrote {len(levels)} levels to {out} (optimal pushes {pushes[0]}..{pushes[-1]}, "
        f"median {pushes[len(pushes) // 2]})"
    )
