"""The ``solve`` command: classical search on levels."""

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
    LevelIds,
    StrictOption,
    app,
    compile_notice,
    fail,
    print_json,
    read_and_select,
    reports_errors,
    stderr,
    stdout,
)
from evosoko.experiment.interrupts import interrupt_exit_code, interrupt_name
from evosoko.text import plain, plain_text

SEARCH_MEGABYTES = 2048
"""The default of ``--memory``: :data:`evosoko.search.search_run.DEFAULT_MEMORY` in megabytes
(written out so that the command line starts without loading the search)."""


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
            "push-wastar, push-greedy, push-idastar, push-fess, push-fess-bi, push-learned, "
            "push-learned-source or mcts.",
        ),
    ] = "push-astar",
    heuristic: Annotated[
        str | None,
        typer.Option(
            help="manhattan, push-distance, matching (push level default), "
            "manhattan-source (move level only); mcts: the objective of its reward."
        ),
    ] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per level.")] = None,
    clock: Annotated[
        str,
        typer.Option(
            help="What --time-limit counts: wall (seconds on the clock) or cpu (CPU seconds "
            "the search process got, the same work on a loaded machine)."
        ),
    ] = "wall",
    node_limit: Annotated[
        int | None, typer.Option(help="States expanded per level (mcts: iterations).")
    ] = None,
    weight: Annotated[
        float | None,
        typer.Option(
            help="Heuristic weight of push-wastar and push-fess (default: the settings', 3)."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="A run configuration (TOML) whose [search] table sets the search's knobs, such "
            "as a sweep's best.toml.",
        ),
    ] = None,
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            help="Set a knob of the [search] table, e.g. fess.cluster_limit=3000; VALUE is TOML "
            "(repeatable).",
        ),
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            help="Deadlock network (.npz, from `evosoko learn train`) of push-learned*; "
            "default: the one shipped.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the stochastic searches (random, mcts).")] = 0,
    memory: Annotated[
        int,
        typer.Option(
            "--memory",
            help="Megabytes the search's tables and stored states may take; a search that "
            "needs more (or gets less from the machine) ends at memory-limit.",
        ),
    ] = SEARCH_MEGABYTES,
    format: FormatOption = None,
    json_output: JsonOption = False,
    strict: StrictOption = False,
) -> None:
    """Solve levels by classical search: exit 0 when every chosen level is solved."""
    from evosoko import api
    from evosoko.search import warm_up
    from evosoko.search.algorithms import ALGORITHMS, algorithm_named, heuristic_for
    from evosoko.search.clocks import CLOCKS
    from evosoko.search.settings import settings_for
    from evosoko.search.solver import check_arguments

    _, chosen = read_and_select(file, format, level_ids, strict)
    heuristic_for(algorithm_named(algo), heuristic)  # a typo fails before any search
    check_arguments(time_limit, node_limit)
    settings = api.search_settings_of(config, overrides or [])
    settings_for(algo, settings, weight=weight)  # a bad weight fails before any search
    if memory < 1:
        fail(f"--memory must be at least 1 (megabytes), not {memory}")
    if clock not in CLOCKS:
        fail(f"--clock must be one of: {', '.join(CLOCKS)}, not {clock}")
    if model is not None:
        if not algorithm_named(algo).guided:
            fail(f"--model orders the push-learned searches only, not {algo}")
        from evosoko.search.learned import guide_network

        guide_network(str(model))  # a bad file fails before any search
    try:
        with compile_notice():
            warm_up([algo] if algo in ALGORITHMS else [])
    except KeyboardInterrupt as interrupt:
        stderr.print(
            f"{interrupt_name(interrupt)} while compiling the search's kernels (a first run "
            "only); no level was searched",
            markup=False,
        )
        raise typer.Exit(interrupt_exit_code(interrupt)) from None
    outcomes = (
        api.solve(
            level,
            algo,
            seconds=time_limit,
            nodes=node_limit,
            heuristic=heuristic,
            weight=weight,
            settings=settings,
            model=model,
            seed=seed,
            clock=clock,  # type: ignore[arg-type]  # checked against CLOCKS above
            memory=memory << 20,
        )
        for level in chosen
    )
    table = Table(title=plain_text(f"{file} — {algo}"))
    table.add_column("level", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for column in ("moves", "pushes", "expanded", "generated", "duplicates", "seconds"):
        table.add_column(column, justify="right")
    solutions: list[str] = []
    all_solved = True
    done = 0
    try:
        for outcome in outcomes:
            all_solved &= _show(outcome, table, solutions, json_output)
            done += 1
    except KeyboardInterrupt as interrupt:
        _print_table(table, solutions, json_output)
        stderr.print(
            f"{interrupt_name(interrupt)} during level {plain(chosen[done].name)} "
            f"({done + 1} of {len(chosen)}); the levels before it are shown above",
            markup=False,
        )
        raise typer.Exit(interrupt_exit_code(interrupt)) from None
    _print_table(table, solutions, json_output)
    if not all_solved:
        raise typer.Exit(EXIT_FAILED)


def _show(outcome, table: Table, solutions: list[str], json_output: bool) -> bool:
    """Print one level's outcome as a JSON line, or add it to ``table`` and ``solutions``;
    whether it was solved."""
    record = _json_record(outcome)
    if json_output:
        print_json(record)
    else:
        table.add_row(
            plain_text(outcome.level_name),
            str(outcome.stop),
            *(
                "-" if record[key] is None else str(record[key])
                for key in ("moves", "pushes", "expanded", "generated", "duplicates")
            ),
            f"{record['seconds']:.3f}",
        )
        if record["solution"] is not None:
            solutions.append(plain(f"{outcome.level_name}: {record['solution']}"))
    return record["status"] == "solved"


def _print_table(table: Table, solutions: list[str], json_output: bool) -> None:
    """Print the table of the levels done and their solutions (nothing in JSON mode: each
    level's line is out already)."""
    if json_output:
        return
    stdout.print(table)
    for line in solutions:
        stdout.print(line, markup=False)


JSON_KEYS = (
    "index",
    "level",
    "status",
    "exhausted",
    "moves",
    "pushes",
    "expanded",
    "generated",
    "duplicates",
    "drops",
    "dropped",
    "restarts",
    "found_by",
    "parts",
    "seconds",
    "solution",
    "best",
    "settings",
)
"""Keys of one JSON line of ``evosoko solve --json``, in order."""


def _json_record(result) -> dict[str, object]:
    """The JSON object of one level: its index and label, the search's status, solution and
    statistics (moves and pushes null when unsolved: there is no solution to count; ``parts``:
    where push-fess-bi's work went), its ``best`` (see
    :meth:`evosoko.search.result.SearchResult.best`) and the settings it ran with (every knob of
    its family; empty for a move-level search)."""
    level = result.level
    return {
        "index": level.index,
        "level": level.json_label,
        "status": result.status,
        "exhausted": result.exhausted,
        "moves": result.moves,
        "pushes": result.pushes,
        "expanded": result.details["expanded"],
        "generated": result.details["generated"],
        "duplicates": result.details["duplicates"],
        **{name: result.details.get(name, 0) for name in ("drops", "dropped", "restarts")},
        "found_by": result.details.get("found_by"),
        "parts": result.details.get("parts", []),
        "seconds": round(result.seconds, 6),
        "solution": result.solution,
        "best": None if result.best is None else result.best.as_dict(),
        "settings": result.details.get("settings", {}),
    }
