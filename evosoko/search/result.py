"""What a search returns: a status, the verified solution, statistics and partial paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evosoko.sokoban.level import State
from evosoko.status import Resource, Status, Stop

if TYPE_CHECKING:
    from evosoko.result import Result
    from evosoko.search.settings import SettingsModel
    from evosoko.sokoban.level import Level

SOLVED: str = Status.SOLVED.value
MEMORY_LIMIT: str = Status.MEMORY_LIMIT.value
UNSOLVABLE: str = Status.UNSOLVABLE.value
BUDGET: str = Status.BUDGET.value
STATUSES = (SOLVED, BUDGET, MEMORY_LIMIT, UNSOLVABLE)
"""The statuses of a search (:mod:`evosoko.status`): ``unsolvable`` only when the search
exhausted its space; ``budget`` when its seconds or its node limit ran out (``exhausted``
names which); ``memory-limit`` when its tables or its state store would outgrow the memory
it may use, or when a search that dropped states to stay within it (``on_full = "drop"``)
emptied its frontier, or could free too little, with no restart left (``restarts``): the
dropped states leave no proof. A result's ``drops`` say whether a search went on incomplete."""
TIMEOUT = "timeout"
NODE_LIMIT = "node-limit"
"""A search loop's own outcomes when its seconds or its node limit ran out; its result says
``budget`` with the resource (:func:`search_stop`)."""


def search_stop(outcome: str, unit: str = Resource.NODES) -> Stop:
    """The stop of a search loop's ``outcome``: :data:`TIMEOUT` and :data:`NODE_LIMIT` are
    ``budget`` stops of seconds and of the search's ``unit`` (nodes; iterations for mcts)."""
    if outcome == TIMEOUT:
        return Stop.budget(Resource.SECONDS)
    if outcome == NODE_LIMIT:
        return Stop.budget(unit)
    return Stop(Status(outcome))


BEST_KEYS = ("lurd", "distance", "moves", "pushes", "solved")
"""Keys of :meth:`SearchResult.best`, those of a GA run's best individual."""


@dataclass(frozen=True, slots=True)
class PartialPath:
    """A frontier state left when the budget ran out, with the moves that reach it.

    ``lurd`` replays from the level's start to ``state`` (pushes in upper case); ``h`` is the
    search's heuristic estimate of the cost still to go from there.
    """

    lurd: str
    moves: int
    pushes: int
    h: int
    state: State


@dataclass(frozen=True, slots=True)
class SearchPart:
    """One of the searches a search runs side by side (push-fess-bi's own push-fess, its pull
    searches, the ball and its plain push-fess searches): its name, as ``found_by`` writes it
    (``"pull (weight 3)"`` for a pull search), the states it expanded and stored, and the CPU
    seconds of its calls."""

    name: str
    expanded: int
    generated: int
    cpu_seconds: float

    def as_dict(self) -> dict[str, object]:
        """The part as plain JSON-ready values."""
        return {
            "name": self.name,
            "expanded": self.expanded,
            "generated": self.generated,
            "cpu_seconds": round(self.cpu_seconds, 4),
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Outcome of :func:`evosoko.search.solve` on one level.

    ``solution`` is a replay-verified LURD string when ``status == "solved"``, else None;
    ``moves`` and ``pushes`` are those of the solution (0 otherwise). ``expanded`` counts
    states taken from the frontier and expanded, ``generated`` new states stored,
    ``duplicates`` successors that were already known. ``partial`` holds the best frontier
    states (by ``h``, then path cost) when a budget ended the search and they were asked for.
    ``status`` is a word of :mod:`evosoko.status`; ``exhausted`` names the resource of a
    ``budget`` stop (``seconds``, ``nodes``, or ``iterations`` for mcts), else None.
    ``settings`` are the knobs it ran with (its family's model of
    :mod:`evosoko.search.settings`; None for the move-level searches, which have none).
    """

    status: Status
    algorithm: str
    heuristic: str
    solution: str | None
    moves: int
    pushes: int
    expanded: int
    generated: int
    duplicates: int
    seconds: float
    partial: tuple[PartialPath, ...] = field(default=())
    exhausted: Resource | None = None
    progress: tuple[tuple[int, float, int], ...] = field(default=())
    """``(expanded, seconds, h)`` each time the lowest heuristic among the stored states fell
    (read between the kernel's time slices, so at most one slice late), ``h`` 0 once solved:
    the best distance per node of an IOHprofiler export (empty for searches that do not
    record it)."""
    settings: SettingsModel | None = None
    drops: int = 0
    """How many times a full store dropped states (``on_full = "drop"``): when above 0, the
    search was incomplete from then on."""
    dropped: int = 0
    """States dropped in all."""
    restarts: int = 0
    """How many times the search started again from the start after drops emptied its frontier
    or could free too little (``restarts``)."""
    found_by: str | None = None
    """Which of its searches found the solution, for a search made of several (push-fess-bi:
    ``"push-fess"``, ``"ball"``, ``"plain push-fess (room_links 1)"``, ``"plain_searches[0]"``,
    or one of them ``+ pull (weight 10)`` when it met a pull search); None otherwise."""
    parts: tuple[SearchPart, ...] = field(default=())
    """For a search made of several (push-fess-bi), where its work went: each search's
    expanded and generated states (they add up to ``expanded`` and ``generated``) and CPU
    seconds, its own first; the CPU the parts leave is the meetings, the stores' growth and the
    set-up. Empty otherwise."""

    @property
    def solved(self) -> bool:
        """True when a solution was found."""
        return self.status == SOLVED

    @property
    def stop(self) -> Stop:
        """``status`` and ``exhausted`` as one value (``str()``: ``"budget: nodes"``)."""
        return Stop(self.status, self.exhausted)

    def best(self) -> dict[str, object] | None:
        """The position closest to solved that the search reached, as a GA run reports its
        best individual (:data:`BEST_KEYS`; ``distance``: the search's heuristic there): the
        solution (distance 0), else the first partial path (mcts: its best rollout; the other
        searches: the open state of lowest heuristic); None when there is neither (a proof of
        unsolvability, or no partial paths asked for)."""
        values = self._best_values()
        return None if values is None else dict(zip(BEST_KEYS, values, strict=True))

    def _best_values(self) -> tuple[str, int, int, int, bool] | None:
        """The values of :meth:`best`, in the order of :data:`BEST_KEYS`."""
        if self.solved:
            if self.solution is None:
                raise ValueError("a solved search result must hold its solution")
            return (self.solution, 0, self.moves, self.pushes, True)
        if self.partial:
            path = self.partial[0]
            return (path.lurd, path.h, path.moves, path.pushes, False)
        return None

    def as_dict(self) -> dict[str, object]:
        """The statistics and solution as plain JSON-ready values (partial paths left out)."""
        return {
            "status": self.status,
            "exhausted": self.exhausted,
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
            "moves": self.moves,
            "pushes": self.pushes,
            "expanded": self.expanded,
            "generated": self.generated,
            "duplicates": self.duplicates,
            **self.drop_counts(),
            "found_by": self.found_by,
            "parts": self.parts_data(),
            "seconds": round(self.seconds, 6),
            "solution": self.solution,
            "settings": self.settings_data(),
        }

    def drop_counts(self) -> dict[str, int]:
        """``drops``, ``dropped`` and ``restarts`` as JSON-ready values: whether and how much a
        full store made the search incomplete."""
        return {"drops": self.drops, "dropped": self.dropped, "restarts": self.restarts}

    def parts_data(self) -> list[dict[str, object]]:
        """``parts`` as JSON-ready values (empty for a search of one part)."""
        return [part.as_dict() for part in self.parts]

    def settings_data(self) -> dict[str, Any]:
        """The settings as plain JSON-ready values (empty for a search without settings)."""
        return {} if self.settings is None else self.settings.model_dump(mode="json")

    def as_result(
        self, level: Level, *, seed: int | None = None, settings: str | None = None
    ) -> Result:
        """This outcome as the :class:`~evosoko.result.Result` every solver returns: cost in
        expanded nodes (mcts: iterations), the search's statistics in ``details``,
        :meth:`best` as its ``best``; ``seed`` (of a stochastic search) and ``settings`` (its
        digest) when known."""
        from evosoko.result import BestIndividual, Result
        from evosoko.search.algorithms import ALGORITHMS

        best = self._best_values()
        return Result(
            level_name=level.name,
            solver=self.algorithm,
            status=self.status,
            exhausted=self.exhausted,
            solution=self.solution if self.solved else None,
            moves=self.moves if self.solved else None,
            pushes=self.pushes if self.solved else None,
            cost=self.expanded,
            unit=ALGORITHMS[self.algorithm].unit,
            seconds=self.seconds,
            index=level.index,
            best=None if best is None else BestIndividual(*best),
            details={
                "heuristic": self.heuristic,
                "expanded": self.expanded,
                "generated": self.generated,
                "duplicates": self.duplicates,
                **self.drop_counts(),
                "found_by": self.found_by,
                "parts": self.parts_data(),
                "partial": [path.lurd for path in self.partial],
                "progress": [list(point) for point in self.progress],
                "settings": self.settings_data(),
            },
            level=level,
            seed=seed,
            settings=settings,
        )
