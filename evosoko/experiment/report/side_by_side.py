"""One page for several run, comparison and sweep folders: ``evosoko report A B C``.

The page joins the folders' tidy results (:func:`evosoko.results`) by level: one row per level
(its index in its file and its title), one column group per solver of each folder (a run's GA,
each solver of a comparison, a sweep's best trial) with how it ended in the one status
vocabulary (:mod:`evosoko.status`), the evaluations or nodes it spent, seconds, moves and
pushes. A group with several runs on a level (seeds) shows the median cost and seconds over
its runs and the median moves and pushes over its solved runs. Beside the table: each run's
fitness curves overlaid per level, each group's settings digest, each sweep's best trial with
its parameters, the settings that differ between the folders, and every folder's settings file.

The page is written where ``out`` says (default :data:`SIDE_BY_SIDE_FILE` in the current
directory; a folder puts it inside), never over a folder's own ``report.html``. It is as
self-contained as a folder's report (:mod:`evosoko.experiment.report.html`).
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.clock import utc_stamp
from evosoko.experiment.report.folder_files import parse_toml
from evosoko.experiment.report.writer import (
    COMPARE,
    LEVELS,
    REPORT_FILE,
    RUN,
    SWEEP,
    folder_kind,
    run_curves,
)
from evosoko.experiment.results_table import ResultsTable

__all__ = [
    "SIDE_BY_SIDE_FILE",
    "Group",
    "GroupCell",
    "JoinedTable",
    "join_by_level",
    "side_by_side_data",
    "side_by_side_path",
    "write_side_by_side",
]

SIDE_BY_SIDE_FILE = "report-compare.html"
"""The page's name when ``--out`` gives no file name."""

SETTINGS_FILES = {RUN: "config.toml", COMPARE: "compare.toml", SWEEP: "sweep.toml"}


@dataclass(frozen=True)
class Group:
    """One column group: a solver of one folder (``source``: the folder's position)."""

    label: str
    source: int
    solver: str
    kind: str
    unit: str
    settings: str | None


@dataclass(frozen=True)
class GroupCell:
    """What one group did on one level: ``status`` is the stop of its runs when they agree
    (``solved``, ``budget: seconds``), else how many of them solved (``2 of 3 solved``);
    ``cost`` and ``seconds`` are medians over its runs, ``moves`` and ``pushes`` over its
    solved runs (None without one)."""

    runs: int
    solved: int
    status: str
    cost: float | None
    seconds: float | None
    moves: float | None
    pushes: float | None


@dataclass
class JoinedTable:
    """Rows by level (``levels``: index and title, in file order), one cell per group."""

    groups: list[Group]
    levels: list[tuple[int | None, str]]
    cells: dict[tuple[int, int], GroupCell] = field(default_factory=dict)
    """``(level position, group position)`` -> the cell; absent when the group has no run
    on that level."""


def join_by_level(tables: Sequence[ResultsTable], labels: Sequence[str]) -> JoinedTable:
    """The tidy tables of several folders (``labels``: their names on the page) joined by
    level: a level is its index and title, so the same level in two folders is one row."""
    groups: list[Group] = []
    runs: dict[tuple[int, tuple[int | None, str]], list[dict[str, Any]]] = {}
    for source, (table, label) in enumerate(zip(tables, labels, strict=True)):
        solvers = list(dict.fromkeys(row["solver"] for row in table))
        positions = {}
        for solver in solvers:
            first = next(row for row in table if row["solver"] == solver)
            positions[solver] = len(groups)
            groups.append(
                Group(
                    label=label if len(solvers) == 1 else f"{label} · {solver}",
                    source=source,
                    solver=solver,
                    kind=first["kind"],
                    unit=first["unit"],
                    settings=first["settings"],
                )
            )
        for row in table:
            key = (row["level_index"], str(row["level"]))
            runs.setdefault((positions[row["solver"]], key), []).append(row)
    levels = sorted({key for _, key in runs}, key=lambda key: (key[0] is None, key[0] or 0, key[1]))
    position = {key: n for n, key in enumerate(levels)}
    cells = {(position[key], group): _cell(rows) for (group, key), rows in runs.items()}
    return JoinedTable(groups, levels, cells)


def _cell(rows: list[dict[str, Any]]) -> GroupCell:
    stops = [row["status"] + (f": {row['exhausted']}" if row["exhausted"] else "") for row in rows]
    solved = [row for row in rows if row["solved"]]
    agreed = len(set(stops)) == 1
    status = stops[0] if agreed else f"{len(solved)} of {len(rows)} solved"
    return GroupCell(
        runs=len(rows),
        solved=len(solved),
        status=status,
        cost=_median(row["cost"] for row in rows),
        seconds=_median(row["seconds"] for row in rows),
        moves=_median(row["moves"] for row in solved),
        pushes=_median(row["pushes"] for row in solved),
    )


def _median(values: Any) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


# ---- the page's data ----------------------------------------------------------------------------


def side_by_side_data(
    folders: Sequence[str | PathLike[str]], page: str | PathLike[str] | None = None
) -> dict[str, Any]:
    """Everything the page of ``folders`` shows, as JSON-ready data (``page``: where it will
    be written, for the links to each folder's own report). :class:`EvosokoError` for a
    folder that is not a run, comparison or sweep, or one given twice."""
    from evosoko.experiment.tidy import results

    paths = [Path(folder) for folder in folders]
    kinds = [_joinable_kind(path) for path in paths]
    seen: dict[Path, Path] = {}
    for path in paths:
        if path.resolve() in seen:
            raise EvosokoError(
                f"the folder is given twice (also as {seen[path.resolve()]})", str(path)
            )
        seen[path.resolve()] = path
    labels = _labels(paths)
    tables, sweeps = [], []
    for path, kind, label in zip(paths, kinds, labels, strict=True):
        table = results(path)
        sweep = _sweep_best(path, label) if kind == SWEEP else None
        if sweep is not None:  # a sweep joins the table with its best trial
            table = ResultsTable([row for row in table if row["solver"] == sweep["solver"]])
            sweeps.append(sweep)
        elif kind == SWEEP:
            table = ResultsTable()
        tables.append(table)
    best = {sweep["label"]: f"{sweep['label']} · best trial {sweep['trial']}" for sweep in sweeps}
    joined = join_by_level(tables, [best.get(label, label) for label in labels])
    curves = {
        source: run_curves(path / "metrics.csv")
        for source, (path, kind) in enumerate(zip(paths, kinds, strict=True))
        if kind == RUN
    }
    where = Path(page).resolve().parent if page is not None else None
    settings = [_settings_text(path, kind) for path, kind in zip(paths, kinds, strict=True)]
    return {
        "kind": "folders",
        "title": f"{len(paths)} folders side by side",
        "folder": ", ".join(labels),
        "generated": utc_stamp(),
        "folders": [
            {
                "label": label,
                "path": str(path),
                "kind": kind,
                "rows": len(table),
                "report": _link(path, where),
                "config": text,
                "config_file": SETTINGS_FILES[kind],
            }
            for path, kind, label, table, text in zip(
                paths, kinds, labels, tables, settings, strict=True
            )
        ],
        "groups": [
            {
                "label": group.label,
                "source": group.source,
                "solver": group.solver,
                "kind": group.kind,
                "unit": group.unit,
                "settings": group.settings,
                "runs": sum(c.runs for (_, g), c in joined.cells.items() if g == position),
                "solved": sum(c.solved for (_, g), c in joined.cells.items() if g == position),
            }
            for position, group in enumerate(joined.groups)
        ],
        "levels": [
            {
                "index": index,
                "name": name,
                "cells": [
                    _cell_fields(joined.cells.get((row, group)))
                    for group in range(len(joined.groups))
                ],
                "curves": [
                    {"source": source, **by_index[index]}
                    for source, by_index in curves.items()
                    if index in by_index and _runs_level(tables[source], index, name)
                ],
            }
            for row, (index, name) in enumerate(joined.levels)
        ],
        "sweeps": sweeps,
        "differences": _differences(settings),
    }


def _joinable_kind(path: Path) -> str:
    kind = folder_kind(path)
    if kind == LEVELS:
        raise EvosokoError(
            "a level run folder has no solver results to put beside others; "
            "give it to evosoko report on its own",
            str(path),
        )
    return kind


def _labels(paths: Sequence[Path]) -> list[str]:
    """Each folder's name, with as many parent folders as tell equal names apart."""
    for depth in range(1, 1 + max(len(path.resolve().parts) for path in paths)):
        labels = ["/".join(path.resolve().parts[-depth:]) for path in paths]
        if len(set(labels)) == len(labels):
            return labels
    return [str(path) for path in paths]


def _runs_level(table: ResultsTable, index: int | None, name: str) -> bool:
    return any(row["level_index"] == index and str(row["level"]) == name for row in table)


def _cell_fields(cell: GroupCell | None) -> dict[str, Any] | None:
    return None if cell is None else asdict(cell)


def _link(folder: Path, where: Path | None) -> str | None:
    """The folder's own report.html relative to the page (None without one)."""
    report = folder / REPORT_FILE
    if where is None or not report.is_file():
        return None
    try:
        return Path(os.path.relpath(report.resolve(), where)).as_posix()
    except ValueError:  # another drive
        return report.resolve().as_uri()


def _settings_text(folder: Path, kind: str) -> str:
    try:
        return (folder / SETTINGS_FILES[kind]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise EvosokoError(
            f"cannot read the file: {error}", str(folder / SETTINGS_FILES[kind])
        ) from None


def _sweep_best(folder: Path, label: str) -> dict[str, Any] | None:
    """A sweep's best trial (from best.toml's first line) with its parameters and figures
    from index.csv; None while it has none."""
    from evosoko.experiment.sweep.files import read_index_csv

    best, index = folder / "best.toml", folder / "index.csv"
    if not best.is_file() or not index.is_file():
        return None
    match = re.search(r"trial (\d+)", best.read_text(encoding="utf-8").split("\n", 1)[0])
    if match is None:
        return None
    number = match.group(1)
    row = next((row for row in read_index_csv(index) if row.get("trial") == number), None)
    if row is None:
        return None
    config = parse_toml(_settings_text(folder, SWEEP))
    keys = list((config.get("parameters") or {}).keys())
    return {
        "label": label,
        "solver": f"trial-{number}",
        "trial": int(number),
        "params": {key: row.get(key, "") for key in keys},
        "figures": {
            key: row.get(key, "")
            for key in ("runs", "solved", "solve_rate", "median_evaluations", "objective")
        },
    }


def _differences(texts: Sequence[str]) -> list[list[str]]:
    """The settings keys (dotted) that at least two folders set and that differ between the
    folders: ``[key, value in each folder ("" where it is not set)]``."""
    from evosoko.tracking import flat_params

    flat = [flat_params(parse_toml(text)) for text in texts]
    keys = list(dict.fromkeys(key for params in flat for key in params))
    rows = []
    for key in keys:
        values = [params.get(key) for params in flat]
        present = [value for value in values if value is not None]
        if len(present) >= 2 and len(set(present)) > 1:
            rows.append([key, *(value if value is not None else "" for value in values)])
    return rows


# ---- writing ------------------------------------------------------------------------------------


def side_by_side_path(
    folders: Sequence[str | PathLike[str]], out: str | PathLike[str] | None = None
) -> Path:
    """Where the page goes: ``out`` (a folder: :data:`SIDE_BY_SIDE_FILE` inside it), else
    :data:`SIDE_BY_SIDE_FILE` in the current directory. :class:`EvosokoError` when that is a
    folder's own report.html."""
    path = Path(out) if out is not None else Path(SIDE_BY_SIDE_FILE)
    if path.is_dir():
        path = path / SIDE_BY_SIDE_FILE
    for folder in folders:
        if path.resolve() == (Path(folder) / REPORT_FILE).resolve():
            raise EvosokoError(
                f"that is the folder's own {REPORT_FILE}; give --out another file", str(path)
            )
    return path


def write_side_by_side(
    folders: Sequence[str | PathLike[str]], out: str | PathLike[str] | None = None
) -> Path:
    """Write the page of ``folders`` (atomically) where :func:`side_by_side_path` says; its
    path."""
    from evosoko.experiment.report.html import render_page

    path = side_by_side_path(folders, out)
    page = render_page(side_by_side_data(folders, path))
    write_text_atomic(path, page)
    return path
