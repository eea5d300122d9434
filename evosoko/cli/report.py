"""The ``report`` command: a self-contained report.html of a run, comparison or sweep folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import app, reports_errors, stdout
from evosoko.text import plain


@app.command("report")
@reports_errors
def report_command(
    folders: Annotated[
        list[Path],
        typer.Argument(metavar="FOLDER...", help="Run, comparison or sweep folders."),
    ],
) -> None:
    """Write report.html into each folder: tables, curves and animated boards, in one file
    that a browser opens from disk (no network needed)."""
    from evosoko import api
    from evosoko.experiment.report.writer import folder_kind

    for folder in folders:
        folder_kind(folder)  # refuse a folder that is none of the three before writing any
    for folder in folders:
        path = api.report(folder)
        size = path.stat().st_size
        stdout.print(plain(f"wrote {path} ({size / 1024:,.0f} KB)"), markup=False)
