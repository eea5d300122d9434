"""One long table of results, GA and search rows together, for pandas (:func:`results`).

Every row is one solver on one level with one seed (a run's level, a comparison's or a sweep's
job, a :class:`~evosoko.result.Result`), with the same columns whatever produced it
(:data:`~evosoko.experiment.results_table.COLUMNS`): where it came from, the level (index in its
file and title), the solver, the seed, a digest of the solver's settings, how it stopped in the one
status vocabulary of :mod:`evosoko.status` (``status``, and ``exhausted`` for a budget stop), what
it spent (``cost`` in its ``unit``, also as ``evaluations`` or ``nodes``), seconds, and the moves
and pushes of its solution. ``evosoko.results(folder_or_outcomes).to_pandas()`` gives it as a
DataFrame; run reports, comparisons and sweeps have ``.to_pandas()`` doing the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.results_table import ResultsTable, make_row, result_row, table_of
from evosoko.settings_digest import ga_settings_digest, search_settings_digest
from evosoko.status import read_stop

__all__ = ["results"]


def results(source: Any) -> ResultsTable:
    """The tidy table of ``source``: a run, compare or sweep folder (a path), a run report,
    comparison or sweep outcome, a :class:`~evosoko.result.Result`, or several of these (a
    list) together."""
    from evosoko.result import Result

    if isinstance(source, (str, PathLike)):
        return _folder(Path(source))
    if isinstance(source, Result):
        return ResultsTable([result_row(source)])
    folder = getattr(source, "folder", None) or getattr(source, "run_dir", None)
    if folder is not None:
        return _folder(Path(folder))
    if isinstance(source, Iterable):
        table = ResultsTable()
        for item in source:
            table = table + results(item)
        return table
    raise TypeError(f"no results in a {type(source).__name__}")


# ---- folders -------------------------------------------------------------------------------------
def _folder(folder: Path) -> ResultsTable:
    from evosoko.experiment.plots.folders import folder_kind

    kind = folder_kind(folder)
    if kind == "run":
        return _run(folder)
    if kind == "compare":
        return _compare(folder)
    return _sweep(folder)


def _run(folder: Path) -> ResultsTable:
    from evosoko.experiment.run.runner import read_run

    return table_of(read_run(folder).results, folder.name)


def _compare(folder: Path) -> ResultsTable:
    from evosoko.experiment.compare.files import CONFIG_FILE, RESULTS_FILE, read_results_csv

    digests = _solver_digests(folder / CONFIG_FILE)
    rows = []
    for row in read_results_csv(folder / RESULTS_FILE):
        rows.append(
            make_row(
                source=folder.name,
                level_index=row["level_index"],
                level=row["level"],
                solver=row["solver"],
                kind=row["kind"],
                seed=row["seed"],
                settings=digests.get(row["solver"]),
                status=str(row["status"]),
                exhausted=None if row["exhausted"] is None else str(row["exhausted"]),
                cost=row["used"],
                unit=row["unit"],
                seconds=row["seconds"],
                moves=row["moves"],
                pushes=row["pushes"],
            )
        )
    return ResultsTable(rows)


def _solver_digests(path: Path) -> dict[str, str | None]:
    """Per solver label of a comparison file, the digest of its settings with the
    comparison's budget (None for a GA solver whose configuration cannot be read now)."""
    from evosoko.budget import Budget
    from evosoko.experiment.compare.config import GASolver, load_compare_config
    from evosoko.experiment.compare.jobs import ga_config

    try:
        config = load_compare_config(path)
    except (EvosokoError, OSError):
        return {}
    budget = config.compare.budget
    digests: dict[str, str | None] = {}
    for solver in config.solver:
        if isinstance(solver, GASolver):
            try:
                run_config = ga_config(solver, budget)
                limits = Budget.of(run_config.run.budget).replace(clock=budget.clock)
                digests[solver.label] = ga_settings_digest(run_config, limits)
            except (EvosokoError, OSError):  # its configuration file is gone or changed
                digests[solver.label] = None
        else:
            digests[solver.label] = search_settings_digest(
                solver.algorithm,
                heuristic=solver.heuristic,
                settings=solver.settings,
                seconds=budget.seconds,
                nodes=budget.nodes,
                clock=budget.clock,
            )
    return digests


def _sweep(folder: Path) -> ResultsTable:
    from evosoko.experiment.sweep.config import RESULTS_FILE

    digests = _trial_digests(folder)
    rows = []
    for raw in _csv_rows(folder / RESULTS_FILE):
        stop = read_stop(raw["status"], raw.get("exhausted") or None, unit="evaluations")
        rows.append(
            make_row(
                source=folder.name,
                level_index=int(raw["level_index"]),
                level=raw["level"],
                solver=f"trial-{raw['trial']}",
                kind="ga",
                seed=int(raw["seed"]) if raw["seed"] else None,
                settings=digests.get(int(raw["trial"])),
                status=str(stop.status),
                exhausted=None if stop.exhausted is None else str(stop.exhausted),
                cost=int(raw["evaluations"]),
                unit="evaluations",
                seconds=float(raw["seconds"]),
                moves=int(raw["moves"]) if raw["moves"] else None,
                pushes=int(raw["pushes"]) if raw["pushes"] else None,
            )
        )
    return ResultsTable(rows)


def _csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    if not path.is_file():  # a sweep stopped before its first trial finished
        return []
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def _trial_digests(folder: Path) -> dict[int, str]:
    """Per trial number, the digest of its run configuration's settings: the planned trials
    of a grid or random sweep, the study's trials of an Optuna one ({} when the sweep file or
    study cannot be read now: the rows stand without their digests)."""
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.trials import plan_trials, trial_config

    try:
        config = load_sweep_config(folder / "sweep.toml")
        if config.sweep.method == "optuna":
            params = _study_params(folder, config)
        else:
            params = {trial.number: trial.params for trial in plan_trials(config)}
        return {
            number: ga_settings_digest(trial_config(config, values))
            for number, values in params.items()
        }
    except (EvosokoError, OSError, ImportError):
        return {}


def _study_params(folder: Path, config: Any) -> dict[int, dict[str, Any]]:
    """The parameters of every trial of an Optuna sweep with all of them, read only."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    from evosoko.experiment.sweep.config import OPTUNA_FILE

    path = folder / OPTUNA_FILE
    if not path.is_file():
        return {}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = JournalStorage(JournalFileBackend(str(path)))
    study = optuna.load_study(study_name=config.sweep.name, storage=storage)
    keys = list(config.parameters)
    return {
        trial.number: {key: trial.params[key] for key in keys}
        for trial in study.get_trials(deepcopy=False)
        if all(key in trial.params for key in keys)
    }
