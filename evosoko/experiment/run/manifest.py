"""``manifest.json``: digests of what a run last wrote, so that a resume sees what changed since.

A run folder's files are checked against each other on resume
(:mod:`evosoko.experiment.run.resume_checks`), but an edit that keeps them consistent (the
generation of a checkpoint of islands moved back, a finished level taken out of the summary)
cannot be seen that way. The manifest records, each time the run writes a checkpoint or its
summary:

- ``finished``: the file indices of the finished levels and the SHA-256 of the summary's
  ``levels`` entries (as canonical JSON; the rest of the summary, such as its status and times,
  is not covered: the resume rewrites it);
- ``checkpoints``: per level (file index), the SHA-256 of its checkpoint file and its generation;
- ``metrics``: the length in bytes, the rows and the SHA-256 of ``metrics.csv`` at that moment
  (the file is only appended to, so the same bytes must start it later);
- ``events``: the same of ``events.jsonl`` (appended to as well; a manifest written before it
  was recorded has none, and the file is then not checked).

An entry is written in two steps around the file it describes: first with the digest it is
about to write beside the one it replaces (``previous``), then, once the file is in place,
alone. A process killed between the steps leaves a manifest that accepts either version of
the file. A folder without a manifest (written before there was one) resumes on the other
checks; its manifest is written from then on.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evosoko.atomic import write_json_atomic
from evosoko.errors import EvosokoError

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def levels_digest(entries: Any) -> str:
    """The SHA-256 of a summary's ``levels`` entries, as canonical JSON."""
    return digest(json.dumps(entries, sort_keys=True, separators=(",", ":")).encode("utf-8"))


@dataclass(frozen=True)
class Recorded:
    """One file as the run wrote it: its digest and what it says (finished levels, or the
    checkpoint's generation); ``previous``: the version it replaced, still accepted while the
    write of the new one may not have happened."""

    sha256: str
    facts: Any
    previous: Recorded | None = None

    def accepts(self, sha256: str) -> Recorded | None:
        """The recorded version with this digest, or None."""
        if sha256 == self.sha256:
            return self
        return self.previous.accepts(sha256) if self.previous is not None else None

    def to_json(self, key: str) -> dict[str, Any]:
        data: dict[str, Any] = {"sha256": self.sha256, key: self.facts}
        if self.previous is not None:
            data["previous"] = self.previous.to_json(key)
        return data


@dataclass(frozen=True)
class FilePrefix:
    """The first ``size`` bytes of an appended file: ``rows`` rows after the header of
    ``metrics.csv``, or ``rows`` lines of ``events.jsonl``."""

    size: int
    rows: int
    sha256: str


class Manifest:
    """The manifest of one run folder, kept in memory and rewritten atomically on each record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.finished: Recorded | None = None
        self.checkpoints: dict[int, Recorded] = {}
        self.metrics: FilePrefix | None = None
        self.events: FilePrefix | None = None

    # ---- reading ----------------------------------------------------------------------------
    @staticmethod
    def read(path: Path) -> Manifest | None:
        """The manifest at ``path``; None when there is none (a folder of an older evosoko).

        A manifest that is not one evosoko wrote is an :class:`EvosokoError` naming it.
        """
        if not path.exists():
            return None
        where = str(path)
        fix = "restore it from a copy, or delete it to resume on the folder's other checks alone"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise EvosokoError(f"cannot read the manifest ({error}); {fix}", where) from None
        try:
            return Manifest._from_json(path, data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise EvosokoError(
                f"not a manifest written by evosoko ({error}); {fix}", where
            ) from None

    @staticmethod
    def _from_json(path: Path, data: Any) -> Manifest:
        if data.get("version") != MANIFEST_VERSION:
            raise ValueError(f"version {data.get('version')!r}")
        manifest = Manifest(path)
        if data.get("finished") is not None:
            manifest.finished = _recorded(data["finished"], "levels", _int_list)
        for key, entry in data.get("checkpoints", {}).items():
            manifest.checkpoints[int(key)] = _recorded(entry, "generation", _count)
        manifest.metrics = _prefix(data.get("metrics"))
        manifest.events = _prefix(data.get("events"))
        return manifest

    # ---- writing ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The manifest as written to ``manifest.json``."""
        return {
            "version": MANIFEST_VERSION,
            "finished": None if self.finished is None else self.finished.to_json("levels"),
            "checkpoints": {
                str(index): entry.to_json("generation")
                for index, entry in sorted(self.checkpoints.items())
            },
            "metrics": _prefix_json(self.metrics),
            "events": _prefix_json(self.events),
        }

    def save(self) -> None:
        """Replace ``manifest.json`` atomically."""
        write_json_atomic(self.path, self.to_json())

    def expect_finished(self, levels: list[int], sha256: str) -> None:
        """Record that the summary is about to list ``levels`` as finished (step one)."""
        self.finished = Recorded(sha256, levels, _settled(self.finished))
        self.save()

    def expect_checkpoint(self, index: int, generation: int, sha256: str) -> None:
        """Record that level ``index``'s checkpoint is about to be replaced (step one)."""
        self.checkpoints[index] = Recorded(
            sha256, generation, _settled(self.checkpoints.get(index))
        )
        self.save()

    def settle(self, metrics: FilePrefix | None, events: FilePrefix | None) -> None:
        """Record that every expected file is in place, with ``metrics`` and ``events`` the
        starts of ``metrics.csv`` and ``events.jsonl`` the run vouches for (step two)."""
        self.finished = _settled(self.finished)
        self.checkpoints = {
            index: _settled(entry)  # type: ignore[misc]
            for index, entry in self.checkpoints.items()
        }
        self.metrics = metrics
        self.events = events
        self.save()


class AppendedDigest:
    """The running digest of an appended file (``metrics.csv``, ``events.jsonl``) while rows
    are appended to it."""

    def __init__(self, data: bytes) -> None:
        self._hash = hashlib.sha256(data)
        self._size = len(data)
        self._lines = data.count(b"\n")

    @staticmethod
    def of_file(path: Path) -> AppendedDigest:
        """The digest of ``path`` as it stands (of nothing when there is no such file)."""
        return AppendedDigest(path.read_bytes() if path.is_file() else b"")

    def add(self, data: bytes) -> None:
        """Take in ``data`` appended to the file."""
        self._hash.update(data)
        self._size += len(data)
        self._lines += data.count(b"\n")

    def prefix(self, header: bool = True) -> FilePrefix:
        """The file so far (``header``: its first line is a header, not a row)."""
        return FilePrefix(self._size, max(self._lines - header, 0), self._hash.hexdigest())


def prefix_problem(
    path: Path, recorded: FilePrefix, header: bool = True, noun: str = "rows"
) -> str | None:
    """Why ``path`` does not start with the bytes ``recorded`` describes, or None
    (``header``: the file's first line is a header; ``noun``: what its lines are called)."""
    if recorded.rows == 0:
        return None  # the header alone (or nothing): written again on resume
    data = path.read_bytes() if path.is_file() else b""
    if len(data) < recorded.size:
        rows = max(data.count(b"\n") - header, 0)
        return (
            f"it has {rows} {noun} where the run had written {recorded.rows}: {noun} were deleted"
        )
    if digest(data[: recorded.size]) != recorded.sha256:
        return (
            f"its first {recorded.rows} {noun} are not the ones the run wrote: {noun} were edited"
        )
    return None


def _prefix(data: Any) -> FilePrefix | None:
    if data is None:
        return None
    return FilePrefix(_count(data["bytes"]), _count(data["rows"]), _sha(data["sha256"]))


def _prefix_json(prefix: FilePrefix | None) -> dict[str, Any] | None:
    if prefix is None:
        return None
    return {"bytes": prefix.size, "rows": prefix.rows, "sha256": prefix.sha256}


def _settled(entry: Recorded | None) -> Recorded | None:
    return None if entry is None else Recorded(entry.sha256, entry.facts)


def _recorded(data: Any, key: str, fact: Any) -> Recorded:
    previous = data.get("previous")
    return Recorded(
        _sha(data["sha256"]),
        fact(data[key]),
        None if previous is None else _recorded(previous, key, fact),
    )


def _sha(value: Any) -> str:
    if not (isinstance(value, str) and len(value) == 64):
        raise ValueError(f"sha256 {value!r}")
    int(value, 16)
    return value


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"count {value!r}")
    return value


def _int_list(value: Any) -> list[int]:
    if not isinstance(value, list):
        raise TypeError(f"levels {value!r}")
    return [_count(item) for item in value]
