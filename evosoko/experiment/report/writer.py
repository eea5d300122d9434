"""``evosoko report``: one self-contained ``report.html`` for a run, a comparison or a sweep.

The report reads only what the folder already holds (and the level file its configuration
names, for the boards) and writes ``report.html`` into it atomically. The page needs no network:
its script, style and images are inline. Data goes in as compact JSON (levels as XSB rows,
solutions as LURD, metrics as arrays); a small script draws the boards, curves and plots on
canvases, so the file stays small however long the solutions are.

- a run (``summary.json`` + ``config.toml``): the configuration, a results table, and per
  level the fitness curves (best so far, best and mean with its spread) and an animated board
  that plays the solution, or the GA's best prefix of an unsolved level;
- a comparison (``compare.toml``): the summary table, the run-time ECDFs (against time and
  each solver's own budget), a strip of who solved what, and per level every solver's
  solution side by side in one player;
- a sweep (``sweep.toml``): the trials table (sortable) and the sweep's figures;
- a level run (``levels.toml``, :mod:`evosoko.levelgen`): the levels it wrote with their
  certificates, each playable, the difficulty curve, the MAP-Elites archive as a grid of its
  elites (click a cell to play it) and the run's figures.

``evosoko run`` and ``evosoko compare`` rewrite the report as they go (:func:`refresh_report`),
so opening it during a long run shows how far it got.
"""

from __future__ import annotations

import contextlib
import csv
import logging
import math
import time
import warnings
from collections.abc import Callable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.clock import utc_stamp
from evosoko.experiment.report.folder_files import (
    compact,
    inline_figures,
    json_number,
    parse_toml,
    read_json,
    read_text,
)
from evosoko.experiment.run.records import board_digest
from evosoko.sokoban.variants import level_rules
from evosoko.status import read_stop

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level

__all__ = [
    "REPORT_FILE",
    "build_report",
    "folder_kind",
    "refresh_report",
    "report_data",
    "run_curves",
    "write_report",
]

log = logging.getLogger(__name__)

REPORT_FILE = "report.html"
MAX_CURVE_POINTS = 300
"""Generations per level kept for the curves; longer runs are summarised in buckets."""

RUN, COMPARE, SWEEP, LEVELS = "run", "compare", "sweep", "levels"


# ---- public API ---------------------------------------------------------------------------------


def folder_kind(folder: str | Path) -> str:
    """``run``, ``compare``, ``sweep`` or ``levels``; :class:`EvosokoError` for anything
    else."""
    path = Path(folder)
    if not path.is_dir():
        raise EvosokoError("no such folder", str(path))
    if (path / "levels.toml").is_file() and (path / "summary.json").is_file():
        return LEVELS
    if (path / "compare.toml").is_file():
        return COMPARE
    if (path / "sweep.toml").is_file():
        return SWEEP
    if (path / "summary.json").is_file() and (path / "config.toml").is_file():
        return RUN
    raise EvosokoError(
        "not a run, comparison, sweep or level run folder (it has no summary.json and "
        "config.toml, compare.toml, sweep.toml or levels.toml)",
        str(path),
    )


def board_pairs(level: Level) -> dict:
    """A given-holes level's pairs for the page's boards: ``{"pairs": [[box cell, hole cell],
    ...]}`` by box number (cells of the level's rows); nothing for a standard level."""
    pairs = level_rules(level).pairs()
    return {"pairs": [list(pair) for pair in pairs]} if pairs else {}


def report_data(folder: str | PathLike[str]) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data (what :func:`build_report` embeds)."""
    path = Path(folder)
    kind = folder_kind(path)
    readers: dict[str, Callable[[Path], dict[str, Any]]] = {
        RUN: _run_data,
        COMPARE: _compare_data,
        SWEEP: _sweep_data,
        LEVELS: _levels_data,
    }
    try:
        data = readers[kind](path)
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # files not as written
        raise EvosokoError(
            f"cannot read this {kind} folder: a file in it is malformed "
            f"({type(error).__name__}: {error})",
            str(path),
        ) from None
    data.update(kind=kind, folder=path.resolve().name, generated=utc_stamp())
    return data


def build_report(folder: str | PathLike[str]) -> str:
    """The report page of ``folder`` as one HTML string."""
    from evosoko.experiment.report.html import render_page

    return render_page(report_data(folder))


def write_report(folder: str | PathLike[str], out: str | PathLike[str] | None = None) -> Path:
    """Write ``report.html`` into ``folder`` (or to ``out``: a file, or a folder to hold
    ``report.html``), atomically, and return its path."""
    path = Path(out) if out is not None else Path(folder) / REPORT_FILE
    if path.is_dir():
        path = path / REPORT_FILE
    write_text_atomic(path, build_report(folder))
    return path


def refresh_report(folder: str | Path) -> Path | None:
    """:func:`write_report` for runs in progress: a failure is logged, never raised, so a
    report can never cost a run its results. Returns the path, or None when it failed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return write_report(folder)
    except Exception:
        log.exception("could not write %s", Path(folder) / REPORT_FILE)
        return None


class Throttle:
    """True at most once per ``seconds`` (for reports rewritten after finished jobs)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._last = -math.inf

    def due(self) -> bool:
        """True (and restart the clock) when ``seconds`` have passed since the last True."""
        now = time.monotonic()
        if now - self._last < self.seconds:
            return False
        self._last = now
        return True


# ---- runs ---------------------------------------------------------------------------------------


def _run_data(folder: Path) -> dict[str, Any]:
    summary = read_json(folder / "summary.json")
    config_text = read_text(folder / "config.toml")
    config = parse_toml(config_text)
    results = {int(entry["index"]): entry for entry in summary.get("levels", [])}
    planned = summary.get("planned") or [
        {"index": index, "level": entry.get("level")} for index, entry in results.items()
    ]
    boards = _run_boards(folder, config, planned)
    lacking = [e for e in results.values() if not e.get("solved") and "best" not in e]
    best_notes = (  # older run folders keep the best prefixes only as Best: notes, if at all
        _best_notes(_solution_entries(folder, planned), folder / "solutions.sok") if lacking else {}
    )
    curves = run_curves(folder / "metrics.csv")
    levels = []
    for item in planned:
        index = int(item["index"])
        result = results.get(index)
        level = boards.get(index)
        levels.append(
            {
                "index": index,
                "name": str(item.get("level") or index),
                "rows": level.rows() if level is not None else None,
                **(board_pairs(level) if level is not None else {}),
                "result": _result_fields(result) if result else None,
                "track": _run_track(result, best_notes.get(index)),
                "curve": curves.get(index),
            }
        )
    totals = summary.get("totals") or {}
    return {
        "title": f"Run {summary.get('name') or folder.name}",
        "status": summary.get("status", "unknown"),
        "seed": summary.get("seed"),
        "levels_file": summary.get("levels_file"),
        "started": summary.get("started"),
        "finished": summary.get("finished"),
        "error": summary.get("error"),
        "totals": totals,
        "config": config_text,
        "levels": levels,
    }


RESULT_FIELDS = (
    "solved",
    "stop_reason",
    "generations",
    "evaluations",
    "seconds",
    "moves",
    "pushes",
    "best_distance",
)


def _result_fields(result: dict[str, Any]) -> dict[str, Any]:
    fields = {
        key: compact(value) if isinstance(value, float) else value
        for key, value in ((key, result.get(key)) for key in RESULT_FIELDS)
    }
    best = result.get("best")
    if isinstance(best, dict) and best.get("distance") is not None:
        fields["best_distance"] = best["distance"]
    with contextlib.suppress(KeyError, ValueError, TypeError):  # an edited summary: as it is
        # "budget: evaluations"; an older summary's word in today's vocabulary
        fields["stop_reason"] = str(read_stop(result["stop_reason"], result.get("exhausted")))
    return fields


def _run_track(result: dict[str, Any] | None, note: dict[str, Any] | None) -> dict | None:
    """What the board plays: the summary's best individual (solution or best prefix), else
    the solution, else a ``Best:`` note of solutions.sok (older run folders hold less)."""
    if result is not None:
        best = result.get("best")
        if isinstance(best, dict) and best.get("lurd") is not None:
            solves = bool(best.get("solved"))
            return {
                "lurd": best["lurd"],
                "solves": solves,
                "label": "solution" if solves else "GA's best prefix",
                "distance": best.get("distance"),
            }
        if result.get("solution"):
            return {"lurd": result["solution"], "solves": True, "label": "solution"}
    if note is not None:
        return note
    return None


def _run_boards(folder: Path, config: dict, planned: Sequence[dict]) -> dict[int, Any]:
    """The run's levels by file index: from the configuration's level file, else from the
    levels ``solutions.sok`` holds (a folder moved away from its level file)."""
    wanted = {int(item["index"]): item.get("board") for item in planned}
    levels_file = (config.get("run") or {}).get("levels")
    boards: dict[int, Any] = {}
    if levels_file:
        try:
            file_levels = _level_file(levels_file)
        except EvosokoError:
            file_levels = []
        for index, digest in wanted.items():
            if 1 <= index <= len(file_levels):
                level = file_levels[index - 1]
                if digest is None or digest == board_digest(level):  # the file is unchanged
                    boards[index] = level
    if len(boards) < len(wanted):
        for index, entry in _solution_entries(folder, planned).items():
            boards.setdefault(index, entry)
    return boards


def _solution_entries(folder: Path, planned: Sequence[dict]) -> dict[int, Any]:
    """The levels of ``solutions.sok`` by the file index of the run's level they stand for:
    the planned level with their title, else the one at their position (untitled levels)."""
    from evosoko.sokoban.formats import read_levels

    path = folder / "solutions.sok"
    if not path.is_file():
        return {}
    try:
        entries = _quietly(read_levels, path)
    except EvosokoError:
        return {}
    by_name = {str(item.get("level")): int(item["index"]) for item in planned}
    indices = set(by_name.values())
    matched: dict[int, Any] = {}
    for entry in entries:
        index = by_name.get(entry.title) if entry.title else None
        if index is None and entry.index in indices:
            index = entry.index
        if index is not None:
            matched.setdefault(index, entry)
    return matched


def _best_notes(entries: dict[int, Any], source: Path) -> dict[int, dict[str, Any]]:
    """The ``Solution:`` or ``Best:`` note of each level of solutions.sok, as a track."""
    from evosoko.play.stored import stored_solution

    notes = {}
    for index, entry in entries.items():
        try:
            stored = stored_solution(entry, str(source))
        except EvosokoError:
            continue
        if stored is not None:
            notes[index] = {
                "lurd": stored.lurd,
                "solves": stored.solves,
                "label": "solution" if stored.solves else "GA's best prefix",
                "distance": stored.distance,
            }
    return notes


_LEVEL_FILES: dict[tuple[str, int, int], list] = {}


def _level_file(path: str) -> list:
    """The levels of a run's level file, read once per version of the file (a run rewrites
    its report after every level)."""
    from evosoko.sokoban.formats import read_levels

    try:
        stat = Path(path).stat()
    except OSError:
        return _quietly(read_levels, path)  # raises the usual error
    key = (str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _LEVEL_FILES:
        _LEVEL_FILES.clear()
        _LEVEL_FILES[key] = _quietly(read_levels, path)
    return _LEVEL_FILES[key]


def _quietly(function: Callable, *args: Any) -> Any:
    """``function(*args)`` with its warnings (solved levels, case mismatches) kept quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


def run_curves(path: Path) -> dict[int, dict[str, list[float | None] | int]]:
    """Per level: generation, evaluations, best so far, best, mean and std of the distance,
    at most :data:`MAX_CURVE_POINTS` points (buckets of generations when there are more)."""
    if not path.is_file():
        return {}
    columns: dict[int, list[tuple[float, ...]]] = {}
    with open(path, encoding="utf-8", newline="") as stream:
        for row in csv.DictReader(stream):
            try:
                point = tuple(
                    float(row[key]) for key in ("generation", "evaluations", "best", "mean", "std")
                )
                index = int(row["level_index"])
            except (KeyError, TypeError, ValueError):  # a row cut short by a crash
                continue
            columns.setdefault(index, []).append(point)
    return {index: _curve(points) for index, points in columns.items()}


def _curve(points: list[tuple[float, ...]]) -> dict[str, list[float | None] | int]:
    best_so_far, running = [], math.inf
    for point in points:
        running = min(running, point[2])
        best_so_far.append(running)
    size = max(1, math.ceil(len(points) / MAX_CURVE_POINTS))
    curve: dict[str, list[float | None]] = {k: [] for k in ("g", "e", "bsf", "best", "mean", "std")}
    for start in range(0, len(points), size):
        bucket = points[start : start + size]
        last = bucket[-1]
        curve["g"].append(compact(last[0]))
        curve["e"].append(compact(last[1]))
        curve["bsf"].append(compact(best_so_far[start + len(bucket) - 1]))
        curve["best"].append(compact(min(point[2] for point in bucket)))
        curve["mean"].append(compact(sum(point[3] for point in bucket) / len(bucket)))
        curve["std"].append(compact(sum(point[4] for point in bucket) / len(bucket)))
    return {**curve, "bucket": size}


# ---- comparisons --------------------------------------------------------------------------------


def _compare_data(folder: Path) -> dict[str, Any]:
    from evosoko.experiment.analysis.markdown import claims, paired_test_cells
    from evosoko.experiment.analysis.metrics import summarise
    from evosoko.experiment.analysis.statistics import comparison_uncertainty
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.files import read_results_csv, summary_cells
    from evosoko.experiment.compare.jobs import comparison_levels, unit_budgets

    config_text = read_text(folder / "compare.toml")
    config = load_compare_config(folder / "compare.toml")
    settings, budget = config.compare, config.compare.budget
    rows = read_results_csv(folder / "results.csv") if (folder / "results.csv").is_file() else []
    solvers = [solver.label for solver in config.solver]
    units = [solver.unit for solver in config.solver]
    try:
        entries = comparison_levels(settings)
        level_error = None
    except EvosokoError as error:
        entries, level_error = [], str(error)
    levels: list[dict[str, Any]] = [
        {
            "index": entry.index,
            "name": entry.level.name,
            "rows": entry.level.rows(),
            **board_pairs(entry.level),
        }
        for entry in entries
    ]
    known = {entry.index for entry in entries}
    for row in rows:  # levels the file no longer has: tables only, no board
        if row["level_index"] not in known:
            known.add(row["level_index"])
            levels.append({"index": row["level_index"], "name": row["level"], "rows": None})
    levels.sort(key=lambda level: level["index"])
    statuses = sorted({row["status"] for row in rows})
    solver_position = {label: position for position, label in enumerate(solvers)}
    jobs = [
        [
            solver_position.get(row["solver"], -1),
            row["level_index"],
            row["seed"],
            1 if row["solved"] else 0,
            compact(row["seconds"]),
            row["used"],
            row["moves"],
            row["pushes"],
            statuses.index(row["status"]),
            row["solution"],
        ]
        for row in rows
        if row["solver"] in solver_position
    ]
    summaries = summarise(rows, budget.seconds, unit_budgets(budget))
    uncertainty = (
        comparison_uncertainty(rows, budget.seconds, unit_budgets(budget), solvers)
        if rows
        else None
    )  # the intervals and tests of summary.md, computed the same way
    intervals = uncertainty.intervals if uncertainty else {}
    planned = _planned_jobs(config, len(entries))
    return {
        "title": f"Comparison {settings.name}",
        "status": "complete" if planned and len(rows) >= planned else "in progress",
        "jobs_done": len(rows),
        "jobs_planned": planned,
        "levels_file": settings.levels,
        "seeds": settings.seeds,
        "budget": {
            "seconds": budget.seconds,
            "clock": budget.clock,
            "evaluations": budget.evaluations,
            "nodes": budget.nodes,
        },
        "solvers": solvers,
        "units": units,
        "statuses": statuses,
        "summary": [_summary_fields(summary) for summary in summaries],
        "summary_table": [
            [(text, json_number(sort)) for text, sort in summary_cells(s, intervals.get(s.solver))]
            for s in summaries
        ],
        "paired_tests": paired_test_cells(uncertainty.tests, "*") if uncertainty else [],
        "claims": claims(uncertainty.tests) if uncertainty and uncertainty.tests else [],
        "levels": levels,
        "level_error": level_error,
        "jobs": jobs,
        "config": config_text,
    }


def _planned_jobs(config, level_count: int) -> int | None:
    if not level_count:
        return None
    seeds = len(config.compare.seeds)
    per_level = sum(
        seeds if solver.kind == "ga" or getattr(solver, "stochastic", False) else 1
        for solver in config.solver
    )
    return per_level * level_count


def _summary_fields(summary) -> dict[str, Any]:
    def finite(value):
        return None if value is None or not math.isfinite(value) else compact(value)

    def exact(value):  # the figures of summary.md, not rounded to a few digits
        return None if value is None or not math.isfinite(value) else value

    return {
        "solver": summary.solver,
        "unit": summary.unit,
        "runs": summary.runs,
        "solved": summary.solved,
        "solve_rate": summary.solve_rate,
        "median_seconds": exact(summary.median_seconds),
        "ert_seconds": exact(summary.ert_seconds),
        "ert_units": exact(summary.ert_units),
        "median_moves": summary.median_moves,
        "median_pushes": summary.median_pushes,
    }


# ---- sweeps -------------------------------------------------------------------------------------


SWEEP_FIGURES = ("parameters", "history", "heatmap")


def _sweep_data(folder: Path) -> dict[str, Any]:
    config_text = read_text(folder / "sweep.toml")
    config = parse_toml(config_text)
    sweep = config.get("sweep") or {}
    index_path = folder / "index.csv"
    columns: list[str] = []
    trials: list[list[str]] = []
    if index_path.is_file():
        with open(index_path, encoding="utf-8", newline="") as stream:
            reader = csv.reader(stream)
            columns = next(reader, [])
            trials = [row for row in reader if len(row) == len(columns)]
    figures = inline_figures(folder, SWEEP_FIGURES)
    best = folder / "best.toml"
    return {
        "title": f"Sweep {sweep.get('name', folder.name)}",
        "method": sweep.get("method"),
        "parameters": list((config.get("parameters") or {}).keys()),
        "columns": columns,
        "trials": trials,
        "figures": figures,
        "best": read_text(best) if best.is_file() else None,
        "config": config_text,
    }


# ---- level runs ---------------------------------------------------------------------------------


LEVEL_FIGURES = ("difficulty", "front", "archive")


def _levels_data(folder: Path) -> dict[str, Any]:
    from evosoko.sokoban.formats import read_levels

    summary = read_json(folder / "summary.json")
    config_text = read_text(folder / "levels.toml")
    config = parse_toml(config_text).get("levels") or {}
    collection = folder / "levels.xsb"
    written = _quietly(read_levels, collection) if collection.is_file() else []
    levels = []
    for index, level in enumerate(written, start=1):
        notes = dict(level.notes)
        levels.append(
            {
                "index": index,
                "name": level.title or str(index),
                "rows": level.rows(),
                "size": f"{level.width}x{level.height}",
                "boxes": level.box_count,
                "notes": {key: value for key, value in notes.items() if key != "Solution"},
                "solution": notes.get("Solution", ""),
            }
        )
    objectives = [table.get("kind", "pushes") for table in config.get("objective") or []]
    first = (objectives or ["pushes"])[0].rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    figures = inline_figures(folder, LEVEL_FIGURES)
    return {
        "title": f"Level run {summary.get('name') or folder.name}",
        "status": summary.get("status", "unknown"),
        "seed": summary.get("seed"),
        "stop": summary.get("stop"),
        "exhausted": summary.get("exhausted"),
        "error": summary.get("error"),
        "totals": summary.get("totals") or {},
        "size": config.get("size"),
        "selection": config.get("selection"),
        "objective": first,
        "archive": _archive_grid(config, levels)
        if config.get("selection") == "map_elites"
        else None,
        "curve": _levels_curve(folder / "metrics.csv", first),
        "levels": levels,
        "figures": figures,
        "config": config_text,
    }


def _levels_curve(path: Path, label: str) -> dict[str, list] | None:
    """Generation, best and median of the first objective, from ``metrics.csv``."""
    if not path.is_file():
        return None
    curve: dict[str, list] = {"g": [], "best": [], "median": []}
    with open(path, encoding="utf-8", newline="") as stream:
        for row in csv.DictReader(stream):
            try:
                point = (int(row["generation"]), row[f"best_{label}"], row[f"median_{label}"])
            except (KeyError, TypeError, ValueError):
                continue
            if point[1] in ("", None):
                continue
            curve["g"].append(point[0])
            curve["best"].append(compact(float(point[1])))
            curve["median"].append(compact(float(point[2])))
    size = max(1, math.ceil(len(curve["g"]) / MAX_CURVE_POINTS))
    return {key: values[::size] for key, values in curve.items()} if curve["g"] else None


def _archive_grid(config: dict[str, Any], levels: list[dict[str, Any]]) -> dict[str, Any]:
    """The MAP-Elites archive as rows of cells, each the position of its elite among the
    levels (None when empty), from the levels' ``Cell`` notes."""
    archive = config.get("archive") or {}
    features = archive.get("features") or ["boxes", "floor"]
    bins = archive.get("bins") or [1, 1]
    ranges = archive.get("ranges") or [[0, 1], [0, 1]]
    grid: list[list[int | None]] = [[None] * int(bins[1]) for _ in range(int(bins[0]))]
    for position, level in enumerate(levels):
        values = dict(
            part.split("=", 1) for part in level["notes"].get("Cell", "").split() if "=" in part
        )
        try:
            point = [float(values[name]) for name in features]
        except (KeyError, ValueError):
            continue
        index = []
        for value, count, (low, high) in zip(point, bins, ranges, strict=True):
            where = int((value - low) / (high - low) * count)
            index.append(min(int(count) - 1, max(0, where)))
        grid[index[0]][index[1]] = position
    return {"features": features, "bins": bins, "ranges": ranges, "grid": grid}
