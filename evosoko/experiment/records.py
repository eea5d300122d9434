"""The rows a run writes: per-generation metrics and per-level results, as plain values.

``metrics.csv`` has one row per generation per level (:data:`METRICS_COLUMNS`); every column
but the wall-clock ones (:data:`WALL_CLOCK_COLUMNS`) is a function of the configuration and
seed, so two runs with the same seed write the same rows whatever the backend or resumes.
``results.csv`` has one row per finished level (:data:`RESULT_COLUMNS`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from typing import Any

from evosoko.evolve.engine import GenerationStats, LevelOutcome

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
"""``moves``/``pushes``: of the solution (empty when unsolved); ``best_*``: of the best
individual's play, its solution or its best prefix (whose LURD is in ``solutions.sok`` and
``summary.json``)."""


def level_caption(index: int | str, name: str) -> str:
    """``level 2 seed000-case3`` for messages and plots; ``level 93`` for a level named by its
    index (untitled, or titled with its own index), so the number is not said twice; and
    ``level 1 (title 0)`` when the title is another number."""
    name = str(name)
    if name == str(index):
        return f"level {index}"
    return f"level {index} (title {name})" if name.isdigit() else f"level {index} {name}"


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


@dataclass
class LevelResult:
    """What one level of a run produced (``index`` is the level's 1-based index in its file).

    ``best``: the best individual's play, ``{"lurd", "distance", "moves", "pushes",
    "solved"}`` (its solution when solved, else its best prefix), for every level."""

    index: int
    level: str
    solved: bool
    stop_reason: str
    generations: int
    evaluations: int
    seconds: float
    moves: int | None
    pushes: int | None
    solution: str | None
    best_distance: float
    restarts: int
    best: dict[str, Any] | None = None

    @staticmethod
    def from_outcome(index: int, outcome: LevelOutcome) -> LevelResult:
        """The result of a level from the engine's outcome."""
        return LevelResult(
            index=index,
            level=outcome.level,
            solved=outcome.solved,
            stop_reason=outcome.stop_reason,
            generations=outcome.generations,
            evaluations=outcome.evaluations,
            seconds=round(outcome.seconds, 3),
            moves=outcome.moves,
            pushes=outcome.pushes,
            solution=outcome.solution_lurd,
            best_distance=float(outcome.best_fitness[1]),
            restarts=outcome.restarts,
            best=None if outcome.best is None else outcome.best.as_dict(),
        )

    @staticmethod
    def from_dict(data: dict[str, Any]) -> LevelResult:
        """Inverse of :meth:`as_dict` (as stored in ``summary.json``; ``best`` may be absent
        from older summaries)."""
        fields = LevelResult.__dataclass_fields__
        return LevelResult(
            **{name: data[name] for name in fields if name in data or name != "best"}
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)

    def csv_row(self) -> dict[str, str]:
        """The ``results.csv`` row (the solution itself goes to ``solutions.sok``)."""
        return {
            "index": str(self.index),
            "level": self.level,
            "solved": _flag(self.solved),
            "stop_reason": self.stop_reason,
            "generations": str(self.generations),
            "evaluations": str(self.evaluations),
            "seconds": f"{self.seconds:.3f}",
            "moves": "" if self.moves is None else str(self.moves),
            "pushes": "" if self.pushes is None else str(self.pushes),
            "best_distance": _number(self.best_distance),
            "restarts": str(self.restarts),
            "best_moves": "" if self.best is None else str(self.best["moves"]),
            "best_pushes": "" if self.best is None else str(self.best["pushes"]),
        }


def csv_line(columns: tuple[str, ...], row: dict[str, str]) -> str:
    """One CSV line (no newline) of ``row`` in the order of ``columns``."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow([row[column] for column in columns])
    return buffer.getvalue()


def csv_text(columns: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    """A whole CSV file: the header, then ``rows``."""
    return "".join(csv_line(columns, row) + "\n" for row in [dict(zip(columns, columns)), *rows])


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _flag(value: bool) -> str:
    return "1" if value else "0"
