"""One noun for what a solver did on a level: :class:`Result`, for the GA and for search alike.

A result says how the solver stopped (``status``, a word of :mod:`evosoko.status`, and for a
``budget`` stop the ``exhausted`` resource), the replay-verified ``solution`` (LURD, None
when unsolved) with its ``moves`` and ``pushes``, what it spent in its own unit (``cost``
``unit``: evaluations for the GA, expanded nodes for search) and the wall-clock ``seconds``. A
GA result also carries its ``best`` individual (solution or best prefix, replay-verified), the
best individual's named ``fitness`` values, the per-generation ``history`` and the
``hall_of_fame``; a search result its search statistics in ``details``.

``evosoko.evolve`` and ``evosoko.solve`` return results; ``evosoko compare`` and run folders
are written from them. In a notebook a result shows itself as a small table with its fitness
curve and an animation of its solution (or best prefix); ``result.history.to_pandas()`` gives
the history as a DataFrame when pandas is installed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from evosoko.status import Resource, Status, Stop, read_stop

if TYPE_CHECKING:
    import pandas

    from evosoko.sokoban.level import Level

__all__ = [
    "BestIndividual",
    "GenerationStats",
    "HallOfFameEntry",
    "History",
    "Result",
]


@dataclass
class GenerationStats:
    """Statistics of one generation, streamed to callbacks (generation 0: the start).

    ``best_distance`` / ``mean_distance`` / ``std_distance``: the primary objective over the
    population (0 = solved); ``best_length``: genes of the best individual; ``diversity``:
    distinct scored positions per individual; ``cache_hits``: evaluations answered by the
    fitness cache so far (the cache is not checkpointed, so this count restarts on resume);
    ``seconds``: wall-clock time since the level started. Neither of the last two is part of
    determinism.
    """

    generation: int
    evaluations: int
    best_distance: float
    mean_distance: float
    std_distance: float
    best_length: int
    solved: bool
    diversity: float
    restarts: int
    cache_hits: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """Plain dict, e.g. for a CSV row."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GenerationStats:
        """Inverse of :meth:`as_dict` (other keys are ignored)."""
        return cls(**{f.name: data[f.name] for f in fields(cls)})


class History(list):
    """The :class:`GenerationStats` of a GA run, one per generation, in order."""

    def __repr__(self) -> str:
        if not self:
            return "<History: no generations>"
        first, last = self[0].best_distance, self[-1].best_distance
        return f"<History: {len(self)} generations, best distance {first:g} -> {last:g}>"

    def column(self, name: str) -> list[Any]:
        """One statistic over the generations, e.g. ``history.column("best_distance")``."""
        return [getattr(stats, name) for stats in self]

    def to_pandas(self) -> pandas.DataFrame:
        """The history as a pandas DataFrame, one row per generation (needs pandas:
        ``pip install pandas``)."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "History.to_pandas needs pandas, which evosoko does not install: "
                "pip install pandas (or pip install -e '.[dev]')"
            ) from None
        columns = [f.name for f in fields(GenerationStats)]
        return pandas.DataFrame([stats.as_dict() for stats in self], columns=columns)


@dataclass
class HallOfFameEntry:
    """A hall-of-fame genome as plain data."""

    genes: list[int]
    solved: bool
    distance: int
    length: int


@dataclass
class BestIndividual:
    """What the best individual of a level plays, replay-verified: ``lurd`` up to the point its
    fitness scores (the solution when ``solved``; else its best prefix, which reaches the
    position of ``distance``, the distance objective), with its ``moves`` and ``pushes``;
    ``genes`` is its genome."""

    lurd: str
    distance: int
    moves: int
    pushes: int
    solved: bool
    genes: list[int] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """``{"lurd", "distance", "moves", "pushes", "solved"}``, as summaries store it."""
        return {
            "lurd": self.lurd,
            "distance": self.distance,
            "moves": self.moves,
            "pushes": self.pushes,
            "solved": self.solved,
        }


@dataclass
class Result:
    """What one solver did on one level, GA or search (see :mod:`evosoko.result`).

    ``level_name``: the level's title, or its index when it has none; ``index``: its 1-based
    index in its file (None when unknown); ``level``: the level itself when known (results
    read back from files may lack it). ``status``: a word of :mod:`evosoko.status` (the GA:
    solved, budget, interrupted or stopped; a search also unsolvable or memory-limit);
    ``exhausted``: for a ``budget`` stop the resource that ran out (the GA: generations,
    evaluations or seconds; a search: seconds, nodes or iterations), else None. A word outside
    the vocabulary raises ``ValueError``.
    """

    level_name: str
    solver: str
    status: Status
    solution: str | None
    moves: int | None
    pushes: int | None
    cost: int
    unit: str
    seconds: float
    exhausted: Resource | None = None
    index: int | None = None
    generations: int | None = None
    restarts: int = 0
    best: BestIndividual | None = None
    fitness: dict[str, float] = field(default_factory=dict)
    history: History = field(default_factory=History)
    hall_of_fame: list[HallOfFameEntry] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    level: Level | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        stop = Stop(self.status, self.exhausted)  # the vocabulary's words, validated
        self.status, self.exhausted = stop.status, stop.exhausted

    @property
    def stop(self) -> Stop:
        """``status`` and ``exhausted`` as one value (``str()``: ``"budget: seconds"``)."""
        return Stop(self.status, self.exhausted)

    @property
    def solved(self) -> bool:
        """True when the solver found a (verified) solution."""
        return self.solution is not None

    @property
    def evaluations(self) -> int | None:
        """Fitness evaluations spent (GA results; None for search)."""
        return self.cost if self.unit == "evaluations" else None

    @property
    def progress(self) -> list[tuple[int, float, float]]:
        """The best distance so far against cost: ``(cost, seconds, distance)`` at the start
        and each time it fell, ending at 0 when solved. GA: the best individual's distance
        per evaluation, from the history; search: the lowest heuristic of a state it stored,
        per expanded node (empty when the search does not record it)."""
        if self.history:
            points: list[tuple[int, float, float]] = []
            for stats in self.history:
                if not points or stats.best_distance < points[-1][2]:
                    points.append((stats.evaluations, stats.seconds, stats.best_distance))
            return points
        return [(int(c), float(s), float(d)) for c, s, d in self.details.get("progress", [])]

    @property
    def best_distance(self) -> float | None:
        """The distance objective of the best individual (GA results; 0 when solved)."""
        return self.fitness.get("distance") if self.fitness else None

    def to_dict(self) -> dict[str, Any]:
        """Everything but the level itself as JSON-able plain data (:meth:`from_dict` reads it)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "level"}
        data["best"] = None if self.best is None else asdict(self.best)
        data["history"] = [stats.as_dict() for stats in self.history]
        data["hall_of_fame"] = [asdict(entry) for entry in self.hall_of_fame]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], level: Level | None = None) -> Result:
        """Inverse of :meth:`to_dict` (older words read as :func:`evosoko.status.read_stop`
        says)."""
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        stop = read_stop(data["status"], data.get("exhausted"), unit=data.get("unit", "nodes"))
        values["status"], values["exhausted"] = stop.status, stop.exhausted
        if values.get("best") is not None:
            values["best"] = BestIndividual(**values["best"])
        values["history"] = History(GenerationStats.from_dict(s) for s in data.get("history", []))
        values["hall_of_fame"] = [HallOfFameEntry(**e) for e in data.get("hall_of_fame", [])]
        return cls(**values, level=level)

    def __repr__(self) -> str:
        """One line, like a level's: what ran where, how it ended, what it cost (the history,
        hall of fame and genes stay in their attributes; a notebook shows the full table)."""
        where = f"#{self.index} {self.level_name!r}" if self.index else repr(self.level_name)
        parts = [str(self.stop)]
        if self.solved:
            parts.append(f"{self.moves} moves, {self.pushes} pushes")
        elif self.best_distance is not None:
            parts.append(f"best distance {self.best_distance:g}")
        parts.append(f"{self.cost:,} {self.unit}")
        parts.append(f"{self.seconds:.3f} s")
        if self.generations is not None:
            parts.append(f"{self.generations} generations")
        return f"<Result {self.solver} on {where}: {', '.join(parts)}>"

    def _repr_html_(self) -> str:
        from evosoko.result_display import result_html

        return result_html(self)
