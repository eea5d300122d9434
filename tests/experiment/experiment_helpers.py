"""Shared helpers of the experiment tests: tiny configurations on the bundled seed levels."""

from __future__ import annotations

import csv
from pathlib import Path

from evosoko.config import Config, load_config
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run.progress import NoProgress
from evosoko.experiment.run.records import WALL_CLOCK_COLUMNS

SEED_LEVELS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"


def tiny_config(output: Path, *overrides: str) -> Config:
    """A fast configuration over the bundled seed levels, writing under ``output``.

    A population of searches (``searches.enabled=true``) reads no GA sizes, so none are set.
    """
    searches = "searches.enabled=true" in overrides
    ga_sizes = [] if searches else ["ga.population=30", "ga.offspring=30"]
    return load_config(
        None,
        [
            f"run.levels={SEED_LEVELS}",
            f"output.dir={output}",
            "run.budget.generations=12",
            "run.budget.seconds=none",
            "output.checkpoint_every=4",
            *ga_sizes,
            *overrides,
        ],
    )


def deterministic_metrics(run_dir: Path) -> list[dict[str, str]]:
    """The rows of metrics.csv without the wall-clock columns."""
    with open(run_dir / "metrics.csv", newline="", encoding="utf-8") as file:
        return [
            {key: value for key, value in row.items() if key not in WALL_CLOCK_COLUMNS}
            for row in csv.DictReader(file)
        ]


def read_csv(path: Path) -> list[dict[str, str]]:
    """All rows of a CSV file as dicts."""
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def stable_records(rows: list[dict]) -> list[dict]:
    """Job records without what the clock decides: ``seconds`` and the times in ``progress``."""
    stable = []
    for row in rows:
        kept = {key: value for key, value in row.items() if key != "seconds"}
        if kept.get("progress") is not None:
            kept["progress"] = [(cost, distance) for cost, _seconds, distance in kept["progress"]]
        stable.append(kept)
    return stable


class StopAt(NoProgress):
    """Progress probe that stops the run at a generation of a level: gracefully (as the first
    Ctrl-C does) or abruptly (as a second Ctrl-C or a crash would)."""

    def __init__(self, interrupts: GracefulInterrupts, level: int, generation: int, abort: bool):
        self.interrupts, self.level, self.at, self.abort = interrupts, level, generation, abort
        self.current: int | None = None

    def on_level_start(self, level) -> None:
        self.current = level.index

    def on_generation(self, generation) -> None:
        if self.current == self.level and generation.stats.generation == self.at:
            if self.abort:
                raise KeyboardInterrupt
            self.interrupts.request()
