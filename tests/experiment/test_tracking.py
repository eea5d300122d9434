"""Run tracking in MLflow (``[tracking]``), against a real MLflow tracking server that the tests
start on localhost and stop; what the run logged is read back with MLflow's own client. The
server tests skip without the ``tracking`` extra (``pip install -e '.[tracking]'``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from experiment_helpers import tiny_config

from evosoko.errors import ConfigError, EvosokoError
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run.progress import NoProgress
from evosoko.experiment.run.runner import resume_run, start_run

SELECT = 'run.select=["seed000-example", "seed000-case3"]'


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``mlflow server`` on 127.0.0.1 (a SQLite store, artifacts served by it), stopped after
    the module's tests."""
    pytest.importorskip("mlflow")
    home = tmp_path_factory.mktemp("mlflow")
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port)]
        + ["--workers", "1", "--backend-store-uri", f"sqlite:///{home / 'mlflow.db'}"]
        + ["--artifacts-destination", str(home / "artifacts")],
        cwd=home,
        # no background job workers (MLflow 3's GenAI jobs): a tracking store is all we use
        env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
        stdout=open(home / "server.log", "w"),  # noqa: SIM115 - closed with the process
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{uri}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"mlflow server did not start:\n{(home / 'server.log').read_text()}")
            time.sleep(0.5)
        yield uri
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _tracked(output: Path, uri: str, *overrides: str):
    return tiny_config(
        output,
        SELECT,
        "tracking.enabled=true",
        f"tracking.uri={uri}",
        "tracking.experiment=evosoko-tests",
        'tracking.tags={team = "trust"}',
        *overrides,
    )


@pytest.mark.tracking
def test_a_run_logs_params_metrics_per_generation_tags_and_files(server, tmp_path):
    from mlflow.tracking import MlflowClient

    report = start_run(_tracked(tmp_path, server, "ga.population=20", "ga.offspring=20"))
    assert report.status == "completed"
    run_id = report.summary["tracking"]["run_id"]
    client = MlflowClient(tracking_uri=server)
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED" and run.info.run_name == report.run_dir.name
    assert run.data.params["ga.population"] == "20" and run.data.params["run.seed"] == "0"
    assert "ga.mutation.replace_rate" in run.data.params
    assert (
        run.data.params["hybrid.enabled"] == "false" and run.data.params["ga.encoding"] == "pushes"
    )
    assert "hybrid.fraction" not in run.data.params  # not read (hybrid off): not logged
    tags = run.data.tags
    assert tags["team"] == "trust" and tags["evosoko.status"] == "completed"
    assert tags["evosoko.folder"] == str(report.run_dir)
    for result in report.results:
        history = client.get_metric_history(run_id, f"level_{result.index}/best_distance")
        assert [m.step for m in history] == [s.generation for s in result.history]
        assert [m.value for m in history] == [s.best_distance for s in result.history]
        solved = client.get_metric_history(run_id, f"level_{result.index}/solved")
        assert [m.value for m in solved] == [float(result.solved)]
    assert run.data.metrics["solved"] == sum(r.solved for r in report.results)
    files = {item.path for item in client.list_artifacts(run_id)}
    assert {"report.html", "config.toml", "summary.json", "solutions.sok", "plots"} <= files
    local = Path(client.download_artifacts(run_id, "report.html", str(tmp_path / "back")))
    assert local.read_bytes() == (report.run_dir / "report.html").read_bytes()


@pytest.mark.tracking
def test_a_resumed_run_logs_into_the_same_mlflow_run(server, tmp_path):
    from mlflow.tracking import MlflowClient

    class StopAtGeneration(NoProgress):
        def __init__(self, interrupts):
            self.interrupts = interrupts

        def on_generation(self, generation) -> None:
            if generation.stats.generation == 3:
                self.interrupts.request()

    config = _tracked(tmp_path, server, 'run.select=["seed000-case3"]', "ga.encoding=moves")
    interrupts = GracefulInterrupts()
    stopped = start_run(config, progress=StopAtGeneration(interrupts), interrupts=interrupts)
    assert stopped.status == "interrupted"
    run_id = stopped.summary["tracking"]["run_id"]
    client = MlflowClient(tracking_uri=server)
    first = client.get_run(run_id)
    assert first.info.status == "KILLED" and first.data.tags["evosoko.status"] == "interrupted"
    resumed = resume_run(stopped.run_dir)
    assert resumed.status == "completed" and resumed.summary["tracking"]["run_id"] == run_id
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED" and run.data.tags["evosoko.status"] == "completed"
    steps = [m.step for m in client.get_metric_history(run_id, "level_2/best_distance")]
    (result,) = resumed.results
    assert steps[-1] == result.generations and sorted(set(steps)) == list(range(steps[-1] + 1))


@pytest.mark.tracking
def test_an_unreachable_server_is_one_error_and_leaves_no_folder(tmp_path, monkeypatch):
    pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    config = _tracked(tmp_path / "runs", f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(EvosokoError, match=r"tracking: cannot log to http://127\.0\.0\.1"):
        start_run(config)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_tracking_without_mlflow_is_a_config_error_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    config = _tracked(tmp_path / "runs", "http://127.0.0.1:1")
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[tracking\]'"):
        start_run(config)
    assert not (tmp_path / "runs").exists()


def test_tracking_keys_without_tracking_enabled_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="tracking.uri = .* is not read: tracking is off"):
        tiny_config(tmp_path, "tracking.uri=http://127.0.0.1:5000")


@pytest.mark.tracking
def test_the_tracker_is_a_callback_of_evolve(server):
    from mlflow.tracking import MlflowClient

    import evosoko
    from evosoko.tracking import MlflowTracker

    config = evosoko.Config().set({"tracking.enabled": True, "tracking.uri": server})
    config = config.set("parallel.backend", "serial").set("ga.population", 20)
    tracker = MlflowTracker(config.tracking, run_name="from-python", params={"note": "api"})
    levels = evosoko.load_levels(Path(__file__).parents[2] / "levels" / "seeds.xsb")
    tracked = evosoko.evolve(
        levels[:2], config, callbacks=[tracker], budget=evosoko.Budget(evaluations=300)
    )
    tracker.finish("completed")
    client = MlflowClient(tracking_uri=server)
    run = client.get_run(tracker.run_id)
    assert run.info.status == "FINISHED" and run.data.params == {"note": "api"}
    for result in tracked:
        history = client.get_metric_history(tracker.run_id, f"level_{result.index}/evaluations")
        assert [m.value for m in history] == [float(s.evaluations) for s in result.history]


def _tracking_table(uri: str) -> str:
    return f'\n[tracking]\nenabled = true\nuri = "{uri}"\nexperiment = "evosoko-tests"\n'


def _compare_logged(client, run, outcome, rerun) -> None:
    params = run.data.params
    assert params["solver.bfs.algorithm"] == "bfs" and params["compare.budget.nodes"] == "20000"
    assert params["solver.ga-small.set"] == '["ga.population=20", "ga.offspring=20"]'
    for summary in outcome.summaries:
        assert run.data.metrics[f"{summary.solver}/solved"] == summary.solved
        assert run.data.metrics[f"{summary.solver}/runs"] == summary.runs
    done = client.get_metric_history(run.info.run_id, "jobs_done")
    assert [m.step for m in done] == list(range(1, outcome.jobs + 1))
    again, run_id = rerun()  # a finished comparison run again logs into the same MLflow run
    assert again.resumed == outcome.jobs and run_id == run.info.run_id


def _sweep_logged(client, run, outcome, _rerun) -> None:
    assert run.data.params["parameters.ga.tournament_size"] == "[2, 4]"
    history = client.get_metric_history(run.info.run_id, "solve_rate")
    assert [m.step for m in history] == [trial.number for trial in outcome.trials]
    assert [m.value for m in history] == [trial.solve_rate for trial in outcome.trials]
    assert run.data.tags["best.trial"] == str(outcome.best.number)
    best_size = run.data.tags["best.ga.tournament_size"]
    assert best_size == str(outcome.best.params["ga.tournament_size"])


def _run_id(folder: Path) -> str:
    return json.loads((folder / "tracking.json").read_text())["run_id"]


def _run_compare(path: Path, folder: Path):
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.runner import run_compare

    return run_compare(load_compare_config(path), folder, plots=False)


def _run_sweep(path: Path, folder: Path):
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.runner import run_sweep

    return run_sweep(load_sweep_config(path), folder, plots=False)


@pytest.mark.tracking
@pytest.mark.parametrize(
    ("kind", "start", "files", "logged"),
    [
        ("compare", _run_compare, {"summary.md", "report.html", "ioh"}, _compare_logged),
        ("sweep", _run_sweep, {"index.csv", "best.toml"}, _sweep_logged),
    ],
)
def test_an_experiment_logs_its_settings_results_and_files(
    server, tmp_path, kind, start, files, logged
):
    """A comparison logs its settings, each solver's results and its progress; a sweep each
    trial, tagging the best; both their files, into one MLflow run kept in tracking.json."""
    import report_folders
    from mlflow.tracking import MlflowClient

    path, folder = tmp_path / f"{kind}.toml", tmp_path / kind
    path.write_text(getattr(report_folders, kind.upper()) + _tracking_table(server))
    outcome = start(path, folder)
    run_id = _run_id(folder)
    client = MlflowClient(tracking_uri=server)
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED" and run.data.tags["evosoko.kind"] == kind
    logged(client, run, outcome, lambda: (start(path, folder), _run_id(folder)))
    artifacts = {item.path for item in client.list_artifacts(run_id)}
    assert {f"{kind}.toml", "results.csv", *files} <= artifacts


class _Recorder:
    """What :meth:`MlflowTracker.end_experiment` calls, recorded instead of sent to MLflow."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def log_files(self, folder, names):
        self.calls.append(("files", folder, tuple(names)))

    def finish(self, status):
        self.calls.append(("finish", status))


@pytest.mark.parametrize(
    ("complete", "status"), [(True, "completed"), (False, "interrupted"), (None, "failed")]
)
def test_an_experiment_ends_with_its_results_then_its_files_then_its_status(
    complete, status, tmp_path
):
    from evosoko.tracking import EXPERIMENT_ARTIFACTS, MlflowTracker

    recorder = _Recorder()
    MlflowTracker.end_experiment(
        recorder, tmp_path, complete, lambda: recorder.calls.append(("results",))
    )
    assert recorder.calls == [
        ("results",),
        ("files", tmp_path, EXPERIMENT_ARTIFACTS),
        ("finish", status),
    ]


def test_an_experiment_end_that_fails_is_logged_never_raised(tmp_path, caplog):
    from evosoko.tracking import MlflowTracker

    def broken() -> None:
        raise RuntimeError("the server went away")

    recorder = _Recorder()
    MlflowTracker.end_experiment(recorder, tmp_path, True, broken)
    assert recorder.calls == []
    assert "could not end the MLflow run" in caplog.text
    assert "the server went away" in caplog.text
