"""Running a configuration over its levels: the layer behind ``evosoko run``.

:func:`start_run` creates a run folder (:mod:`evosoko.experiment.run.folder`) and evolves each
selected level in turn with :func:`evosoko.evolve.runner.evolve_level`, streaming metrics,
events and checkpoints into the folder. :func:`resume_run` continues a run that was interrupted
(or killed) from its saved configuration and checkpoints: finished levels are kept, the level in
progress continues from its last checkpoint, and the folder ends up as an uninterrupted run
would have left it (wall-clock columns aside).

SIGINT/SIGTERM stop a run gracefully after the current generation (see
:mod:`evosoko.experiment.interrupts`); the summary is then ``interrupted`` and
:attr:`RunReport.message` says how to resume.
"""

from __future__ import annotations

import functools
import logging
import platform
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.budget import Budget
from evosoko.config import Config, dump_config, load_config
from evosoko.errors import ConfigError, EvosokoError, EvosokoWarning, LevelFormatError
from evosoko.evolve.callbacks import Callback
from evosoko.evolve.evaluation import make_evaluator, worker_pool
from evosoko.evolve.runner import evolve_level
from evosoko.evolve.state import read_state
from evosoko.experiment.atomic import WriteFailed
from evosoko.experiment.clock import utc_stamp
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.plots.fitness import plot_fitness
from evosoko.experiment.run.folder import (
    CONFIG_FILE,
    LOG_FILE,
    PLOTS_DIR,
    SUMMARY_FILE,
    RunFolder,
)
from evosoko.experiment.run.level_writer import LevelWriter
from evosoko.experiment.run.progress import NoProgress, RunProgress
from evosoko.experiment.run.records import (
    SUMMARY_KEYS,
    board_digest,
    level_index,
    result_from_entry,
    stats_from_row,
    summary_entry,
)
from evosoko.experiment.run.resume_checks import check_resume, finished_results
from evosoko.experiment.run.resume_repairs import repair_folder, state_unfinished
from evosoko.experiment.settings import read_level_file, selection_error
from evosoko.experiment.warmup import warm_up_config, watch_compilation
from evosoko.parallel.dask_cluster import check_backend_reachable
from evosoko.result import History, Result
from evosoko.settings_digest import ga_settings_digest
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level

if TYPE_CHECKING:
    import pandas

    from evosoko.parallel.dask_pool import DaskPool
    from evosoko.parallel.pool import ProcessPool

log = logging.getLogger(__name__)

STATUSES = ("running", "completed", "interrupted", "failed")
EXIT_FAILED = 1


@dataclass
class RunReport:
    """What a run (or a resume) ended with.

    ``exit_code``: 0 completed, 128 + signal number interrupted, 1 failed. ``message``: a line
    for the user (how to resume, why it failed), or None.
    """

    run_dir: Path
    status: str
    results: list[Result]
    summary: dict[str, Any]
    exit_code: int = 0
    message: str | None = None

    def _repr_html_(self) -> str:
        from evosoko.experiment.notebook import run_html

        return run_html(self)

    def to_pandas(self) -> pandas.DataFrame:
        """The tidy table of its results (:func:`evosoko.results`) as a pandas DataFrame."""
        from evosoko.experiment.results_table import table_of

        return table_of(read_run(self.run_dir).results, self.run_dir.name).to_pandas()

    def json_summary(self) -> dict[str, Any]:
        """The ``--json`` object: the run folder, status and one entry per finished level, its
        ``best`` individual's play beside its ``solution`` (see
        :func:`~evosoko.experiment.run.records.summary_entry`)."""
        keys = [key for key in SUMMARY_KEYS if key not in ("best_distance", "restarts")]
        return {
            "run_dir": str(self.run_dir),
            "status": self.status,
            "levels": [
                {key: entry[key] for key in keys} for entry in map(summary_entry, self.results)
            ],
        }


def read_run(run_dir: str | PathLike[str]) -> RunReport:
    """A run folder as it stands, read only: its status, a result per finished level with its
    history (from ``metrics.csv``), seed and settings digest and, when the level file is still
    there, its level."""
    folder = RunFolder(Path(run_dir))
    for required in (CONFIG_FILE, "summary.json"):
        if not folder.file(required).is_file():
            raise EvosokoError(f"not a run folder: it has no {required}", str(run_dir))
    summary = folder.read_summary()
    histories: dict[int, History] = {}
    for row in folder.read_metrics():
        histories.setdefault(int(row["level_index"]), History()).append(stats_from_row(row))
    config = load_config(folder.file(CONFIG_FILE))
    levels = _quietly_read_levels(config)
    settings = ga_settings_digest(config)
    results = [
        result_from_entry(
            entry,
            history=histories.get(entry.get("index"), History()),
            level=levels.get(entry.get("index")),
            seed=config.run.seed,
            settings=settings,
        )
        for entry in summary.get("levels", [])
    ]
    return RunReport(folder.path, summary.get("status", "unknown"), results, summary)


def _quietly_read_levels(config: Config) -> dict[int, Level]:
    """The levels of a run's level file by index ({} when it cannot be read any more)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {level_index(level): level for level in read_levels(config.run.levels or "")}
    except (EvosokoError, OSError):
        return {}


def load_run_levels(
    config: Config, source: str | None = None, *, strict: bool = False
) -> tuple[list[Level], list[Level]]:
    """The level file of a configuration and the levels it runs (``run.select`` applied, in
    order). A level selected twice runs once (a run is a function of level, configuration and
    seed). A selection that names no level, or an ambiguous one, is a :class:`ConfigError` at
    the line of ``run.select`` in ``source``; ``strict``: an invalid level in the file is an
    error, not a warning."""
    if config.run.levels is None:
        raise ConfigError("run.levels is not set: name the level file to run", source)
    levels = read_level_file(config.run.levels, ("run", "levels"), source, strict=strict)
    try:
        chosen = select_levels(levels, config.run.select) if config.run.select else list(levels)
    except LevelFormatError:  # the selected level itself is invalid: its own file and line
        raise
    except EvosokoError as error:
        raise selection_error(error, ("run", "select"), config.run.select, source) from None
    unique: dict[int, Level] = {}
    for level in chosen:
        if level_index(level) in unique:
            warnings.warn(
                EvosokoWarning(
                    f"level {level.name} is selected more than once; it runs once", source
                ),
                stacklevel=2,
            )
        unique.setdefault(level_index(level), level)
    if not unique:
        raise EvosokoError("no levels to run", config.run.levels)
    return levels, list(unique.values())


def start_run(
    config: Config,
    *,
    config_source: str | None = None,
    progress: RunProgress | None = None,
    interrupts: GracefulInterrupts | None = None,
    strict: bool = False,
    callbacks: Sequence[Callback] = (),
) -> RunReport:
    """Run ``config`` in a new run folder under ``output.dir``; see the module docstring.
    ``callbacks`` see every level and generation after the folder's own writers.

    Bad input (levels that cannot be read or selected, a Dask scheduler that does not answer)
    raises :class:`EvosokoError` before the folder is created; ``strict``: so does an invalid
    level anywhere in the level file. A folder that cannot be set up (a full disk) is removed
    again.
    """
    file_levels, levels = load_run_levels(config, config_source, strict=strict)
    try:
        check_backend_reachable(config.parallel)
    except EvosokoError as error:
        if error.path is not None:
            raise
        raise EvosokoError(f"parallel.address: {error.message}", config_source) from None
    if config.tracking.enabled:
        from evosoko.tracking import require_mlflow

        require_mlflow(config_source)  # before anything is written
    folder = RunFolder.create(config.output.dir, config.run.name)
    summary = {
        "run_dir": str(folder.path),
        "name": config.run.name,
        "status": "running",
        "seed": config.run.seed,
        "config_file": config_source,
        "levels_file": config.run.levels,
        "started": utc_stamp(),
        "finished": None,
        "planned": _plan(levels),
        "levels": [],
        "totals": {},
        "versions": _versions(),
        "error": None,
        "resume": None,
    }
    try:
        folder.write_config(dump_config(config))
        tracker = _open_tracker(config, folder, summary)
        folder.write_summary(summary)
        folder.add_event(
            "run_started",
            name=config.run.name,
            seed=config.run.seed,
            levels=len(levels),
            config_file=config_source,
            levels_file=config.run.levels,
        )
    except BaseException:
        folder.discard()  # without its summary the folder could not be resumed
        raise
    execution = _Execution(
        folder,
        config,
        file_levels,
        levels,
        summary,
        progress,
        interrupts,
        callbacks=callbacks,
        tracker=tracker,
    )
    return execution.run()


def _open_tracker(config: Config, folder: RunFolder, summary: dict[str, Any]) -> Any:
    """The MLflow tracker of a run with ``[tracking]`` enabled (None without), continuing the
    MLflow run that ``summary`` names when it names one; its id goes into ``summary``."""
    if not config.tracking.enabled:
        return None
    from evosoko.tracking import MlflowTracker, config_params

    kept = summary.get("tracking") or {}
    tracker = MlflowTracker(
        config.tracking,
        run_name=folder.path.name,
        params={**config_params(config), "run.seed": config.run.seed},
        tags={
            "evosoko.folder": str(folder.path),
            "evosoko.kind": "run",
            "evosoko.levels": str(config.run.levels),
        },
        run_id=kept.get("run_id"),
    )
    summary["tracking"] = {
        "run_id": tracker.run_id,
        "uri": config.tracking.uri,
        "experiment": config.tracking.experiment,
    }
    return tracker


def resume_run(
    run_dir: str | PathLike[str],
    *,
    progress: RunProgress | None = None,
    interrupts: GracefulInterrupts | None = None,
    strict: bool = False,
    callbacks: Sequence[Callback] = (),
) -> RunReport:
    """Continue the run in ``run_dir`` exactly as it would have gone on; see the module docstring.

    A run that already completed is reported as it is.
    """
    folder = RunFolder.open(run_dir)  # holds the folder's lock from here on
    try:
        config = load_config(folder.file(CONFIG_FILE))
        summary = folder.read_summary()
        file_levels, levels = load_run_levels(config, str(folder.file(CONFIG_FILE)), strict=strict)
        if summary.get("planned") != _plan(levels):
            raise EvosokoError(
                f"the levels of {config.run.levels} no longer match the ones this run started with",
                str(folder.path),
            )
        if summary.get("status") == "completed":
            finished = finished_results(summary, levels, str(folder.file(SUMMARY_FILE)))
            if len(finished) == len(levels):
                folder.unlock()
                return RunReport(
                    folder.path,
                    "completed",
                    finished,
                    summary,
                    message="nothing to resume: the run is completed",
                )
            state_unfinished(folder, finished, levels)
        try:
            point = check_resume(folder, config, summary, levels)
        except EvosokoError as error:
            _mark_failed(folder, summary, error)
            raise
        repair_folder(folder, point, summary, file_levels)
        tracker = _open_tracker(config, folder, summary)
    except BaseException:
        folder.unlock()
        raise
    current, position = point.current, point.position
    summary.update(status="running", finished=None, error=None, resume=None)
    summary["resumed"] = [*summary.get("resumed", []), utc_stamp()]
    folder.write_summary(summary)
    folder.add_event(
        "run_resumed",
        finished_levels=len(point.finished),
        level=None if current is None else current.name,
        generation=None if position is None else position[1],
    )
    execution = _Execution(
        folder,
        config,
        file_levels,
        levels,
        summary,
        progress,
        interrupts,
        point.finished,
        callbacks,
        tracker,
    )
    return execution.run()


def _mark_failed(folder: RunFolder, summary: dict[str, Any], error: EvosokoError) -> None:
    """Record in the summary why a resume was refused (when the summary can be written); the
    manifest keeps the finished levels the run wrote, so a damaged summary stays refused."""
    summary.update(status="failed", error=str(error), resume=None)
    try:
        folder.write_summary(summary, record=False)
    except EvosokoError:
        log.warning("could not record the failure in the summary: %s", error)


class _Execution:
    """One pass over the levels of a run (a fresh start or a resume)."""

    def __init__(
        self,
        folder: RunFolder,
        config: Config,
        file_levels: list[Level],
        levels: list[Level],
        summary: dict[str, Any],
        progress: RunProgress | None,
        interrupts: GracefulInterrupts | None,
        finished: list[Result] | None = None,
        callbacks: Sequence[Callback] = (),
        tracker: Any = None,
    ) -> None:
        self.folder = folder
        self.config = config
        self.levels = levels
        self.file_levels = file_levels
        self.summary = summary
        self.progress = progress or NoProgress()
        self.tracker = tracker  # an evosoko.tracking.MlflowTracker, or None
        self.callbacks = [*callbacks, *([tracker] if tracker is not None else [])]
        self.interrupts = interrupts or GracefulInterrupts(on_request=self.progress.stopping)
        self.results = list(finished or [])
        self.status = "running"
        self.error: str | None = None
        self.pool: ProcessPool | DaskPool | None = None  # the run's workers (see worker_pool)

    def run(self) -> RunReport:
        with _run_log(self.folder.file(LOG_FILE)):
            aborted = False
            try:
                with self.interrupts:
                    self._warm_up()
                    budget = Budget.of(self.config.run.budget)
                    self.progress.start(len(self.levels), len(self.results), budget)
                    warm_up = functools.partial(warm_up_config, self.config)
                    with worker_pool(self.config.parallel, warm_up=warm_up) as pool:
                        self.pool = pool
                        self._run_levels()
            except KeyboardInterrupt:
                aborted = True
                self.status = "interrupted"
                self.folder.add_event("aborted", reason="second interrupt")
                log.warning("run aborted by a second interrupt")
            except WriteFailed as error:  # a full disk: the folder stays resumable
                self.status = "failed"
                self.error = str(error)
                log.error("run failed: %s", error)
            except EvosokoError as error:  # bad input met on the way (a broken checkpoint)
                self.status = "failed"
                self.error = str(error)
                raise
            except Exception as error:  # a bug or a resource problem: record it, exit 1
                self.status = "failed"
                self.error = f"{type(error).__name__}: {error}"
                log.exception("run failed")
            finally:
                try:
                    self.progress.stop()
                except Exception:  # the display must not keep the summary from its status
                    log.exception("the progress display failed")
                self._finish(draw_plots=not aborted)
                self._end_tracking()
        return self._report()

    def _end_tracking(self) -> None:
        """Log the run's totals and files to MLflow and end its MLflow run (never raises: the
        run's own files are written)."""
        if self.tracker is None:
            return
        try:
            totals = self.summary.get("totals", {})
            self.tracker.log_totals(
                {
                    k: totals[k]
                    for k in ("solved", "solve_rate", "evaluations", "seconds")
                    if k in totals
                }
            )
            self.tracker.log_files(self.folder.path)
            self.tracker.finish(self.status)
        except Exception:  # tracking must never lose the run's status
            log.exception("tracking: could not end the MLflow run")

    def _warm_up(self) -> None:
        """Compile the kernels this run needs before any level's clock starts (the progress
        display says so when they are not in the cache yet)."""
        started = time.perf_counter()
        compiled = []

        def compiling() -> None:
            compiled.append(True)
            self.progress.compiling()

        with watch_compilation(compiling):
            warm_up_config(self.config, self.levels)
        if compiled:
            log.info("compiled the kernels in %.1f s", time.perf_counter() - started)

    def _run_levels(self) -> None:
        done = {result.index for result in self.results}
        for level in self.levels:
            index = level_index(level)
            if index in done:
                continue
            if self.interrupts.requested:  # a signal arrived between levels
                self._interrupted(level, None)
                return
            result = self._run_level(level)
            if result is None:
                return
            self.results.append(result)
            self.folder.write_results(self.results, self.file_levels)
            self._write_summary()
            self._refresh_report()
        self.status = "completed"

    def _run_level(self, level: Level) -> Result | None:
        """Evolve one level (from its checkpoint, if any); None when interrupted."""
        config, index = self.config, level_index(level)
        saved = self.folder.load_checkpoint(index)
        resume_state = None if saved is None else read_state(saved)
        writer = LevelWriter(self.folder, index, resume_state)
        with make_evaluator(
            level, config.parallel, config.ga.encoding, config.fitness, pool=self.pool
        ) as evaluator:
            result = evolve_level(
                level,
                config,
                evaluator=evaluator,
                callbacks=[writer, self.progress, *self.callbacks],
                resume_state=resume_state,
                should_stop=self.interrupts.should_stop,
            )
        if result.status == "interrupted":
            self._interrupted(level, result.generations)
            return None
        return result

    def _interrupted(self, level: Level, generation: int | None) -> None:
        self.status = "interrupted"
        signal_number = self.interrupts.signal_number
        self.folder.add_event(
            "interrupted",
            index=level_index(level),
            level=level.name,
            generation=generation,
            signal=signal_number,
        )
        log.warning("run interrupted at level %s (signal %s)", level.name, signal_number)

    def _finish(self, draw_plots: bool) -> None:
        if self.status == "running":  # left by an error before any status was set
            self.status = "failed"
        if draw_plots and self.config.output.plots:
            try:
                plot_fitness(
                    self.folder.read_metrics(), self.folder.file(PLOTS_DIR) / "fitness.png"
                )
            except Exception:  # a plot must never lose the run's results
                log.exception("could not draw plots/fitness.png")
        try:
            self.folder.add_event(
                self.status,
                levels=len(self.results),
                solved=sum(result.solved for result in self.results),
            )
            self._write_summary()
            self._refresh_report()
        except WriteFailed as error:  # the summary on disk keeps its last state: resumable
            if self.status != "failed":
                self.status, self.error = "failed", str(error)
            log.error("could not record the end of the run: %s", error)
        finally:
            self.folder.close()
            self.folder.unlock()

    def _write_summary(self) -> None:
        results = self.results
        solved = sum(result.solved for result in results)
        self.summary.update(
            status=self.status,
            finished=None if self.status == "running" else utc_stamp(),
            levels=[summary_entry(result) for result in results],
            totals={
                "levels": len(self.levels),
                "finished": len(results),
                "solved": solved,
                "solve_rate": solved / len(self.levels),
                "generations": sum(result.generations or 0 for result in results),  # GA: known
                "evaluations": sum(result.cost for result in results),
                "seconds": round(sum(result.seconds for result in results), 3),
            },
            error=self.error,
            resume=self._resume_command() if self.status == "interrupted" else None,
        )
        self.folder.write_summary(self.summary)

    def _resume_command(self) -> str:
        return f"evosoko run --resume {self.folder.path}"

    def _refresh_report(self) -> None:
        """Rewrite report.html (a failure is logged, never raised)."""
        from evosoko.experiment.report.writer import refresh_report

        refresh_report(self.folder.path)

    def _report(self) -> RunReport:
        exit_code, message = run_ending(self, self._resume_command())
        return RunReport(
            self.folder.path, self.status, self.results, self.summary, exit_code, message
        )


def _plan(levels: list[Level]) -> list[dict[str, Any]]:
    """The levels of a run as saved in its summary: index, name and a digest of the board, so
    that a resume notices a level file that changed."""
    return [
        {
            "index": level_index(level),
            "level": level.name,
            "board": board_digest(level),
        }
        for level in levels
    ]


def run_ending(execution: Any, resume: str | None) -> tuple[int, str | None]:
    """The exit code of a run folder's pass that ended with ``execution.status``, and the
    line that tells the user how it ended (None: completed)."""
    if execution.status == "interrupted":
        return execution.interrupts.exit_code, f"interrupted; continue with: {resume}"
    if execution.status == "failed":
        return EXIT_FAILED, (
            f"run failed: {execution.error} (see {execution.folder.file(LOG_FILE)}); "
            f"once fixed, continue with: {resume}"
        )
    return 0, None


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("evosoko", "numpy", "numba", "deap"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


class _LogFile(logging.FileHandler):
    """``run.log``: a record the disk refuses is dropped quietly (no traceback on stderr for
    every record when the disk is full; the run reports the failure once)."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


@contextmanager
def _run_log(path: Path) -> Iterator[None]:
    """Send INFO and above of every logger (worker processes too) to ``run.log`` meanwhile."""
    handler = _LogFile(path, encoding="utf-8")
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s: %(message)s")
    )
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    previous_level = root.level
    root.setLevel(min(previous_level or logging.INFO, logging.INFO))
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
        handler.close()
