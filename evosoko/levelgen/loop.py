"""The adapter between the level GA's ask/tell and the machinery that scores and stops it.

This is the one place that drives :class:`~evosoko.levelgen.evolution.LevelEvolution`:
:func:`run_generations` asks for boards, has a :class:`Scorer` certify them on a job backend
(serial, processes or Dask: :func:`evosoko.parallel.backends.make_backend`), tells the scores
back and reports each generation to the callbacks, until the budget is spent, a callback asks
to stop or ``should_stop()`` says so (Ctrl-C).

The scorer certifies each distinct puzzle once: results are kept by the puzzle's key, and with
a journal (``certificates.jsonl`` of a run folder) they outlive the process, so a resumed run
scores the generation it was interrupted in without searching again. Work is charged to the
generation that first needed it: a certificate journaled during generation ``g`` counts as
new work (a certification and its CPU seconds) the first time generation ``g`` meets it, so a
resumed run's counts equal those of the run that was not interrupted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from evosoko.budget import Budget
from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import LineAppender
from evosoko.levelgen.certificate import Certificate, Scored, ScoreJob, score_job
from evosoko.levelgen.evolution import LevelEvolution
from evosoko.levelgen.space import Genes, LevelSpace
from evosoko.parallel.jobs import JobBackend
from evosoko.status import Status, Stop


@dataclass
class Tally:
    """Work done so far: distinct puzzles certified, their CPU seconds, and wall seconds
    (across resumes)."""

    certifications: int = 0
    cpu_seconds: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data (checkpoints)."""
        return {
            "certifications": self.certifications,
            "cpu_seconds": self.cpu_seconds,
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        """The tally of :meth:`to_dict`."""
        return cls(
            int(data["certifications"]),
            float(data["cpu_seconds"]),
            float(data["seconds"]),
        )


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
        evolution: LevelEvolution,
        backend: JobBackend,
        *,
        known: dict[str, Scored] | None = None,
        journal: CertificateJournal | None = None,
    ) -> Scorer:
        """The scorer of ``evolution``'s settings and parts."""
        settings, space = evolution.settings, evolution.space
        job = ScoreJob(
            genes=(),
            width=space.width,
            height=space.height,
            certifier=settings.certificate.certifier(),
            objectives=evolution.parts.objectives,
            features=evolution.parts.features,
            start=settings.start,
            pull_limit=settings.pull_limit,
        )
        return cls(space, job, backend, known=known, journal=journal)

    def score(
        self,
        genomes: Sequence[Genes],
        generation: int,
        tally: Tally,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> list[Scored] | None:
        """The score of each board, in order (None when ``should_stop()`` ended the
        generation early: what was certified is kept, nothing is charged to ``tally``)."""
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
                    getattr(self.backend, "abort", self.backend.close)()
                    return None
        charged: set[str] = set()
        scores = []
        for key in keys:
            score = self.known[key]
            if score.generation == generation and key not in charged:
                charged.add(key)
                tally.certifications += 1
                tally.cpu_seconds += score.certificate.cpu_seconds
            scores.append(score)
        return scores


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


class GenerationListener(Protocol):
    """What sees each generation: ``on_generation(evolution, tally)``, which returns True to
    stop the run."""

    def on_generation(self, evolution: LevelEvolution, tally: Tally) -> bool | None: ...


@dataclass
class Loop:
    """One drive of the ask/tell loop (see the module docstring)."""

    evolution: LevelEvolution
    scorer: Scorer
    budget: Budget
    tally: Tally = field(default_factory=Tally)
    listeners: Iterable[GenerationListener] = ()
    should_stop: Callable[[], bool] = lambda: False

    def run(self) -> Stop:
        """Ask, score and tell until a stop; returns why it stopped (``budget`` with the
        generations, evaluations or CPU seconds spent, ``interrupted`` or ``stopped``)."""
        started = time.perf_counter() - self.tally.seconds
        while True:
            exhausted = self.exhausted()
            if exhausted is not None:
                return Stop.budget(exhausted)
            if self.should_stop():
                return Stop(Status.INTERRUPTED)
            evolution = self.evolution
            scores = self.scorer.score(
                evolution.ask(), evolution.generation, self.tally, self.should_stop
            )
            if scores is None:
                return Stop(Status.INTERRUPTED)
            evolution.tell(scores)
            self.tally.seconds = time.perf_counter() - started
            stop = False
            for listener in self.listeners:
                stop = bool(listener.on_generation(evolution, self.tally)) or stop
            if stop:
                return Stop(Status.STOPPED)

    def exhausted(self) -> str | None:
        """The budget's limit reached after the first population, or None."""
        if self.evolution.batches == 0:
            return None
        return self.budget.exhausted(
            generations=self.evolution.batches - 1,
            evaluations=self.evolution.evaluations,
            seconds=self.tally.cpu_seconds,
        )
