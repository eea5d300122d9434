"""The search algorithms by name: which kernel, frontier and priority each one uses."""

from __future__ import annotations

from dataclasses import dataclass

from evosoko.errors import ConfigError
from evosoko.search.heuristics import HEURISTICS, PUSH_HEURISTICS
from evosoko.search.store import (
    AT_EXPANSION,
    AT_GENERATION,
    AT_GENERATION_IF_OPTIMAL,
    FIFO,
    HEAP,
    LIFO,
)

MOVE, PUSH = "move", "push"


@dataclass(frozen=True, slots=True)
class Algorithm:
    """How one named search drives a kernel.

    The heap priority is ``g * g_weight + h * h_weight`` (``h_weight`` None: the caller's
    ``weight``). ``reopen``: a closed state found again at a lower cost is expanded again.
    ``optimal``: finds a cost-optimal solution (moves or pushes). ``iterative``: IDA* iterations
    with a growing f threshold, the store serving as transposition table. ``feature_space``:
    the cells of a feature space take turns instead of one frontier
    (:mod:`evosoko.search.fess.run`), each expanding its best state by the priority. ``seeded``:
    the search draws random numbers from its seed. ``runner``: ``"module:Class"`` of the run
    class that drives a search of its own instead of the state store's kernels (the
    interface of :class:`evosoko.search.search_run.SearchRun`: ``search()``, ``result(status,
    partial)``); the store's fields above then do not apply to it. ``unit``: what its
    ``expanded`` counts, the cost comparisons report (``nodes``: expanded states; mcts:
    ``iterations``, each of which does far more than one expansion). ``guided``: ordered by a
    learned deadlock network (:mod:`evosoko.search.learned`), node by node, instead of by the
    kernel's frontier. ``heuristic``: the default heuristic, when not the level's usual one.
    """

    name: str
    level: str
    mode: int
    g_weight: int
    h_weight: int | None
    goal_test: int
    reopen: bool
    shuffle: bool = False
    iterative: bool = False
    optimal: bool = False
    feature_space: bool = False
    seeded: bool = False
    runner: str | None = None
    unit: str = "nodes"
    description: str = ""
    guided: bool = False
    heuristic: str | None = None

    @property
    def stochastic(self) -> bool:
        """True when the outcome depends on the seed (comparisons run it once per seed)."""
        return self.shuffle or self.seeded

    @property
    def default_heuristic(self) -> str:
        """The heuristic used when none is named."""
        if self.heuristic is not None:
            return self.heuristic
        return "matching" if self.level == PUSH else "push-distance"

    @property
    def heuristics(self) -> tuple[str, ...]:
        """Heuristic names this algorithm accepts."""
        return PUSH_HEURISTICS if self.level == PUSH else tuple(HEURISTICS)


ALGORITHMS: dict[str, Algorithm] = {
    algorithm.name: algorithm
    for algorithm in (
        Algorithm(
            "bfs",
            MOVE,
            FIFO,
            1,
            0,
            AT_GENERATION,
            False,
            optimal=True,
            description="breadth-first over player moves (move-optimal)",
        ),
        Algorithm(
            "dfs",
            MOVE,
            LIFO,
            1,
            0,
            AT_GENERATION,
            False,
            description="depth-first over player moves, directions in u d l r order",
        ),
        Algorithm(
            "random",
            MOVE,
            FIFO,
            1,
            0,
            AT_GENERATION,
            False,
            shuffle=True,
            description="breadth-first with the successors in random order",
        ),
        Algorithm(
            "astar",
            MOVE,
            HEAP,
            1,
            1,
            AT_EXPANSION,
            True,
            optimal=True,
            description="A* over player moves, g = moves",
        ),
        Algorithm(
            "greedy",
            MOVE,
            HEAP,
            0,
            1,
            AT_GENERATION,
            False,
            description="greedy best-first over player moves, f = h",
        ),
        Algorithm(
            "push-bfs",
            PUSH,
            HEAP,
            1,
            0,
            AT_GENERATION_IF_OPTIMAL,
            False,
            optimal=True,
            description="uniform-cost (breadth-first) over pushes (push-optimal)",
        ),
        Algorithm(
            "push-astar",
            PUSH,
            HEAP,
            1,
            1,
            AT_GENERATION_IF_OPTIMAL,
            True,
            optimal=True,
            description="A* over pushes (push-optimal with an admissible heuristic)",
        ),
        Algorithm(
            "push-wastar",
            PUSH,
            HEAP,
            100,
            None,
            AT_GENERATION,
            False,
            description="weighted A* over pushes, f = g + weight * h",
        ),
        Algorithm(
            "push-greedy",
            PUSH,
            HEAP,
            0,
            1,
            AT_GENERATION,
            False,
            description="greedy best-first over pushes, f = h",
        ),
        Algorithm(
            "push-idastar",
            PUSH,
            LIFO,
            1,
            1,
            AT_GENERATION,
            True,
            iterative=True,
            optimal=True,
            description="IDA* over pushes with a transposition table",
        ),
        Algorithm(
            "push-fess",
            PUSH,
            HEAP,
            100,
            None,
            AT_GENERATION,
            False,
            feature_space=True,
            description="feature-space search over pushes: cells of (packing, out-of-plan, "
            "connectivity) take turns, each expanding its best state by g + weight * h",
        ),
        Algorithm(
            "push-fess-bi",
            PUSH,
            HEAP,
            100,
            None,
            AT_GENERATION,
            False,
            runner="evosoko.search.bidirectional:BidirectionalRun",
            description="push-fess forwards and a pull search backwards from the solved "
            "position, until they reach a common state",
        ),
        Algorithm(
            "push-learned",
            PUSH,
            LIFO,
            1,
            3,
            AT_GENERATION,
            False,
            guided=True,
            description="best-first over pushes: positions a learned network finds likely dead "
            "last, then g + 3h",
        ),
        Algorithm(
            "push-learned-source",
            PUSH,
            LIFO,
            0,
            1,
            AT_GENERATION,
            False,
            guided=True,
            heuristic="manhattan",
            description="the source document's rule: dead probability under 0.2 by Manhattan "
            "distance, the rest by probability",
        ),
        Algorithm(
            "mcts",
            PUSH,
            HEAP,  # the store's fields (mode .. reopen) do not apply: it has a runner
            0,
            1,
            AT_GENERATION,
            False,
            seeded=True,
            runner="evosoko.search.mcts.run:MctsRun",
            unit="iterations",
            description="Monte Carlo tree search (UCT) over the push genomes' candidate pushes, "
            "policy-guided rollouts rewarded by the distance objective",
        ),
    )
}
"""Every algorithm :func:`evosoko.search.solve` knows, by name."""


def algorithm_named(name: str) -> Algorithm:
    """The algorithm called ``name``; an unknown name raises :class:`ConfigError`."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise ConfigError(f"unknown search algorithm {name!r}; known: {known}") from None


def heuristic_misfit(algorithm: str, heuristic: str | None) -> str | None:
    """Why ``heuristic`` does not fit the search ``algorithm`` (None: it does, or is unset):
    the message of a settings file's validator."""
    allowed = ALGORITHMS[algorithm].heuristics
    if heuristic is None or heuristic in allowed:
        return None
    return f"heuristic {heuristic!r} does not fit {algorithm}; use one of " + ", ".join(allowed)


def heuristic_for(algorithm: Algorithm, name: str | None) -> str:
    """The heuristic name to use (the algorithm's default for None), checked."""
    if name is None:
        return algorithm.default_heuristic
    if name not in algorithm.heuristics:
        known = ", ".join(algorithm.heuristics)
        raise ConfigError(
            f"heuristic {name!r} does not apply to {algorithm.name}; choose one of: {known}"
        )
    return name
