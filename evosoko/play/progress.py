"""What ``evosoko play`` remembers from one game to the next: the levels solved and, for each,
the solution with the fewest moves and the one with the fewest pushes.

The file is small JSON that the user may read or delete (deleting it forgets every mark)::

    {"format": "evosoko play progress", "version": 1,
     "levels": {"<board digest>": {
         "title": "seed000-case3",
         "fewest_moves": {"moves": 36, "pushes": 13, "lurd": "dRRR..."},
         "fewest_pushes": {"moves": 36, "pushes": 13, "lurd": "dRRR..."}}}}

A level is known by a digest of its board and rules (:func:`level_key`), not by its file or
place, so a level keeps its marks when its collection is reordered, renamed or copied. Its
place is :func:`default_progress_path`. Every record re-reads the file and writes it back
atomically (a game played in another terminal meanwhile keeps its records); a file that cannot
be read is never overwritten: :func:`load_progress` sets it aside under a new name and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evosoko.atomic import WriteFailed, write_text_atomic
from evosoko.errors import EvosokoError, SolutionError
from evosoko.sokoban.holes.pairing import rules_notes
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution
from evosoko.text import plain

FORMAT = "evosoko play progress"
VERSION = 1
PROGRESS_ENV = "EVOSOKO_PLAY_PROGRESS"
"""The environment variable naming the progress file (for tests, or one file per user)."""


class DamagedProgress(EvosokoError):
    """A progress file that is not one this version of evosoko wrote: not JSON, or a wrong
    shape. Its ``line`` is set when the JSON itself is broken."""


@dataclass(frozen=True)
class Solved:
    """One solution of a level: its moves, its pushes and its steps in LURD."""

    moves: int
    pushes: int
    lurd: str

    def describe(self) -> str:
        """``36/13``: moves/pushes."""
        return f"{self.moves}/{self.pushes}"


@dataclass(frozen=True)
class LevelProgress:
    """A solved level: its title when last solved, the solution with the fewest moves (ties:
    fewest pushes) and the one with the fewest pushes (ties: fewest moves)."""

    title: str | None
    fewest_moves: Solved
    fewest_pushes: Solved

    def improved(self, solved: Solved, title: str | None) -> LevelProgress:
        """This record with ``solved`` taken where it beats a best so far."""
        moves = min(self.fewest_moves, solved, key=lambda s: (s.moves, s.pushes))
        pushes = min(self.fewest_pushes, solved, key=lambda s: (s.pushes, s.moves))
        return LevelProgress(title, moves, pushes)

    def describe(self) -> str:
        """``best 36/13`` (moves/pushes), or ``best 40/11 and 38/12`` when the fewest-moves
        and fewest-pushes solutions differ (fewest moves first)."""
        moves, pushes = self.fewest_moves.describe(), self.fewest_pushes.describe()
        return f"best {moves}" if moves == pushes else f"best {moves} and {pushes}"


@dataclass(frozen=True)
class Recorded:
    """What recording a solution did: the level's record ``before`` (None: first solve) and
    ``after``; ``news`` says in a few words what improved (empty when nothing did)."""

    before: LevelProgress | None
    after: LevelProgress

    @property
    def news(self) -> str:
        """``first solve``, ``new best: fewest moves``, ... or ``""``."""
        if self.before is None:
            return "first solve"
        better = [
            name
            for name, old, new in (
                ("fewest moves", self.before.fewest_moves, self.after.fewest_moves),
                ("fewest pushes", self.before.fewest_pushes, self.after.fewest_pushes),
            )
            if (old.moves, old.pushes) != (new.moves, new.pushes)
        ]
        return f"new best: {' and '.join(better)}" if better else ""


def level_key(level: Level) -> str:
    """The digest that names ``level`` in the file: its board's rows and its rules notes."""
    text = "\n".join(level.rows()) + "".join(f"\n{k}: {v}" for k, v in rules_notes(level))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def default_progress_path(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """``$EVOSOKO_PLAY_PROGRESS``, else ``$XDG_STATE_HOME/evosoko/play.json``, else
    ``~/.local/state/evosoko/play.json`` (``home``: the home folder, default the user's)."""
    given = environ.get(PROGRESS_ENV, "")
    if given:
        return Path(given)
    state = environ.get("XDG_STATE_HOME", "")
    if state and Path(state).is_absolute():  # the XDG spec: relative values are ignored
        return Path(state) / "evosoko" / "play.json"
    return (home or Path.home()) / ".local" / "state" / "evosoko" / "play.json"


class Progress:
    """The records of the progress file at ``path``: read once, and re-read whenever a
    solution is recorded."""

    def __init__(self, path: str | os.PathLike[str], records: dict[str, LevelProgress]) -> None:
        self.path = Path(path)
        self.records = records

    def of(self, level: Level) -> LevelProgress | None:
        """The record of ``level``, or None when it was never solved."""
        return self.records.get(level_key(level))

    def record(self, level: Level, lurd: str) -> Recorded:
        """Keep the solution ``lurd`` of ``level`` where it beats the level's bests.

        Raises :class:`SolutionError` unless ``lurd`` solves ``level``, :class:`DamagedProgress`
        when the file has become unreadable (it is then left as it is) and
        :class:`~evosoko.atomic.WriteFailed` when it cannot be written.
        """
        check = verify_solution(level, lurd)
        if not (check.valid and check.solved):
            raise SolutionError(f"level {level.name}: the solution does not solve it")
        solved = Solved(check.moves, check.pushes, check.lurd)
        records = read_progress(self.path)
        key = level_key(level)
        before = records.get(key)
        after = (
            LevelProgress(level.title, solved, solved)
            if before is None
            else before.improved(solved, level.title or before.title)
        )
        records[key] = after
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = f"cannot make its folder: {error.strerror or error}"
            raise WriteFailed(problem, str(self.path)) from None
        write_text_atomic(self.path, progress_json(records))
        self.records = records
        return Recorded(before, after)


def load_progress(path: str | os.PathLike[str]) -> tuple[Progress, str]:
    """The progress file at ``path`` (none yet: no records) and a notice for the player:
    ``""``, or one line saying that a damaged file was set aside and under which name.

    A file written by a newer evosoko raises :class:`EvosokoError` and is left alone.
    """
    try:
        return Progress(path, read_progress(path)), ""
    except DamagedProgress as error:
        aside = set_aside(Path(path))
        return Progress(path, {}), (
            f"the progress file could not be read ({error}); it was set aside as {aside} "
            "and solved marks start afresh"
        )


def read_progress(path: str | os.PathLike[str]) -> dict[str, LevelProgress]:
    """The records of the progress file at ``path`` (no file: none).

    Raises :class:`DamagedProgress` for a file that is not a progress file, and
    :class:`EvosokoError` for one of a newer version or one that cannot be read at all.
    """
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise DamagedProgress("not UTF-8 text", where) from None
    except OSError as error:
        raise EvosokoError(f"cannot read this file: {error.strerror or error}", where) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DamagedProgress(f"not JSON: {error.msg}", where, error.lineno) from None
    return parse_progress(data, where)


def parse_progress(data: Any, where: str) -> dict[str, LevelProgress]:
    """The records of a progress file's JSON ``data`` (read from ``where``)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DamagedProgress(f"not an evosoko play progress file (no 'format': {FORMAT!r})", where)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DamagedProgress("'version' is not a whole number from 1", where)
    if version > VERSION:
        raise EvosokoError(
            f"written by a newer evosoko (version {version}; this one reads {VERSION}): "
            "play with --progress OTHER_FILE, or update evosoko",
            where,
        )
    levels = data.get("levels")
    if not isinstance(levels, dict):
        raise DamagedProgress("'levels' is not an object", where)
    return {
        key: _level_progress(entry, f"levels.{plain(key)}", where) for key, entry in levels.items()
    }


def _level_progress(entry: Any, name: str, where: str) -> LevelProgress:
    if not isinstance(entry, dict):
        raise DamagedProgress(f"{name} is not an object", where)
    title = entry.get("title")
    if title is not None and not isinstance(title, str):
        raise DamagedProgress(f"{name}.title is not text", where)
    return LevelProgress(
        title,
        _solved(entry.get("fewest_moves"), f"{name}.fewest_moves", where),
        _solved(entry.get("fewest_pushes"), f"{name}.fewest_pushes", where),
    )


def _solved(entry: Any, name: str, where: str) -> Solved:
    if not isinstance(entry, dict):
        raise DamagedProgress(f"{name} is not an object", where)
    lurd = entry.get("lurd")
    if not isinstance(lurd, str) or not lurd or set(lurd) - set("udlrUDLR"):
        raise DamagedProgress(f"{name}.lurd is not a plain LURD solution", where)
    solved = Solved(len(lurd), sum(letter.isupper() for letter in lurd), lurd)
    if (entry.get("moves"), entry.get("pushes")) != (solved.moves, solved.pushes):
        raise DamagedProgress(f"{name}: moves and pushes do not count its LURD", where)
    return solved


def progress_json(records: Mapping[str, LevelProgress]) -> str:
    """The file's text for ``records`` (keys sorted, one level a few lines)."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "levels": {
            key: {
                "title": record.title,
                "fewest_moves": _solved_json(record.fewest_moves),
                "fewest_pushes": _solved_json(record.fewest_pushes),
            }
            for key, record in sorted(records.items())
        },
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _solved_json(solved: Solved) -> dict[str, Any]:
    return {"moves": solved.moves, "pushes": solved.pushes, "lurd": solved.lurd}


def set_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.damaged`` (``.damaged-2``, ... when taken); the new path."""
    for number in range(1, 1000):
        aside = path.with_name(path.name + (".damaged" if number == 1 else f".damaged-{number}"))
        if not aside.exists():
            try:
                path.rename(aside)
            except OSError as error:
                raise EvosokoError(
                    f"cannot be read, nor set aside: {error.strerror or error}", str(path)
                ) from None
            return aside
    raise EvosokoError("cannot be read, and 999 damaged copies are already set aside", str(path))


__all__ = [
    "FORMAT",
    "PROGRESS_ENV",
    "VERSION",
    "DamagedProgress",
    "LevelProgress",
    "Progress",
    "Recorded",
    "Solved",
    "default_progress_path",
    "level_key",
    "load_progress",
    "read_progress",
]
