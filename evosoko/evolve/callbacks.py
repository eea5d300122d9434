"""Callbacks on the evolutionary loop: probes for logging, plots and early stopping.

Subclass :class:`Callback` and override what you need; pass instances as ``callbacks=`` to
``evosoko.evolve``, ``evosoko.run`` or :func:`evosoko.evolve.evolve_level`. Per level:
:meth:`~Callback.on_level_start` and :meth:`~Callback.on_level_end` (with the level's
:class:`~evosoko.result.Result`); per generation: :meth:`~Callback.on_generation` with a
:class:`Generation` (the statistics, the best individual so far, the population, and
:meth:`Generation.stop` to end the level early, with status ``"stopped"``); and
:meth:`~Callback.on_checkpoint` with the engine's state as plain data. The progress display of
``evosoko run`` and the writers of its run folder are callbacks too.

Callbacks run in the process that drives the loop, in the order given, after each generation
(generation 0 is the start). With islands a generation is reported once every island has
passed it: the statistics combine the islands, ``best`` is the best of them and
``population`` is None (the islands live in the workers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evosoko.evolve.fitness import Evaluation
from evosoko.result import GenerationStats, Result

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level

__all__ = ["BestGenome", "Callback", "Callbacks", "FunctionCallback", "Generation"]


@dataclass(frozen=True)
class BestGenome:
    """The best individual so far (the hall of fame's first): its genes, its named fitness
    values and its evaluation."""

    genes: list[int]
    fitness: dict[str, float]
    evaluation: Evaluation


@dataclass
class Generation:
    """What a callback sees after a generation (see the module docstring)."""

    level: Level
    stats: GenerationStats
    best: BestGenome | None = None
    population: Sequence[Any] | None = None
    stop_requested: bool = field(default=False, init=False)

    @property
    def number(self) -> int:
        """The generation (0: the first population)."""
        return self.stats.generation

    def stop(self) -> None:
        """End this level after this generation; its result gets status ``"stopped"``."""
        self.stop_requested = True


class Callback:
    """Hooks on the loop; each does nothing unless overridden."""

    def on_level_start(self, level: Level) -> None:
        """A level starts (or resumes from a checkpoint)."""

    def on_generation(self, generation: Generation) -> None:
        """A generation ended (see :class:`Generation`)."""

    def on_checkpoint(self, level: Level, state: dict[str, Any]) -> None:
        """The engine's state as JSON-able plain data; pass it back as ``resume_state`` to
        continue exactly where it was taken."""

    def on_level_end(self, result: Result) -> None:
        """A level ended: solved, out of budget, stopped or interrupted (``result.status``)."""


class FunctionCallback(Callback):
    """A callback made of plain functions: ``on_generation(stats)`` and
    ``on_checkpoint(state)``."""

    def __init__(
        self,
        on_generation: Callable[[GenerationStats], None] | None = None,
        on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._generation = on_generation
        self._checkpoint = on_checkpoint

    def on_generation(self, generation: Generation) -> None:
        if self._generation is not None:
            self._generation(generation.stats)

    def on_checkpoint(self, level: Level, state: dict[str, Any]) -> None:
        if self._checkpoint is not None:
            self._checkpoint(state)


class Callbacks(Callback):
    """Several callbacks called in turn; remembers whether one asked to stop."""

    def __init__(self, callbacks: Iterable[Callback] = ()) -> None:
        self.callbacks = list(callbacks)
        self.stop_requested = False

    def on_level_start(self, level: Level) -> None:
        for callback in self.callbacks:
            callback.on_level_start(level)

    def on_generation(self, generation: Generation) -> None:
        for callback in self.callbacks:
            callback.on_generation(generation)
        self.stop_requested |= generation.stop_requested

    def on_checkpoint(self, level: Level, state: dict[str, Any]) -> None:
        for callback in self.callbacks:
            callback.on_checkpoint(level, state)

    def on_level_end(self, result: Result) -> None:
        for callback in self.callbacks:
            callback.on_level_end(result)
