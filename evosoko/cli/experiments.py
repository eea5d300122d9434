"""Experiment commands: ``compare``, ``sweep``, ``plot`` and ``export``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from evosoko.cli.common import (
    EXIT_FAILED,
    OverridesOption,
    StrictOption,
    app,
    compile_notice,
    fail,
    print_json,
    reports_errors,
    say,
    stdout,
)
from evosoko.experiment.interrupts import interrupt_exit_code, interrupt_name
from evosoko.text import plain_lines

OutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="Output folder (default: a new one under runs/); an existing one of the same "
        "experiment resumes, one of another experiment is refused.",
    ),
]
QuietOption = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress display: print only the output folder."),
]
ResumeOption = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        metavar="DIR",
        help="Finish an interrupted experiment in DIR with its saved settings.",
    ),
]


def _experiment_file(
    config: Path | None,
    resume: Path | None,
    out: Path | None,
    overrides: list[str] | None,
    saved: str,
) -> Path:
    """CONFIG, or the settings saved in the ``--resume`` folder (one of the two, never both)."""
    if resume is None:
        if config is None:
            fail("give an experiment file (TOML) or --resume DIR")
        return config
    if config is not None or out is not None or overrides:
        fail("--resume continues with the folder's saved settings: give no CONFIG, --set or --out")
    if not (resume / saved).is_file():
        fail(f"{resume}: nothing to resume here (no {saved})")
    return resume / saved


def _run_jobs(run: Callable, settings: Any, folder: Path, quiet: bool, strict: bool, what: str):
    """``run`` (:func:`evosoko.api.compare` or :func:`~evosoko.api.sweep`) into ``folder`` with a
    progress display; on Ctrl-C or SIGTERM, exit 130 or 143 with the command that continues
    it, in the words ``evosoko run`` uses (an interrupt is no error)."""
    from evosoko.experiment.compare.job_progress import make_job_progress

    progress = make_job_progress(quiet=quiet)
    try:
        with compile_notice():
            outcome = run(settings, out=folder, progress=progress, strict=strict)
    except KeyboardInterrupt as interrupt:
        progress.close()
        say(
            f"{interrupt_name(interrupt)}; finished {what} are kept; continue with: "
            f"evosoko {run.__name__} --resume {folder}",
            err=True,
        )
        raise typer.Exit(interrupt_exit_code(interrupt)) from None
    progress.close()
    return outcome


@app.command("compare")
@reports_errors
def compare_command(
    config: Annotated[
        Path | None, typer.Argument(metavar="CONFIG", help="A comparison file (TOML).")
    ] = None,
    overrides: OverridesOption = None,
    out: OutOption = None,
    resume: ResumeOption = None,
    quiet: QuietOption = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print summary.json.")] = False,
    strict: StrictOption = False,
) -> None:
    """Compare GA presets and classical search on a level set at equal budgets."""
    from evosoko import api
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.files import CONFIG_FILE, SUMMARY_MD
    from evosoko.experiment.compare.runner import compare_folder

    config = _experiment_file(config, resume, out, overrides, CONFIG_FILE)
    settings = load_compare_config(config, overrides or [])
    folder = resume or compare_folder(settings, out)
    outcome = _run_jobs(api.compare, settings, folder, quiet or json_output, strict, "jobs")
    if json_output:
        print_json(json.loads((folder / "summary.json").read_text()))
    elif quiet:
        say(folder)
    else:
        stdout.print(plain_lines((folder / SUMMARY_MD).read_text()), markup=False)
        say(f"results in {folder}")
    if not outcome.complete:
        raise typer.Exit(EXIT_FAILED)


@app.command("sweep")
@reports_errors
def sweep_command(
    config: Annotated[
        Path | None, typer.Argument(metavar="CONFIG", help="A sweep file (TOML).")
    ] = None,
    overrides: OverridesOption = None,
    out: OutOption = None,
    resume: ResumeOption = None,
    quiet: QuietOption = False,
    strict: StrictOption = False,
) -> None:
    """Tune GA parameters: grid, random or Optuna search; writes index.csv and best.toml."""
    from evosoko import api
    from evosoko.experiment.sweep.config import CONFIG_FILE, load_sweep_config
    from evosoko.experiment.sweep.runner import sweep_folder

    config = _experiment_file(config, resume, out, overrides, CONFIG_FILE)
    settings = load_sweep_config(config, overrides or [])
    folder = resume or sweep_folder(settings, out)
    outcome = _run_jobs(api.sweep, settings, folder, quiet, strict, "trials")
    if quiet:
        stdout.print(str(folder), markup=False)
    else:
        for line in _best_trial_lines(outcome, settings.sweep):
            say(line)
        say(f"results in {folder} (index.csv, best.toml)")
    if not outcome.complete:
        raise typer.Exit(EXIT_FAILED)


def _best_trial_lines(outcome, sweep) -> list[str]:
    """The best trial and, when the data cannot separate them, the trials that tie with it."""
    from evosoko.experiment.sweep.trials import trial_intervals

    def described(trial) -> str:
        rate = trial_intervals(trial, sweep.budget)[0]
        return (
            f"trial {trial.number} {trial.params} (solve rate {trial.solve_rate:.0%} "
            f"[{rate.low:.0%}, {rate.high:.0%}], median {sweep.unit} "
            f"{trial.median_evaluations:g})"
        )

    best, tied = outcome.best, outcome.tied
    if best is None:
        return []
    if not tied:
        lines = [f"best trial: {described(best)}"]
        if outcome.ties and outcome.ties.tests:
            lines.append(
                "no tie: every other trial is worse by a paired test over the levels "
                "(Holm-adjusted p <= 0.05)"
            )
        return lines
    return [
        (
            f"tie for best: {len(tied) + 1} trials that no paired test over the levels separates "
            "(Holm-adjusted p > 0.05):"
        ),
        f"  {described(best)}   <- best.toml, first by point estimate only",
        *(f"  {described(trial)}" for trial in tied),
        "more levels or seeds may separate them",
    ]


@app.command("plot")
@reports_errors
def plot_command(
    folders: Annotated[
        list[Path], typer.Argument(metavar="DIR...", help="Run, compare or sweep folders.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Where to put the plots (default: a run's or experiment's plots/ folder; "
            "several runs together: a new folder beside the first).",
        ),
    ] = None,
    svg: Annotated[bool, typer.Option("--svg", help="SVG instead of PNG.")] = False,
) -> None:
    """Draw the plots of run, compare and sweep folders (PNG, or SVG on request). Several run
    folders give one figure: the median and inter-quartile band across all of them."""
    from evosoko import api

    for path in api.plot(folders, out, "svg" if svg else "png"):
        say(f"wrote {path}")


@app.command("export")
@reports_errors
def export_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="A compare or sweep folder.")],
    ioh: Annotated[
        Path | None,
        typer.Option(
            "--ioh",
            metavar="OUT",
            help="Where to write the IOHprofiler data (default: DIR/ioh; replaced if present).",
        ),
    ] = None,
) -> None:
    """Export a comparison's or sweep's runs in IOHprofiler's format, for IOHanalyzer: one
    view per cost axis (budget/: evaluations or expanded nodes; time/: milliseconds)."""
    from evosoko import api

    target = api.export(folder, ioh)
    say(f"wrote {target} (budget/ and time/: load one of them into IOHanalyzer)")
