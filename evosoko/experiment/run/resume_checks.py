"""What a resume reads from a run folder, checked before the folder is written again.

A run folder is plain files that people open, copy and sometimes edit. Before
:func:`evosoko.experiment.run.runner.resume_run` continues a run, :func:`check_resume` checks every file it
will rely on, so that a damaged folder is refused with one ``error:`` line naming the file (and
the line, for ``metrics.csv``) and saying what to do, instead of a traceback or, worse, a run
that goes on from wrong data:

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
  metrics row of that generation.
"""

from __future__ import annotations

import csv
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evosoko.config import Config
from evosoko.errors import EvosokoError
from evosoko.evolve.checkpoint import (
    ISLANDS_CHECKPOINT_KIND,
    READABLE_VERSIONS,
    evaluation_from_json,
    searches_mismatch,
)
from evosoko.evolve.genomes import gene_range
from evosoko.evolve.islands import streamed_from_json
from evosoko.experiment.run.folder import METRICS_FILE, SUMMARY_FILE, RunFolder
from evosoko.experiment.run.records import (
    METRICS_COLUMNS,
    SUMMARY_KEYS,
    result_from_entry,
    run_index,
)
from evosoko.result import Result
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.status import read_stop

RUN_STATUSES = ("running", "completed", "interrupted", "failed")
_HASH_LIMIT = 1 << 64


def _is_hash_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(h) and 0 <= h < _HASH_LIMIT for h in value)


_START_AGAIN = "or start the run again from its configuration (same seed, same results)"


@dataclass
class ResumePoint:
    """Where a checked run folder goes on: its finished levels, the level in progress (None:
    every level is finished), that level's checkpoint (None: it starts from generation 0)
    and ``(level index, checkpoint generation)``."""

    finished: list[Result]
    current: Level | None
    checkpoint: dict[str, Any] | None
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
    current = next((level for level in levels if _index(level) not in done), None)
    checkpoint = None
    position = None
    if current is not None:
        checkpoint = folder.load_checkpoint(_index(current))
        if checkpoint is not None:
            path = str(folder.checkpoint_path(_index(current)))
            check_checkpoint(checkpoint, config, current.name, path)
            position = (_index(current), int(checkpoint["generation"]))
    rows = read_metrics_rows(folder.file(METRICS_FILE), {_index(level) for level in levels})
    _check_rows_cover(rows, finished, current, checkpoint, config, folder)
    return ResumePoint(finished, current, checkpoint, position)


# ---- summary.json ---------------------------------------------------------------------------------
def finished_results(summary: dict[str, Any], levels: list[Level], path: str) -> list[Result]:
    """The finished levels of a summary, checked against the run's levels."""
    status = summary.get("status")
    if status not in RUN_STATUSES:
        raise EvosokoError(f"unknown run status {status!r}; expected one of {RUN_STATUSES}", path)
    entries = summary.get("levels", [])
    if not isinstance(entries, list):
        raise EvosokoError("'levels' is not a list of finished levels", path)
    planned = [_index(level) for level in levels]
    if len(entries) > len(planned):
        raise EvosokoError(f"{len(entries)} finished levels but the run has {len(planned)}", path)
    by_index = {_index(level): level for level in levels}
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
        "index": lambda v: _is_int(v) and v >= 1,
        "level": lambda v: isinstance(v, str),
        "solved": lambda v: isinstance(v, bool),
        "stop_reason": lambda v: _is_stop(v, entry.get("exhausted")),
        "exhausted": lambda v: _is_stop(entry.get("stop_reason"), v),
        "generations": lambda v: _is_int(v) and v >= 0,
        "evaluations": lambda v: _is_int(v) and v >= 0,
        "seconds": lambda v: _is_number(v) and v >= 0,
        "moves": lambda v: v is None or (_is_int(v) and v >= 0),
        "pushes": lambda v: v is None or (_is_int(v) and v >= 0),
        "solution": lambda v: v is None or isinstance(v, str),
        "best_distance": lambda v: _is_number(v) and v >= 0,
        "restarts": lambda v: _is_int(v) and v >= 0,
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
        and all(_is_int(best.get(key)) and best[key] >= 0 for key in ("moves", "pushes"))
        and _is_number(best.get("distance"))
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


# ---- metrics.csv ----------------------------------------------------------------------------------
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
    checkpoint: dict[str, Any] | None,
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
    generation = int(checkpoint["generation"])
    level_rows = rows.get(_index(current), [])
    if len(level_rows) <= generation:
        have = f"up to generation {len(level_rows) - 1}" if level_rows else "none"
        raise EvosokoError(
            f"level {_index(current)} ({current.name}) has a checkpoint at generation "
            f"{generation} but rows {have}; resuming would leave a hole; {_RESTORE}",
            path,
        )
    row = level_rows[generation]
    counts = (int(checkpoint["evaluations"]), int(checkpoint["restarts"]))
    islands = checkpoint.get("kind") == ISLANDS_CHECKPOINT_KIND
    if not _counts_agree(counts, (row.evaluations, row.restarts), islands):
        raise EvosokoError(
            f"the checkpoint of level {_index(current)} ({current.name}) at generation "
            f"{generation} counts {counts[0]} evaluations and {counts[1]} restarts, its row "
            f"{row.evaluations} and {row.restarts}: one of them was edited; "
            f"{_delete_checkpoint(folder, current)}",
            str(folder.checkpoint_path(_index(current))),
        )
    if not islands and checkpoint.get("population"):
        best = min(
            evaluation_from_json(member["evaluation"]).distance
            for member in checkpoint["population"]
        )
        if best != row.best:
            raise EvosokoError(
                f"the checkpoint's population is at distance {best} at generation {generation}"
                f", its metrics row at {row.best:g}: one of them was edited; "
                f"{_delete_checkpoint(folder, current)}",
                str(folder.checkpoint_path(_index(current))),
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
        f"delete {folder.checkpoint_path(_index(level)).name} to start level {_index(level)} "
        f"again from generation 0, {_START_AGAIN}"
    )


# ---- checkpoints ----------------------------------------------------------------------------------
def check_checkpoint(data: dict[str, Any], config: Config, level_name: str, path: str) -> None:
    """Check a level's checkpoint (one population or islands) against the configuration."""
    fix = f"delete it to start this level again from generation 0, {_START_AGAIN}"
    try:
        if data.get("level") != level_name:
            raise _Bad(f"it is of level {data.get('level')!r}, not {level_name!r}")
        islands = config.ga.islands.count
        mismatch = searches_mismatch(data, config.searches.enabled)
        if mismatch is not None:
            raise _Bad(mismatch)
        if config.searches.enabled:
            from evosoko.evolve.search_population import state_problem

            problem = state_problem(data)
            if problem is not None:
                raise _Bad(problem)
        elif data.get("kind") == ISLANDS_CHECKPOINT_KIND:
            _check_islands(data, config)
        elif islands > 1:
            raise _Bad(f"it holds one population; the configuration has {islands} islands")
        else:
            _check_population_state(data, config, "")
    except _Bad as problem:
        raise EvosokoError(f"a damaged checkpoint: {problem}; {fix}", path) from None


class _Bad(Exception):
    pass


def _check_islands(data: dict[str, Any], config: Config) -> None:
    count = config.ga.islands.count
    if count == 1:
        raise _Bad("it holds islands; the configuration has one population")
    _need(data, "generation", lambda v: _is_int(v) and v >= 0, "")
    _need(data, "evaluations", lambda v: _is_int(v) and v >= 0, "")
    _need(data, "restarts", lambda v: _is_int(v) and v >= 0, "")
    _need(data, "seconds", lambda v: _is_number(v) and v >= 0, "")
    islands = _need(data, "islands", lambda v: isinstance(v, list) and len(v) == count, "")
    states = []
    for number, island in enumerate(islands):
        where = f"islands[{number}]."
        if not isinstance(island, dict):
            raise _Bad(f"{where[:-1]} is not an object")
        state = island.get("state")
        if state is not None:
            if not isinstance(state, dict):
                raise _Bad(f"{where}state is not an object")
            _check_population_state(state, config, where + "state.")
            states.append(state)
        _need(island, "epochs", lambda v: _is_int(v) and v >= 0, where)
        for key in ("outbox", "counts", "pending"):
            _need(island, key, lambda v: isinstance(v, list), where)
        for epoch in island["outbox"]:
            if not (isinstance(epoch, list) and len(epoch) == 2 and _is_int(epoch[0])):
                raise _Bad(f"{where}outbox holds a malformed entry")
            for member in epoch[1] if isinstance(epoch[1], list) else [None]:
                _check_member(member, config, f"{where}outbox member")
        for entry in island["counts"]:
            if not (isinstance(entry, list) and len(entry) == 3 and all(map(_is_int, entry))):
                raise _Bad(f"{where}counts holds a malformed entry")
        for stats in [
            *island["pending"],
            *([island.get("latest")] if island.get("latest") else []),
        ]:
            try:
                streamed_from_json(stats)
            except (TypeError, KeyError, ValueError, AttributeError):
                raise _Bad(f"{where}pending or latest holds malformed statistics") from None
    if states and data["evaluations"] != sum(s["evaluations"] for s in states):
        raise _Bad("its evaluations are not the sum of its islands'")


def _check_population_state(data: dict[str, Any], config: Config, where: str) -> None:
    """One engine's checkpoint (:class:`evosoko.evolve.checkpoint.Checkpoint`)."""
    ga, budget = config.ga, config.run.budget
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        readable = " or ".join(map(str, READABLE_VERSIONS))
        raise _Bad(f"{where}version is {version!r}, not {readable}")
    if data.get("encoding") != ga.encoding:
        raise _Bad(f"{where}encoding is {data.get('encoding')!r}; the configuration {ga.encoding}")
    most = budget.generations if budget.generations is not None else float("inf")
    _need(data, "generation", lambda v: _is_int(v) and 0 <= v <= most, where)
    _need(data, "evaluations", lambda v: _is_int(v) and v >= 0, where)
    _need(data, "seconds", lambda v: _is_number(v) and v >= 0, where)
    _need(data, "restarts", lambda v: _is_int(v) and v >= 0, where)
    _need(data, "stagnant", lambda v: _is_int(v) and v >= 0, where)
    if version == 1:
        _need(
            data,
            "best_values",
            lambda v: v is None or (isinstance(v, list) and all(map(_is_number, v))),
            where,
        )
    else:
        _need(
            data,
            "best_fitness",
            lambda v: (
                v is None
                or (isinstance(v, dict) and all(map(_is_number, v.values())) and "distance" in v)
            ),
            where,
        )
    population = _need(data, "population", lambda v: isinstance(v, list), where)
    if len(population) != ga.population:
        raise _Bad(
            f"{where}population has {len(population)} individuals; the configuration "
            f"{ga.population}"
        )
    for number, member in enumerate(population):
        _check_member(member, config, f"{where}population[{number}]")
    hall = _need(data, "hall_of_fame", lambda v: isinstance(v, list), where)
    if not 1 <= len(hall) <= ga.hall_of_fame:
        raise _Bad(f"{where}hall_of_fame has {len(hall)} individuals (1..{ga.hall_of_fame})")
    for number, member in enumerate(hall):
        _check_member(member, config, f"{where}hall_of_fame[{number}]")
    _need(data, "lost_positions", _is_hash_list, where)
    if "memetic_searched" in data:  # checkpoints before it have none
        _need(data, "memetic_searched", _is_hash_list, where)
    _check_rng_state(data.get("rng_state"), where)
    _check_age_memory(data.get("age_memory"), where)


def _check_member(member: Any, config: Config, where: str) -> None:
    if not isinstance(member, dict):
        raise _Bad(f"{where} is not an object")
    genes = member.get("genes")
    top = gene_range(config.ga.encoding)
    if not isinstance(genes, list) or len(genes) > config.ga.max_length:
        raise _Bad(f"{where}.genes is not a list of at most {config.ga.max_length} genes")
    for position, gene in enumerate(genes):
        if not (_is_int(gene) and 0 <= gene < top):
            raise _Bad(
                f"{where}.genes[{position}] = {gene!r} is not a gene of {config.ga.encoding} "
                f"genomes (0..{top - 1})"
            )
    evaluation = member.get("evaluation")
    solved, distance, length, keep, state_hash, gap, terms = _evaluation_values(evaluation, where)
    valid = (
        solved in (0, 1, True, False)
        and _is_int(distance)
        and 0 <= distance <= UNREACHABLE
        and _is_int(length)
        and 0 <= length <= len(genes)
        and _is_int(keep)
        and 0 <= keep <= len(genes)
        and _is_int(state_hash)
        and 0 <= state_hash < _HASH_LIMIT
        and all(_is_int(g) and g >= 0 for g in gap)
        and all(_is_number(t) for t in terms)
    )
    if not valid or (bool(solved) and distance != 0):
        raise _Bad(f"{where}.evaluation = {evaluation!r} is out of range")
    age = member.get("age", 0)
    if not (_is_int(age) and age >= 0):
        raise _Bad(f"{where}.age = {age!r} is not a count")


def _evaluation_values(evaluation: Any, where: str) -> tuple:
    """``(solved, distance, length, keep, state_hash, [gap], [terms])`` of a member's
    evaluation: by name (version 2) or a positional list (version 1)."""
    if isinstance(evaluation, dict):
        names = ("solved", "distance", "length", "keep", "state_hash")
        missing = [name for name in names if name not in evaluation]
        if missing:
            raise _Bad(f"{where}.evaluation has no {', '.join(map(repr, missing))}")
        terms = evaluation.get("terms", [])
        if not isinstance(terms, list):
            raise _Bad(f"{where}.evaluation.terms is not a list of numbers")
        gap = [evaluation["gap"]] if "gap" in evaluation else []
        return (*(evaluation[name] for name in names), gap, terms)
    if not (isinstance(evaluation, list) and len(evaluation) in (5, 6)):
        raise _Bad(f"{where}.evaluation is neither an evaluation by name nor a list of 5 or 6")
    solved, distance, length, keep, state_hash, *gap = evaluation
    return solved, distance, length, keep, state_hash, gap, []


def _check_rng_state(state: Any, where: str) -> None:
    try:
        version, internal, gauss = state
        random.Random().setstate((int(version), tuple(int(x) for x in internal), gauss))
    except (TypeError, ValueError, OverflowError):
        raise _Bad(f"{where}rng_state is not the state of a random generator") from None


def _check_age_memory(text: Any, where: str) -> None:
    if text is None:
        return
    from evosoko.evolve.aging import AgeMemory

    try:
        AgeMemory.from_json(text)
    except Exception:  # noqa: BLE001 - any decoding problem means a damaged table
        raise _Bad(f"{where}age_memory is not an age table written by evosoko") from None


def _need(data: dict[str, Any], key: str, valid, where: str) -> Any:
    if key not in data:
        raise _Bad(f"{where}{key} is missing")
    if not valid(data[key]):
        raise _Bad(f"{where}{key} = {_short(data[key])} is out of range")
    return data[key]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _index(level: Level) -> int:
    return level.origin.index if level.origin is not None else 1
