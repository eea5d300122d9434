"""The one termination rule: a :class:`Budget` of generations, evaluations, seconds and nodes.

The GA engine, its islands and the per-job limits of ``evosoko compare`` ask the same object
whether a run is over (:meth:`Budget.exhausted`), as pymoo's termination objects do. A limit
left at None is no limit; the first limit reached names the stop (``"generations"``,
``"evaluations"``, ``"seconds"``, ``"nodes"``), checked in that order. ``clock`` names what the
seconds count (:mod:`evosoko.search.clocks`): wall seconds, or the CPU seconds of the process
that runs the level, which buy the same work on a loaded machine as on a quiet one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from evosoko.search.clocks import Clock

__all__ = ["LIMITS", "Budget"]

LIMITS = ("generations", "evaluations", "seconds", "nodes")
"""The limits of a budget, in the order they are checked."""


@dataclass(frozen=True)
class Budget:
    """Limits of one run on one level; None means no limit.

    ``generations`` and ``evaluations`` bound the GA, ``nodes`` (states expanded) a search,
    ``seconds`` both, counted on ``clock``: ``"wall"``, or ``"cpu"``, the CPU time of the process
    that runs the level (a GA loop then runs its evaluations there:
    :func:`evosoko.evolve.loop.loop_clock`).
    """

    generations: int | None = None
    evaluations: int | None = None
    seconds: float | None = None
    nodes: int | None = None
    clock: Clock = "wall"

    def __post_init__(self) -> None:
        for name in LIMITS:
            value = getattr(self, name)
            if value is not None and not value >= 0:
                raise ValueError(f"budget {name} must not be negative, got {value!r}")

    @classmethod
    def of(cls, limits: Any) -> Budget:
        """The budget of anything with some of the limit attributes (a ``[run.budget]`` or
        ``[compare.budget]`` table, another budget) and perhaps a ``clock``; missing limits are
        unset, a missing clock is ``"wall"``."""
        if isinstance(limits, Budget):
            return limits
        values = {name: getattr(limits, name, None) for name in LIMITS}
        return cls(**values, clock=getattr(limits, "clock", "wall"))

    def exhausted(
        self,
        *,
        generations: int = 0,
        evaluations: int = 0,
        seconds: float = 0.0,
        nodes: int = 0,
    ) -> str | None:
        """The first limit that the counts have reached, or None while every one is left."""
        spent = {
            "generations": generations,
            "evaluations": evaluations,
            "seconds": seconds,
            "nodes": nodes,
        }
        for name in LIMITS:
            limit = getattr(self, name)
            if limit is not None and spent[name] >= limit:
                return name
        return None

    def replace(self, **limits: Any) -> Budget:
        """This budget with some limits changed (None removes one)."""
        return dataclasses.replace(self, **limits)

    def share(self, part: int, parts: int) -> Budget:
        """The budget of one of ``parts`` islands: the evaluations split as evenly as they go
        (the first ``evaluations % parts`` islands get one more), the other limits as they are."""
        if self.evaluations is None:
            return self
        base, extra = divmod(self.evaluations, parts)
        return self.replace(evaluations=base + (1 if part < extra else 0))

    def seconds_left(self, spent: float) -> float | None:
        """Seconds left after ``spent`` (None: no time limit)."""
        return None if self.seconds is None else max(0.0, self.seconds - spent)

    def measure(self) -> tuple[str, float | None]:
        """The first limit that is set and what it is: what a progress bar counts."""
        for name in LIMITS:
            if getattr(self, name) is not None:
                return name, getattr(self, name)
        return "seconds", None
