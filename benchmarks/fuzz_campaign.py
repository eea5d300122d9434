"""The hostile-input campaign of issue 17, at scale: every input accepted or refused, none crashes.

Feeds the generators of ``tests/fuzz_inputs.py`` (deterministic: a seed in, the same inputs
out) to the parsers in this process and to the ``evosoko`` command line in subprocesses, and
damages run folders the 28 ways listed there before resuming them:

- level files: ``read_levels`` on each, then what it read written back and read again;
- command lines: ``levels``, ``show``, ``verify`` and ``solve`` (bounded) on level files, and
  ``run`` on mutated configurations (a 3 s budget);
- solution strings: ``verify_solution`` on the seed levels, valid ones replayed by ``Board``;
- configurations: ``load_config``;
- damaged run folders: ``evosoko run --resume`` after each damage.

A *clean rejection* is an ``EvosokoError`` (one ``error:`` line and exit status 2 on the command
line); a *crash* is anything else: another exception, an exit status other than 0, 1, 2 or a
traceback on stderr. Prints one JSON object, then a table; exits 1 when anything crashed.

The fault families of issue 55 (:mod:`fuzz_faults`: folders whose files disagree, memory
limits, plugin names, two compares or sweeps on one folder, SIGTERM) count *silent losses*
too: data removed without a word. ``--families`` picks some of the kinds by name.

    python benchmarks/fuzz_campaign.py [--levels 2200] [--cli 400] [--solutions 1060]
        [--configs 240] [--seed 17] [--families folder_semantics,sigterm,...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _common import REPO_ROOT, machine, markdown_table
from fuzz_faults import (
    concurrent,
    folder_semantics,
    plugin_names,
    resource_limits,
    sigterm,
    stopped_run,
)
from fuzz_judging import Tally, cli, judge_cli

sys.path.insert(0, str(REPO_ROOT / "tests"))

from fuzz_inputs import (
    DAMAGES,
    mutated_configs,
    mutated_level_files,
    mutated_solutions,
)

from evosoko.config import load_config
from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.sokoban.formats import format_levels, parse_levels, read_levels
from evosoko.sokoban.rules import Board
from evosoko.sokoban.solutions import verify_solution

CLI_COMMANDS = [
    ["levels"],
    ["show", "-l", "1"],
    ["verify", "-l", "1", "--solution", "RR"],
    ["solve", "-l", "1", "--algo", "push-astar", "--time-limit", "2"],
    ["solve", "-l", "1", "--algo", "bfs", "--time-limit", "2"],
]


def level_files(count: int, seed: int, folder: Path) -> Tally:
    tally = Tally()
    for name, data in mutated_level_files(count, seed):
        path = folder / name
        path.write_bytes(data)
        tally.inputs += 1
        try:
            levels = read_levels(path)
            try:
                written = format_levels(levels)
            except EvosokoError:  # a title or note the writer refuses: refused cleanly
                tally.accepted += 1
                continue
            again = parse_levels(written, "written.xsb")
            if [level.key() for level in again] != [level.key() for level in levels]:
                tally.crash(f"{name}: written back, it reads differently")
            else:
                tally.accepted += 1
        except EvosokoError:
            tally.rejected += 1
        except Exception as error:  # noqa: BLE001 - counting crashes is the point
            tally.crash(f"{name}: {type(error).__name__}: {error}")
    return tally


def command_lines(count: int, seed: int, folder: Path) -> Tally:
    tally = Tally()
    files = list(mutated_level_files(max(1, count // len(CLI_COMMANDS)), seed + 1, most_steps=2))
    for number in range(count):
        name, data = files[number // len(CLI_COMMANDS) % len(files)]
        command = CLI_COMMANDS[number % len(CLI_COMMANDS)]
        path = folder / f"cli-{name}"
        path.write_bytes(data)
        judge_cli(tally, cli(command[0], str(path), *command[1:]), f"{' '.join(command)} {name}")
    return tally


def solutions(count: int, seed: int) -> Tally:
    tally = Tally()
    levels = read_levels(REPO_ROOT / "levels" / "seeds.xsb")
    for number, text in enumerate(mutated_solutions(count, seed)):
        level = levels[number % len(levels)]
        tally.inputs += 1
        try:
            result = verify_solution(level, text)
        except EvosokoError:
            tally.rejected += 1
            continue
        except Exception as error:  # noqa: BLE001
            tally.crash(f"{text!r}: {type(error).__name__}: {error}")
            continue
        if result.valid:
            board = Board(level)
            replayed = all(board.step("udlr".index(letter.lower())) for letter in result.lurd)
            if not replayed or board.is_solved() != result.solved:
                tally.crash(f"{text!r}: verify and an independent replay disagree")
                continue
            tally.accepted += 1
        else:
            tally.rejected += 1  # an illegal step, named
    return tally


def configurations(count: int, seed: int, folder: Path, runs: int) -> Tally:
    tally = Tally()
    for number, (name, data) in enumerate(mutated_configs(count, seed)):
        path = folder / name
        path.write_bytes(data)
        if number < runs:  # the whole command: load, then a short run
            judge_cli(
                tally,
                cli(
                    "run",
                    str(path),
                    "--set",
                    f"output.dir={folder / 'runs'}",
                    "--set",
                    "run.budget.seconds=3",
                    "--set",
                    "run.budget.generations=5",
                    "--set",
                    "run.select=[1]",
                    "--quiet",
                ),
                f"run {name}",
            )
            continue
        tally.inputs += 1
        try:
            load_config(path)
            tally.accepted += 1
        except EvosokoError:
            tally.rejected += 1
        except Exception as error:  # noqa: BLE001
            tally.crash(f"{name}: {type(error).__name__}: {error}")
    return tally


def damaged_folders(folder: Path) -> Tally:
    tally = Tally()
    stopped = stopped_run(folder / "stopped", [])
    for name, damage in DAMAGES.items():
        copy = folder / f"damaged-{name}"
        shutil.copytree(stopped, copy)
        damage(copy)
        completed = cli("run", "--resume", str(copy), "--quiet")
        judge_cli(tally, completed, f"resume after {name}")
        summary = copy / "summary.json"
        if completed.returncode == 0 and name.startswith(("checkpoint-gene", "metrics-")):
            tally.crash(f"{name}: resumed although the folder was damaged")
        if completed.returncode == 2 and summary.is_file():
            try:
                status = json.loads(summary.read_text()).get("status")
            except (ValueError, AttributeError):
                status = None
            if status == "running":
                tally.crash(f"{name}: refused, but the summary still says running")
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, default=2200, help="mutated level files")
    parser.add_argument("--cli", type=int, default=400, help="command lines on level files")
    parser.add_argument("--solutions", type=int, default=1060, help="solution strings")
    parser.add_argument("--configs", type=int, default=240, help="mutated configurations")
    parser.add_argument("--runs", type=int, default=40, help="of which run as `evosoko run`")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument(
        "--families", default="", help="comma-separated kinds to run (default: every kind)"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", EvosokoWarning)
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="evosoko-fuzz-"))
    families = {
        "level_files": lambda: level_files(args.levels, args.seed, folder),
        "command_lines": lambda: command_lines(args.cli, args.seed, folder),
        "solutions": lambda: solutions(args.solutions, args.seed),
        "configurations": lambda: configurations(args.configs, args.seed, folder, args.runs),
        "damaged_run_folders": lambda: damaged_folders(folder),
        "folder_semantics": lambda: folder_semantics(folder),
        "resource_limits": lambda: resource_limits(folder),
        "plugin_names": lambda: plugin_names(folder),
        "concurrent": lambda: concurrent(folder),
        "sigterm": lambda: sigterm(folder, args.seed),
    }
    chosen = [name for name in args.families.split(",") if name] or list(families)
    unknown = sorted(set(chosen) - set(families))
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {', '.join(families)}")
    try:
        tallies = {name: families[name]() for name in chosen}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = {
        "benchmark": "fuzz_campaign",
        "seed": args.seed,
        "kinds": {name: tally.as_dict() for name, tally in tallies.items()},
        "crashes": sum(sum(t.crashes.values()) for t in tallies.values()),
        "silent_losses": sum(sum(t.losses.values()) for t in tallies.values()),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "machine": machine(),
    }
    print(json.dumps(report))
    print()
    rows = [{"kind": name, **data} for name, data in report["kinds"].items()]
    print(
        markdown_table(
            [
                ("inputs", "kind"),
                ("count", "inputs"),
                ("accepted", "accepted"),
                ("clean rejections", "clean_rejections"),
                ("crashes", "crashes"),
                ("silent losses", "silent_losses"),
            ],
            rows,
        )
    )
    raise SystemExit(1 if report["crashes"] or report["silent_losses"] else 0)


if __name__ == "__main__":
    main()
