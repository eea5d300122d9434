"""What every command of the ``evosoko`` command line shares: the app, errors, options.

Bad input (an :class:`EvosokoError`) is reported by :func:`reports_errors` as one line
``error: FILE:LINE: message`` on stderr with exit code 2; warnings become ``warning: ...`` lines.
Text from files (titles, notes, names) is printed through :mod:`evosoko.text`: never as markup,
control characters escaped.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from evosoko import __version__
from evosoko.errors import EvosokoError, EvosokoWarning, OutOfMemory
from evosoko.experiment.interrupts import (
    Terminated,
    interrupt_exit_code,
    terminate_as_interrupt,
)
from evosoko.text import plain

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


def one_line_summaries(typer_app: typer.Typer) -> None:
    """Give each command of ``typer_app`` its docstring's first paragraph as one line for the
    command list of ``--help`` (which would otherwise keep the docstring's line breaks)."""
    for info in typer_app.registered_commands:
        if info.short_help is None and info.callback is not None and info.callback.__doc__:
            first = inspect.cleandoc(info.callback.__doc__).split("\n\n")[0]
            info.short_help = " ".join(first.split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            one_line_summaries(group.typer_instance)


stdout = Console(highlight=False, soft_wrap=True, emoji=False)  # file text: no :codes:
stderr = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

Command = TypeVar("Command", bound=Callable[..., Any])


def reports_errors(command: Command) -> Command:
    """Turn :class:`EvosokoError` into ``error: ...`` + exit 2 and warnings into ``warning:`` lines.

    Every command is wrapped in it, so bad input never shows a traceback. Running out of
    memory (:class:`OutOfMemory`, or a ``MemoryError`` no layer below turned into one) is one
    ``error:`` line too, with exit 1: the input was fine, the machine had no room for it.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("always", EvosokoWarning)
            warnings.showwarning = _show_warning
            try:
                return command(*args, **kwargs)
            except Terminated as interrupt:  # as typer ends on Ctrl-C, with SIGTERM's code
                raise typer.Exit(interrupt_exit_code(interrupt)) from None
            except OutOfMemory as error:
                fail(str(error), EXIT_FAILED)
            except EvosokoError as error:
                fail(str(error))
            except MemoryError:
                fail(
                    "out of memory: the machine, or a limit such as ulimit -v, leaves this "
                    "command too little",
                    EXIT_FAILED,
                )

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    stderr.print(f"error: {plain(message)}", markup=False)
    raise typer.Exit(code)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, EvosokoWarning):
        stderr.print(f"warning: {plain(message)}", markup=False)
    else:
        warnings._showwarning_orig(  # type: ignore[attr-defined]
            message, category, filename, lineno, file, line
        )


def say(text: object, *, err: bool = False) -> None:
    """Print ``text`` on stdout (``err``: stderr) as :func:`~evosoko.text.plain` text: control
    characters escaped, never read as markup."""
    (stderr if err else stdout).print(plain(text), markup=False)


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
    context: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Evolve and search solutions of Sokoban levels; compare and tune the algorithms."""
    context.with_resource(terminate_as_interrupt())  # SIGTERM stops a command as Ctrl-C does


LevelFile = Annotated[
    Path, typer.Argument(metavar="FILE", help="A level file (XSB/SOK/TXT collection, .grid, .num).")
]
FormatOption = Annotated[
    str | None, typer.Option("--format", help="Override the detected format: xsb, grid or num.")
]
LEVEL_HELP = (
    "A level: its 1-based index or its title; #N is always the index, title:T always the "
    "title (a number that is one level's index and another's title must be written so)."
)
LevelIds = Annotated[
    list[str] | None,
    typer.Option("--level", "-l", help=LEVEL_HELP + " Repeatable."),
]
LevelId = Annotated[str, typer.Option("--level", "-l", help=LEVEL_HELP)]
StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Refuse a level file with any invalid level (by default it is left out with a "
        "warning and the other levels are used).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]
OverridesOption = Annotated[
    list[str] | None,
    typer.Option("--set", metavar="KEY=VALUE", help="Override a key; VALUE is TOML (repeatable)."),
]
RunResumeOption = Annotated[
    Path | None,
    typer.Option("--resume", metavar="RUN_DIR", help="Continue an interrupted run."),
]
RunQuietOption = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress display: print only the run folder."),
]
SummaryJsonOption = Annotated[
    bool, typer.Option("--json", help="Print the summary as one JSON object.")
]


def read_and_select(path: Path, format: str | None, ids: list[str] | None, strict: bool = False):
    """The levels of ``path`` and the ones ``ids`` chooses (all of them without ``ids``)."""
    from evosoko import api

    levels = api.load_levels(path, format=format, strict=strict)
    return levels, (api.select_levels(levels, ids) if ids else levels)


@contextmanager
def compile_notice() -> Iterator[None]:
    """Say on stderr (a terminal) when numba starts compiling kernels inside the block: a first
    run on a machine takes a while before any output."""
    from evosoko.experiment.run.progress import COMPILING
    from evosoko.experiment.warmup import watch_compilation

    def notice() -> None:
        if stderr.is_terminal:
            stderr.print(COMPILING, markup=False)

    with watch_compilation(notice):
        yield
