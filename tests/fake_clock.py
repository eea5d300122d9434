"""Test support: a clock that moves a fixed step each time it is read."""

from __future__ import annotations


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read (put in
    ``evosoko.search.clocks.CLOCKS`` to stand for the CPU clock)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now
