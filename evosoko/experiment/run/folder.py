"""The run folder: every file a run writes, and how it is repaired when a run is resumed.

Layout of ``<output.dir>/<UTC time>_<name>_<short id>/``::

    config.toml      the resolved configuration (loads back to the same Config)
    metrics.csv      one row per generation per level (see records.METRICS_COLUMNS)
    events.jsonl     one JSON object per event: run started, level started, restart, ...
    results.csv      one row per finished level
    solutions.sok    the verified solution of every solved level, as XSB with titles and notes
    summary.json     status (running / completed / interrupted / failed), results and totals
    plots/           fitness.png when the run ends
    run.log          the log of the run, worker processes included
    checkpoints/     level-<index>.json: the engine's latest state on each level
    manifest.json    digests of the summary's finished levels, the checkpoints,
                     metrics.csv and events.jsonl as the run last wrote them
                     (:mod:`evosoko.experiment.run.manifest`)

Whole files are replaced atomically; rows of metrics.csv and events.jsonl are appended and
flushed one by one. A process writing the folder holds its lock (``.lock``,
:mod:`evosoko.experiment.folder_lock`): a second ``--resume`` of the same folder is refused.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import LineAppender, write_json_atomic, write_text_atomic
from evosoko.experiment.clock import utc_now, utc_stamp
from evosoko.experiment.folder_lock import FolderLock
from evosoko.experiment.run.manifest import (
    MANIFEST_FILE,
    AppendedDigest,
    Manifest,
    digest,
    levels_digest,
)
from evosoko.experiment.run.records import (
    METRICS_COLUMNS,
    RESULT_COLUMNS,
    csv_line,
    csv_text,
    read_csv_rows,
    result_row,
    run_index,
)
from evosoko.result import Result
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import InvalidLevel, format_levels
from evosoko.sokoban.level import Level
from evosoko.sokoban.solution_files import BEST_NOTE, DISTANCE_NOTE, SOLUTION_NOTE
from evosoko.text import plain

CONFIG_FILE = "config.toml"
METRICS_FILE = "metrics.csv"
EVENTS_FILE = "events.jsonl"
RESULTS_FILE = "results.csv"
SOLUTIONS_FILE = "solutions.sok"
SUMMARY_FILE = "summary.json"
LOG_FILE = "run.log"
PLOTS_DIR = "plots"
CHECKPOINTS_DIR = "checkpoints"


def folder_name(name: str, when: datetime, short_id: str) -> str:
    """``20261122T031955Z_<name>_<short id>``; characters unsafe in file names become ``-``."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "run"
    return f"{when.strftime('%Y%m%dT%H%M%SZ')}_{safe}_{short_id}"


def output_folder(name: str, out: str | PathLike[str] | None, parent: str | Path = "runs") -> Path:
    """``out`` if given, else a new folder path under ``parent`` named like a run's."""
    if out is not None:
        return Path(out)
    return Path(parent) / folder_name(name, utc_now(), os.urandom(3).hex())


def make_output_folder(folder: Path) -> None:
    """Create ``folder`` (and parents) if needed; an unusable path is an :class:`EvosokoError`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise EvosokoError(
            f"cannot create the output folder: {error.strerror or error}", str(folder)
        ) from error


def new_folder(parent: str | Path, name: str, *inside: str) -> Path:
    """A new folder under ``parent`` (created as needed) named like a run's, with the
    folders ``inside`` it; one it cannot create is an :class:`EvosokoError`."""
    path = output_folder(name, None, parent)
    try:
        path.mkdir(parents=True)
        for folder in inside:
            (path / folder).mkdir()
    except OSError as error:
        raise EvosokoError(
            f"cannot create the run folder: {error.strerror or error}", str(path)
        ) from None
    return path


class FolderWriter:
    """A folder that this process writes while it holds its lock: its files, and the lines
    appended to its metrics and events (reopened on the next line after :meth:`close`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = FolderLock(path)
        self._metrics: LineAppender | None = None
        self._events: LineAppender | None = None

    def file(self, name: str) -> Path:
        """The path of ``name`` inside the folder."""
        return self.path / name

    def unlock(self) -> None:
        """Let another process write the folder (idempotent)."""
        self.lock.release()

    def close(self) -> None:
        """Close the appended files (they reopen on the next row)."""
        for appender in (self._metrics, self._events):
            if appender is not None:
                appender.close()
        self._metrics = self._events = None

    def discard(self) -> None:
        """Remove a folder that could not be set up (nothing in it is worth keeping)."""
        self.close()
        self.unlock()
        shutil.rmtree(self.path, ignore_errors=True)


class RunFolder(FolderWriter):
    """One run's folder; :meth:`create` makes a new one, :meth:`open` an existing one."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.manifest: Manifest | None = None  # None: not kept (a folder of an older evosoko)
        self._metrics_digest: AppendedDigest | None = None
        self._events_digest: AppendedDigest | None = None

    # ---- creating and opening -----------------------------------------------------------------
    @staticmethod
    def create(parent: str | Path, name: str) -> RunFolder:
        """A new, empty run folder under ``parent`` (created as needed)."""
        path = new_folder(parent, name)
        folder = RunFolder(path)
        folder.manifest = Manifest(path / MANIFEST_FILE)
        try:
            folder.lock.acquire()
            (path / PLOTS_DIR).mkdir()
            (path / CHECKPOINTS_DIR).mkdir()
            write_text_atomic(folder.file(METRICS_FILE), csv_text(METRICS_COLUMNS, []))
            folder.file(EVENTS_FILE).touch()
        except (OSError, EvosokoError) as error:
            folder.discard()
            if isinstance(error, EvosokoError):
                raise
            raise EvosokoError(
                f"cannot create the run folder: {error.strerror or error}", str(path)
            ) from None
        return folder

    @staticmethod
    def open(path: str | PathLike[str]) -> RunFolder:
        """An existing run folder; raises :class:`EvosokoError` when it is not one."""
        folder = RunFolder(Path(path))
        if not folder.path.is_dir():
            raise EvosokoError("no such run folder", str(path))
        for required in (CONFIG_FILE, SUMMARY_FILE):
            if not folder.file(required).is_file():
                raise EvosokoError(f"not a run folder: it has no {required}", str(path))
        for name in (PLOTS_DIR, CHECKPOINTS_DIR):
            place = folder.path / name
            if place.exists() and not place.is_dir():
                raise EvosokoError(
                    f"{name} is a file where the run keeps a folder: move it away, then resume",
                    str(place),
                )
        folder.lock.acquire()
        try:
            for name in (PLOTS_DIR, CHECKPOINTS_DIR):
                (folder.path / name).mkdir(exist_ok=True)
        except OSError as error:
            folder.unlock()
            raise EvosokoError(
                f"cannot create a folder in the run: {error.strerror or error}", str(path)
            ) from None
        return folder

    # ---- whole files ------------------------------------------------------------------------
    def write_config(self, text: str) -> None:
        """Save the resolved configuration."""
        write_text_atomic(self.file(CONFIG_FILE), text)

    def write_file(self, name: str, text: str) -> None:
        """Replace the file ``name`` of the folder with ``text``."""
        write_text_atomic(self.file(name), text)

    def write_summary(self, summary: dict[str, Any], *, record: bool = True) -> None:
        """Replace ``summary.json``; ``record``: its finished levels go into the manifest (a
        summary that only records why a resume was refused leaves the manifest as it was).

        The manifest's record of ``metrics.csv`` moves on too, except when the run stops
        (``interrupted``, ``failed``): the rows after the last checkpoint are dropped by a
        resume, so the record stays at that checkpoint.
        """
        if record and self.manifest is not None:
            entries = summary.get("levels", [])
            finished = [int(entry["index"]) for entry in entries]
            self.manifest.expect_finished(finished, levels_digest(entries))
        write_json_atomic(self.file(SUMMARY_FILE), summary)
        if record and self.manifest is not None:
            self._settle_manifest(metrics=summary.get("status") in ("running", "completed"))

    def read_summary(self) -> dict[str, Any]:
        """The saved ``summary.json`` (a JSON object, else :class:`EvosokoError`)."""
        return _read_json_object(self.file(SUMMARY_FILE))

    def write_results(self, results: Sequence[Result], file_levels: Sequence[Level]) -> None:
        """Replace ``results.csv`` and ``solutions.sok`` with the finished levels' results.

        ``file_levels`` is the whole level file (a result's ``index`` is 1-based into it).
        """
        for name, text in results_files(results, file_levels).items():
            self.write_file(name, text)

    # ---- checkpoints --------------------------------------------------------------------------
    def checkpoint_path(self, index: int) -> Path:
        """Where the checkpoint of the level with file index ``index`` is kept."""
        return self.path / CHECKPOINTS_DIR / f"level-{index}.json"

    def save_checkpoint(self, index: int, data: dict[str, Any]) -> Path:
        """Replace the checkpoint of level ``index`` atomically, recorded in the manifest;
        returns its path."""
        path = self.checkpoint_path(index)
        text = json.dumps(data, separators=(",", ":")) + "\n"
        if self.manifest is not None:
            self.manifest.expect_checkpoint(
                index, int(data["generation"]), digest(text.encode("utf-8"))
            )
        write_text_atomic(path, text)
        if self.manifest is not None:
            self._settle_manifest()
        return path

    def checkpoint_digest(self, index: int) -> str | None:
        """The SHA-256 of level ``index``'s checkpoint file, or None when it has none."""
        path = self.checkpoint_path(index)
        return digest(path.read_bytes()) if path.is_file() else None

    # ---- the manifest -------------------------------------------------------------------------
    def read_manifest(self) -> Manifest | None:
        """The folder's ``manifest.json`` (None: the folder has none); see :class:`Manifest`."""
        return Manifest.read(self.file(MANIFEST_FILE))

    def keep_manifest(self, summary: dict[str, Any]) -> None:
        """Write the manifest anew from the folder as it stands (checked by the caller) and
        keep it from now on: ``summary``'s finished levels, every checkpoint, metrics.csv."""
        manifest = Manifest(self.file(MANIFEST_FILE))
        entries = summary.get("levels", [])
        manifest.expect_finished([int(entry["index"]) for entry in entries], levels_digest(entries))
        for path in sorted((self.path / CHECKPOINTS_DIR).glob("level-*.json")):
            index, generation = _checkpoint_facts(path)
            if index is not None and generation is not None:  # else a file no resume reads
                manifest.expect_checkpoint(index, generation, digest(path.read_bytes()))
        self.manifest = manifest
        self._metrics_digest = self._events_digest = None
        self._settle_manifest()

    def _settle_manifest(self, metrics: bool = True) -> None:
        """Step two of a manifest record; ``metrics``: with metrics.csv as it stands (else as
        recorded before). events.jsonl is recorded as it stands: a resume drops none of it."""
        assert self.manifest is not None
        if self._metrics_digest is None:
            self._metrics_digest = AppendedDigest.of_file(self.file(METRICS_FILE))
        if self._events_digest is None:
            self._events_digest = AppendedDigest.of_file(self.file(EVENTS_FILE))
        self.manifest.settle(
            self._metrics_digest.prefix() if metrics else self.manifest.metrics,
            self._events_digest.prefix(header=False),
        )

    def load_checkpoint(self, index: int) -> dict[str, Any] | None:
        """The saved checkpoint of level ``index`` (a JSON object), or None when there is none."""
        path = self.checkpoint_path(index)
        if path.exists() and not path.is_file():
            raise EvosokoError("a checkpoint is a file, not a folder: remove it", str(path))
        return _read_json_object(path) if path.is_file() else None

    # ---- appended rows ----------------------------------------------------------------------
    def add_metrics(self, row: dict[str, str]) -> None:
        """Append one metrics row (flushed)."""
        if self._metrics is None:
            self._metrics = LineAppender(self.file(METRICS_FILE))
            self._metrics_digest = None  # opening may end a cut row: read the file again
        line = csv_line(METRICS_COLUMNS, row)
        self._metrics.write_line(line)
        if self._metrics_digest is not None:
            self._metrics_digest.add((line + "\n").encode("utf-8"))

    def add_event(self, event: str, **fields: Any) -> None:
        """Append one event, stamped with the UTC time (flushed)."""
        if self._events is None:
            self._events = LineAppender(self.file(EVENTS_FILE))
            self._events_digest = None  # opening may end a cut line: read the file again
        record = {"time": utc_stamp(), "event": event, **fields}
        line = json.dumps(record)
        self._events.write_line(line)
        if self._events_digest is not None:
            self._events_digest.add((line + "\n").encode("utf-8"))

    def read_metrics(self) -> list[dict[str, str]]:
        """The complete rows of ``metrics.csv`` (a row cut short by a crash is left out)."""
        return read_csv_rows(self.file(METRICS_FILE), METRICS_COLUMNS)

    def repair_metrics(
        self, finished: set[int], current: tuple[int, int] | None
    ) -> dict[int, list[int]]:
        """Keep the metrics rows a resumed run will not write again, drop the rest; returns
        the generations dropped, by level index (the caller states them).

        Kept: every row of a finished level (file index in ``finished``) and, for ``current`` =
        ``(index, generation)`` (the level resumed from its checkpoint), its rows up to that
        generation. Rows written after the last checkpoint are dropped: the resumed run writes
        them again, so the file ends up equal to an uninterrupted run's (a row cut short at its
        end, as a crash leaves it, is not counted).
        """
        self.close()
        kept: list[dict[str, str]] = []
        dropped: dict[int, list[int]] = {}
        for row in self.read_metrics():
            index, generation = int(row["level_index"]), int(row["generation"])
            if index in finished or (
                current is not None and index == current[0] and generation <= current[1]
            ):
                kept.append(row)
            else:
                dropped.setdefault(index, []).append(generation)
        write_text_atomic(self.file(METRICS_FILE), csv_text(METRICS_COLUMNS, kept))
        self._metrics_digest = None
        return dropped


def results_files(results: Sequence[Result], file_levels: Sequence[Level]) -> dict[str, str]:
    """The text of ``results.csv`` and ``solutions.sok`` for these finished levels."""
    rows = [result_row(result) for result in results]
    notes = {run_index(result): result_notes(result) for result in results}
    notes = {index: found for index, found in notes.items() if found}
    return {
        RESULTS_FILE: csv_text(RESULT_COLUMNS, rows),
        SOLUTIONS_FILE: solutions_text(file_levels, notes),
    }


def result_notes(result: Result) -> tuple[tuple[str, str], ...]:
    """The notes of a level in ``solutions.sok``: ``Solution`` when solved, else the best
    individual's prefix as ``Best`` with its ``Distance`` (never a ``Solution``)."""
    if result.solution is not None:
        return ((SOLUTION_NOTE, result.solution),)
    if result.best is not None:
        return ((BEST_NOTE, result.best.lurd), (DISTANCE_NOTE, str(result.best.distance)))
    return ()


Notes = str | Sequence[tuple[str, str]]
"""The notes of one level: a LURD string is a ``Solution`` note."""


def solution_collection(
    file_levels: Sequence[Level], notes: Mapping[int, Notes]
) -> list[Level | InvalidLevel]:
    """The levels of ``solutions.sok``: each level with its notes (a LURD string is a
    ``Solution`` note), by file index.

    Solutions are matched to levels by title (``evosoko verify LEVELS --solutions FILE``), and
    untitled levels by position; so when an untitled level has notes, the collection holds
    every level of the file up to the last one with notes, the others without notes, and a
    level the file holds but could not read (``file_levels.invalid``) as its own text, so that
    positions stay those of the file.
    A title that cannot be written as it is (a control character in it) is written escaped
    (:func:`evosoko.text.plain`), and the levels are then matched by position.
    """
    by_index = {level.index: level for level in file_levels}
    invalid = {bad.index: bad for bad in getattr(file_levels, "invalid", [])}
    writable = all(_writable_title(level.title) == level.title for level in file_levels)
    if writable and all(by_index[index].title for index in notes):
        return [_with_notes(by_index[index], found) for index, found in notes.items()]
    collection: list[Level | InvalidLevel] = []
    for index in range(1, max(notes) + 1):
        if index in by_index:
            collection.append(_with_notes(by_index[index], notes.get(index, ())))
        elif index in invalid:
            collection.append(invalid[index])
    return collection


def solutions_text(file_levels: Sequence[Level], notes: Mapping[int, Notes]) -> str:
    """The text of ``solutions.sok`` (see :func:`solution_collection`)."""
    blocks = []
    for entry in solution_collection(file_levels, notes) if notes else []:
        if isinstance(entry, InvalidLevel):
            blocks.append(entry.text.rstrip("\n") + "\n")
        else:
            blocks.append(format_levels([entry]))
    return "\n".join(blocks)


def _with_notes(level: Level, notes: Notes) -> Level:
    """``level`` with its title, its rules notes (given holes) and ``notes``."""
    from evosoko.sokoban.holes.board import rules_notes

    if isinstance(notes, str):
        notes = ((SOLUTION_NOTE, notes),)
    notes = rules_notes(level) + tuple(notes)
    return level_from_rows(level.rows(), title=_writable_title(level.title), notes=notes)


def _writable_title(title: str | None) -> str | None:
    """``title`` as a collection can hold it: control characters escaped."""
    if title is None:
        return None
    return "".join(
        _escaped(char) if unicodedata.category(char) in _UNWRITABLE else char for char in title
    )


def _escaped(char: str) -> str:
    shown = plain(char)
    return shown if shown != char else f"\\u{ord(char):04x}"


_UNWRITABLE = {"Cc", "Cs", "Zl", "Zp"}
"""Characters a level file cannot hold in a title (see :mod:`evosoko.sokoban.writing`)."""


def _read_json_object(path: Path) -> dict[str, Any]:
    data = _read_json(path)
    if not isinstance(data, dict):
        raise EvosokoError(
            f"not a {path.name} written by evosoko: it holds a JSON {_json_kind(data)}, "
            "not an object",
            str(path),
            1,
        )
    return data


def _checkpoint_facts(path: Path) -> tuple[int | None, int | None]:
    """The level index and generation of a checkpoint file (None where unreadable)."""
    stem = path.stem.removeprefix("level-")
    index = int(stem) if stem.isdecimal() else None
    try:
        generation = _read_json_object(path).get("generation")
    except EvosokoError:
        return index, None
    valid = isinstance(generation, int) and not isinstance(generation, bool) and generation >= 0
    return index, generation if valid else None


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise EvosokoError(f"cannot read the file: {error}", str(path)) from None
    except json.JSONDecodeError as error:
        raise EvosokoError(f"not valid JSON: {error.msg}", str(path), error.lineno) from None
