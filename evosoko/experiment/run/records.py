"""The rows a run writes: per-generation metrics and per-level results, as plain values.

``metrics.csv`` has one row per generation per level (:data:`METRICS_COLUMNS`); every column
but the wall-clock ones (:data:`WALL_CLOCK_COLUMNS`) is a function of the configuration and
seed, so two runs with the same seed write the same rows whatever the backend or resumes.
``results.csv`` has one row per finished level (:data:`RESULT_COLUMNS`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
from typing import TYPE_CHECKING, Any

from evosoko.errors import EvosokoError
from evosoko.result import BestIndividual, GenerationStats, History, Result
from evosoko.status import read_stop

if TYPE_CHECKING:
    from pathlib import Path

    from evosoko.sokoban.level import Level

METRICS_COLUMNS = (
    "level_index",
    "level",
    "generation",
    "evaluations",
    "best",
    "mean",
    "std",
    "best_length",
    "diversity",
    "restarts",
    "solved",
    "seconds",
)
"""``best``/``mean``/``std``: the distance objective over the population (0 = solved);
``best_length``: genes of the best individual; ``diversity``: distinct positions per
individual; ``seconds``: wall-clock time spent on the level so far."""

WALL_CLOCK_COLUMNS = ("seconds",)
"""Metrics columns that measure time and so differ between otherwise identical runs."""

RESULT_COLUMNS = (
    "index",
    "level",
    "solved",
    "stop_reason",
    "exhausted",
    "generations",
    "evaluations",
    "seconds",
    "moves",
    "pushes",
    "best_distance",
    "restarts",
    "best_moves",
    "best_pushes",
)
"""``stop_reason``: a status of :mod:`evosoko.status`, ``exhausted`` the resource of a
``budget`` stop (empty otherwise);
``moves``/``pushes``: of the solution (empty when unsolved); ``best_*``: of the best
individual's play, its solution or its best prefix (whose LURD is in ``solutions.sok`` and
``summary.json``)."""


def metrics_row(level_index: int, level: str, stats: GenerationStats) -> dict[str, str]:
    """The metrics row of one generation, formatted so equal values give equal text."""
    return {
        "level_index": str(level_index),
        "level": level,
        "generation": str(stats.generation),
        "evaluations": str(stats.evaluations),
        "best": _number(stats.best_distance),
        "mean": _number(stats.mean_distance),
        "std": _number(stats.std_distance),
        "best_length": str(stats.best_length),
        "diversity": _number(stats.diversity),
        "restarts": str(stats.restarts),
        "solved": _flag(stats.solved),
        "seconds": f"{stats.seconds:.3f}",
    }


def stats_from_row(row: dict[str, str]) -> GenerationStats:
    """The statistics of a ``metrics.csv`` row (the fitness cache's hits are not kept: 0)."""
    return GenerationStats(
        generation=int(row["generation"]),
        evaluations=int(row["evaluations"]),
        best_distance=float(row["best"]),
        mean_distance=float(row["mean"]),
        std_distance=float(row["std"]),
        best_length=int(row["best_length"]),
        solved=row["solved"] == "1",
        diversity=float(row["diversity"]),
        restarts=int(row["restarts"]),
        cache_hits=0,
        seconds=float(row["seconds"]),
    )


SUMMARY_KEYS = (*RESULT_COLUMNS[:10], "solution", "best_distance", "restarts", "best")
"""Keys of a level's entry in ``summary.json``, the first ten those of ``results.csv``:
``stop_reason`` a status of :mod:`evosoko.status` and ``exhausted`` the resource of a ``budget``
stop (null otherwise; summaries written before the vocabulary have no ``exhausted`` and name the
resource as the stop reason, which :func:`result_from_entry` reads as a budget stop); ``best``
is the best individual's play, ``{"lurd", "distance", "moves", "pushes", "solved"}`` (its
solution when solved, else its best prefix), for every level (absent from summaries written
before it existed)."""


def summary_entry(result: Result) -> dict[str, Any]:
    """A level's entry in ``summary.json`` (and in ``--json``), from its GA result."""
    return {
        "index": result.index,
        "level": result.level_name,
        "solved": result.solved,
        "stop_reason": result.status,
        "exhausted": result.exhausted,
        "generations": result.generations,
        "evaluations": result.cost,
        "seconds": result.seconds,
        "moves": result.moves,
        "pushes": result.pushes,
        "solution": result.solution,
        "best_distance": float(result.fitness.get("distance", math.inf)),
        "restarts": result.restarts,
        "best": None if result.best is None else result.best.as_dict(),
    }


def result_from_entry(
    data: dict[str, Any],
    *,
    history: History | None = None,
    level: Level | None = None,
    seed: int | None = None,
    settings: str | None = None,
) -> Result:
    """The GA result of a ``summary.json`` entry (inverse of :func:`summary_entry`), with what
    the entry does not hold: its ``history`` (from ``metrics.csv``), ``level``, ``seed`` and
    settings digest, when known."""
    best = data.get("best")
    stop = read_stop(data["stop_reason"], data.get("exhausted"))
    return Result(
        level_name=str(data["level"]),
        solver="ga",
        status=stop.status,
        exhausted=stop.exhausted,
        solution=data["solution"] if data["solved"] else None,
        moves=data["moves"],
        pushes=data["pushes"],
        cost=data["evaluations"],
        unit="evaluations",
        seconds=data["seconds"],
        index=data["index"],
        generations=data["generations"],
        restarts=data["restarts"],
        best=None if best is None else BestIndividual(**best),
        fitness={"distance": float(data["best_distance"])},
        history=history if history is not None else History(),
        level=level,
        seed=seed,
        settings=settings,
    )


def board_digest(level: Level) -> str:
    """The digest of ``level``'s board that a run's summary keeps in ``planned``, so that a
    resume and the report notice a level file that changed."""
    return hashlib.sha256("\n".join(level.rows()).encode()).hexdigest()[:16]


def level_index(level: Level) -> int:
    """The 1-based index of ``level`` in its file (1 for a level read on its own)."""
    return level.origin.index if level.origin is not None else 1


def run_index(result: Result) -> int:
    """The level index of a run's result: a run numbers every level it finishes (1-based in
    its file), so a result without one is a bug, not a property of the level."""
    if result.index is None:
        raise ValueError(f"the result of level {result.level_name!r} has no index")
    return result.index


def result_row(result: Result) -> dict[str, str]:
    """The ``results.csv`` row of a level (the solution itself goes to ``solutions.sok``)."""
    best = result.best
    return {
        "index": str(result.index),
        "level": result.level_name,
        "solved": _flag(result.solved),
        "stop_reason": result.status,
        "exhausted": result.exhausted or "",
        "generations": str(result.generations),
        "evaluations": str(result.cost),
        "seconds": f"{result.seconds:.3f}",
        "moves": "" if result.moves is None else str(result.moves),
        "pushes": "" if result.pushes is None else str(result.pushes),
        "best_distance": _number(result.fitness.get("distance", math.inf)),
        "restarts": str(result.restarts),
        "best_moves": "" if best is None else str(best.moves),
        "best_pushes": "" if best is None else str(best.pushes),
    }


def csv_cell(value: Any, float_spec: str) -> str:
    """One value as a CSV cell: empty for None, ``1``/``0`` for a flag, a float formatted by
    ``float_spec`` (``".4f"``, ``".6g"``), anything else as ``str``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _flag(value)
    if isinstance(value, float):
        return format(value, float_spec)
    return str(value)


def csv_line(columns: tuple[str, ...], row: dict[str, str]) -> str:
    """One CSV line (no newline) of ``row`` in the order of ``columns``."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow([row[column] for column in columns])
    return buffer.getvalue()


def csv_text(columns: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    """A whole CSV file: the header, then ``rows``."""
    return "".join(csv_line(columns, row) + "\n" for row in [dict(zip(columns, columns)), *rows])


def read_csv_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The complete rows of the CSV file ``path`` with the header ``columns`` (none when there
    is no file; a row cut short by a crash is left out); another header is an
    :class:`EvosokoError`."""
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    if not rows or tuple(rows[0]) != columns:
        raise EvosokoError(f"{path.name} does not have the expected columns", str(path))
    return [dict(zip(columns, row)) for row in rows[1:] if len(row) == len(columns)]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _flag(value: bool) -> str:
    return "1" if value else "0"
