"""What a resume reads from a run folder, checked before the folder is written again.

A run folder is plain files that people open, copy and sometimes edit. Before
:func:`evosoko.experiment.run.runner.resume_run` continues a run, :func:`check_resume` checks
every file it will rely on, so that a damaged folder is refused with one ``error:`` line naming
the file (and the line, for ``metrics.csv``) and saying what to do, instead of a traceback or,
worse, a run that goes on from wrong data:

- ``summary.json``: a JSON object of the right shape; every finished level a planned one, in
  order, with values of the right types and ranges, and its solution replaying on the level;
- ``metrics.csv``: its header, every row complete and well-typed (a row cut short at the very
  end, as a crash leaves it, is dropped), each level's generations 0, 1, 2, ... without a gap;
  every finished level's rows up to its end (the last row holding its evaluations and restarts),
  and the level in progress's rows up to its checkpoint. A missing or truncated file is refused
  rather than continued with a hole (the rows of a generation cannot be recomputed from the
  folder short of running the level again);
- the checkpoint of the level in progress: its kind, level, encoding, counters, genes and
  evaluations against the configuration, its random state, and its generation against the
  metrics row of that generation;
- the levels not started yet: no rows in ``metrics.csv``, no checkpoint (either means the
  summary lost finished levels);
- ``manifest.json`` (:mod:`evosoko.experiment.run.manifest`), when the folder has one: the
  summary's finished levels, the starts of ``metrics.csv`` and ``events.jsonl`` and the
  checkpoint of the level in progress must be the ones the run wrote (an edit that leaves the files
  consistent with each other, such as a checkpoint of islands moved back to an earlier generation,
  is seen here). A deleted checkpoint is accepted: that level starts again from generation 0.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.state import (
    EngineState,
    IslandsState,
    LoopState,
    is_int,
    is_number,
    kind_problem,
    read_state,
)
from evosoko.experiment.run.folder import EVENTS_FILE, METRICS_FILE, SUMMARY_FILE, RunFolder
from evosoko.experiment.run.manifest import MANIFEST_FILE, Manifest, levels_digest, prefix_problem
from evosoko.experiment.run.records import (
    METRICS_COLUMNS,
    SUMMARY_KEYS,
    level_index,
    result_from_entry,
    run_index,
)
from evosoko.result import Result
from evosoko.sokoban.level import Level
from evosoko.status import read_stop

RUN_STATUSES = ("running", "completed", "interrupted", "failed")
_START_AGAIN = "or start the run again from its configuration (same seed, same results)"


@dataclass
class ResumePoint:
    """Where a checked run folder goes on: its finished levels, the level in progress (None:
    every level is finished), that level's checkpoint (None: it starts from generation 0)
    and ``(level index, checkpoint generation)``."""

    finished: list[Result]
    current: Level | None
    checkpoint: LoopState | None
    position: tuple[int, int] | None


def check_resume(
    folder: RunFolder, config: Config, summary: dict[str, Any], levels: list[Level]
) -> ResumePoint:
    """Check what a resume of ``folder`` reads; raises :class:`EvosokoError` naming the file.

    ``summary``: the folder's ``summary.json``; ``levels``: the run's levels, in order.
    """
    summary_path = str(folder.file(SUMMARY_FILE))
    finished = finished_results(summary, levels, summary_path)
    if summary.get("seed", config.run.seed) != config.run.seed:
        raise EvosokoError(
            f"the summary's seed {summary.get('seed')!r} is not the configuration's "
            f"{config.run.seed}: the configuration was edited; put it back",
            summary_path,
        )
    done = {result.index for result in finished}
    current = next((level for level in levels if level_index(level) not in done), None)
    manifest = folder.read_manifest()
    if manifest is not None:
        _check_manifest_summary(folder, manifest, summary)
    checkpoint = None
    position = None
    if current is not None:
        data = folder.load_checkpoint(level_index(current))
        if data is not None:
            path = str(folder.checkpoint_path(level_index(current)))
            checkpoint = check_checkpoint(data, config, current.name, path)
            position = (level_index(current), checkpoint.generation)
    rows = read_metrics_rows(folder.file(METRICS_FILE), {level_index(level) for level in levels})
    _check_rows_cover(rows, finished, current, checkpoint, config, folder)
    _check_not_started(rows, levels, current, folder)
    if manifest is not None:
        _check_manifest_files(folder, manifest, current)
    return ResumePoint(finished, current, checkpoint, position)


# ---- manifest.json -------------------------------------------------------------------------------
def _check_manifest_summary(folder: RunFolder, manifest: Manifest, summary: dict[str, Any]) -> None:
    """The summary's finished levels against the manifest (see the module docstring)."""
    recorded = manifest.finished
    entries = summary.get("levels", [])
    if recorded is not None and recorded.accepts(levels_digest(entries)) is None:
        listed = [entry.get("index") for entry in entries]
        if listed != recorded.facts:
            problem = (
                f"it lists the finished levels {_levels_list(listed)}, but the run finished "
                f"{_levels_list(recorded.facts)}"
            )
        else:
            problem = "its finished levels' entries are not the ones the run wrote"
        raise EvosokoError(
            f"{problem} ({MANIFEST_FILE}): restore {SUMMARY_FILE} from a copy, {_START_AGAIN}",
            str(folder.file(SUMMARY_FILE)),
        )


def _check_manifest_files(folder: RunFolder, manifest: Manifest, current: Level | None) -> None:
    """metrics.csv and the current level's checkpoint against the manifest, after the checks
    of what they hold (whose messages say more)."""
    for name, recorded, how in (
        (METRICS_FILE, manifest.metrics, ()),
        (EVENTS_FILE, manifest.events, (False, "events")),
    ):
        cut = None if recorded is None else prefix_problem(folder.file(name), recorded, *how)
        if cut is not None:
            raise EvosokoError(
                f"{cut} ({MANIFEST_FILE}); restore {name} from a copy, {_START_AGAIN}",
                str(folder.file(name)),
            )
    if current is None:
        return
    index = level_index(current)
    found = folder.checkpoint_digest(index)
    if found is None:
        return  # deleted: the level starts again from generation 0
    entry = manifest.checkpoints.get(index)
    path = str(folder.checkpoint_path(index))
    fix = (
        f"restore it from a copy or delete it to start level {index} again from generation 0, "
        f"{_START_AGAIN}"
    )
    if entry is None:
        raise EvosokoError(
            f"the run wrote no checkpoint of level {index} ({MANIFEST_FILE}): this file is not "
            f"one of its own; {fix}",
            path,
        )
    if entry.accepts(found) is None:
        raise EvosokoError(
            f"not the checkpoint the run wrote at generation {entry.facts} ({MANIFEST_FILE}): "
            f"it was edited or replaced; {fix}",
            path,
        )


def _levels_list(indices: Any) -> str:
    return "[" + ", ".join(str(index) for index in indices) + "]"


def _check_not_started(
    rows: dict[int, list[MetricsRow]],
    levels: list[Level],
    current: Level | None,
    folder: RunFolder,
) -> None:
    """No rows and no checkpoint of a level after the one in progress (the finished levels
    are the ones before it: :func:`finished_results` checks their order)."""
    if current is None:
        return
    later = levels[levels.index(current) + 1 :]
    lost = f"{SUMMARY_FILE} lost finished levels, or the file is not this run's"
    for level in later:
        index = level_index(level)
        if rows.get(index):
            raise EvosokoError(
                f"{len(rows[index])} rows of level {index} ({level.name}), which has not started "
                f"by {SUMMARY_FILE} (level {level_index(current)} is in progress): {lost}; restore "
                f"{SUMMARY_FILE} from a copy, {_START_AGAIN}",
                str(folder.file(METRICS_FILE)),
                rows[index][0].line,
            )
        if folder.checkpoint_path(index).exists():
            raise EvosokoError(
                f"a checkpoint of level {index} ({level.name}), which has not started by "
                f"{SUMMARY_FILE} (level {level_index(current)} is in progress): {lost}; restore "
                f"{SUMMARY_FILE} from a copy, or delete this checkpoint",
                str(folder.checkpoint_path(index)),
            )


# ---- summary.json --------------------------------------------------------------------------------
def finished_results(summary: dict[str, Any], levels: list[Level], path: str) -> list[Result]:
    """The finished levels of a summary, checked against the run's levels."""
    status = summary.get("status")
    if status not in RUN_STATUSES:
        raise EvosokoError(f"unknown run status {status!r}; expected one of {RUN_STATUSES}", path)
    entries = summary.get("levels", [])
    if not isinstance(entries, list):
        raise EvosokoError("'levels' is not a list of finished levels", path)
    planned = [level_index(level) for level in levels]
    if len(entries) > len(planned):
        raise EvosokoError(f"{len(entries)} finished levels but the run has {len(planned)}", path)
    by_index = {level_index(level): level for level in levels}
    results = []
    for position, entry in enumerate(entries):
        where = f"levels[{position}]"
        result = _level_result(entry, where, path)
        if result.index != planned[position]:
            raise EvosokoError(
                f"{where} is level {result.index}, but the run's level #{position + 1} is "
                f"{planned[position]}: finished levels are recorded in the order they ran",
                path,
            )
        level = by_index[result.index]
        if result.level_name != level.name:
            raise EvosokoError(
                f"{where} names level {result.level_name!r}, but level {result.index} is "
                f"{level.name!r}",
                path,
            )
        _check_solution(result, level, where, path)
        results.append(result)
    return results


def _level_result(entry: Any, where: str, path: str) -> Result:
    if not isinstance(entry, dict):
        raise EvosokoError(f"{where} is not a JSON object", path)
    optional = ("best", "exhausted")  # summaries written before they existed lack them
    missing = [name for name in SUMMARY_KEYS if name not in optional and name not in entry]
    if missing:
        raise EvosokoError(f"{where} has no {', '.join(repr(m) for m in missing)}", path)
    checks = {
        "index": lambda v: is_int(v) and v >= 1,
        "level": lambda v: isinstance(v, str),
        "solved": lambda v: isinstance(v, bool),
        "stop_reason": lambda v: _is_stop(v, entry.get("exhausted")),
        "exhausted": lambda v: _is_stop(entry.get("stop_reason"), v),
        "generations": lambda v: is_int(v) and v >= 0,
        "evaluations": lambda v: is_int(v) and v >= 0,
        "seconds": lambda v: is_number(v) and v >= 0,
        "moves": lambda v: v is None or (is_int(v) and v >= 0),
        "pushes": lambda v: v is None or (is_int(v) and v >= 0),
        "solution": lambda v: v is None or isinstance(v, str),
        "best_distance": lambda v: is_number(v) and v >= 0,
        "restarts": lambda v: is_int(v) and v >= 0,
        "best": lambda v: v is None or _is_best(v),
    }
    for name, valid in checks.items():
        if name in entry and not valid(entry[name]):
            raise EvosokoError(f"{where}.{name} = {entry[name]!r} is not a valid value", path)
    return result_from_entry(entry)


def _is_stop(word: Any, exhausted: Any) -> bool:
    """Whether a stop reason (and its exhausted resource) is one :func:`read_stop` reads."""
    try:
        read_stop(word, exhausted)
    except (ValueError, TypeError):
        return False
    return True


def _is_best(best: Any) -> bool:
    """The shape of a level's ``best`` entry (the best individual's play)."""
    return (
        isinstance(best, dict)
        and isinstance(best.get("lurd"), str)
        and all(is_int(best.get(key)) and best[key] >= 0 for key in ("moves", "pushes"))
        and is_number(best.get("distance"))
        and isinstance(best.get("solved"), bool)
    )


def _check_solution(result: Result, level: Level, where: str, path: str) -> None:
    from evosoko.sokoban.solutions import verify_solution

    if result.solved != (result.solution is not None):
        raise EvosokoError(f"{where}: 'solved' and 'solution' disagree", path)
    if result.solution is None:
        return
    check = verify_solution(level, result.solution)
    if not (check.valid and check.solved):
        raise EvosokoError(
            f"{where}.solution does not solve level {level.name} "
            f"({check.error or 'boxes left off goals'})",
            path,
        )
    if (check.moves, check.pushes) != (result.moves, result.pushes):
        raise EvosokoError(
            f"{where}: the solution has {check.moves} moves and {check.pushes} pushes, "
            f"not {result.moves} and {result.pushes}",
            path,
        )


# ---- metrics.csv ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class MetricsRow:
    """One checked row of ``metrics.csv`` and its file line."""

    line: int
    level_index: int
    generation: int
    evaluations: int
    best: float
    restarts: int


def read_metrics_rows(path: Path, level_indices: set[int]) -> dict[int, list[MetricsRow]]:
    """The rows of ``metrics.csv`` by level index, checked (see the module docstring)."""
    name = str(path)
    if not path.is_file():
        return {}
    try:
        with open(path, encoding="utf-8", newline="") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise EvosokoError(f"cannot read the file: {error}", name) from None
    lines = text.split("\n")
    complete_end = len(lines) - 1  # the text after the last newline is a cut row, if any
    if not lines[0].strip() and complete_end == 0:
        return {}
    header = next(csv.reader([lines[0]]))
    if tuple(header) != METRICS_COLUMNS:
        raise EvosokoError(f"the header is not {','.join(METRICS_COLUMNS)}; {_RESTORE}", name, 1)
    rows: dict[int, list[MetricsRow]] = {}
    for number in range(1, complete_end):
        if not lines[number]:
            raise EvosokoError(f"an empty line inside the rows; {_RESTORE}", name, number + 1)
        fields = next(csv.reader([lines[number]]))
        row = _metrics_row(fields, number + 1, name, level_indices)
        previous = rows.setdefault(row.level_index, [])
        expected = previous[-1].generation + 1 if previous else 0
        if row.generation != expected:
            raise EvosokoError(
                f"level {row.level_index} jumps to generation {row.generation} where "
                f"generation {expected} was due; {_RESTORE}",
                name,
                number + 1,
            )
        previous.append(row)
    return rows


_RESTORE = f"restore {METRICS_FILE} from a copy, {_START_AGAIN}"


def _metrics_row(fields: list[str], line: int, path: str, indices: set[int]) -> MetricsRow:
    if len(fields) != len(METRICS_COLUMNS):
        raise EvosokoError(
            f"this row has {len(fields)} values, not {len(METRICS_COLUMNS)}; {_RESTORE}",
            path,
            line,
        )
    values = dict(zip(METRICS_COLUMNS, fields))
    try:
        row = MetricsRow(
            line=line,
            level_index=int(values["level_index"]),
            generation=int(values["generation"]),
            evaluations=int(values["evaluations"]),
            best=float(values["best"]),
            restarts=int(values["restarts"]),
        )
        for column in ("mean", "std", "diversity", "seconds"):
            if not math.isfinite(float(values[column])):
                raise ValueError(column)
        int(values["best_length"])
        if values["solved"] not in ("0", "1"):
            raise ValueError("solved")
    except ValueError:
        raise EvosokoError(f"a value of this row is not a number; {_RESTORE}", path, line) from None
    if row.level_index not in indices:
        raise EvosokoError(
            f"level {row.level_index} is not one of this run's levels; {_RESTORE}", path, line
        )
    if row.generation < 0 or row.evaluations < 0 or row.restarts < 0 or row.best < 0:
        raise EvosokoError(f"a negative count in this row; {_RESTORE}", path, line)
    return row


def _check_rows_cover(
    rows: dict[int, list[MetricsRow]],
    finished: list[Result],
    current: Level | None,
    checkpoint: LoopState | None,
    config: Config,
    folder: RunFolder,
) -> None:
    """Every finished level's rows to its end, the current level's to its checkpoint."""
    path = str(folder.file(METRICS_FILE))
    single = config.ga.islands.count == 1
    for result in finished:
        level_rows = rows.get(run_index(result), [])
        if not level_rows:
            raise EvosokoError(
                f"no rows for the finished level {result.index} ({result.level_name}): the file "
                f"was deleted or cut; {_RESTORE}",
                path,
            )
        last = level_rows[-1]
        reaches = last.generation == result.generations if single else True
        if not reaches or (last.evaluations, last.restarts) != (result.cost, result.restarts):
            raise EvosokoError(
                f"the rows of the finished level {result.index} ({result.level_name}) end at "
                f"generation {last.generation} with {last.evaluations} evaluations, not where "
                f"the level ended ({result.cost} evaluations); {_RESTORE}",
                path,
                last.line,
            )
    if current is None or checkpoint is None:
        return
    generation = checkpoint.generation
    level_rows = rows.get(level_index(current), [])
    if len(level_rows) <= generation:
        have = f"up to generation {len(level_rows) - 1}" if level_rows else "none"
        raise EvosokoError(
            f"level {level_index(current)} ({current.name}) has a checkpoint at generation "
            f"{generation} but rows {have}; resuming would leave a hole; {_RESTORE}",
            path,
        )
    row = level_rows[generation]
    counts = (checkpoint.evaluations, checkpoint.restarts)
    islands = isinstance(checkpoint, IslandsState)
    if not _counts_agree(counts, (row.evaluations, row.restarts), islands):
        raise EvosokoError(
            f"the checkpoint of level {level_index(current)} ({current.name}) at generation "
            f"{generation} counts {counts[0]} evaluations and {counts[1]} restarts, its row "
            f"{row.evaluations} and {row.restarts}: one of them was edited; "
            f"{_delete_checkpoint(folder, current)}",
            str(folder.checkpoint_path(level_index(current))),
        )
    if isinstance(checkpoint, EngineState) and checkpoint.population:
        best = min(member.evaluation.distance for member in checkpoint.population)
        if best != row.best:
            raise EvosokoError(
                f"the checkpoint's population is at distance {best} at generation {generation}"
                f", its metrics row at {row.best:g}: one of them was edited; "
                f"{_delete_checkpoint(folder, current)}",
                str(folder.checkpoint_path(level_index(current))),
            )


def _counts_agree(checkpoint: tuple[int, int], row: tuple[int, int], islands: bool) -> bool:
    """Whether a checkpoint's (evaluations, restarts) fit the metrics row of its generation:
    the same for one population; islands may have finished epochs past the last generation
    streamed (their statistics wait in the checkpoint), so theirs may only be larger."""
    if not islands:
        return checkpoint == row
    return checkpoint[0] >= row[0] and checkpoint[1] >= row[1]


def _delete_checkpoint(folder: RunFolder, level: Level) -> str:
    return (
        f"delete {folder.checkpoint_path(level_index(level)).name} to start level "
        f"{level_index(level)} again from generation 0, {_START_AGAIN}"
    )


# ---- checkpoints ---------------------------------------------------------------------------------
def check_checkpoint(data: Any, config: Config, level_name: str, path: str) -> LoopState:
    """The state a level's checkpoint holds (:func:`evosoko.evolve.state.read_state`: its
    shape, ranges and random state), checked against the configuration that resumes it
    (:meth:`~evosoko.evolve.state.LoopState.check`); an :class:`EvosokoError` naming the file
    and the value otherwise."""
    fix = f"delete it to start this level again from generation 0, {_START_AGAIN}"
    try:
        state = read_state(data)
    except EvosokoError as error:
        raise EvosokoError(f"{error.message}; {fix}", path) from None
    problem = kind_problem(state, config)
    if problem is None and state.level != level_name:
        problem = f"it is of level {state.level!r}, not {level_name!r}"
    if problem is None:
        try:
            state.check(config)
        except ValueError as error:
            problem = str(error)
    if problem is not None:
        raise EvosokoError(f"a damaged checkpoint: {problem}; {fix}", path)
    return state
