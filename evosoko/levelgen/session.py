"""One level evolution from start (or checkpoint) to stop, with or without a run folder.

:func:`evolve` builds what a run needs from its configuration (the job backend its
``[parallel]`` table names, the scorer with its known certificates) and runs the
:class:`~evosoko.levelgen.evolution.LevelEvolution` on them; the run folders of
:mod:`evosoko.levelgen.run` add their journal, checkpoints and listeners, benchmarks and
notebooks call it as it is.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from evosoko.levelgen.certificate import warm_up
from evosoko.levelgen.config import LevelsConfig
from evosoko.levelgen.emit import emitted_levels
from evosoko.levelgen.evolution import GenerationListener, LevelEvolution
from evosoko.levelgen.scoring import CertificateJournal, Scorer, score_template
from evosoko.levelgen.state import LevelsState
from evosoko.parallel.backends import make_backend
from evosoko.sokoban.level import Level
from evosoko.status import Stop


@dataclass
class Evolved:
    """What an evolution ended with: why it stopped (``stop``), the GA's final state (with
    its work: certifications, their CPU seconds), the process CPU seconds it took (kernel
    compilation excluded), and :meth:`levels`."""

    stop: Stop
    evolution: LevelEvolution
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
    state: LevelsState | None = None,
    journal: CertificateJournal | None = None,
    file_levels: Sequence[Level] = (),
    listeners: Iterable[GenerationListener] = (),
    should_stop: Callable[[], bool] = lambda: False,
    on_start: Callable[[LevelEvolution], None] | None = None,
) -> Evolved:
    """Evolve levels as ``config`` says, from the start or from a checkpoint's ``state``;
    certificates already in ``journal`` are not searched again and new ones are added to it.
    The kernels are compiled first (here and in each worker), outside the clocks."""
    settings = config.levels
    template = score_template(settings)
    warm_up(template)
    started = time.process_time()
    backend = make_backend(config.parallel, warm_up=functools.partial(warm_up, template))
    try:
        known = journal.read() if journal is not None else {}
        scorer = Scorer.of(settings, backend, known=known, journal=journal)
        evolution = LevelEvolution(
            settings,
            scorer=scorer,
            state=state,
            file_levels=file_levels,
            listeners=listeners,
            should_stop=should_stop,
        )
        if on_start is not None:
            on_start(evolution)
        evolution.run()
    except BaseException:
        backend.abort()
        raise
    finally:
        if journal is not None:
            journal.close()
    backend.close()
    assert evolution.stop is not None
    return Evolved(evolution.stop, evolution, time.process_time() - started, config.output.keep)
