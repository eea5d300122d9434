"""The ``run`` command: evolve solutions into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import (
    OverridesOption,
    RunQuietOption,
    RunResumeOption,
    StrictOption,
    SummaryJsonOption,
    app,
    fail,
    print_json,
    reports_errors,
    say,
)


@app.command("run")
@reports_errors
def run_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            metavar="CONFIG", help="A run configuration (TOML), e.g. configs/default.toml."
        ),
    ] = None,
    overrides: OverridesOption = None,
    resume: RunResumeOption = None,
    quiet: RunQuietOption = False,
    json_output: SummaryJsonOption = False,
    strict: StrictOption = False,
) -> None:
    """Evolve solutions for the levels of a configuration; everything goes to a run folder."""
    from evosoko import api
    from evosoko.experiment.run.progress import make_progress

    if resume is not None and (config is not None or overrides):
        fail("--resume continues a run with its saved configuration: give no CONFIG or --set")
    progress = make_progress(quiet=quiet or json_output)
    if resume is not None:
        report = api.resume(resume, progress=progress, strict=strict)
    elif config is not None:
        report = api.run(config, overrides=overrides or [], progress=progress, strict=strict)
    else:
        fail("give a configuration file (e.g. configs/default.toml) or --resume RUN_DIR")
    if json_output:
        print_json(report.json_summary())
    elif quiet:  # the one line a script needs: where the run is
        say(report.run_dir)
    else:
        say(f"{report.status}: {report.run_dir}")
    if report.message:
        say(report.message, err=True)
    if report.exit_code:
        raise typer.Exit(report.exit_code)
