"""``evosoko compare``: solvers × levels × seeds under one budget per level, resumably.

A comparison file (TOML) has a ``[compare]`` table (name, level file, selection, seeds,
budget), a ``[parallel]`` table (the job backend) and one ``[[solver]]`` table per solver:

- ``kind = "ga"``: a GA preset, ``config`` = a run configuration file (default: the built-in
  defaults) and ``set`` = ``KEY=VALUE`` overrides on it; run once per seed.
- ``kind = "search"``: a classical search, ``algorithm`` (``bfs``, ``astar``, ``push-astar``,
  ...) with ``heuristic``, ``weight`` and pruning switches; deterministic searches run once
  per level, the shuffling ``random`` once per seed.

Every job gets the same wall-clock budget (``budget.seconds``) and its solver's own budget
(``budget.evaluations`` for the GA, ``budget.nodes`` expanded for search). The output folder
holds ``compare.toml`` (the resolved comparison), ``journal.jsonl`` (one line per finished job:
a rerun skips those), ``results.csv`` (one row per job), ``summary.md`` / ``summary.json``
(per solver: solve rate, median time to solve, ERT, median moves and pushes, each with its
95 % interval, and paired tests between solvers), ``ioh/`` (the runs in IOHprofiler's format,
:mod:`evosoko.experiment.ioh`) and ``plots/``.
A job's key holds a digest of its settings, so changing a solver or the budget reruns it.
Every stored solution is replay-verified here, in the parent process.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import tomli_w
from pydantic import Field, PrivateAttr, field_validator, model_validator

from evosoko.config import OVERRIDE_SOURCE, Config, dump_config, load_config
from evosoko.errors import ConfigError, EvosokoError, EvosokoWarning, LevelFormatError
from evosoko.evolve.dask_cluster import check_backend_reachable
from evosoko.experiment.atomic import write_json_atomic, write_text_atomic
from evosoko.experiment.ioh import IOH_DIR, write_comparison_ioh
from evosoko.experiment.jobs import Job, Journal, make_backend, run_jobs
from evosoko.experiment.metrics import SolverSummary, summarise
from evosoko.experiment.report import Throttle, refresh_report
from evosoko.experiment.runfolder import make_output_folder, output_folder
from evosoko.experiment.settings import (
    Section,
    check_same_experiment,
    load_model,
    locate,
    resolve_path,
    selection_error,
)
from evosoko.experiment.statistics import (
    Interval,
    Uncertainty,
    comparison_uncertainty,
    methods_markdown,
    paired_tests_markdown,
)
from evosoko.experiment.warmup import warm_up_config, warm_up_for
from evosoko.search.algorithms import ALGORITHMS
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution

__all__ = [
    "RESULT_COLUMNS",
    "CompareConfig",
    "CompareOutcome",
    "load_compare_config",
    "run_compare",
]

CONFIG_FILE = "compare.toml"
JOURNAL_FILE = "journal.jsonl"
RESULTS_FILE = "results.csv"
SUMMARY_MD = "summary.md"
SUMMARY_JSON = "summary.json"
PLOTS_DIR = "plots"

RESULT_COLUMNS = (
    "solver",
    "kind",
    "level_index",
    "level",
    "seed",
    "status",
    "solved",
    "seconds",
    "unit",
    "used",
    "moves",
    "pushes",
    "solution",
)
"""``seconds``/``used``: wall time and evaluations (GA) or expanded nodes (search) spent, i.e.
the time and cost to solve when ``solved`` is 1; ``seed`` is empty for deterministic search."""

UNITS = {"ga": "evaluations", "search": "nodes"}

REPORT_SECONDS = 20.0
"""While jobs finish, the result files and report.html are rewritten at most this often."""


# ---- configuration ------------------------------------------------------------------------------


class CompareBudget(Section):
    """The budget of every job (one solver on one level with one seed)."""

    seconds: float = Field(default=60.0, gt=0, description="Wall-clock seconds per job.")
    evaluations: int | None = Field(
        default=None, ge=1, description="Fitness evaluations per GA job (unset: no limit)."
    )
    nodes: int | None = Field(
        default=None, ge=1, description="Expanded nodes per search job (unset: no limit)."
    )


class CompareSettings(Section):
    """Name, levels, seeds and budget of a comparison."""

    name: str = Field(default="compare", min_length=1, description="Used in the folder name.")
    levels: str = Field(description="Level file (relative: current directory, then this file's).")
    select: list[str | int] = Field(
        default_factory=list,
        description="Titles or 1-based indices (#N: the N-th level, title:T: the level titled T; "
        "empty: all levels).",
    )
    first: int | None = Field(default=None, ge=1, description="Keep the first N selected levels.")
    seeds: list[int] = Field(
        default_factory=lambda: [0], min_length=1, description="Seeds of stochastic solvers."
    )
    budget: CompareBudget = Field(default_factory=CompareBudget, description="Per-job budget.")

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, seeds: list[int]) -> list[int]:
        if len(set(seeds)) != len(seeds):
            raise ValueError("seeds must be distinct")
        return seeds


class GASolver(Section):
    """A GA preset: a run configuration file plus overrides."""

    kind: Literal["ga"]
    name: str | None = Field(default=None, min_length=1, description="Label (default: file stem).")
    config: str | None = Field(default=None, description="Run configuration (default: defaults).")
    set: list[str] = Field(default_factory=list, description="KEY=VALUE overrides on it.")

    @property
    def label(self) -> str:
        """The solver's name in tables and plots."""
        return self.name or (Path(self.config).stem if self.config else "ga")


class SearchSolver(Section):
    """A classical search and its parameters."""

    kind: Literal["search"]
    name: str | None = Field(default=None, min_length=1, description="Label (default: algorithm).")
    algorithm: str = Field(description="One of evosoko.search.ALGORITHMS.")
    heuristic: str | None = Field(default=None, description="Heuristic (default: the algorithm's).")
    weight: float = Field(default=3.0, ge=1, description="Heuristic weight of push-wastar.")
    freeze: bool = Field(default=True, description="Prune freeze deadlocks (push searches).")
    corrals: bool = Field(default=True, description="PI-corral pruning (push searches).")

    @field_validator("algorithm")
    @classmethod
    def _known(cls, algorithm: str) -> str:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm; known: {', '.join(ALGORITHMS)}")
        return algorithm

    @model_validator(mode="after")
    def _heuristic_fits(self) -> SearchSolver:
        allowed = ALGORITHMS[self.algorithm].heuristics
        if self.heuristic is not None and self.heuristic not in allowed:
            raise ValueError(
                f"heuristic {self.heuristic!r} does not fit {self.algorithm}; use one of "
                + ", ".join(allowed)
            )
        return self

    @property
    def label(self) -> str:
        """The solver's name in tables and plots."""
        return self.name or self.algorithm

    @property
    def stochastic(self) -> bool:
        """True when the search depends on its seed (so it runs once per seed)."""
        return ALGORITHMS[self.algorithm].shuffle


class JobsParallel(Section):
    """Where the jobs run; results do not depend on it (wall-clock limits aside)."""

    backend: Literal["serial", "processes", "dask"] = Field(
        default="serial",
        description="Job backend: serial, processes (a local pool) or dask (each job a task on "
        "a Dask cluster: give address or local_workers; needs pip install 'evosoko[dask]').",
    )
    workers: int = Field(default=2, ge=1, description="Processes of the processes backend.")
    address: str | None = Field(
        default=None, description="dask: the scheduler to use, such as tcp://HOST:8786."
    )
    local_workers: int | None = Field(
        default=None, ge=1, description="dask: start a local cluster of this many workers."
    )

    @model_validator(mode="after")
    def _dask_target(self) -> JobsParallel:
        if self.backend == "dask" and (self.address is None) == (self.local_workers is None):
            raise ValueError("backend 'dask' needs exactly one of address or local_workers")
        return self


Solver = Annotated[GASolver | SearchSolver, Field(discriminator="kind")]


class CompareConfig(Section):
    """A whole comparison file."""

    compare: CompareSettings
    parallel: JobsParallel = Field(default_factory=JobsParallel)
    solver: list[Solver] = Field(min_length=1, description="The solvers, in table order.")
    _source: tuple[str, str] | None = PrivateAttr(default=None)
    """The file and its text, to point at the line of a bad GA override."""

    @model_validator(mode="after")
    def _unique_labels(self) -> CompareConfig:
        labels = [solver.label for solver in self.solver]
        for label in labels:
            if labels.count(label) > 1:
                raise ValueError(f"two solvers are called {label!r}; give them distinct names")
        return self


def load_compare_config(
    path: str | Path, overrides: list[str] | tuple[str, ...] = ()
) -> CompareConfig:
    """Read and validate a comparison file; relative paths in it become absolute."""
    config, text = load_model(CompareConfig, path, overrides)
    base = Path(path).parent
    settings = config.compare.model_copy(
        update={"levels": resolve_path(config.compare.levels, base)}
    )
    solvers = [
        solver.model_copy(update={"config": resolve_path(solver.config, base)})
        if isinstance(solver, GASolver) and solver.config
        else solver
        for solver in config.solver
    ]
    resolved = config.model_copy(update={"compare": settings, "solver": solvers})
    resolved._source = (str(path), text)  # for error lines of GA overrides
    return resolved


def dump_compare_config(config: CompareConfig) -> str:
    """The comparison as TOML; :func:`load_compare_config` reads it back equal."""
    return tomli_w.dumps(config.model_dump(exclude_none=True))


# ---- jobs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelEntry:
    """A level of the comparison with its 1-based index in its file."""

    index: int
    level: Level


def comparison_levels(
    settings: CompareSettings,
    source: tuple[str, str | None] | None = None,
    keys: tuple[str, ...] = ("compare", "select"),
    *,
    strict: bool = False,
) -> list[LevelEntry]:
    """The selected levels (``first`` applied), each with its index in the file.

    A selection that names no level, or an ambiguous one, is a :class:`ConfigError` at the
    line of ``keys`` in ``source`` (the file and its text); ``strict``: an invalid level in
    the level file is an error, not a warning.
    """
    levels = read_levels(settings.levels, strict=strict)
    try:
        chosen = select_levels(levels, settings.select) if settings.select else levels
    except LevelFormatError:  # the selected level itself is invalid: its own file and line
        raise
    except EvosokoError as error:
        path, text = source if source is not None else (None, None)
        raise selection_error(error, keys, settings.select, path, text) from None
    if settings.first is not None:
        chosen = chosen[: settings.first]
    entries: dict[int, LevelEntry] = {}
    for level in chosen:  # a level selected twice runs once
        index = level.index if level.index is not None else 1
        entries.setdefault(index, LevelEntry(index, level))
    return list(entries.values())


def ga_config(
    solver: GASolver,
    budget: CompareBudget,
    source: tuple[str, str] | None = None,
    position: int = 0,
) -> Config:
    """The GA preset's run configuration with the comparison's budget, evaluated serially
    in its job (the jobs themselves run in parallel), without plots or checkpoints."""
    budget_overrides = [
        f"run.budget.seconds={budget.seconds!r}",
        f"run.budget.evaluations={budget.evaluations if budget.evaluations else 'none'}",
        "run.budget.generations=none",
        "parallel.backend=serial",
        "output.plots=false",
        "output.checkpoint_every=0",
    ]
    try:
        return load_config(solver.config, [*solver.set, *budget_overrides])
    except ConfigError as error:
        if error.path != OVERRIDE_SOURCE or source is None:
            raise
        raise ConfigError(
            f"solver {solver.label!r}: {error.message}",
            source[0],
            locate(source[1], ("solver", position, "set")),
        ) from None


def plan_jobs(config: CompareConfig, levels: list[LevelEntry]) -> list[Job]:
    """Every (solver, level, seed) job, in a fixed order: solver, then level, then seed."""
    budget = config.compare.budget
    jobs = []
    for position, solver in enumerate(config.solver):
        if isinstance(solver, GASolver):
            run_config = ga_config(solver, budget, config._source, position)
            settings: dict[str, Any] = {"kind": "ga", "config": dump_config(run_config)}
            seeds: list[int | None] = list(config.compare.seeds)
        else:
            settings = {
                "kind": "search",
                "algorithm": solver.algorithm,
                "heuristic": solver.heuristic,
                "weight": solver.weight,
                "freeze": solver.freeze,
                "corrals": solver.corrals,
                "seconds": budget.seconds,
                "nodes": budget.nodes,
            }
            seeds = list(config.compare.seeds) if solver.stochastic else [None]
        for entry in levels:
            rows, title = entry.level.rows(), entry.level.title
            digest = _digest(settings, rows, title)
            for seed in seeds:
                payload = {
                    **settings,
                    "rows": rows,
                    "title": title,
                    "seed": seed,
                    "solver": solver.label,
                    "level_index": entry.index,
                }
                key = f"{solver.label}|{entry.index}|{'-' if seed is None else seed}|{digest}"
                jobs.append(Job(key, payload))
    return jobs


def _digest(settings: dict, rows: list[str], title: str | None) -> str:
    text = json.dumps([settings, rows, title], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


_LEVEL_CACHE: dict[tuple, Level] = {}


def _level(payload: dict) -> Level:
    key = (tuple(payload["rows"]), payload["title"])
    if key not in _LEVEL_CACHE:
        _LEVEL_CACHE[key] = level_from_rows(payload["rows"], title=payload["title"])
    return _LEVEL_CACHE[key]


def run_job(payload: dict) -> dict:
    """Run one job (in a worker); returns its outcome as plain values."""
    level = _level(payload)
    if payload["kind"] == "ga":
        return _run_ga(level, payload)
    return _run_search(level, payload)


def _run_ga(level: Level, payload: dict) -> dict:
    import tomllib

    from evosoko.config import Config
    from evosoko.evolve import evolve_level, make_evaluator

    config = Config.model_validate(tomllib.loads(payload["config"]))
    warm_up_config(config)  # compiled before the clock starts (once per process)
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        outcome = evolve_level(level, config, evaluator=evaluator, seed=payload["seed"])
    return {
        "status": outcome.stop_reason,
        "solved": outcome.solved,
        "seconds": outcome.seconds,
        "used": outcome.evaluations,
        "moves": outcome.moves,
        "pushes": outcome.pushes,
        "solution": outcome.solution_lurd,
    }


def _run_search(level: Level, payload: dict) -> dict:
    from evosoko.search import Pruning, solve

    result = solve(
        level,
        payload["algorithm"],
        heuristic=payload["heuristic"],
        time_limit=payload["seconds"],
        node_limit=payload["nodes"],
        weight=payload["weight"],
        pruning=Pruning(freeze=payload["freeze"], corrals=payload["corrals"]),
        seed=payload["seed"] or 0,
    )
    return {
        "status": result.status,
        "solved": result.solved,
        "seconds": result.seconds,
        "used": result.expanded,
        "moves": result.moves if result.solved else None,
        "pushes": result.pushes if result.solved else None,
        "solution": result.solution,
    }


def result_row(job: Job, result: dict, level: Level) -> dict[str, Any]:
    """The ``results.csv`` row of a finished job, its solution replay-verified against the level.

    A job that failed (``error``) or whose solution does not solve the level counts as unsolved
    with status ``error`` / ``rejected`` and a warning.
    """
    payload = job.payload
    row = {
        "solver": payload["solver"],
        "kind": payload["kind"],
        "level_index": payload["level_index"],
        "level": level.name,
        "seed": payload["seed"],
        "unit": UNITS[payload["kind"]],
        "status": "error",
        "solved": False,
        "seconds": 0.0,
        "used": 0,
        "moves": None,
        "pushes": None,
        "solution": None,
    }
    if "error" in result:
        warnings.warn(EvosokoWarning(f"job {job.key} failed: {result['error']}"), stacklevel=2)
        return row
    row.update(
        {
            k: result[k]
            for k in ("status", "solved", "seconds", "used", "moves", "pushes", "solution")
        }
    )
    if row["solved"]:
        check = verify_solution(level, row["solution"] or "")
        if not (check.valid and check.solved):
            warnings.warn(
                EvosokoWarning(
                    f"job {job.key}: its solution does not solve level {level.name}: {check.error}"
                ),
                stacklevel=2,
            )
            row.update(status="rejected", solved=False, moves=None, pushes=None, solution=None)
        else:
            row.update(moves=check.moves, pushes=check.pushes, solution=check.lurd)
    return row


# ---- running ------------------------------------------------------------------------------------


@dataclass
class CompareOutcome:
    """What :func:`run_compare` produced. ``complete`` is False when it stopped early."""

    folder: Path
    rows: list[dict[str, Any]]
    summaries: list[SolverSummary]
    jobs: int
    resumed: int
    complete: bool


ProgressCallback = Callable[[int, int, dict | None], None]
"""``progress(done, total, row)``: ``row`` is None for the first call (jobs already done)."""


def compare_folder(
    config: CompareConfig, out: str | Path | None, parent: str | Path = "runs"
) -> Path:
    """``out`` if given, else a new folder under ``parent`` named like a run's."""
    return output_folder(config.compare.name, out, parent)


def run_compare(
    config: CompareConfig,
    folder: str | Path,
    *,
    progress: ProgressCallback | None = None,
    stop_after: int | None = None,
    plots: bool = True,
    strict: bool = False,
) -> CompareOutcome:
    """Run (or resume) the comparison in ``folder`` and write its files.

    Jobs already in ``folder/journal.jsonl`` are not run again. A folder that holds a
    different comparison (other than in ``[parallel]``) is refused with a :class:`ConfigError`
    naming the keys that differ. ``stop_after``: stop after that many new jobs (the files then
    describe the jobs done so far; ``complete`` is False). ``strict``: an invalid level in the
    level file is an error, not a warning.
    """
    folder = Path(folder)
    stored = folder / CONFIG_FILE
    check_same_experiment(
        folder,
        load_compare_config(stored) if stored.is_file() else None,
        config,
        "compare",
        "comparison",
    )
    levels = comparison_levels(config.compare, config._source, strict=strict)
    if not levels:
        raise ConfigError("the comparison selects no levels", config.compare.levels)
    jobs = plan_jobs(config, levels)
    check_backend_reachable(config.parallel)  # before anything is written
    make_output_folder(folder)
    write_text_atomic(folder / CONFIG_FILE, dump_compare_config(config))
    level_of = {entry.index: entry.level for entry in levels}
    rows: dict[str, dict] = {}
    counts = {"resumed": 0, "done": 0}
    report_due = Throttle(REPORT_SECONDS)

    def on_result(job: Job, result: dict, resumed: bool) -> None:
        rows[job.key] = result_row(job, result, level_of[job.payload["level_index"]])
        counts["done"] += 1
        counts["resumed"] += resumed
        if progress is not None and not resumed:
            progress(counts["done"], len(jobs), rows[job.key])
        if not resumed and report_due.due():  # the files and report.html show the progress
            done = [rows[job.key] for job in jobs if job.key in rows]
            write_compare_files(folder, config, done, len(jobs), plots=False)

    warm_up = functools.partial(
        warm_up_for,
        [ga_config(s, config.compare.budget) for s in config.solver if isinstance(s, GASolver)],
        [s.algorithm for s in config.solver if isinstance(s, SearchSolver)],
    )
    warm_up()  # compiled once here, before any job's clock; forked workers inherit it
    parallel = config.parallel
    backend = make_backend(
        parallel.backend,
        parallel.workers,
        address=parallel.address,
        local_workers=parallel.local_workers,
        warm_up=warm_up,
    )
    journal = Journal(folder / JOURNAL_FILE)
    if progress is not None:
        already = len([job for job in jobs if job.key in journal.finished()])
        progress(already, len(jobs), None)
    try:
        run_jobs(
            jobs, run_job, backend, journal=journal, on_result=on_result, stop_after=stop_after
        )
    finally:
        ordered = [rows[job.key] for job in jobs if job.key in rows]
        summaries = write_compare_files(folder, config, ordered, len(jobs), plots=plots)
        write_comparison_ioh(folder / IOH_DIR, config, ordered, level_of)
    complete = len(ordered) == len(jobs) and all(row["status"] != "error" for row in ordered)
    return CompareOutcome(folder, ordered, summaries, len(jobs), counts["resumed"], complete)


def write_compare_files(
    folder: Path, config: CompareConfig, rows: list[dict], total_jobs: int, *, plots: bool = True
) -> list[SolverSummary]:
    """Write ``results.csv``, ``summary.md``, ``summary.json`` and (optionally) the plots."""
    budget = config.compare.budget
    unit_budgets = {"evaluations": budget.evaluations, "nodes": budget.nodes}
    summaries = summarise(rows, budget.seconds, unit_budgets)
    uncertainty = comparison_uncertainty(
        rows, budget.seconds, unit_budgets, [s.label for s in config.solver]
    )
    write_text_atomic(folder / RESULTS_FILE, results_csv(rows))
    write_text_atomic(
        folder / SUMMARY_MD,
        summary_markdown(config, summaries, len(rows), total_jobs, uncertainty),
    )
    write_json_atomic(
        folder / SUMMARY_JSON,
        summary_json(folder, config, summaries, len(rows), total_jobs, uncertainty),
    )
    if plots and rows:
        from evosoko.experiment.figures import draw_compare

        draw_compare(folder, rows, budget.seconds, unit_budgets, [s.label for s in config.solver])
    refresh_report(folder)
    return summaries


def results_csv(rows: list[dict]) -> str:
    """``results.csv`` text: a header, then one line per job."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in rows:
        writer.writerow([_cell(row[column]) for column in RESULT_COLUMNS])
    return buffer.getvalue()


def read_results_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a ``results.csv`` with typed values (the inverse of :func:`results_csv`)."""
    rows = []
    with open(path, encoding="utf-8", newline="") as stream:
        for raw in csv.DictReader(stream):
            rows.append(
                {
                    **raw,
                    "level_index": int(raw["level_index"]),
                    "seed": int(raw["seed"]) if raw["seed"] else None,
                    "solved": raw["solved"] == "1",
                    "seconds": float(raw["seconds"]),
                    "used": int(raw["used"]),
                    "moves": int(raw["moves"]) if raw["moves"] else None,
                    "pushes": int(raw["pushes"]) if raw["pushes"] else None,
                    "solution": raw["solution"] or None,
                }
            )
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def summary_markdown(
    config: CompareConfig,
    summaries: list[SolverSummary],
    done: int,
    total: int,
    uncertainty: Uncertainty | None = None,
) -> str:
    """``summary.md``: the setting, a table with one line per solver (each figure with its
    95 % interval [low, high]), the paired tests between solvers and how they were made."""
    intervals = uncertainty.intervals if uncertainty else {}
    settings, budget = config.compare, config.compare.budget
    limits = [f"{budget.seconds:g} s"]
    if budget.evaluations:
        limits.append(f"{budget.evaluations:,} evaluations (GA)")
    if budget.nodes:
        limits.append(f"{budget.nodes:,} expanded nodes (search)")
    lines = [
        f"# Comparison: {settings.name}",
        "",
        f"Levels: {_level_description(settings)}; seeds {', '.join(map(str, settings.seeds))} "
        "(stochastic solvers); budget per job: " + ", ".join(limits) + ".",
        "",
        (
            "| solver | runs | solved | solve rate | median s to solve | ERT s | ERT (own unit) "
            "| median moves | median pushes |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        ci = intervals.get(s.solver)
        ert_units = "–" if s.ert_units is None else f"{_number(s.ert_units)} {s.unit}"
        if s.ert_units is not None and ci:
            ert_units += _bracket(ci.ert_units)
        lines.append(
            f"| {s.solver} | {s.runs} | {s.solved} "
            f"| {100 * s.solve_rate:.0f}%{_bracket(ci and ci.solve_rate, percent=True)} "
            f"| {_number(s.median_seconds, 3)}{_bracket(ci and ci.median_seconds, 3)} "
            f"| {_number(s.ert_seconds, 3)}{_bracket(ci and ci.ert_seconds, 3)} | {ert_units} "
            f"| {_number(s.median_moves)}{_bracket(ci and ci.median_moves)} "
            f"| {_number(s.median_pushes)}{_bracket(ci and ci.median_pushes)} |"
        )
    lines += [
        "",
        "Medians are over solved runs. ERT (expected running time) = the total cost of all runs, "
        "a failed run counted at the full budget of that measure (" + "; ".join(limits) + ") even "
        "when another limit stopped it first, divided by the number of solved runs. "
        "[low, high]: the 95 % confidence interval.",
    ]
    if uncertainty and uncertainty.tests:
        lines += ["", *paired_tests_markdown(uncertainty.tests)]
    if uncertainty:
        lines += ["", *methods_markdown()]
    if done < total:
        lines += ["", f"**Incomplete:** {done} of {total} jobs finished; resume to finish."]
    return "\n".join(lines) + "\n"


def _bracket(interval: Interval | None, digits: int = 0, *, percent: bool = False) -> str:
    """`` [low, high]`` after a figure, or nothing when the interval is unknown."""
    if not interval or not interval.known:
        return ""
    if percent:
        return f" [{100 * interval.low:.0f}%, {100 * interval.high:.0f}%]"
    return f" [{_number(interval.low, digits)}, {_number(interval.high, digits)}]"


def _level_description(settings: CompareSettings) -> str:
    text = Path(settings.levels).name
    if settings.select:
        text += f" (selected: {len(settings.select)})"
    if settings.first:
        text += f", first {settings.first}"
    return text


def _number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "∞"
    if digits == 0:
        return f"{value:,.0f}" if abs(value) >= 10 else f"{value:g}"
    return f"{value:.{digits}g}" if value < 1000 else f"{value:,.0f}"


def summary_json(
    folder: Path,
    config: CompareConfig,
    summaries: list[SolverSummary],
    done: int,
    total: int,
    uncertainty: Uncertainty | None = None,
) -> dict[str, Any]:
    """The summary as JSON-ready data (``--json`` prints it); infinities become None.
    ``intervals``: per solver, ``[low, high]`` of each figure; ``paired_tests``: one object
    per test (see :class:`evosoko.experiment.statistics.PairedTest`)."""
    intervals = uncertainty.intervals if uncertainty else {}

    def finite(value: float | None) -> float | None:
        return None if value is None or not math.isfinite(value) else value

    return {
        "compare_dir": str(folder),
        "name": config.compare.name,
        "jobs": total,
        "finished": done,
        "solvers": [
            {
                "solver": s.solver,
                "unit": s.unit,
                "runs": s.runs,
                "solved": s.solved,
                "solve_rate": s.solve_rate,
                "median_seconds": s.median_seconds,
                "median_units": s.median_units,
                "ert_seconds": finite(s.ert_seconds),
                "ert_units": finite(s.ert_units),
                "median_moves": s.median_moves,
                "median_pushes": s.median_pushes,
                "intervals": intervals[s.solver].as_dict() if s.solver in intervals else None,
            }
            for s in summaries
        ],
        "paired_tests": [test.as_dict() for test in uncertainty.tests] if uncertainty else [],
    }
