"""The jobs of ``evosoko compare`` (and ``sweep``): one solver on one level with one seed.

:func:`plan_jobs` lists every (solver, level, seed) job of a comparison with a stable key (a
digest of the solver's settings and the level, so changing either reruns the job);
:func:`run_job` runs one (in a worker) and returns its :class:`~evosoko.result.Result` as a
plain record for the journal; :func:`result_row` turns a finished job into a row of
``results.csv``, its solution replay-verified in the parent process. With the budget's clock
``cpu`` a job's seconds, its limit and its result, are the CPU seconds of its process: a search
counts them, and so does every GA preset (its job runs it serially, so its process does all
its work: the hybrid's seeding search, the generations, the memetic steps, the islands). A GA
job carries the parts
its configuration names that are not built in (:func:`evosoko.evolve.parts.used_by`), so a
plugin operator reaches workers that never imported it.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from dataclasses import dataclass, replace
from typing import Any

from evosoko.budget import Budget
from evosoko.config import OVERRIDE_SOURCE, Config, dump_config, load_config
from evosoko.config_loading import locate
from evosoko.errors import ConfigError, EvosokoError, EvosokoWarning, LevelFormatError
from evosoko.evolve.parts import used_by
from evosoko.experiment.compare.config import (
    CompareBudget,
    CompareConfig,
    CompareSettings,
    GASolver,
)
from evosoko.experiment.settings import read_level_file, selection_error
from evosoko.experiment.warmup import warm_up_config
from evosoko.parallel.jobs import Job
from evosoko.result import Result
from evosoko.search.algorithms import ALGORITHMS
from evosoko.search.settings import (
    FAMILIES,
    SettingsModel,
    changed_settings,
    family_of,
    settings_text,
)
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import select_levels
from evosoko.sokoban.holes.board import rules_notes
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Status, Stop, read_stop

__all__ = [
    "UNITS",
    "LevelEntry",
    "comparison_levels",
    "ga_config",
    "job_record",
    "plan_jobs",
    "record_stop",
    "result_row",
    "run_job",
    "solver_result",
    "unit_budgets",
]

UNITS = {"ga": "evaluations", "search": "nodes"}
"""The cost unit of each kind of solver (a search algorithm may name its own: mcts counts
iterations, see :attr:`evosoko.search.algorithms.Algorithm.unit`)."""


def unit_budgets(budget: CompareBudget) -> dict[str, int | None]:
    """Each cost unit's budget per job: ``budget.nodes`` bounds both expanded nodes and mcts's
    iterations (a search's ``node_limit``), which are not the same work, so not one unit."""
    return {"evaluations": budget.evaluations, "nodes": budget.nodes, "iterations": budget.nodes}


def job_unit(payload: dict) -> str:
    """The cost unit of a job's solver."""
    if payload["kind"] == "ga":
        return UNITS["ga"]
    return ALGORITHMS[payload["algorithm"]].unit


@dataclass(frozen=True)
class LevelEntry:
    """A level of the comparison with its 1-based index in its file."""

    index: int
    level: Level


def comparison_levels(
    settings: CompareSettings,
    source: tuple[str, str | None] | None = None,
    keys: tuple[str, ...] = ("compare", "select"),
    *,
    strict: bool = False,
) -> list[LevelEntry]:
    """The selected levels (``first`` applied), each with its index in the file.

    A selection that names no level, or an ambiguous one, is a :class:`ConfigError` at the
    line of ``keys`` in ``source`` (the file and its text); ``strict``: an invalid level in
    the level file is an error, not a warning.
    """
    path, text = source if source is not None else (None, None)
    levels = read_level_file(settings.levels, (*keys[:-1], "levels"), path, text, strict=strict)
    try:
        chosen = select_levels(levels, settings.select) if settings.select else levels
    except LevelFormatError:  # the selected level itself is invalid: its own file and line
        raise
    except EvosokoError as error:
        raise selection_error(error, keys, settings.select, path, text) from None
    if settings.first is not None:
        chosen = chosen[: settings.first]
    entries: dict[int, LevelEntry] = {}
    for level in chosen:  # a level selected twice runs once
        index = level.index if level.index is not None else 1
        entries.setdefault(index, LevelEntry(index, level))
    return list(entries.values())


def ga_config(
    solver: GASolver,
    limits: CompareBudget | Budget,
    source: tuple[str, str] | None = None,
    position: int = 0,
) -> Config:
    """The GA preset's run configuration with the comparison's per-job budget (its seconds and
    evaluations become ``run.budget``, which the engine checks through the same
    :class:`~evosoko.budget.Budget`), evaluated serially in its job (the jobs themselves run in
    parallel), without plots or checkpoints."""
    budget = Budget.of(limits)
    budget_overrides = [
        f"run.budget.seconds={budget.seconds!r}",
        f"run.budget.evaluations={budget.evaluations if budget.evaluations else 'none'}",
        "run.budget.generations=none",
        "parallel.backend=serial",
        "output.plots=false",
        "output.checkpoint_every=0",
    ]
    try:
        return load_config(solver.config, [*solver.set, *budget_overrides])
    except ConfigError as error:
        if error.path != OVERRIDE_SOURCE or source is None:
            raise
        raise ConfigError(
            f"solver {solver.label!r}: {error.message}",
            source[0],
            locate(source[1], ("solver", position, "set")),
        ) from None


def plan_jobs(config: CompareConfig, levels: list[LevelEntry]) -> list[Job]:
    """Every (solver, level, seed) job, in a fixed order: solver, then level, then seed."""
    budget = Budget.of(config.compare.budget)  # one job's limits, GA or search
    clock = {"clock": budget.clock} if budget.clock != "wall" else {}  # wall: the keys as before
    jobs = []
    for position, solver in enumerate(config.solver):
        carried: dict[str, Any] = {}  # travels with the job, not part of its key
        if isinstance(solver, GASolver):
            run_config = ga_config(solver, budget, config._source, position)
            settings: dict[str, Any] = {
                "kind": "ga",
                "config": dump_config(run_config),
                **clock,
            }
            carried["parts"] = used_by(run_config)
            seeds: list[int | None] = list(config.compare.seeds)
        else:
            settings = {
                "kind": "search",
                "algorithm": solver.algorithm,
                "heuristic": solver.heuristic,
                **search_payload(solver.settings),
                "seconds": budget.seconds,
                "nodes": budget.nodes,
                **clock,
            }
            seeds = list(config.compare.seeds) if solver.stochastic else [None]
        for entry in levels:
            rows, title = entry.level.rows(), entry.level.title
            rules = rules_payload(entry.level)
            digest = _digest(settings, rows, title, rules)
            for seed in seeds:
                payload = {
                    **settings,
                    **carried,
                    "rows": rows,
                    "title": title,
                    "seed": seed,
                    "solver": solver.label,
                    "level_index": entry.index,
                    **rules,
                }
                key = f"{solver.label}|{entry.index}|{'-' if seed is None else seed}|{digest}"
                jobs.append(Job(key, payload))
    return jobs


OLD_KEYS = {"weight": 3.0, "freeze": True, "corrals": True}
"""The settings every search job carried before the settings models, with their defaults: kept
in each job (the family's values where it has them), so that a comparison of default settings
keeps its job keys; the other knobs go into ``settings`` when they differ from the defaults."""


def search_payload(settings: SettingsModel | None) -> dict[str, Any]:
    """A search job's settings: ``weight``, ``freeze`` and ``corrals`` (see :data:`OLD_KEYS`),
    and ``settings``, the family's other knobs that differ from their defaults, when any do."""
    changed = changed_settings(settings)
    values = settings.model_dump() if settings is not None else {}
    payload: dict[str, Any] = {key: values.get(key, default) for key, default in OLD_KEYS.items()}
    others = {key: value for key, value in changed.items() if key not in OLD_KEYS}
    if others:
        payload["settings"] = others
    return payload


def job_settings(payload: dict) -> SettingsModel | None:
    """The settings model a search job runs with (see :func:`search_payload`)."""
    family = family_of(payload["algorithm"])
    if family is None:
        return None
    model = FAMILIES[family]
    given = {k: payload[k] for k in OLD_KEYS if k in model.model_fields}
    return model.model_validate({**given, **payload.get("settings", {})})


def job_settings_text(payload: dict) -> str:
    """The settings of a search job where they differ from the defaults, as ``key=value``
    words of the ``[search]`` table (``-``: none do); empty for a GA job."""
    if payload["kind"] != "search":
        return ""
    family = family_of(payload["algorithm"])
    return settings_text(job_settings(payload), f"{family}.")


def _digest(settings: dict, rows: list[str], title: str | None, rules: dict | None = None) -> str:
    text = json.dumps([settings, rows, title] + ([rules] if rules else []), sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


_LEVEL_CACHE: dict[tuple, Level] = {}


def rules_payload(level: Level) -> dict:
    """What a job needs besides rows and title to rebuild ``level`` under its rules: nothing
    for a standard level (so its jobs and digests stay as they were), its ``Rules`` and
    ``Pairs`` notes for a given-holes level."""
    notes = rules_notes(level)
    return {"rules": [list(note) for note in notes]} if notes else {}


def _level(payload: dict) -> Level:
    notes = tuple(tuple(note) for note in payload.get("rules", ()))
    key = (tuple(payload["rows"]), payload["title"], notes)
    if key not in _LEVEL_CACHE:
        _LEVEL_CACHE[key] = level_from_rows(payload["rows"], title=payload["title"], notes=notes)
    return _LEVEL_CACHE[key]


def run_job(payload: dict) -> dict:
    """Run one job (in a worker); its result as a plain record (:func:`job_record`)."""
    return job_record(solver_result(_level(payload), payload))


def solver_result(level: Level, payload: dict) -> Result:
    """What the job's solver does on ``level``."""
    if payload["kind"] == "ga":
        return _ga_result(level, payload)
    return _search_result(level, payload)


def _ga_result(level: Level, payload: dict) -> Result:
    import tomllib

    from evosoko.evolve.evaluation import make_evaluator
    from evosoko.evolve.registry import install
    from evosoko.evolve.runner import evolve_level

    install(payload.get("parts", ()))  # plugin parts, for a worker that never imported them
    config = Config.model_validate(tomllib.loads(payload["config"]))
    warm_up_config(config, [level])  # compiled before the clock starts (once per process)
    budget = Budget.of(config.run.budget).replace(clock=payload.get("clock", "wall"))
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        return evolve_level(level, config, evaluator=evaluator, seed=payload["seed"], budget=budget)


def _search_result(level: Level, payload: dict) -> Result:
    from evosoko.search import solve

    clock = payload.get("clock", "wall")
    started = time.process_time()
    found = solve(
        level,
        payload["algorithm"],
        heuristic=payload["heuristic"],
        time_limit=payload["seconds"],
        node_limit=payload["nodes"],
        settings=job_settings(payload),
        seed=payload["seed"] or 0,
        clock=clock,
    )
    result = found.as_result(level)
    if clock == "cpu":  # the seconds its limit counted
        return replace(result, seconds=round(time.process_time() - started, 3))
    return result


def job_record(result: Result) -> dict[str, Any]:
    """A job's result as the journal keeps it (``used``: its cost in its solver's unit; journals
    written before the status vocabulary have no ``exhausted``, which :func:`record_stop` reads,
    and before the IOH export's distances no ``progress``)."""
    return {
        "status": result.status,
        "exhausted": result.exhausted,
        "solved": result.solved,
        "seconds": result.seconds,
        "used": result.cost,
        "moves": result.moves,
        "pushes": result.pushes,
        "solution": result.solution,
        "progress": [list(point) for point in result.progress],
    }


def record_stop(record: dict[str, Any], payload: dict[str, Any]) -> Stop:
    """The stop of a job's journal record, an older journal's words read in today's
    vocabulary (:func:`evosoko.status.read_stop`, in the unit of the job's solver)."""
    return read_stop(record["status"], record.get("exhausted"), unit=job_unit(payload))


def record_result(job: Job, record: dict[str, Any], level: Level) -> Result:
    """The result of a job from its journal record, its solution replay-verified against
    ``level`` (one that does not solve it is dropped, with status ``rejected`` and a warning)."""
    payload = job.payload
    stop = record_stop(record, payload)
    result = Result(
        level_name=level.name,
        solver=payload["solver"],
        status=stop.status,
        exhausted=stop.exhausted,
        solution=record["solution"] if record["solved"] else None,
        moves=record["moves"],
        pushes=record["pushes"],
        cost=record["used"],
        unit=job_unit(payload),
        seconds=record["seconds"],
        index=payload["level_index"],
        level=level,
    )
    if result.solution is None:
        return result
    check = verify_solution(level, result.solution)
    if not (check.valid and check.solved):
        warnings.warn(
            EvosokoWarning(
                f"job {job.key}: its solution does not solve level {level.name}: {check.error}"
            ),
            stacklevel=3,
        )
        return replace(
            result,
            status=Status.REJECTED,
            exhausted=None,
            solution=None,
            moves=None,
            pushes=None,
        )
    return replace(result, solution=check.lurd, moves=check.moves, pushes=check.pushes)


def result_row(job: Job, record: dict, level: Level) -> dict[str, Any]:
    """The ``results.csv`` row of a finished job, from its verified result (see
    :func:`record_result`). A job that failed (``error``) counts as unsolved with status
    ``error`` and a warning."""
    payload = job.payload
    row = {
        "solver": payload["solver"],
        "kind": payload["kind"],
        "level_index": payload["level_index"],
        "level": level.name,
        "seed": payload["seed"],
        "unit": job_unit(payload),
        "status": Status.ERROR,
        "exhausted": None,
        "solved": False,
        "seconds": 0.0,
        "used": 0,
        "moves": None,
        "pushes": None,
        "solution": None,
        "settings": job_settings_text(payload),
    }
    if "error" in record:
        warnings.warn(EvosokoWarning(f"job {job.key} failed: {record['error']}"), stacklevel=2)
        return row
    result = record_result(job, record, level)
    row.update(job_record(result))
    row["progress"] = record.get("progress", [])  # kept apart from results.csv (IOH export)
    return row
