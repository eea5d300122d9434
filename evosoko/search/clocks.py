"""The clocks a search's time limit can count: wall time or the process's CPU time.

``"wall"`` (:func:`time.perf_counter`) is the default: a limit of 60 s ends the search after
60 s however busy the machine is. ``"cpu"`` (:func:`time.process_time`) counts only the CPU
time the process got, so the same limit buys about the same work on a loaded machine as on a
quiet one (benchmarks on a shared machine use it).

A process can also have every search end early, as if out of time, once a check says so
(:func:`end_searches_when`): a worker pool's way to stop the searches it runs when the run
they belong to is interrupted.

A search's time limit starts before its set-up (tables, packing order, goal room, stores), and
set-up work that can be long on a large board calls :meth:`TimeLimit.tick` once per step: every
4,096th step reads the clock and raises :class:`OutOfTime` once the limit has passed, and the
search ends with ``timeout``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from evosoko.errors import ConfigError

Clock = Literal["wall", "cpu"]
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}

_end_searches: Callable[[], bool] | None = None


def end_searches_when(check: Callable[[], bool] | None) -> Callable[[], bool] | None:
    """From now on, every search of this process ends at its next time check (status
    ``timeout``) once ``check()`` is true; None: only its own time limit ends it. Returns the
    check it replaces."""
    global _end_searches
    previous, _end_searches = _end_searches, check
    return previous


def clock_named(name: str) -> Callable[[], float]:
    """The function that reads clock ``name``; :class:`ConfigError` for an unknown name."""
    try:
        return CLOCKS[name]
    except KeyError:
        raise ConfigError(f"unknown clock {name!r}; use one of: {', '.join(CLOCKS)}") from None


class OutOfTime(Exception):
    """Set-up work of a search found its time limit passed (:meth:`TimeLimit.tick`)."""


_TICKS_PER_READ = 4096
"""Steps of set-up work between two readings of the clock (a few milliseconds in Python)."""


class TimeLimit:
    """A search's time limit counted on its clock, and the wall seconds it has run.

    The clock is read once when the limit is made (the search's start) and once per
    :meth:`passed`; :meth:`wall_seconds` is what results report, whatever the clock.
    """

    def __init__(self, seconds: float | None, clock: str = "wall") -> None:
        self.seconds = seconds
        self.read = clock_named(clock)
        self.started = self.read()
        self.started_wall = time.perf_counter()
        self._ticks = 0

    def passed(self, ahead: float = 0.0) -> bool:
        """True once the limit has passed (or would have, ``ahead`` clock seconds from now), or
        once the check of :func:`end_searches_when` says this process's searches must end."""
        if _end_searches is not None and _end_searches():
            return True
        return self.seconds is not None and self.read() + ahead - self.started >= self.seconds

    def tick(self) -> None:
        """One step of set-up work: raises :class:`OutOfTime` once the limit has passed (the
        clock is read every 4,096th step)."""
        self._ticks += 1
        if self._ticks % _TICKS_PER_READ == 0 and self.passed():
            raise OutOfTime

    def wall_seconds(self) -> float:
        """Wall seconds since the search started."""
        return time.perf_counter() - self.started_wall


def no_tick() -> None:
    """The :meth:`TimeLimit.tick` of set-up work that no time limit bounds."""
