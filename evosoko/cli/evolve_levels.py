"""The ``evolve-levels`` command: evolve certified Sokoban levels into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evosoko.cli.common import (
    OverridesOption,
    RunQuietOption,
    RunResumeOption,
    SummaryJsonOption,
    app,
    fail,
    print_json,
    reports_errors,
    say,
)


@app.command("evolve-levels")
@reports_errors
def evolve_levels_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            metavar="CONFIG",
            help="A level-evolution configuration (TOML), e.g. configs/levels-sokevo.toml.",
        ),
    ] = None,
    overrides: OverridesOption = None,
    resume: RunResumeOption = None,
    quiet: RunQuietOption = False,
    json_output: SummaryJsonOption = False,
) -> None:
    """Evolve Sokoban levels: a GA over boards whose fitness is a certificate (each candidate
    solved by push-A* within a node cap); the levels go to levels.xsb with their solutions."""
    from evosoko import api
    from evosoko.levelgen.progress import make_levels_progress

    if resume is not None and (config is not None or overrides):
        fail("--resume continues a run with its saved configuration: give no CONFIG or --set")
    progress = make_levels_progress(quiet=quiet or json_output)
    if resume is not None:
        report = api.resume_levels(resume, progress=progress)
    elif config is not None:
        report = api.evolve_levels(config, overrides=overrides or [], progress=progress)
    else:
        fail("give a configuration file (e.g. configs/levels-sokevo.toml) or --resume RUN_DIR")
    if json_output:
        print_json({"run_dir": str(report.run_dir), **report.summary})
    elif quiet:
        say(report.run_dir)
    else:
        say(f"{report.status}: {report.run_dir}")
        if report.levels:
            pushes = sorted(int(dict(level.notes)["Pushes"]) for level in report.levels)
            say(
                f"wrote {len(report.levels)} levels to {report.run_dir / 'levels.xsb'} "
                f"(pushes {pushes[0]}..{pushes[-1]}, median {pushes[len(pushes) // 2]})"
            )
    if report.message:
        say(report.message, err=True)
    if report.exit_code:
        raise typer.Exit(report.exit_code)
