"""Run tracking in MLflow: a run's parameters, per-generation metrics, tags and files.

A run configuration's ``[tracking]`` table (``enabled = true``, and optionally ``uri``,
``experiment``, ``run_name``, ``tags``, ``artifacts``) makes ``evosoko run`` log to MLflow, a
local store by default or any tracking URI (``http://host:port`` of ``mlflow server``):

- parameters: every configuration key the run reads (``ga.population``, ...), and the seed;
- metrics per generation, per level: ``level_<index>/best_distance``, ``mean_distance``,
  ``diversity``, ``evaluations``, ``best_length`` at step = generation; per level at its end
  ``level_<index>/solved``, ``moves``, ``pushes``, ``seconds``; per run ``solved``,
  ``solve_rate``, ``evaluations``, ``seconds``;
- tags: the table's ``tags``, the run folder (``evosoko.folder``), its status
  (``evosoko.status``) and the level file;
- artifacts (``artifacts = true``): ``config.toml``, ``summary.json``, ``results.csv``,
  ``metrics.csv``, ``solutions.sok``, ``report.html`` and ``plots/``.

A resumed run logs into the same MLflow run (its id is kept in ``summary.json``).

A comparison or sweep file's ``[tracking]`` table does the same for the experiment
(:func:`experiment_tracker`; the MLflow run's id is kept in the folder's ``tracking.json``):
its settings as parameters; as jobs finish, ``jobs_done`` (step = jobs done); at the end, per
solver ``<solver>/solve_rate``, ``solved``, ``runs``, ``median_seconds``, ``ert_seconds`` (a
comparison) or per trial ``objective``, ``solve_rate`` and ``median_evaluations`` at step =
trial number, with the best trial's parameters as ``best.<key>`` tags (a sweep); and its
files (:data:`EXPERIMENT_ARTIFACTS`). In Python,
:class:`MlflowTracker` is a :class:`~evosoko.evolve.callbacks.Callback` for
:func:`evosoko.evolve` too. MLflow is an optional extra: ``pip install -e '.[tracking]'``; the
run refuses to start without it, naming the extra. Metrics are sent in batches (at a level's
end and every :data:`FLUSH_SECONDS`), so the MLflow UI follows a run as it goes. A tracking
server that stops answering during a run is logged as a warning and the run goes on.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.errors import ConfigError, EvosokoError
from evosoko.evolve.callbacks import Callback

if TYPE_CHECKING:
    from evosoko.config import Config, TrackingConfig
    from evosoko.evolve.callbacks import Generation
    from evosoko.result import Result
    from evosoko.sokoban.level import Level

__all__ = [
    "ARTIFACTS",
    "EXPERIMENT_ARTIFACTS",
    "FLUSH_SECONDS",
    "GENERATION_METRICS",
    "MlflowTracker",
    "config_params",
    "experiment_tracker",
    "flat_params",
    "param_text",
    "require_mlflow",
]

log = logging.getLogger(__name__)

GENERATION_METRICS = ("best_distance", "mean_distance", "diversity", "evaluations", "best_length")
"""The :class:`~evosoko.result.GenerationStats` fields logged every generation."""

ARTIFACTS = (
    "config.toml",
    "summary.json",
    "results.csv",
    "metrics.csv",
    "solutions.sok",
    "report.html",
    "plots",
)
"""The files (and folder) of a run folder uploaded when it ends."""

EXPERIMENT_ARTIFACTS = (
    "compare.toml",
    "sweep.toml",
    "summary.md",
    "summary.json",
    "results.csv",
    "index.csv",
    "best.toml",
    "report.html",
    "plots",
    "ioh",
)
"""The files (and folders) of a comparison or sweep folder uploaded when it ends."""

TRACKING_FILE = "tracking.json"
"""Where a comparison or sweep folder keeps the id of its MLflow run."""

FLUSH_SECONDS = 5.0
"""Buffered metrics are sent at least this often while a level runs."""

_BATCH = 900  # under MLflow's 1,000 entities per log_batch request

_STATUS = {"completed": "FINISHED", "interrupted": "KILLED", "failed": "FAILED"}


def require_mlflow(source: str | None = None, line: int | None = None) -> Any:
    """The ``mlflow`` module, or a :class:`ConfigError` naming the extra that installs it."""
    try:
        import mlflow
    except ImportError:
        raise ConfigError(
            "tracking.enabled needs MLflow, which evosoko does not install: "
            "pip install -e '.[tracking]' (or pip install mlflow)",
            source,
            line,
        ) from None
    return mlflow


def config_params(config: Config) -> dict[str, str]:
    """Every key the run of ``config`` reads, dotted, with its value (:func:`param_text`)."""
    from evosoko.config_loading import dump_config
    from evosoko.config_reads import read_keys

    data = tomllib.loads(dump_config(config))
    params = {}
    for key in read_keys(config):
        value: Any = data
        for part in key:
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None and key[0] != "tracking":
            params[".".join(key)] = param_text(value)
    return params


def param_text(value: Any) -> str:
    """A parameter's value as MLflow shows it: a string as it is, ``true``/``false``, a list on
    one line (``[2, 4]``), a number as Python writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def flat_params(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested settings as dotted parameters (lists of tables by their ``name`` or
    ``algorithm``, else their position), values as :func:`param_text` writes them."""
    params: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            params.update(flat_params(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            for position, table in enumerate(value):
                label = table.get("name") or table.get("algorithm") or position
                params.update(flat_params(table, f"{name}.{label}."))
        elif value is not None:
            params[name] = param_text(value)
    return params


def experiment_tracker(experiment: Any, folder: Path, kind: str) -> MlflowTracker | None:
    """The tracker of a comparison or sweep (``experiment``: its validated settings) in
    ``folder`` (None when its ``[tracking]`` is off): a new MLflow run named after the folder,
    with every setting but ``[parallel]`` and ``[tracking]`` as a parameter, or the run its
    ``tracking.json`` names."""
    settings: TrackingConfig = experiment.tracking
    if not settings.enabled:
        return None
    params = flat_params(experiment.model_dump(exclude={"parallel", "tracking"}, exclude_none=True))
    from evosoko.atomic import write_json_atomic

    path = folder / TRACKING_FILE
    try:
        kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        kept = {}
    tracker = MlflowTracker(
        settings,
        run_name=folder.name,
        params=params,
        tags={"evosoko.folder": str(folder), "evosoko.kind": kind},
        run_id=kept.get("run_id") if isinstance(kept, dict) else None,
    )
    record = {"run_id": tracker.run_id, "uri": settings.uri, "experiment": settings.experiment}
    write_json_atomic(path, record)
    return tracker


class MlflowTracker(Callback):
    """Logs levels and generations to one MLflow run (see the module docstring).

    ``settings``: a ``[tracking]`` table; ``run_name``, ``params`` and ``tags`` of a new MLflow
    run, or ``run_id`` of one to continue (a resumed run). Raises :class:`EvosokoError` when
    the tracking store cannot be reached or the run is not there.
    """

    def __init__(
        self,
        settings: TrackingConfig,
        *,
        run_name: str | None = None,
        params: Mapping[str, Any] | None = None,
        tags: Mapping[str, str] | None = None,
        run_id: str | None = None,
    ) -> None:
        require_mlflow()
        from mlflow.tracking import MlflowClient

        self.client = MlflowClient(tracking_uri=settings.uri)
        self.settings = settings
        self._pending: list[Any] = []
        self._sent = time.monotonic()
        self._prefix = "level_1/"
        self._failed = False
        try:
            if run_id is not None:
                self.client.get_run(run_id)  # it exists
                self.client.update_run(run_id, status="RUNNING")
                self.run_id = run_id
            else:
                self.run_id = self._create(run_name, params or {}, tags or {})
        except Exception as error:  # noqa: BLE001 - MLflow raises many kinds: one error line
            where = settings.uri or "MLflow's default store"
            raise EvosokoError(f"tracking: cannot log to {where}: {_short(error)}") from None

    def _create(self, run_name: str | None, params: Mapping[str, Any], tags: Mapping[str, str]):
        from mlflow.entities import Param

        name = self.settings.experiment
        experiment = self.client.get_experiment_by_name(name)
        experiment_id = (
            experiment.experiment_id if experiment else self.client.create_experiment(name)
        )
        run = self.client.create_run(
            experiment_id,
            run_name=self.settings.run_name or run_name,
            tags={**tags, **self.settings.tags},
        )
        entries = [Param(key, str(value)[:6000]) for key, value in params.items()]
        for start in range(0, len(entries), 100):  # MLflow's limit of params per request
            self.client.log_batch(run.info.run_id, params=entries[start : start + 100])
        return run.info.run_id

    # ---- the loop's hooks ----------------------------------------------------------------------
    def on_level_start(self, level: Level) -> None:
        index = level.origin.index if level.origin is not None else level.index or 1
        self._prefix = f"level_{index}/"

    def on_generation(self, generation: Generation) -> None:
        stats = generation.stats
        for name in GENERATION_METRICS:
            self._metric(name, float(getattr(stats, name)), stats.generation)
        if len(self._pending) >= _BATCH or time.monotonic() - self._sent >= FLUSH_SECONDS:
            self.flush()

    def on_level_end(self, result: Result) -> None:
        step = result.generations or 0
        self._metric("solved", float(result.solved), step)
        self._metric("seconds", float(result.seconds), step)
        if result.solved:
            self._metric("moves", float(result.moves or 0), step)
            self._metric("pushes", float(result.pushes or 0), step)
        self.flush()

    # ---- the run's end -------------------------------------------------------------------------
    def log_totals(self, totals: Mapping[str, float | None]) -> None:
        """Metrics of the whole run (step 0; None values are left out)."""
        self.log_metrics(totals, 0)
        self.flush()

    def log_metrics(self, values: Mapping[str, float | None], step: int) -> None:
        """Metrics at ``step`` (None values are left out), sent with the next batch."""
        for name, value in values.items():
            if value is not None:
                self._pending.append(self._entry(name, float(value), step))
        if len(self._pending) >= _BATCH or time.monotonic() - self._sent >= FLUSH_SECONDS:
            self.flush()

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        """Tags of the MLflow run."""
        for key, value in tags.items():
            self._call(self.client.set_tag, self.run_id, key, str(value))

    def log_files(self, folder: Path, names: Iterable[str] = ARTIFACTS) -> None:
        """Upload the files (and folders) of ``folder`` that are there."""
        if not self.settings.artifacts:
            return
        for name in names:
            path = folder / name
            try:
                if path.is_dir():
                    self.client.log_artifacts(self.run_id, str(path), name)
                elif path.is_file():
                    self.client.log_artifact(self.run_id, str(path))
            except Exception as error:  # noqa: BLE001 - the run's files stay on disk
                log.warning("tracking: could not upload %s: %s", path, _short(error))

    def finish(self, status: str) -> None:
        """Tag the run's ``status`` (completed, interrupted, failed) and end the MLflow run."""
        self.flush()
        self._call(self.client.set_tag, self.run_id, "evosoko.status", status)
        printed = io.StringIO()  # MLflow prints the run's address: stdout stays the CLI's
        with contextlib.redirect_stdout(printed):
            self._call(self.client.set_terminated, self.run_id, _STATUS.get(status, "FAILED"))
        for line in printed.getvalue().splitlines():
            log.info("tracking: %s", line)

    def end_experiment(
        self, folder: Path, complete: bool | None, log_results: Callable[[], None]
    ) -> None:
        """End a comparison's or sweep's MLflow run, never raising (tracking must not hide the
        experiment's own outcome; a failure is logged): ``log_results()`` logs its own metrics,
        then the folder's :data:`EXPERIMENT_ARTIFACTS` are uploaded and the run finishes as
        ``completed``, ``interrupted`` (``complete`` False) or ``failed`` (``complete`` None:
        no outcome)."""
        try:
            log_results()
            self.log_files(folder, EXPERIMENT_ARTIFACTS)
            self.finish(
                "failed" if complete is None else "completed" if complete else "interrupted"
            )
        except Exception:
            log.exception("tracking: could not end the MLflow run")

    # ---- sending -------------------------------------------------------------------------------
    def _metric(self, name: str, value: float, step: int) -> None:
        self._pending.append(self._entry(self._prefix + name, value, step))

    @staticmethod
    def _entry(key: str, value: float, step: int) -> Any:
        from mlflow.entities import Metric

        return Metric(key, value, int(time.time() * 1000), step)

    def flush(self) -> None:
        """Send the buffered metrics."""
        pending, self._pending = self._pending, []
        self._sent = time.monotonic()
        for start in range(0, len(pending), _BATCH):
            self._call(self.client.log_batch, self.run_id, metrics=pending[start : start + _BATCH])

    def _call(self, function: Any, *args: Any, **kwargs: Any) -> None:
        """Call the tracking client; a failure is logged once and the run goes on."""
        if self._failed:
            return
        try:
            function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - tracking must never stop a run
            self._failed = True
            log.warning("tracking: stopped logging to MLflow: %s", _short(error))


def _short(error: BaseException) -> str:
    """The first line of an error's message (MLflow's can hold a whole response)."""
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__
