"""Level runs in run folders: the layer behind ``evosoko evolve-levels``.

Layout of ``<output.dir>/<UTC time>_<name>_<short id>/``::

    levels.toml          the resolved configuration (loads back to the same one)
    metrics.csv          one row per generation (the first population is generation 0)
    events.jsonl         run started, resumed, interrupted, completed ...
    certificates.jsonl   every distinct candidate certified: its key and score
    checkpoint.json      the loop's state after the last generation (and the work done)
    levels.xsb           the levels the run hands out, each with its verified certificate
    summary.json         status, why it stopped, totals and the levels written
    plots/               difficulty.png, front.png (several objectives), archive.png
    report.html          the report, its levels playable
    run.log              the log of the run

A generation's metrics row, then the checkpoint, are written as soon as it is scored; whole
files are replaced atomically and the folder is locked while a process writes it. Ctrl-C
(SIGINT) or SIGTERM stops the run once the candidate being certified is done: what was
certified stays in the journal, the folder is marked interrupted and :func:`resume_levels_run`
continues from the checkpoint exactly as the run would have gone on (the generation in progress
is scored again from the journal, without searching again).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import (
    LineAppender,
    WriteFailed,
    write_json_atomic,
    write_text_atomic,
)
from evosoko.experiment.clock import utc_stamp
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.report.folder_files import read_json
from evosoko.experiment.run.folder import FolderWriter, new_folder
from evosoko.experiment.run.records import csv_line, csv_text, read_csv_rows
from evosoko.experiment.run.runner import _run_log, _versions, run_ending
from evosoko.levelgen.config import LevelsConfig, dump_levels_config, load_levels_config
from evosoko.levelgen.emit import emitted_levels
from evosoko.levelgen.evolution import LevelEvolution
from evosoko.levelgen.progress import LevelsProgress
from evosoko.levelgen.scoring import CertificateJournal
from evosoko.levelgen.session import evolve
from evosoko.levelgen.state import LevelsState, read_levels_state
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.writing import format_levels
from evosoko.status import Status, Stop

log = logging.getLogger(__name__)

CONFIG_FILE = "levels.toml"
METRICS_FILE = "metrics.csv"
EVENTS_FILE = "events.jsonl"
JOURNAL_FILE = "certificates.jsonl"
CHECKPOINT_FILE = "checkpoint.json"
LEVELS_FILE = "levels.xsb"
SUMMARY_FILE = "summary.json"
LOG_FILE = "run.log"
PLOTS_DIR = "plots"
INTERRUPTED = "interrupted"
"""The status of a run folder stopped by Ctrl-C (running, completed, interrupted, failed)."""

BASE_COLUMNS = (
    "generation",
    "evaluations",
    "certifications",
    "feasible",
    "population",
    "coverage",
    "cpu_seconds",
    "seconds",
)
"""The columns of ``metrics.csv`` before the objectives' ``best_``, ``median_``, ``mean_``."""


def metrics_columns(config: LevelsConfig) -> tuple[str, ...]:
    """The columns of a run's ``metrics.csv``."""
    labels = [table.label for table in config.levels.objective]
    return BASE_COLUMNS + tuple(
        f"{kind}_{label}" for label in labels for kind in ("best", "median", "mean")
    )


@dataclass
class LevelsReport:
    """What a level run (or a resume) ended with: its folder, ``status`` (completed,
    interrupted, failed), why the loop stopped (``stop``), the summary, the levels written
    (each with its certificate), the exit code (0, 128 + signal, 1) and a line for the user."""

    run_dir: Path
    status: str
    stop: str | None
    summary: dict[str, Any]
    levels: list[Level] = field(default_factory=list)
    exit_code: int = 0
    message: str | None = None

    def _repr_html_(self) -> str:
        from html import escape

        totals = self.summary.get("totals") or {}
        rows = "".join(
            f"<tr><td>{escape(str(level.title))}</td>"
            f"<td>{escape(dict(level.notes).get('Pushes', ''))}"
            f"</td><td>{level.width}x{level.height}</td><td>{level.box_count}</td></tr>"
            for level in self.levels[:30]
        )
        return (
            f"<p><b>{escape(str(self.run_dir))}</b>: {escape(self.status)} "
            f"({escape(str(self.stop))}), "
            f"{totals.get('generations', 0)} generations, {totals.get('certifications', 0)} "
            f"levels certified in {totals.get('cpu_seconds', 0):.1f} CPU s</p>"
            "<table><tr><th>level</th><th>pushes</th><th>size</th><th>boxes</th></tr>"
            f"{rows}</table>"
        )


# ---- starting, resuming, reading -----------------------------------------------------------------
def start_levels_run(
    config: LevelsConfig,
    *,
    config_source: str | None = None,
    progress: LevelsProgress | None = None,
    interrupts: GracefulInterrupts | None = None,
) -> LevelsReport:
    """Evolve levels as ``config`` says into a new run folder under ``output.dir``."""
    file_levels = _init_levels(config)
    folder = _create_folder(Path(config.output.dir), config.levels.name)
    summary: dict[str, Any] = {
        "kind": "levels",
        "run_dir": str(folder.path),
        "name": config.levels.name,
        "status": "running",
        "stop": None,
        "exhausted": None,
        "seed": config.levels.seed,
        "config_file": config_source,
        "started": utc_stamp(),
        "finished": None,
        "totals": {},
        "levels": [],
        "versions": _versions(),
        "error": None,
        "resume": None,
    }
    try:
        write_text_atomic(folder.file(CONFIG_FILE), dump_levels_config(config))
        write_text_atomic(folder.file(METRICS_FILE), csv_text(metrics_columns(config), []))
        folder.write_summary(summary)
        folder.add_event("run_started", name=config.levels.name, seed=config.levels.seed)
    except BaseException:
        folder.discard()
        raise
    return _Execution(folder, config, summary, None, file_levels, progress, interrupts).run()


def resume_levels_run(
    run_dir: str | PathLike[str],
    *,
    progress: LevelsProgress | None = None,
    interrupts: GracefulInterrupts | None = None,
) -> LevelsReport:
    """Continue the level run in ``run_dir`` exactly as it would have gone on."""
    folder = _open_folder(Path(run_dir))
    try:
        config = load_levels_config(folder.file(CONFIG_FILE))
        summary = read_json(folder.file(SUMMARY_FILE))
        if summary.get("status") == "completed":
            folder.unlock()
            return LevelsReport(
                folder.path,
                "completed",
                summary.get("stop"),
                summary,
                _written_levels(folder.path),
                message="nothing to resume: the run is completed",
            )
        checkpoint = _read_checkpoint(folder.path, config)
        _keep_metrics(folder, config, None if checkpoint is None else checkpoint.generation)
        file_levels = _init_levels(config)
    except BaseException:
        folder.unlock()
        raise
    summary.update(status="running", finished=None, error=None, resume=None)
    summary["resumed"] = [*summary.get("resumed", []), utc_stamp()]
    folder.write_summary(summary)
    generation = None if checkpoint is None else checkpoint.generation
    folder.add_event("run_resumed", generation=generation)
    execution = _Execution(folder, config, summary, checkpoint, file_levels, progress, interrupts)
    return execution.run()


def read_levels_run(run_dir: str | PathLike[str]) -> LevelsReport:
    """A level run folder as it stands (read only)."""
    path = _checked_folder(Path(run_dir))
    summary = read_json(path / SUMMARY_FILE)
    return LevelsReport(
        path, summary.get("status", "unknown"), summary.get("stop"), summary, _written_levels(path)
    )


def plot_levels_run(
    run_dir: str | PathLike[str], target: str | PathLike[str] | None = None, fmt: str = "png"
) -> list[Path]:
    """Draw a level run's plots again from its folder (``evosoko plot``): into ``target``, by
    default its ``plots/``; the files written."""
    path = Path(run_dir)
    from evosoko.levelgen.plots import draw_run_plots

    config = load_levels_config(path / CONFIG_FILE)
    evolution = LevelEvolution(config.levels, state=_read_checkpoint(path, config))
    rows = read_csv_rows(path / METRICS_FILE, metrics_columns(config))
    folder = Path(target) if target is not None else path / PLOTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    return draw_run_plots(folder, rows, evolution, fmt)


def is_levels_folder(path: str | PathLike[str]) -> bool:
    """True when ``path`` is a level run folder (it holds ``levels.toml``)."""
    return (Path(path) / CONFIG_FILE).is_file()


def _read_checkpoint(path: Path, config: LevelsConfig) -> LevelsState | None:
    """The state in a run folder's checkpoint, or None when it has none yet."""
    checkpoint = path / CHECKPOINT_FILE
    if not checkpoint.is_file():
        return None
    try:
        return read_levels_state(read_json(checkpoint), config.levels.name)
    except EvosokoError as error:
        raise EvosokoError(error.message, str(checkpoint)) from None


def _written_levels(path: Path) -> list[Level]:
    collection = path / LEVELS_FILE
    return list(read_levels(collection)) if collection.is_file() else []


def _init_levels(config: LevelsConfig) -> list[Level]:
    """The levels of ``init_levels`` (none unless ``init = "file"``)."""
    settings = config.levels
    if settings.init != "file" or settings.init_levels is None:
        return []
    return list(read_levels(settings.init_levels))


# ---- the folder -------------------------------------------------------------------------------
class _Folder(FolderWriter):
    """A level run's folder while a process writes it (holding its lock)."""

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.file(SUMMARY_FILE), summary)

    def add_event(self, event: str, **fields: Any) -> None:
        if self._events is None:
            self._events = LineAppender(self.file(EVENTS_FILE))
        record = {"time": utc_stamp(), "event": event, **fields}
        self._events.write_line(json.dumps(record))

    def add_metrics(self, columns: tuple[str, ...], row: dict[str, Any]) -> None:
        if self._metrics is None:
            self._metrics = LineAppender(self.file(METRICS_FILE))
        self._metrics.write_line(_csv_line(columns, row))


def _create_folder(parent: Path, name: str) -> _Folder:
    folder = _Folder(new_folder(parent, name, PLOTS_DIR))
    folder.lock.acquire()
    return folder


def _checked_folder(path: Path) -> Path:
    """``path``, when it is a level run folder (else an :class:`EvosokoError`)."""
    if not path.is_dir():
        raise EvosokoError("no such run folder", str(path))
    for required in (CONFIG_FILE, SUMMARY_FILE):
        if not (path / required).is_file():
            raise EvosokoError(f"not a level run folder: it has no {required}", str(path))
    return path


def _open_folder(path: Path) -> _Folder:
    folder = _Folder(_checked_folder(path))
    folder.lock.acquire()
    (path / PLOTS_DIR).mkdir(exist_ok=True)
    return folder


def _keep_metrics(folder: _Folder, config: LevelsConfig, generation: int | None) -> None:
    """Drop the metrics rows written after the checkpoint (the resumed run writes them
    again), and a row cut short."""
    columns = metrics_columns(config)
    rows = read_csv_rows(folder.file(METRICS_FILE), columns)
    kept = [row for row in rows if generation is not None and int(row["generation"]) <= generation]
    write_text_atomic(folder.file(METRICS_FILE), csv_text(columns, kept))


# ---- one pass of the loop ------------------------------------------------------------------------
class _Execution:
    """One pass of a level run (a fresh start or a resume)."""

    def __init__(
        self,
        folder: _Folder,
        config: LevelsConfig,
        summary: dict[str, Any],
        checkpoint: LevelsState | None,
        file_levels: list[Level],
        progress: LevelsProgress | None,
        interrupts: GracefulInterrupts | None,
    ) -> None:
        self.folder, self.config, self.summary = folder, config, summary
        self.checkpoint = checkpoint
        self.file_levels = file_levels
        self.progress = progress or LevelsProgress()
        self.interrupts = interrupts or GracefulInterrupts(on_request=self.progress.stopping)
        self.columns = metrics_columns(config)
        self.status = "running"
        self.error: str | None = None
        self.stopped_by: Stop | None = None
        self.evolution: LevelEvolution | None = None
        self.levels: list[Level] = []

    def run(self) -> LevelsReport:
        with _run_log(self.folder.file(LOG_FILE)):
            try:
                with self.interrupts:
                    self._loop()
            except KeyboardInterrupt:
                self.status = INTERRUPTED
                self.folder.add_event("aborted", reason="second interrupt")
            except WriteFailed as error:
                self.status, self.error = "failed", str(error)
                log.error("run failed: %s", error)
            except EvosokoError as error:
                self.status, self.error = "failed", str(error)
                self._finish()
                raise
            except Exception as error:  # a bug or a resource problem: record it, exit 1
                self.status, self.error = "failed", f"{type(error).__name__}: {error}"
                log.exception("run failed")
            self._finish()
        return self._report()

    def _loop(self) -> None:
        def started(evolution: LevelEvolution) -> None:
            self.evolution = evolution
            self.progress.start(self.config.levels.budget.generations, evolution.scored)

        try:
            evolved = evolve(
                self.config,
                state=self.checkpoint,
                journal=CertificateJournal(self.folder.file(JOURNAL_FILE)),
                file_levels=self.file_levels,
                listeners=[self, self.progress],
                should_stop=self.interrupts.should_stop,
                on_start=started,
            )
        finally:
            self.progress.stop()
        self.stopped_by = evolved.stop
        self.status = INTERRUPTED if self.stopped_by.status == Status.INTERRUPTED else "completed"

    def on_generation(self, evolution: LevelEvolution) -> None:
        """The folder's listener: the metrics row, then the checkpoint."""
        state = evolution.state
        row: dict[str, Any] = {
            "generation": state.generation,
            "evaluations": state.evaluations,
            "certifications": state.certifications,
            "feasible": evolution.feasible,
            "population": len(evolution.population),
            "coverage": _coverage(evolution),
            "cpu_seconds": round(state.cpu_seconds, 4),
            "seconds": round(state.seconds, 3),
        }
        row.update(evolution.stats())
        self.folder.add_metrics(self.columns, row)
        text = json.dumps(state.to_json(), separators=(",", ":")) + "\n"
        write_text_atomic(self.folder.file(CHECKPOINT_FILE), text)

    def _finish(self) -> None:
        if self.status == "running":
            self.status = "failed"
        evolution = self.evolution
        try:
            if evolution is not None and evolution.population:
                self.levels = emitted_levels(evolution, self.config.output.keep)
                write_text_atomic(self.folder.file(LEVELS_FILE), format_levels(self.levels))
            self._plots()
            self.folder.add_event(self.status, levels=len(self.levels))
            self._write_summary()
            self._refresh_report()
        except WriteFailed as error:
            self.status, self.error = "failed", str(error)
            log.error("could not record the end of the run: %s", error)
        finally:
            self.folder.close()
            self.folder.unlock()

    def _plots(self) -> None:
        if not self.config.output.plots or self.evolution is None:
            return
        from evosoko.levelgen.plots import draw_run_plots

        try:
            rows = read_csv_rows(self.folder.file(METRICS_FILE), self.columns)
            draw_run_plots(self.folder.file(PLOTS_DIR), rows, self.evolution)
        except Exception:  # a plot must never lose the run's results
            log.exception("could not draw the plots")

    def _write_summary(self) -> None:
        evolution, stop = self.evolution, self.stopped_by
        stopped = stop is not None and stop.status != Status.INTERRUPTED
        self.summary.update(
            status=self.status,
            stop=None if stop is None else str(stop.status),
            exhausted=None if stop is None or stop.exhausted is None else str(stop.exhausted),
            finished=None if self.status == "running" else utc_stamp(),
            totals={
                "generations": 0 if evolution is None else evolution.generation,
                "evaluations": 0 if evolution is None else evolution.evaluations,
                "certifications": 0 if evolution is None else evolution.certifications,
                "cpu_seconds": 0.0 if evolution is None else round(evolution.cpu_seconds, 3),
                "seconds": 0.0 if evolution is None else round(evolution.seconds, 3),
                "population": 0 if evolution is None else len(evolution.population),
                "coverage": None if evolution is None else _coverage(evolution),
            },
            levels=[_level_entry(level) for level in self.levels],
            error=self.error,
            resume=None if stopped and self.status == "completed" else self._resume_command(),
        )
        self.folder.write_summary(self.summary)

    def _resume_command(self) -> str | None:
        if self.status in (INTERRUPTED, "failed"):
            return f"evosoko evolve-levels --resume {self.folder.path}"
        return None

    def _refresh_report(self) -> None:
        from evosoko.experiment.report.writer import refresh_report

        refresh_report(self.folder.path)

    def _report(self) -> LevelsReport:
        exit_code, message = run_ending(self, self._resume_command())
        stop = None if self.stopped_by is None else str(self.stopped_by)
        return LevelsReport(
            self.folder.path, self.status, stop, self.summary, self.levels, exit_code, message
        )


def _coverage(evolution: LevelEvolution) -> float | None:
    """The share of the archive's cells filled (MAP-Elites), else None."""
    if not evolution.settings.archive_run:
        return None
    bins = evolution.settings.archive.bins
    return round(len(evolution.population) / (bins[0] * bins[1]), 4)


SUMMARY_NOTES = {
    "Pushes": "pushes",
    "Moves": "moves",
    "BoxChanges": "box_changes",
    "Expanded": "expanded",
    "Generation": "generation",
}
"""The certificate notes a summary's level entry holds, and their keys there."""


def _level_entry(level: Level) -> dict[str, Any]:
    notes = dict(level.notes)
    entry: dict[str, Any] = {"title": level.title, "size": f"{level.width}x{level.height}"}
    entry["boxes"] = level.box_count
    for note, key in SUMMARY_NOTES.items():
        if note in notes:
            entry[key] = int(notes[note])
    if "Cell" in notes:
        entry["cell"] = notes["Cell"]
    return entry


# ---- small helpers -----------------------------------------------------------------------------
def _csv_line(columns: tuple[str, ...], row: dict[str, Any]) -> str:
    cells = {column: _cell(row.get(column)) for column in columns}
    return csv_line(columns, cells)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)
