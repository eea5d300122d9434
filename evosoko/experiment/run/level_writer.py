"""The callback that writes one level of a run into its run folder.

Per generation a ``metrics.csv`` row (and a ``restart`` event when the population restarted),
per checkpoint the file ``checkpoints/level-<index>.json`` and a ``checkpoint`` event, and the
``level_started``, ``solved`` and ``level_finished`` events (an interrupted level gets none of
the last two: the run records the interruption).
"""

from __future__ import annotations

import logging
from typing import Any

from evosoko.evolve.callbacks import Callback, Generation
from evosoko.experiment.run.folder import RunFolder
from evosoko.experiment.run.records import metrics_row
from evosoko.result import Result
from evosoko.sokoban.level import Level
from evosoko.status import Status
from evosoko.text import level_caption

log = logging.getLogger(__name__)


class LevelWriter(Callback):
    """Writes the level of file index ``index`` into ``folder`` (``resume_state``: the
    checkpoint it resumes from, or None)."""

    def __init__(self, folder: RunFolder, index: int, resume_state: dict[str, Any] | None):
        self.folder = folder
        self.index = index
        self.resumed_at = None if resume_state is None else resume_state["generation"]
        self.restarts = 0 if resume_state is None else int(resume_state["restarts"])

    def on_level_start(self, level: Level) -> None:
        self.folder.add_event(
            "level_started", index=self.index, level=level.name, from_generation=self.resumed_at
        )
        log.info(
            "%s: %s",
            level_caption(self.index, level.name),
            "started" if self.resumed_at is None else f"resumed at generation {self.resumed_at}",
        )

    def on_generation(self, generation: Generation) -> None:
        stats, name = generation.stats, generation.level.name
        self.folder.add_metrics(metrics_row(self.index, name, stats))
        if stats.restarts > self.restarts:
            self.restarts = stats.restarts
            self.folder.add_event(
                "restart",
                index=self.index,
                level=name,
                generation=stats.generation,
                restarts=stats.restarts,
            )

    def on_checkpoint(self, level: Level, state: dict[str, Any]) -> None:
        path = self.folder.save_checkpoint(self.index, state)
        self.folder.add_event(
            "checkpoint",
            index=self.index,
            level=level.name,
            generation=state["generation"],
            file=str(path.relative_to(self.folder.path)),
        )

    def on_level_end(self, result: Result) -> None:
        if result.status == Status.INTERRUPTED:
            return
        common = {"index": self.index, "level": result.level_name}
        if result.solved:
            self.folder.add_event(
                "solved",
                **common,
                generation=result.generations,
                evaluations=result.cost,
                moves=result.moves,
                pushes=result.pushes,
            )
        self.folder.add_event(
            "level_finished",
            **common,
            solved=result.solved,
            stop_reason=result.status,
            exhausted=result.exhausted,
            generations=result.generations,
            evaluations=result.cost,
            seconds=round(result.seconds, 3),
        )
