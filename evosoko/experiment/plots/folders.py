"""``evosoko plot``: recognise run, compare and sweep folders and draw their plots again.

- run folders (``config.toml`` + ``metrics.csv``): ``fitness_band`` (best and mean distance
  against generation and evaluations, the median and inter-quartile band across every (run,
  level) curve) and ``diversity``. Several run folders are drawn together, so the band spans
  the runs (e.g. one configuration with several seeds): into ``out``, or by default into a new
  folder ``<time>_plot_<id>`` beside the first run folder, with ``runs.txt`` naming the runs.
  A single run folder's plots go to its ``plots/`` (or ``out``);
- a compare folder (``compare.toml`` + ``results.csv``): the comparison plots;
- a sweep folder (``sweep.toml`` + ``index.csv``): the sweep plots;
- a level run folder (``levels.toml`` + ``metrics.csv``, ``evosoko evolve-levels``): its
  difficulty curves and its front or archive (:func:`evosoko.levelgen.run.plot_levels_run`).

Compare and sweep plots go to each folder's ``plots/`` (or to ``out``, in a sub-folder per
folder), as PNG or SVG. A folder that cannot be read or written is an :class:`EvosokoError`
naming it.
"""

from __future__ import annotations

import csv
import tomllib
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.plots.style import FORMATS
from evosoko.experiment.run.folder import make_output_folder, output_folder

__all__ = ["FOLDER_KINDS", "folder_kind", "load_trials", "plot_folders", "runs_plot_folder"]

FOLDER_KINDS = ("run", "compare", "sweep", "levels")


def folder_kind(folder: Path) -> str:
    """``run``, ``compare``, ``sweep`` or ``levels``; anything else raises
    :class:`EvosokoError`."""
    if not folder.is_dir():
        raise EvosokoError("no such folder", str(folder))
    if (folder / "sweep.toml").is_file() and (folder / "index.csv").is_file():
        return "sweep"
    if (folder / "compare.toml").is_file() and (folder / "results.csv").is_file():
        return "compare"
    if (folder / "config.toml").is_file() and (folder / "metrics.csv").is_file():
        return "run"
    if (folder / "levels.toml").is_file() and (folder / "metrics.csv").is_file():
        return "levels"
    raise EvosokoError(
        "not a run, compare, sweep or level run folder (no config.toml + metrics.csv, "
        "compare.toml + results.csv, sweep.toml + index.csv, or levels.toml + metrics.csv)",
        str(folder),
    )


def plot_folders(
    folders: Sequence[str | PathLike[str]],
    out: str | PathLike[str] | None = None,
    fmt: str = "png",
) -> list[Path]:
    """Draw the plots of every folder; returns the files written."""
    if fmt not in FORMATS:
        raise EvosokoError(f"unknown plot format {fmt!r}; use one of {', '.join(FORMATS)}")
    paths = [Path(folder) for folder in folders]
    kinds = [folder_kind(path) for path in paths]  # all checked before drawing anything
    out_dir = Path(out) if out is not None else None
    written: list[Path] = []
    runs = list(dict.fromkeys(path for path, kind in zip(paths, kinds) if kind == "run"))
    if runs:
        written += _plot_runs(runs, out_dir, fmt)
    for path, kind in zip(paths, kinds):
        target = out_dir / path.name if out_dir is not None else path / "plots"
        if kind == "compare":
            written += _plot_compare(path, _folder(target), fmt)
        elif kind == "sweep":
            written += _plot_sweep(path, _folder(target), fmt)
        elif kind == "levels":
            from evosoko.levelgen.run import plot_levels_run

            written += plot_levels_run(path, _folder(target), fmt)
    return written


def runs_plot_folder(runs: list[Path], out: Path | None) -> Path:
    """Where the plots of ``runs`` go: ``out``; else a single run's ``plots/``; else a new
    folder ``<time>_plot_<id>`` beside the first run folder."""
    if out is not None:
        return out
    if len(runs) == 1:
        return runs[0] / "plots"
    return output_folder("plot", None, runs[0].parent)


def _plot_runs(runs: list[Path], out: Path | None, fmt: str) -> list[Path]:
    from evosoko.experiment.plots.runs import draw_runs

    metrics = [_read_metrics(run) for run in runs]
    target = _folder(runs_plot_folder(runs, out))
    written = draw_runs(runs, target, fmt, metrics=metrics)
    if len(runs) > 1:
        listing = target / "runs.txt"
        write_text_atomic(listing, "".join(f"{run.resolve()}\n" for run in runs))
        written.append(listing)
    return written


def _folder(path: Path) -> Path:
    """``path``, created if needed; one that cannot be is an :class:`EvosokoError`."""
    make_output_folder(path)
    return path


METRICS_NEEDED = ("level_index", "generation", "evaluations", "best", "mean", "diversity")


def _read_metrics(run: Path) -> list[dict[str, str]]:
    """The rows of a run's ``metrics.csv``; an unreadable or malformed file is an error naming
    it (and the line of a bad row)."""
    path = run / "metrics.csv"
    try:
        rows = _read_csv(path)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise EvosokoError(f"cannot read the metrics: {error}", str(path)) from None
    for line, row in enumerate(rows, start=2):
        missing = [column for column in METRICS_NEEDED if row.get(column) in (None, "")]
        if missing:
            raise EvosokoError(f"no {missing[0]} value", str(path), line)
        try:
            for column in METRICS_NEEDED:
                float(row[column])
        except ValueError:
            message = f"{column} is not a number: {row[column]!r}"
            raise EvosokoError(message, str(path), line) from None
    return rows


def _plot_compare(folder: Path, out: Path, fmt: str) -> list[Path]:
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.files import CONFIG_FILE, RESULTS_FILE, read_results_csv
    from evosoko.experiment.compare.jobs import unit_budgets
    from evosoko.experiment.plots.compare import draw_compare

    config = load_compare_config(folder / CONFIG_FILE)
    rows = read_results_csv(folder / RESULTS_FILE)
    if not rows:
        return []
    budget = config.compare.budget
    units = unit_budgets(budget)
    labels = [solver.label for solver in config.solver]
    return draw_compare(
        folder, rows, budget.seconds, units, labels, fmt=fmt, out=out, clock=budget.clock
    )


def load_trials(folder: Path, config) -> list:
    """The trials of a sweep folder, read back from ``index.csv`` and ``results.csv``."""
    from evosoko.experiment.sweep.config import INDEX_FILE, RESULTS_FILE
    from evosoko.experiment.sweep.trials import Trial

    keys = list(config.parameters)
    trials = {}
    for row in _read_csv(folder / INDEX_FILE):
        trial = Trial(int(row["trial"]), {k: _value(row[k]) for k in keys}, status=row["status"])
        if trial.status == "complete":
            trial.runs, trial.solved = int(row["runs"]), int(row["solved"])
            trial.median_evaluations = float(row["median_evaluations"])
            trial.median_seconds = float(row["median_seconds"]) if row["median_seconds"] else None
        trials[trial.number] = trial
    if (folder / RESULTS_FILE).is_file():
        for row in _read_csv(folder / RESULTS_FILE):
            ran = trials.get(int(row["trial"]))
            if ran is not None:
                ran.rows.append(
                    {**row, "solved": row["solved"] == "1", "evaluations": int(row["evaluations"])}
                )
    return list(trials.values())


def _plot_sweep(folder: Path, out: Path, fmt: str) -> list[Path]:
    from evosoko.experiment.plots.sweep import draw_sweep
    from evosoko.experiment.sweep.config import CONFIG_FILE, load_sweep_config

    config = load_sweep_config(folder / CONFIG_FILE)
    return draw_sweep(folder, config, load_trials(folder, config), fmt=fmt, out=out)


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def _value(text: str) -> Any:
    """A CSV cell as the TOML value it spells (a bare word stays a string)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
