"""Certificates for a level evolution's boards: a :class:`Scorer` and its journal.

The scorer certifies each distinct puzzle once, on a job backend (serial, processes or Dask:
:func:`evosoko.parallel.backends.make_backend`): results are kept by the puzzle's key, and with
a journal (``certificates.jsonl`` of a run folder) they outlive the process, so a resumed run
scores the generation it was interrupted in without searching again. Each score records the
generation that first needed it, so that the loop charges its work (a certification and its
CPU seconds) to that generation only, and a resumed run's counts equal those of the run that
was not interrupted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evosoko.errors import EvosokoError
from evosoko.evolve.registry import Operator
from evosoko.experiment.atomic import LineAppender
from evosoko.levelgen.certificate import Certificate, Scored, ScoreJob, score_job
from evosoko.levelgen.space import Genes, LevelSpace
from evosoko.parallel.jobs import JobBackend

if TYPE_CHECKING:
    from evosoko.levelgen.config import LevelsSettings


class CertificateJournal:
    """``certificates.jsonl``: one line per certified puzzle, ``{"key": ..., "score": ...}``,
    appended and flushed (a line cut short by a crash is ignored, so that puzzle is certified
    again)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._appender: LineAppender | None = None

    def read(self) -> dict[str, Scored]:
        """Every score journaled so far, by key."""
        found: dict[str, Scored] = {}
        if not self.path.is_file():
            return found
        with open(self.path, encoding="utf-8") as stream:
            for line in stream:
                if not line.endswith("\n"):
                    break
                try:
                    score = Scored.from_dict(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    continue
                found[score.key] = score
        return found

    def record(self, score: Scored) -> None:
        """Append one score."""
        if self._appender is None:
            self._appender = LineAppender(self.path)
        self._appender.write_line(json.dumps(score.to_dict(), separators=(",", ":")))

    def close(self) -> None:
        """Close the file (it reopens on the next record)."""
        if self._appender is not None:
            self._appender.close()
            self._appender = None


class Scorer:
    """Scores boards of ``space``: from what is known (``known``, a journal's scores), else
    by certification jobs on ``backend``; new scores go to ``journal``."""

    def __init__(
        self,
        space: LevelSpace,
        job: ScoreJob,
        backend: JobBackend,
        *,
        known: dict[str, Scored] | None = None,
        journal: CertificateJournal | None = None,
    ) -> None:
        self.space = space
        self.template = job
        self.backend = backend
        self.known = dict(known or {})
        self.journal = journal

    @classmethod
    def of(
        cls,
        settings: LevelsSettings,
        backend: JobBackend,
        *,
        known: dict[str, Scored] | None = None,
        journal: CertificateJournal | None = None,
    ) -> Scorer:
        """The scorer of a configuration's certificate, objectives and archive features."""
        return cls(
            settings.space(), score_template(settings), backend, known=known, journal=journal
        )

    def score(
        self,
        genomes: Sequence[Genes],
        generation: int,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> list[Scored] | None:
        """The score of each board, in order, a new one marked as first certified in
        ``generation`` (None when ``should_stop()`` ended the generation early: what was
        certified is kept)."""
        keys, boards = [], {}
        template = self.template.start == "deepest"
        for genes in genomes:
            key = self.space.template_key(genes) if template else self.space.key(genes)
            keys.append(key)
            if key not in self.known and key not in boards:
                boards[key] = tuple(genes)
        todo = list(boards)
        jobs = [replace(self.template, genes=boards[key]) for key in todo]
        if jobs:
            finished = self.backend.imap_unordered(score_job, jobs)
            for position, result in finished:
                if "error" in result:
                    raise EvosokoError(f"certifying a candidate failed: {result['error']}")
                score = _scored(todo[position], result, generation)
                self.known[score.key] = score
                if self.journal is not None:
                    self.journal.record(score)
                if should_stop():
                    self.backend.abort()
                    return None
        return [self.known[key] for key in keys]


def _scored(key: str, result: dict[str, Any], generation: int) -> Scored:
    values, features = result.get("values"), result.get("features")
    return Scored(
        key=key,
        certificate=Certificate(**result["certificate"]),
        values=None if values is None else tuple(values),
        features=None if features is None else tuple(features),
        generation=generation,
        board=result.get("board"),
    )


def score_template(settings: LevelsSettings) -> ScoreJob:
    """The job of a configuration without its board: the certificate, the objectives, the
    archive's features (MAP-Elites), where the boxes start."""
    from evosoko.evolve.registry import level_objectives

    space = settings.space()
    features: tuple[tuple[Operator, dict[str, Any]], ...] = ()
    if settings.archive_run:
        features = tuple((level_objectives.get(name), {}) for name in settings.archive.features)
    return ScoreJob(
        genes=(),
        width=space.width,
        height=space.height,
        certifier=settings.certificate.certifier(),
        objectives=tuple((table.operator, table.params) for table in settings.objective),
        features=features,
        start=settings.start,
        pull_limit=settings.pull_limit,
    )
