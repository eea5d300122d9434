"""The ``report`` command: a self-contained report.html of a run, comparison or sweep folder,
or one page that sets several of them side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import app, reports_errors, say


@app.command("report")
@reports_errors
def report_command(
    folders: Annotated[
        list[Path],
        typer.Argument(metavar="FOLDER...", help="Run, comparison or sweep folders."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Where the page goes (a folder: report-compare.html in it). Default: the "
            "folder's report.html for one folder; report-compare.html in the current "
            "directory for several.",
        ),
    ] = None,
) -> None:
    """Write report.html into a folder, or one page that compares several folders side by
    side (results joined by level, fitness curves overlaid, settings beside each other): in
    one file that a browser opens from disk (no network needed)."""
    from evosoko import api

    path = api.report(folders, out)
    size = path.stat().st_size
    say(f"wrote {path} ({size / 1024:,.0f} KB)")
