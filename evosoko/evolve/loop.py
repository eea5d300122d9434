"""The one loop protocol: ``ask() -> genomes``, ``tell(evaluations)``, ``run()`` over them.

A loop (the GA's :class:`~evosoko.evolve.engine.Engine`, a population of searches) writes its
generations once, as a generator that yields the genomes it needs evaluated and receives their
evaluations (:meth:`AskTellLoop._generations`), and yields :data:`GENERATION_END` after each
generation. :class:`AskTellLoop` turns that into the protocol, in the manner of evosax's
``ask``/``tell`` and pymoo's ``while has_next(): next()``::

    while not engine.done:
        genomes = engine.ask()                 # the genomes to evaluate next
        engine.tell(evaluator.map(genomes))    # their evaluations, in order
    result = engine.result()

which is :meth:`AskTellLoop.run` with the loop's own evaluator. Between generations (after the
``tell`` that ended one, before the next ``ask`` or ``done``) :attr:`AskTellLoop.state` is the
loop's validated, immutable state, which is also its checkpoint
(:mod:`evosoko.evolve.state`). A generation may ask more than once (a memetic step scores its
candidate, a restart a new population); the loop stops at a generation's start: solved, out of
budget, stopped by a callback or interrupted (:mod:`evosoko.status`). The island model
(:class:`~evosoko.evolve.islands.IslandModel`) speaks the same words over epochs that finish in
any order: ``ask()`` gives keyed tasks, ``tell(key, report)`` takes one back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, Generic, TypeVar

from evosoko.budget import Budget
from evosoko.evolve.evaluation import SerialEvaluator
from evosoko.result import Result
from evosoko.search.clocks import Clock, clock_named
from evosoko.status import Stop

__all__ = [
    "GENERATION_END",
    "AskTellLoop",
    "Asking",
    "Generations",
    "deadline_clock",
    "loop_clock",
]

GENERATION_END = None
"""What a loop's generations yield when a generation has ended (no genomes to evaluate)."""


def loop_clock(budget: Budget, evaluator: object | None = None) -> Callable[[], float]:
    """What a loop counts its seconds on: the budget's clock (:mod:`evosoko.search.clocks`).

    A CPU budget counts the CPU time of this process, so the loop's work must run here:
    ``evaluator`` None (``ask``/``tell``) or a serial one. An evaluator with workers (a process
    pool, a Dask cluster) is a :class:`ValueError`: its workers' CPU time is not this process's.
    """
    if budget.clock == "cpu" and not isinstance(evaluator, SerialEvaluator | None):
        raise ValueError(
            "a CPU-second budget counts this process's CPU time, so it needs the evaluations "
            "run in this process (parallel.backend = serial)"
        )
    return clock_named(budget.clock)


def deadline_clock(clock: Clock) -> Callable[[], float]:
    """What a deadline sent with a task is read on, by the budget's clock: a wall deadline is a
    ``time.time()``, which means the same in every worker; a CPU one this process's CPU time
    (:func:`loop_clock` keeps a CPU budget's work in this process)."""
    return time.time if clock == "wall" else clock_named(clock)


G = TypeVar("G")
"""A genome: a tuple of genes (the GA), a tuple of choices (a population of searches)."""
E = TypeVar("E")
"""An evaluation of a genome."""

R = TypeVar("R")
Asking = Generator[list[Any] | None, Any, R]
"""A generator that asks for evaluations: it yields genomes to evaluate (or
:data:`GENERATION_END`), receives their evaluations and returns an ``R``."""
Generations = Asking[Stop]
"""A loop's generations: they return the stop."""


class AskTellLoop(Generic[G, E]):
    """``ask``/``tell``/``done``/``run`` over :meth:`_generations` (see the module
    docstring)."""

    stop: Stop | None = None
    """Why the loop ended (None while it runs)."""

    def __init__(self) -> None:
        self._generator: Generations | None = None
        self._asked: list[G] | None = None
        self._between = True  # between generations: state is defined

    # ---- to write --------------------------------------------------------------------------------
    def _generations(self) -> Generations:
        """The loop's generations (see :data:`Generations`)."""
        raise NotImplementedError

    def evaluate(self, genomes: list[G]) -> Sequence[E] | None:
        """Evaluate ``genomes`` with the loop's own evaluator (what :meth:`run` does); None
        when an interrupt cut the evaluation (the loop then drops the generation)."""
        raise NotImplementedError

    def result(self) -> Result:
        """The level's result once the loop has stopped."""
        raise NotImplementedError

    def interrupted_during_evaluation(self) -> None:
        """An interrupt cut the evaluation of :meth:`ask`'s genomes: go back to the state
        after the last generation, checkpoint it, stop as interrupted."""
        raise NotImplementedError(f"{type(self).__name__} cannot drop a generation")

    # ---- the protocol ----------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once the loop has stopped (checking starts the next generation, up to its first
        question: a generation whose genomes are all known asks none)."""
        while self._asked is None and self.stop is None:
            self._advance(None)
        return self.stop is not None

    def ask(self) -> list[G]:
        """The genomes to evaluate next (the same again until :meth:`tell`)."""
        if self.done:
            raise RuntimeError(f"the loop has stopped ({self.stop}): nothing to ask")
        assert self._asked is not None
        return list(self._asked)

    def tell(self, evaluations: Sequence[E]) -> None:
        """The evaluations of :meth:`ask`'s genomes, in order; the loop goes on to the end of
        the generation or to its next question."""
        if self._asked is None:
            raise RuntimeError("tell() without ask(): there are no genomes to evaluate")
        if len(evaluations) != len(self._asked):
            raise ValueError(f"{len(evaluations)} evaluations for {len(self._asked)} genomes asked")
        self._asked = None
        self._advance(list(evaluations))

    @property
    def between_generations(self) -> bool:
        """True when a generation has ended and the next has not begun (the state is the
        checkpoint then)."""
        return self._between and self._asked is None

    def run(self) -> Result:
        """Evaluate with the loop's own evaluator until it stops; the level's result."""
        while not self.done:
            evaluations = self.evaluate(self.ask())
            if evaluations is None:
                self.interrupted_during_evaluation()
                break
            self.tell(evaluations)
        return self.result()

    def _advance(self, evaluations: list[E] | None) -> None:
        if self._generator is None:
            self._generator = self._generations()
            evaluations = None
        self._between = False
        try:
            asked = self._generator.send(evaluations)
        except StopIteration as end:
            self.stop = end.value
            self._between = True
            return
        if asked is GENERATION_END:
            self._between = True
        else:
            self._asked = asked

    def _end(self, stop: Stop) -> None:
        """Stop now (an interrupt between the questions of a generation)."""
        if self._generator is not None:
            self._generator.close()
        self.stop, self._asked, self._between = stop, None, True
