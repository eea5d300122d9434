"""The ``evosoko`` command line.

Each command parses its arguments, calls one function of the package, and renders what comes
back. Bad input (an :class:`EvosokoError`) is reported by :func:`reports_errors` as one line
``error: FILE:LINE: message`` on stderr with exit code 2; warnings become ``warning: ...`` lines.
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from evosoko import __version__
from evosoko.errors import EvosokoError, EvosokoWarning

EXIT_FAILED = 1
"""A run or check that failed (an invalid solution, a failed run)."""
EXIT_BAD_INPUT = 2
"""Bad input: a malformed file, an unknown key or level, an illegal argument."""

app = typer.Typer(
    name="evosoko",
    help="Evolutionary optimization and classical search for Sokoban.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode="rich",
)
stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)

Command = TypeVar("Command", bound=Callable[..., Any])


def reports_errors(command: Command) -> Command:
    """Turn :class:`EvosokoError` into ``error: ...`` + exit 2 and warnings into ``warning:`` lines.

    Every command is wrapped in it, so bad input never shows a traceback.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("always", EvosokoWarning)
            warnings.showwarning = _show_warning
            try:
                return command(*args, **kwargs)
            except EvosokoError as error:
                fail(str(error))

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    stderr.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, EvosokoWarning):
        stderr.print(f"warning: {message}", markup=False)
    else:
        warnings._showwarning_orig(message, category, filename, lineno, file, line)  # type: ignore[attr-defined]


def print_json(record: dict) -> None:
    """One JSON object on one line of stdout."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _version(value: bool) -> None:
    if value:
        stdout.print(f"evosoko {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Evolve and search solutions of Sokoban levels; compare and tune the algorithms."""


# ---- shared options -----------------------------------------------------------------------------
LevelFile = Annotated[
    Path, typer.Argument(metavar="FILE", help="A level file (XSB/SOK/TXT collection, .grid, .num).")
]
FormatOption = Annotated[
    str | None, typer.Option("--format", help="Override the detected format: xsb, grid or num.")
]
LevelIds = Annotated[
    list[str] | None,
    typer.Option("--level", "-l", help="A level's 1-based index or title (repeatable)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]


def _load(path: Path, format: str | None, ids: list[str] | None):
    from evosoko.sokoban.formats import read_levels, select_levels

    levels = read_levels(path, format)
    return levels, (select_levels(levels, ids) if ids else levels)


# ---- levels --------------------------------------------------------------------------------------
@app.command("levels")
@reports_errors
def levels_command(
    file: LevelFile, format: FormatOption = None, json_output: JsonOption = False
) -> None:
    """List the levels of a file: index, title, size and boxes."""
    levels, _ = _load(file, format, None)
    if json_output:
        for level in levels:
            print_json(
                {
                    "index": level.index,
                    "level": level.json_label,
                    "width": level.width,
                    "height": level.height,
                    "boxes": level.box_count,
                }
            )
        return
    table = Table(title=str(file))
    for column in ("index", "title", "size", "boxes"):
        table.add_column(column, justify="right" if column != "title" else "left")
    for level in levels:
        table.add_row(
            str(level.index),
            level.title or "",
            f"{level.width}×{level.height}",
            str(level.box_count),
        )
    stdout.print(table)


# ---- show ----------------------------------------------------------------------------------------
@app.command("show")
@reports_errors
def show_command(
    file: LevelFile,
    level_id: Annotated[str, typer.Option("--level", "-l", help="A 1-based index or a title.")],
    format: FormatOption = None,
    solution: Annotated[
        str | None, typer.Option(help="A LURD solution to replay and draw.")
    ] = None,
    png: Annotated[Path | None, typer.Option(help="Draw the board to this PNG file.")] = None,
    gif: Annotated[
        Path | None, typer.Option(help="Animate the solution into this GIF file.")
    ] = None,
    fps: Annotated[float, typer.Option(help="Frames per second of the GIF (1 to 50).")] = 10.0,
    max_frames: Annotated[
        int,
        typer.Option(min=2, help="Longer solutions are sampled: every k-th step, the last kept."),
    ] = 400,
) -> None:
    """Print a level as text; draw it to PNG, or animate a solution to GIF."""
    from evosoko.sokoban import render
    from evosoko.sokoban.solutions import replay_states, verify_solution

    _, (level,) = _load(file, format, [level_id])
    if gif is not None and solution is None:
        fail("--gif needs a --solution to animate")
    state = None
    if solution is not None:
        verification = verify_solution(level, solution, path="--solution")
        if not verification.valid:
            fail(f"{level.name}: {verification.error}", EXIT_FAILED)
        state = verification.final
    stdout.print(f"{level.name}  ({level.width}×{level.height}, {level.box_count} boxes)")
    stdout.print(render.styled_board(level, state))
    if solution is not None:
        verdict = "solved" if verification.solved else "not solved"
        stdout.print(f"{verification.moves} moves, {verification.pushes} pushes: {verdict}")
    if png is not None:
        render.save_png(level, png, state)
        stdout.print(f"wrote {png}")
    if gif is not None:
        states = replay_states(level, verification.lurd)
        frames = render.save_gif(level, states, gif, fps=fps, max_frames=max_frames)
        stdout.print(f"wrote {gif} ({frames} frames)")


# ---- verify --------------------------------------------------------------------------------------
@app.command("verify")
@reports_errors
def verify_command(
    file: LevelFile,
    level_ids: LevelIds = None,
    solution: Annotated[
        str | None, typer.Option(help="A LURD solution (run-length allowed).")
    ] = None,
    solutions: Annotated[
        Path | None, typer.Option(help="A collection whose levels carry Solution notes.")
    ] = None,
    format: FormatOption = None,
    json_output: JsonOption = False,
) -> None:
    """Replay solutions and check them: exit 0 when every one is legal and solves its level."""
    from evosoko.sokoban.formats import read_levels
    from evosoko.sokoban.solution_files import SolutionEntry, match_solutions

    if (solution is None) == (solutions is None):
        fail("give exactly one of --solution and --solutions")
    if solution is not None and not level_ids:
        fail("--solution needs the level it solves: -l INDEX or -l TITLE")
    levels, chosen = _load(file, format, level_ids)
    if solution is not None:
        entries = [SolutionEntry(level, solution, "--solution", None) for level in chosen]
    else:
        entries = match_solutions(levels, read_levels(solutions))
        if level_ids:
            wanted = {id(level) for level in chosen}
            entries = [entry for entry in entries if id(entry.level) in wanted]
        if not entries:
            fail(f"{solutions}: no solution for the chosen levels")
    all_good = True
    for entry in entries:
        all_good &= _report_verification(entry, json_output)
    if not all_good:
        raise typer.Exit(EXIT_FAILED)


def _report_verification(entry, json_output: bool) -> bool:
    from evosoko.sokoban.solutions import verify_solution

    level = entry.level
    result = verify_solution(level, entry.lurd, path=entry.path, line=entry.line)
    error = result.error if not result.valid else None
    if result.valid and not result.solved:
        error = "the solution ends before every box is on a goal"
    if json_output:
        print_json(
            {
                "index": level.index,
                "level": level.json_label,
                "valid": result.valid,
                "solved": result.solved,
                "moves": result.moves,
                "pushes": result.pushes,
                "error": error,
            }
        )
    elif error is None:
        stdout.print(f"OK      {level.name}: {result.moves} moves, {result.pushes} pushes")
    else:
        stdout.print(
            f"FAILED  {level.name}: {error} ({result.moves} moves, {result.pushes} pushes)",
            markup=False,
        )
    return error is None


# ---- run -----------------------------------------------------------------------------------------
@app.command("run")
@reports_errors
def run_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            metavar="CONFIG", help="A run configuration (TOML), e.g. configs/default.toml."
        ),
    ] = None,
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set", metavar="KEY=VALUE", help="Override a key; VALUE is TOML (repeatable)."
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", metavar="RUN_DIR", help="Continue an interrupted run."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object.")
    ] = False,
) -> None:
    """Evolve solutions for the levels of a configuration; everything goes to a run folder."""
    from evosoko.config import load_config
    from evosoko.experiment.progress import make_progress
    from evosoko.experiment.run import resume_run, start_run

    if resume is not None and (config is not None or overrides):
        fail("--resume continues a run with its saved configuration: give no CONFIG or --set")
    if resume is None and config is None:
        fail("give a configuration file (e.g. configs/default.toml) or --resume RUN_DIR")
    progress = make_progress(quiet=quiet or json_output)
    if resume is not None:
        report = resume_run(resume, progress=progress)
    else:
        settings = load_config(config, overrides or [])
        report = start_run(settings, config_source=str(config), progress=progress)
    if json_output:
        print_json(report.json_summary())
    elif not quiet:
        stdout.print(f"{report.status}: {report.run_dir}", markup=False)
    if report.message:
        stderr.print(report.message, markup=False)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


# ---- solve ---------------------------------------------------------------------------------------
@app.command("solve")
@reports_errors
def solve_command(
    file: LevelFile,
    level_ids: LevelIds = None,
    algo: Annotated[
        str,
        typer.Option(
            "--algo",
            help="bfs, dfs, random, astar, greedy, push-bfs, push-astar, "
            "push-wastar, push-greedy or push-idastar.",
        ),
    ] = "push-astar",
    heuristic: Annotated[
        str | None,
        typer.Option(
            help="manhattan, push-distance, matching (push level default), "
            "manhattan-source (move level only)."
        ),
    ] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per level.")] = None,
    node_limit: Annotated[int | None, typer.Option(help="States expanded per level.")] = None,
    weight: Annotated[float, typer.Option(help="Heuristic weight of push-wastar.")] = 3.0,
    format: FormatOption = None,
    json_output: JsonOption = False,
) -> None:
    """Solve levels by classical search: exit 0 when every chosen level is solved."""
    from evosoko.search.batch import solve_levels

    _, chosen = _load(file, format, level_ids)
    outcomes = solve_levels(chosen, algo, heuristic, time_limit, node_limit, weight)
    table = Table(title=f"{file} — {algo}")
    table.add_column("level", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for column in ("moves", "pushes", "expanded", "generated", "duplicates", "seconds"):
        table.add_column(column, justify="right")
    solutions = []
    all_solved = True
    for outcome in outcomes:
        record = outcome.as_json()
        all_solved &= record["status"] == "solved"
        if json_output:
            print_json(record)
            continue
        table.add_row(
            outcome.level.name,
            *(
                str(record[key])
                for key in ("status", "moves", "pushes", "expanded", "generated", "duplicates")
            ),
            f"{record['seconds']:.3f}",
        )
        if record["solution"] is not None:
            solutions.append(f"{outcome.level.name}: {record['solution']}")
    if not json_output:
        stdout.print(table)
        for line in solutions:
            stdout.print(line, markup=False)
    if not all_solved:
        raise typer.Exit(EXIT_FAILED)


# ---- generate ------------------------------------------------------------------------------------
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
            )
        except GenerationError as error:
            fail(str(error), EXIT_FAILED)
    write_levels([*existing, *levels], out)
    pushes = sorted(int(dict(level.notes)["Pushes"]) for level in levels)
    stdout.print(
        f"wrote {len(levels)} levels to {out} (optimal pushes {pushes[0]}..{pushes[-1]}, "
        f"median {pushes[len(pushes) // 2]})",
        markup=False,
    )


# ---- experiments: compare, sweep, plot ----------------------------------------------------------
EXIT_INTERRUPTED = 130
OverridesOption = Annotated[
    list[str] | None,
    typer.Option("--set", metavar="KEY=VALUE", help="Override a key; VALUE is TOML (repeatable)."),
]
OutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        "--resume",
        metavar="DIR",
        help="Output folder (default: a new one under runs/); an existing one resumes.",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]
ResumeOption = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        metavar="DIR",
        help="Finish an interrupted experiment in DIR with its saved settings.",
    ),
]


def _experiment_file(
    config: Path | None, resume: Path | None, out: Path | None, saved: str
) -> Path:
    """CONFIG, or the settings saved in the ``--resume`` folder (one of the two, never both)."""
    if resume is None:
        if config is None:
            fail("give an experiment file (TOML) or --resume DIR")
        return config
    if config is not None or out is not None:
        fail("--resume continues with the folder's saved settings: give no CONFIG or --out")
    if not (resume / saved).is_file():
        fail(f"{resume}: nothing to resume here (no {saved})")
    return resume / saved


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
) -> None:
    """Compare GA presets and classical search on a level set at equal budgets."""
    from evosoko.experiment.compare import (
        CONFIG_FILE,
        SUMMARY_MD,
        compare_folder,
        load_compare_config,
        run_compare,
    )
    from evosoko.experiment.job_progress import make_job_progress

    config = _experiment_file(config, resume, out, CONFIG_FILE)
    settings = load_compare_config(config, overrides or [])
    folder = resume or compare_folder(settings, out)
    progress = make_job_progress(quiet=quiet or json_output)
    try:
        outcome = run_compare(settings, folder, progress=progress)
    except KeyboardInterrupt:
        progress.close()
        fail(
            f"interrupted; finished jobs are kept: resume with evosoko compare {config} "
            f"--out {folder}",
            EXIT_INTERRUPTED,
        )
    progress.close()
    if json_output:
        print_json(json.loads((folder / "summary.json").read_text()))
    elif not quiet:
        stdout.print((folder / SUMMARY_MD).read_text(), markup=False)
        stdout.print(f"results in {folder}", markup=False)
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
) -> None:
    """Tune GA parameters: grid, random or Optuna search; writes index.csv and best.toml."""
    from evosoko.experiment.job_progress import make_job_progress
    from evosoko.experiment.sweep import CONFIG_FILE, load_sweep_config, run_sweep, sweep_folder

    config = _experiment_file(config, resume, out, CONFIG_FILE)
    settings = load_sweep_config(config, overrides or [])
    folder = resume or sweep_folder(settings, out)
    progress = make_job_progress(quiet=quiet)
    try:
        outcome = run_sweep(settings, folder, progress=progress)
    except KeyboardInterrupt:
        progress.close()
        fail(
            f"interrupted; finished trials are kept: resume with evosoko sweep {config} "
            f"--out {folder}",
            EXIT_INTERRUPTED,
        )
    progress.close()
    if not quiet:
        best = outcome.best
        if best is not None:
            stdout.print(
                f"best trial: {best.params} (solve rate {best.solve_rate:.0%})", markup=False
            )
        stdout.print(f"results in {folder} (index.csv, best.toml)", markup=False)
    if not outcome.complete:
        raise typer.Exit(EXIT_FAILED)


@app.command("plot")
@reports_errors
def plot_command(
    folders: Annotated[
        list[Path], typer.Argument(metavar="DIR...", help="Run, compare or sweep folders.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", metavar="DIR", help="Where to put the plots.")
    ] = None,
    svg: Annotated[bool, typer.Option("--svg", help="SVG instead of PNG.")] = False,
) -> None:
    """Draw the plots of run, compare and sweep folders (PNG, or SVG on request)."""
    from evosoko.experiment.plotting import plot_folders

    for path in plot_folders(folders, out, "svg" if svg else "png"):
        stdout.print(f"wrote {path}", markup=False)


if __name__ == "__main__":  # pragma: no cover
    app()
