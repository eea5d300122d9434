"""One level evolution from start (or checkpoint) to stop, with or without a run folder.

:func:`evolve` builds what a run needs from its configuration (the GA's state, the job backend
its ``[parallel]`` table names, the scorer with its known certificates) and drives the loop
(:class:`~evosoko.levelgen.loop.Loop`); the run folders of :mod:`evosoko.levelgen.run` add
their journal, checkpoints and listeners, benchmarks and notebooks call it as it is.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from evosoko.budget import Budget
from evosoko.levelgen.certificate import warm_up
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.emit import emitted_levels
from evosoko.levelgen.evolution import LevelEvolution
from evosoko.levelgen.loop import (
    CertificateJournal,
    GenerationListener,
    Loop,
    Scorer,
    Tally,
)
from evosoko.parallel.backends import make_backend
from evosoko.sokoban.level import Level
from evosoko.status import Stop


@dataclass
class Evolved:
    """What an evolution ended with: why it stopped (``stop``), the GA's final state, the work
    done and
    the process CPU seconds it took (kernel compilation excluded), and :meth:`levels`."""

    stop: Stop
    evolution: LevelEvolution
    tally: Tally
    process_seconds: float
    keep: int = 20
    _levels: list[Level] | None = field(default=None, repr=False)

    def levels(self) -> list[Level]:
        """The levels the run hands out, each with its verified certificate (see
        :func:`evosoko.levelgen.emit.emitted_levels`)."""
        if self._levels is None:
            self._levels = emitted_levels(self.evolution, self.keep)
        return self._levels


def evolve(
    config: LevelsConfig,
    *,
    state: dict[str, Any] | None = None,
    tally: Tally | None = None,
    journal: CertificateJournal | None = None,
    file_levels: Sequence[Level] = (),
    listeners: Iterable[GenerationListener] = (),
    should_stop: Callable[[], bool] = lambda: False,
    on_start: Callable[[LevelEvolution], None] | None = None,
) -> Evolved:
    """Evolve levels as ``config`` says, from the start or from a checkpoint's ``state`` and
    ``tally``; certificates already in ``journal`` are not searched again and new ones are
    added to it. The kernels are compiled first (here and in each worker), outside the
    clocks."""
    settings = config.levels
    evolution = LevelEvolution(settings, state=state, file_levels=file_levels)
    template = Scorer.of(evolution, _NoBackend()).template
    warm_up(template)
    started = time.process_time()
    backend = make_backend(config.parallel, warm_up=functools.partial(warm_up, template))
    try:
        known = journal.read() if journal is not None else {}
        scorer = Scorer.of(evolution, backend, known=known, journal=journal)
        budget = Budget(
            generations=settings.budget.generations,
            evaluations=settings.budget.evaluations,
            seconds=settings.budget.seconds,
        )
        if on_start is not None:
            on_start(evolution)
        loop = Loop(evolution, scorer, budget, tally or Tally(), listeners, should_stop)
        stop = loop.run()
    except BaseException:
        getattr(backend, "abort", backend.close)()
        raise
    finally:
        if journal is not None:
            journal.close()
    backend.close()
    return Evolved(stop, evolution, loop.tally, time.process_time() - started, config.output.keep)


class _NoBackend:
    """The scorer's job template needs no backend."""

    def imap_unordered(self, function, payloads):  # pragma: no cover - never called
        raise AssertionError("not a backend")

    def close(self) -> None:
        """Nothing to release."""

    def abort(self) -> None:
        """Nothing to stop."""
