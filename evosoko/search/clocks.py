"""The clocks a search's time limit can count: wall time or the process's CPU time.

``"wall"`` (:func:`time.perf_counter`) is the default: a limit of 60 s ends the search after
60 s however busy the machine is. ``"cpu"`` (:func:`time.process_time`) counts only the CPU
time the process got, so the same limit buys about the same work on a loaded machine as on a
quiet one (benchmarks on a shared machine use it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from evosoko.errors import ConfigError

Clock = Literal["wall", "cpu"]
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def clock_named(name: str) -> Callable[[], float]:
    """The function that reads clock ``name``; :class:`ConfigError` for an unknown name."""
    try:
        return CLOCKS[name]
    except KeyError:
        raise ConfigError(f"unknown clock {name!r}; use one of: {', '.join(CLOCKS)}") from None
