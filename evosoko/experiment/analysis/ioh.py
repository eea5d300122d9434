"""Comparison and sweep results in IOHprofiler's format, for the field's own analyzer.

`IOHanalyzer <https://iohanalyzer.liacs.nl>`_ (and IOHinspector) read the folders that
IOHexperimenter's analyzer logger writes: per algorithm a folder, per problem a JSON file
describing the runs and a ``.dat`` file with each run's trajectory::

    <algorithm>/IOHprofiler_f<id>_<name>.json
    <algorithm>/data_f<id>_<name>/IOHprofiler_f<id>_DIM<dimension>.dat

evosoko maps its results onto that layout:

- a **problem** is a level: ``function_id`` its 1-based index in the level file,
  ``function_name`` its title (made file-safe), ``dimension`` its number of boxes;
- an **algorithm** is a solver (a GA preset, a search) or a sweep's trial;
- a **run** is one job; its seed is the run attribute ``seed``, all runs use instance 1
  (a level has no transformed instances);
- the **objective** is minimised: the best distance to solved so far (0 = solved), written
  at the first evaluation and each time it falls (:attr:`evosoko.result.Result.progress`): for
  the GA the best individual's distance (its fitness objective) per evaluation, for a search
  the lowest heuristic of a state it stored per expanded node. So the analyzer's fixed-target
  views (ECDF over distance targets 0..k, ERT per target) show how fast each solver gets how
  close; target 0 gives the solve rate and the run-time ECDF. A run starts at evaluation 1,
  where the format's readers split runs: the GA's first generation, scored as one batch, counts
  from there. Runs whose progress was not
  recorded (folders written before it was, searches that do not record it) keep the
  hitting-time objective: 1 until solved, 0 from then on. An unsolved run's record ends at the
  cost it spent (as the format asks: "a block ... MUST end with the last function
  evaluation"); note that IOHanalyzer's ERT counts a failure at what it spent, where evosoko's
  summary counts it at the full budget.

Two views of the same runs, since the analyzer has one cost axis ("evaluations"):

- ``budget/``: each solver's own unit, GA fitness evaluations or expanded search nodes;
- ``time/``: wall-clock milliseconds (rounded up), the one unit all solvers share.

Load one view at a time (zip ``ioh/time`` and upload it, or point ``DataSetList`` at it).
:func:`read_ioh` parses such a folder back.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import write_text_atomic

__all__ = ["FORMAT_VERSION", "VIEWS", "IOHRun", "read_ioh", "write_ioh"]

FORMAT_VERSION = "0.3.18"
"""The IOHexperimenter version whose analyzer-logger layout this writes (IOHanalyzer reads
``version`` >= 0.3.3 as this JSON + ``.dat`` layout)."""
SUITE = "evosoko"
VIEWS = ("budget", "time")
DAT_HEADER = "evaluations raw_y"


@dataclass
class IOHRun:
    """One run as the format holds it: ``trajectory`` is ``[(evaluations, raw_y), ...]``."""

    algorithm: str
    function_id: int
    function_name: str
    dimension: int
    instance: int
    evals: int
    best_y: float
    seed: int | None = None
    trajectory: list[tuple[int, float]] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        """True when the run reached the target 0."""
        return self.best_y == 0


def safe_name(text: str) -> str:
    """``text`` usable in a file name: letters, digits, ``-`` and ``.``; others become ``-``."""
    cleaned = re.sub(r"[^A-Za-z0-9.-]+", "-", str(text)).strip("-.")
    return cleaned or "level"


def _cost(row: dict, view: str) -> int:
    """A run's cost on the view's axis (at least 1: the format counts from 1)."""
    if view == "time":
        return max(1, math.ceil(float(row["seconds"]) * 1000))
    return max(1, int(row["used"]))


def _trajectory(row: dict, view: str) -> list[tuple[int, float]]:
    """The run's best distance so far: at evaluation 1, each time it fell, and at its last
    evaluation (the hitting time, 1 then 0, when its progress was not recorded)."""
    cost, solved = _cost(row, view), bool(row["solved"])
    progress = row.get("progress") or []
    if not progress:
        if solved:
            return [(1, 0.0)] if cost <= 1 else [(1, 1.0), (cost, 0.0)]
        return [(1, 1.0)] if cost <= 1 else [(1, 1.0), (cost, 1.0)]
    points: list[tuple[int, float]] = []
    for spent, seconds, distance in progress:
        at = _cost({"used": spent, "seconds": seconds}, view)
        at = min(max(at, points[-1][0] if points else 1), cost)
        if points and points[-1][0] == at:
            points[-1] = (at, min(points[-1][1], float(distance)))
        elif not points or distance < points[-1][1]:
            points.append((at, float(distance)))
    if points[0][0] > 1:  # a run starts at evaluation 1 (readers split runs there)
        points[0] = (1, points[0][1])
    if solved and points[-1][1] > 0:
        points.append((max(cost, points[-1][0] + 1), 0.0))
    if points[-1][0] < cost:
        points.append((cost, points[-1][1]))
    return points


def write_ioh(
    out: str | Path,
    rows: Sequence[dict],
    dimensions: dict[int, int],
    *,
    algorithms: Sequence[str] | None = None,
    info: dict[str, str] | None = None,
) -> list[Path]:
    """Write ``rows`` (one per job: ``solver``, ``level_index``, ``level``, ``seed``,
    ``solved``, ``seconds``, ``used``, ``unit``) into ``out/budget`` and ``out/time``.

    ``dimensions``: level index -> boxes; ``algorithms``: solver order; ``info``: a line
    describing each solver (the JSON's ``algorithm.info``). ``out`` is replaced. Returns the
    JSON files written.
    """
    out = Path(out)
    try:
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
    except OSError as error:
        raise EvosokoError(f"cannot write the export here: {error.strerror}", str(out)) from None
    order = list(algorithms or dict.fromkeys(row["solver"] for row in rows))
    written = []
    for view in VIEWS:
        for algorithm in order:
            runs = [row for row in rows if row["solver"] == algorithm]
            levels = list(dict.fromkeys(row["level_index"] for row in runs))
            for level in levels:
                level_runs = [row for row in runs if row["level_index"] == level]
                written.append(
                    _write_problem(
                        out / view / safe_name(algorithm),
                        algorithm,
                        (info or {}).get(algorithm, ""),
                        level_runs,
                        dimensions.get(int(level), 1),
                        view,
                    )
                )
    return written


def _write_problem(
    folder: Path,
    algorithm: str,
    description: str,
    runs: Sequence[dict],
    dimension: int,
    view: str,
) -> Path:
    first = runs[0]
    function_id, name = int(first["level_index"]), safe_name(first["level"])
    unit = "milliseconds" if view == "time" else first.get("unit", "evaluations")
    data_path = f"data_f{function_id}_{name}/IOHprofiler_f{function_id}_DIM{dimension}.dat"
    blocks, records = [], []
    seeded = any(row.get("seed") is not None for row in runs)
    for row in runs:
        trajectory = _trajectory(row, view)
        blocks.append(DAT_HEADER + "\n" + "".join(f"{evals} {y:g}\n" for evals, y in trajectory))
        best_y = min(y for _, y in trajectory)
        reached = next(evals for evals, y in trajectory if y == best_y)
        record: dict[str, Any] = {
            "instance": 1,
            "evals": trajectory[-1][0],
            "best": {"evals": reached, "y": best_y, "x": []},
        }
        if seeded:
            record["seed"] = row.get("seed")
        records.append(record)
    meta: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "suite": SUITE,
        "function_id": function_id,
        "function_name": name,
        "maximization": False,
        "algorithm": {"name": algorithm, "info": f"{description} (cost: {unit})".strip()},
        "attributes": ["evaluations", "raw_y"],
    }
    if seeded:
        meta["run_attributes"] = ["seed"]
    meta["scenarios"] = [{"dimension": dimension, "path": data_path, "runs": records}]
    try:
        (folder / data_path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise EvosokoError(f"cannot create the folder: {error.strerror}", str(folder)) from None
    write_text_atomic(folder / data_path, "".join(blocks))
    json_path = folder / f"IOHprofiler_f{function_id}_{name}.json"
    write_text_atomic(json_path, json.dumps(meta, indent=1) + "\n")
    return json_path


def read_ioh(folder: str | Path) -> list[IOHRun]:
    """Every run of an IOHprofiler JSON + ``.dat`` folder (searched recursively), as the
    analyzer reads it: the JSON's runs in order, each with its block of the ``.dat`` file.
    A malformed file raises :class:`EvosokoError` naming it."""
    runs = []
    for meta_path in sorted(Path(folder).rglob("IOHprofiler_f*.json")):
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            for scenario in meta["scenarios"]:
                data_path = meta_path.parent / scenario["path"]
                blocks = _dat_blocks(data_path)
                if len(blocks) != len(scenario["runs"]):
                    raise EvosokoError(
                        f"{len(blocks)} runs in the data file, {len(scenario['runs'])} in "
                        f"{meta_path.name}",
                        str(data_path),
                    )
                for record, block in zip(scenario["runs"], blocks):
                    runs.append(
                        IOHRun(
                            algorithm=meta["algorithm"]["name"],
                            function_id=int(meta["function_id"]),
                            function_name=meta["function_name"],
                            dimension=int(scenario["dimension"]),
                            instance=int(record["instance"]),
                            evals=int(record["evals"]),
                            best_y=float(record["best"]["y"]),
                            seed=record.get("seed"),
                            trajectory=block,
                        )
                    )
        except (KeyError, TypeError, ValueError) as error:
            raise EvosokoError(f"not an IOHprofiler file: {error}", str(meta_path)) from None
    return runs


def _dat_blocks(path: Path) -> list[list[tuple[int, float]]]:
    """The runs of a ``.dat`` file: each starts at a header line (one without a number)."""
    blocks: list[list[tuple[int, float]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if not fields:
            continue
        if not fields[0][0].isdigit():
            blocks.append([])
            continue
        if not blocks:
            raise EvosokoError("data before the first header line", str(path))
        blocks[-1].append((int(fields[0]), float(fields[1])))
    return blocks


# ---- experiment folders --------------------------------------------------------------------------

IOH_DIR = "ioh"
"""The sub-folder of a comparison that holds its IOHprofiler export."""


def comparison_info(config) -> dict[str, str]:
    """A line per solver of a comparison for the JSON's ``algorithm.info``."""
    info = {}
    for solver in config.solver:
        if solver.kind == "ga":
            preset = Path(solver.config).name if solver.config else "defaults"
            info[solver.label] = f"evosoko GA, preset {preset} " + " ".join(solver.set)
        else:
            heuristic = f", heuristic {solver.heuristic}" if solver.heuristic else ""
            info[solver.label] = f"evosoko search {solver.algorithm}{heuristic}"
    return {label: text.strip() for label, text in info.items()}


def write_comparison_ioh(out: Path, config, rows: Sequence[dict], levels: dict[int, Any]) -> None:
    """A comparison's rows as IOHprofiler data in ``out`` (``levels``: index -> Level)."""
    dimensions = {index: level.box_count for index, level in levels.items()}
    labels = [solver.label for solver in config.solver]
    write_ioh(out, rows, dimensions, algorithms=labels, info=comparison_info(config))


def export_folder(folder: str | PathLike[str], out: str | PathLike[str] | None = None) -> Path:
    """Export a comparison or sweep folder to IOHprofiler data in ``out`` (default
    ``folder/ioh``); its level file is read again for the levels' box counts. Returns ``out``."""
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.files import read_results_csv
    from evosoko.experiment.compare.jobs import comparison_levels
    from evosoko.experiment.plots.folders import folder_kind

    folder = Path(folder)
    kind = folder_kind(folder)
    target = Path(out) if out is not None else folder / IOH_DIR
    if kind == "compare":
        config = load_compare_config(folder / "compare.toml")
        levels = {e.index: e.level for e in comparison_levels(config.compare)}
        rows = with_progress(read_results_csv(folder / "results.csv"), folder / "journal.jsonl")
        write_comparison_ioh(target, config, rows, levels)
    elif kind == "sweep":
        _export_sweep(folder, target)
    else:
        raise EvosokoError("a run folder has no jobs to export; give a compare or sweep folder",
                           str(folder))  # fmt: skip
    return target


def with_progress(rows: list[dict], journal: Path) -> list[dict]:
    """``rows`` of a comparison's results.csv with each job's progress from its journal
    (whose keys begin ``solver|level index|seed|``)."""
    from evosoko.parallel.jobs import Journal

    records = Journal(journal).finished()
    by_job = {tuple(key.split("|")[:3]): record for key, record in records.items()}
    for row in rows:
        seed = "-" if row["seed"] is None else str(row["seed"])
        record = by_job.get((row["solver"], str(row["level_index"]), seed), {})
        row["progress"] = record.get("progress", [])
    return rows


def _export_sweep(folder: Path, target: Path) -> None:
    from evosoko.experiment.plots.folders import load_trials
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.trials import sweep_levels

    config = load_sweep_config(folder / "sweep.toml")
    levels = {entry.index: entry.level for entry in sweep_levels(config)}
    trials = [trial for trial in load_trials(folder, config) if trial.rows]
    rows = [
        {
            "solver": f"trial-{trial.number}",
            "level_index": int(row["level_index"]),
            "level": row["level"],
            "seed": int(row["seed"]) if row["seed"] not in ("", None) else None,
            "solved": row["solved"],
            "seconds": float(row["seconds"]),
            "used": int(row["evaluations"]),
            "unit": "evaluations",
        }
        for trial in trials
        for row in trial.rows
    ]
    info = {
        f"trial-{t.number}": "evosoko GA, " + ", ".join(f"{k}={v}" for k, v in t.params.items())
        for t in trials
    }
    dimensions = {index: level.box_count for index, level in levels.items()}
    write_ioh(target, rows, dimensions, info=info)
