"""A run's ``fitness.png``, drawn from its metrics rows (the chart itself is
:mod:`evosoko.fitness_chart`, which a result's notebook display draws too)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evosoko.experiment.atomic import write_bytes_atomic
from evosoko.fitness_chart import SMALL_MULTIPLES, fitness_chart_png
from evosoko.text import level_caption, plain

__all__ = ["SMALL_MULTIPLES", "fitness_png", "plot_fitness"]


def plot_fitness(rows: Sequence[dict[str, str]], path: Path) -> None:
    """Write :func:`fitness_png` of ``rows`` to ``path``."""
    write_bytes_atomic(path, fitness_png(rows))


def fitness_png(rows: Sequence[dict[str, str]]) -> bytes:
    """Distance against generation, per level, as a PNG: the best so far (what
    the results report), the generation's best and its mean. Past ``SMALL_MULTIPLES`` levels,
    one panel shows each level's best so far."""
    return fitness_chart_png(_series_by_level(rows))


def _series_by_level(rows: Sequence[dict[str, str]]) -> dict[str, dict[str, list[float]]]:
    """``{"level 2 seed000-case3": {"generation", "best", "mean": [...]}}`` in run order."""
    series: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        label = plain(level_caption(row["level_index"], row["level"]))  # no control characters
        columns = series.setdefault(label, {"generation": [], "best": [], "mean": []})
        for key in columns:
            columns[key].append(float(row[key]))
    return series
