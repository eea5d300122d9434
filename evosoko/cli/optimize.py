"""The ``optimize`` command: shorten verified solutions (moves, pushes, or a Pareto set)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from evosoko.cli.common import (
    FormatOption,
    JsonOption,
    LevelFile,
    LevelIds,
    app,
    fail,
    print_json,
    reports_errors,
    stdout,
)


@app.command("optimize")
@reports_errors
def optimize_command(
    file: LevelFile,
    solutions: Annotated[
        Path,
        typer.Option(
            help="A collection whose levels carry Solution notes (a run's solutions.sok)."
        ),
    ],
    level_ids: LevelIds = None,
    objective: Annotated[
        str,
        typer.Option(help="moves (fewest moves, then pushes), pushes, or pareto (both)."),
    ] = "moves",
    seconds: Annotated[float, typer.Option(help="Seconds per solution.")] = 10.0,
    node_limit: Annotated[
        int, typer.Option(help="States each window search may expand.", min=1)
    ] = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(help="Write the optimized solutions here (an XSB collection, atomically)."),
    ] = None,
    format: FormatOption = None,
    json_output: JsonOption = False,
) -> None:
    """Shorten the solutions of a solutions file by re-planning windows with bounded search."""
    from evosoko.optimize import optimize_file
    from evosoko.sokoban.writing import write_levels

    results = optimize_file(
        file, solutions, level_ids or (), objective, seconds, node_limit, format
    )
    table = Table(title=f"{solutions} — {objective} first")
    table.add_column("level", no_wrap=True)
    for column in ("moves", "pushes", "pareto", "seconds"):
        table.add_column(column, justify="right")
    optimized = []
    for result in results:
        optimized.append(result)
        if json_output:
            print_json(result.as_json())
            continue
        table.add_row(
            result.level.name,
            f"{result.original.moves} → {result.best.moves}",
            f"{result.original.pushes} → {result.best.pushes}",
            " ".join(f"{c.moves}/{c.pushes}" for c in result.pareto),
            f"{result.seconds:.1f}",
        )
    if not optimized:
        fail(f"{solutions}: no solution for the chosen levels")
    if not json_output:
        stdout.print(table)
    if out is not None:
        write_levels(
            [
                dataclasses.replace(
                    result.level,
                    notes=(
                        ("Solution", result.best.lurd),
                        *(
                            (f"Pareto {k + 1}", f"{c.moves} moves {c.pushes} pushes {c.lurd}")
                            for k, c in enumerate(result.pareto)
                            if objective == "pareto"
                        ),
                    ),
                )
                for result in optimized
            ],
            out,
        )
        if not json_output:
            stdout.print(f"wrote {out}", markup=False)
