"""The fault families of issue 55 in the fuzz campaign: damage, limits, names, races, signals.

Each family returns a :class:`~fuzz_judging.Tally`; every random choice comes from
``random.Random(seed)``.

- ``folder_semantics``: the damages of ``tests/fuzz_inputs.SEMANTIC_DAMAGES`` (files that still
  read but disagree: the three resume cases of issue 55, truncated and edited metrics, a
  checkpoint of another level, the manifest, results) on two stopped runs, one population and
  islands, each resumed by ``evosoko run --resume``. A silent loss: a resume that exited 0
  with a metrics row of the stopped run missing and no ``warning:`` naming metrics.csv, or a
  refused resume that changed metrics.csv.
- ``resource_limits``: ``solve``, ``show --png`` and ``run`` under an address-space limit set
  in the child (``resource.setrlimit(RLIMIT_AS)``, as ``ulimit -v`` does).
- ``plugin_names``: hostile part names (``../x:y``, ``.x:y``, ``os:getpid``, a module that
  raises, one with a syntax error) for a mutation and a crossover: each one ``error:`` line.
- ``concurrent``: a second ``compare`` or ``sweep`` on a folder in use is refused; the first,
  stopped by SIGTERM and resumed, journals every job once.
- ``sigterm``: SIGTERM to ``run``, ``compare`` and ``sweep`` after a seeded delay: a clean
  stop, then a resume that ends complete with every metrics row or journal record kept.
"""

from __future__ import annotations

import csv
import json
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from _common import REPO_ROOT
from fuzz_judging import Tally, cli, cli_environment, judge_cli

from evosoko.experiment.run.records import WALL_CLOCK_COLUMNS
from evosoko.generate.stress import lattice_rows, room_rows

sys.path.insert(0, str(REPO_ROOT / "tests"))

from fuzz_inputs import SEMANTIC_DAMAGES

SEEDS = REPO_ROOT / "levels" / "seeds.xsb"
TINY_RUN = [
    f"run.levels={SEEDS}",
    "run.budget.generations=12",
    "run.budget.seconds=none",
    "output.checkpoint_every=4",
    "output.plots=false",
    "ga.population=30",
    "ga.offspring=30",
    "ga.encoding=moves",
]
ISLANDS = ["ga.islands.count=2", "ga.islands.migration_every=2"]


# ---- damaged folders -----------------------------------------------------------------------------
def folder_semantics(
    folder: Path, names: list[str] | None = None, islands_only: bool = False
) -> Tally:
    """``names``: the damages to apply (default: all); ``islands_only``: only to the islands run."""
    tally = Tally()
    kinds = (("one-population", []), ("islands", ISLANDS))
    for kind, extra in kinds[1:] if islands_only else kinds:
        stopped = stopped_run(folder / kind, extra)
        rows = metrics_rows(stopped)
        for name in names or list(SEMANTIC_DAMAGES):
            damage = SEMANTIC_DAMAGES[name]
            copy = folder / f"{kind}-{name}"
            shutil.copytree(stopped, copy)
            damage(copy)
            before = (copy / "metrics.csv").read_bytes()
            completed = cli("run", "--resume", str(copy), "--quiet", timeout=300)
            label = f"{kind}: {name}"
            judge_cli(tally, completed, label)
            check_rows_kept(tally, label, completed, rows, copy, before)
            shutil.rmtree(copy, ignore_errors=True)
    return tally


def stopped_run(folder: Path, extra: list[str]) -> Path:
    """A run of the three seed levels stopped by Ctrl-C in generation 6 of its second level."""
    from evosoko.config import load_config
    from evosoko.experiment.interrupts import GracefulInterrupts
    from evosoko.experiment.run.progress import NoProgress
    from evosoko.experiment.run.runner import start_run

    class StopAt(NoProgress):
        def __init__(self, interrupts: GracefulInterrupts) -> None:
            self.interrupts, self.level = interrupts, None

        def on_level_start(self, level) -> None:
            self.level = level.index

        def on_generation(self, generation) -> None:
            if self.level == 2 and generation.stats.generation == 6:
                self.interrupts.request()

    config = load_config(None, [*TINY_RUN, f"output.dir={folder}", *extra])
    interrupts = GracefulInterrupts()
    report = start_run(config, progress=StopAt(interrupts), interrupts=interrupts)
    if report.status != "interrupted":
        raise RuntimeError(f"the run to damage did not stop in its second level: {report.status}")
    return report.run_dir


def metrics_rows(run: Path) -> list[tuple[str, ...]]:
    """The rows of metrics.csv without the wall-clock columns."""
    path = run / "metrics.csv"
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as file:
        return [
            tuple(value for key, value in row.items() if key not in WALL_CLOCK_COLUMNS)
            for row in csv.DictReader(file)
        ]


def check_rows_kept(
    tally: Tally,
    label: str,
    completed: subprocess.CompletedProcess,
    rows: list[tuple[str, ...]],
    run: Path,
    before: bytes,
) -> None:
    """A refused resume leaves metrics.csv as it was; one that ran keeps every row of the
    stopped run, or says in a warning which rows of metrics.csv went."""
    path = run / "metrics.csv"
    if completed.returncode == 2:
        if path.exists() and path.read_bytes() != before:
            tally.lose(f"{label}: refused, but metrics.csv changed")
        return
    after = set(metrics_rows(run))
    missing = [row for row in rows if row not in after]
    stated = any(
        line.startswith("warning:") and "metrics.csv" in line
        for line in completed.stderr.splitlines()
    )
    if missing and not stated:
        tally.lose(f"{label}: {len(missing)} of {len(rows)} rows gone without a word")


# ---- resource limits -----------------------------------------------------------------------------
def resource_limits(folder: Path) -> Tally:
    tally = Tally()
    lattice = folder / "lattice-261.xsb"
    lattice.write_text("\n".join(lattice_rows(261)) + "\n")
    room = folder / "room-1000.xsb"
    room.write_text(
        "\n".join(room_rows(1000, 1000, player=(998, 995), box=(998, 996), goal=(998, 997))) + "\n"
    )
    config = write_config(folder / "run-limited.toml", [*TINY_RUN, "run.select=[2]"])
    cases = [
        (1_500_000_000, ["solve", str(lattice), "--algo", "bfs", "--time-limit", "5"]),
        (800_000_000, ["solve", str(lattice), "--algo", "push-astar", "--time-limit", "5"]),
        (800_000_000, ["show", str(room), "-l", "1", "--png", str(folder / "room.png")]),
        (1_500_000_000, ["solve", str(room), "--algo", "push-fess", "--time-limit", "5"]),
        (600_000_000, ["run", str(config), "--set", f"output.dir={folder / 'runs'}", "--quiet"]),
    ]
    for limit, command in cases:
        completed = cli(*command, timeout=600, preexec_fn=_address_space(limit))
        judge_cli(tally, completed, f"ulimit -v {limit // 1000} {command[0]} {command[-1]}")
    return tally


def _address_space(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def write_config(path: Path, overrides: list[str]) -> Path:
    """A run configuration file of ``key=value`` overrides (dotted TOML keys)."""
    path.write_text("\n".join(f"{key} = {value}" for key, value in _toml_pairs(overrides)) + "\n")
    return path


def _toml_pairs(overrides: list[str]) -> list[tuple[str, str]]:
    """``key=value`` overrides as TOML pairs (strings quoted)."""
    pairs = []
    for override in overrides:
        key, value = override.split("=", 1)
        plain = value in ("true", "false") or value.startswith("[")
        try:
            float(value)
            plain = True
        except ValueError:
            pass
        pairs.append((key, value if plain else json.dumps(value)))
    return pairs


# ---- plugin names --------------------------------------------------------------------------------
HOSTILE_NAMES = [
    "../x:y",
    ".x:y",
    "os:getpid",
    "raising_plugin:mutate",
    "broken_plugin:mutate",
    "no_such_module_here:mutate",
    "evosoko:__version__",
]


def plugin_names(folder: Path) -> Tally:
    tally = Tally()
    (folder / "raising_plugin.py").write_text("raise RuntimeError('a plugin that fails')\n")
    (folder / "broken_plugin.py").write_text("def mutate(:\n")
    environment = cli_environment(str(folder))
    config = write_config(folder / "plugins.toml", [*TINY_RUN, "run.budget.generations=2"])
    for key in ("ga.mutation.kind", "ga.crossover.kind"):
        for name in HOSTILE_NAMES:
            completed = cli(
                "run",
                str(config),
                "--set",
                f"output.dir={folder / 'runs'}",
                "--set",
                f"{key}={json.dumps(name)}",
                "--quiet",
                env=environment,
            )
            label = f"{key}={name}"
            judge_cli(tally, completed, label)
            if completed.returncode == 0:
                tally.crash(f"{label}: accepted")
    return tally


# ---- concurrent compare / sweep and SIGTERM ------------------------------------------------------
UNSOLVABLE = '"ga.max_length=4", "ga.initial_length=3"'  # too short to solve: every job runs
COMPARE = f"""
[compare]
levels = "{SEEDS}"
select = ["seed000-case3", "seed004-blog"]
seeds = [1, 2]

[compare.budget]
seconds = 6.0

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.population=20", "ga.offspring=20", {UNSOLVABLE}]
"""
SWEEP = f"""
[sweep]
name = "mini"
method = "grid"
levels = "{SEEDS}"
select = ["seed004-blog"]
seeds = [1]
set = ["ga.population=20", "ga.offspring=20", {UNSOLVABLE}]

[sweep.budget]
seconds = 6

[parameters]
"ga.mutation.replace_rate" = [0.01, 0.1]
"ga.tournament_size" = [2, 4]
"""


def concurrent(folder: Path) -> Tally:
    tally = Tally()
    for command, text in (("compare", COMPARE), ("sweep", SWEEP)):
        config, out, first = _start_experiment(folder, "race", command, text)
        second = cli(command, str(config), "--out", str(out), "--quiet", timeout=300)
        judge_cli(tally, second, f"second {command} on a folder in use")
        if second.returncode != 2 or "is writing this folder" not in second.stderr:
            tally.crash(f"second {command}: not refused as busy (exit {second.returncode})")
        _stop_and_resume(tally, command, first, [command, str(config), "--out", str(out)], out)
    return tally


def sigterm(folder: Path, seed: int) -> Tally:
    tally = Tally()
    rng = random.Random(seed)
    config = write_config(folder / "sigterm-run.toml", TINY_RUN)
    for number in range(2):
        out = folder / f"sigterm-run-{number}"
        started = _start("run", str(config), "--set", f"output.dir={out}", "--quiet")
        time.sleep(rng.uniform(3.0, 8.0))
        run_dirs = sorted(out.glob("*")) if out.exists() else []
        if not run_dirs:  # not started yet: a signal before the folder exists
            _, stderr = _terminate(started)
            judge_cli(tally, _completed(started, stderr), "run: SIGTERM before its folder", True)
            continue
        _stop_and_resume(tally, "run", started, ["run", "--resume", str(run_dirs[0])], run_dirs[0])
    for command, text in (("compare", COMPARE), ("sweep", SWEEP)):
        path, out, started = _start_experiment(folder, "sigterm", command, text)
        time.sleep(rng.uniform(1.0, 6.0))
        _stop_and_resume(tally, command, started, [command, str(path), "--out", str(out)], out)
    return tally


def _start_experiment(
    folder: Path, prefix: str, command: str, text: str
) -> tuple[Path, Path, subprocess.Popen]:
    """``evosoko COMMAND CONFIG --out OUT`` started, once it holds OUT's lock: (CONFIG, OUT,
    the process)."""
    config = folder / f"{prefix}-{command}.toml"
    config.write_text(text)
    out = folder / f"{prefix}-{command}"
    process = _start(command, str(config), "--out", str(out), "--quiet")
    _wait_for_lock(out, process)
    return config, out, process


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evosoko.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_environment(),
    )


def _wait_for_lock(out: Path, process: subprocess.Popen, seconds: float = 300) -> None:
    lock = out / ".lock"
    deadline = time.monotonic() + seconds
    while not (lock.exists() and lock.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def _terminate(process: subprocess.Popen) -> tuple[str, str]:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()


def _completed(process: subprocess.Popen, stderr: str) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(process.args, process.returncode, "", stderr)


def _stop_and_resume(
    tally: Tally, command: str, process: subprocess.Popen, resume: list[str], out: Path
) -> None:
    """SIGTERM ``process``, judge its stop, then resume to the end and judge that: every
    metrics row (a run) or journal record (compare, sweep) of the stopped folder kept, each
    job journaled once."""
    _, stderr = _terminate(process)
    judge_cli(tally, _completed(process, stderr), f"{command}: SIGTERM", signalled=True)
    if process.returncode == 143 and "--resume" not in stderr and command == "run":
        tally.crash(f"{command}: stopped by SIGTERM without saying how to resume")
    kept_rows = metrics_rows(out) if command == "run" else []
    kept_jobs = _journal(out)
    resumed = cli(*resume, "--quiet", timeout=900)
    judge_cli(tally, resumed, f"{command}: resumed after SIGTERM")
    if resumed.returncode != 0:
        return
    if command == "run":
        after = set(metrics_rows(out))
        if any(row not in after for row in kept_rows):
            tally.lose(f"{command}: rows of the stopped run gone after the resume")
        return
    jobs = _journal(out)
    keys = [key for key, _ in jobs]
    if len(keys) != len(set(keys)):
        tally.crash(f"{command}: a job journaled twice")
    if any(record not in jobs for record in kept_jobs):
        tally.lose(f"{command}: journal records of the stopped {command} gone")


def _journal(out: Path) -> list[tuple[str, str]]:
    path = out / "journal.jsonl"
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append((str(record.get("key")), json.dumps(record, sort_keys=True)))
    return records
