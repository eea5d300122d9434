"""The fitness of a level is its certificate: a chosen search solves it within a node (and
optionally CPU-time) cap, and the solution, replayed, gives the values the objectives read.

:func:`certify_level` runs the search and checks its solution; :func:`score_job` is the job a
worker runs on one candidate (a board in, a plain dict out: the certificate, the objectives'
values and the archive features), so that any job backend (serial, processes, Dask) can run
it and its result can be journaled as JSON. Node caps keep certificates the same on every
machine; a CPU-seconds cap does not (a busy machine certifies fewer levels).

Where the boxes start (:data:`STARTS`): ``genome``, where the board puts them; or
``deepest``, where a breadth-first reverse search from the goals (every box pulled away, up to
``pull_limit`` states, :func:`evosoko.generate.pulls.pull_search`) reaches its deepest state:
the start that needs the most pushes of all starts of those walls and goals (when the search
is complete). The board then is a template of walls and goals, and the developed board (its
boxes and player moved to that start) is what is certified and kept. With a push-optimal
certifier the certificate's pushes must equal the reverse search's depth; they are checked.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from evosoko.errors import SolutionError
from evosoko.evolve.registry import Operator
from evosoko.search import solve
from evosoko.search.algorithms import PUSH, algorithm_named
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import lurd_directions, verify_solution
from evosoko.status import Status

STARTS = ("genome", "deepest")
"""Where the boxes of a candidate start (see the module docstring)."""


@dataclass(frozen=True)
class Certifier:
    """The search that certifies candidates and its caps (``seconds``: CPU seconds)."""

    algorithm: str = "push-astar"
    nodes: int | None = 200_000
    seconds: float | None = None

    @property
    def optimal(self) -> bool:
        """True when its solutions have the fewest pushes (a push-optimal search)."""
        algorithm = algorithm_named(self.algorithm)
        return algorithm.optimal and algorithm.level == PUSH


@dataclass(frozen=True)
class Certificate:
    """What certifying one level found: ``status`` (a word of :mod:`evosoko.status`: solved,
    unsolvable, budget, memory-limit; ``exhausted`` names a budget's resource), the
    replay-verified ``solution`` (LURD, None unless solved) with its ``pushes``, ``moves`` and
    ``box_changes`` (how often the pushed box differs from the one pushed before), the search's
    ``expanded`` nodes and the CPU seconds the certification took."""

    status: str
    exhausted: str | None = None
    solution: str | None = None
    pushes: int = 0
    moves: int = 0
    box_changes: int = 0
    expanded: int = 0
    cpu_seconds: float = 0.0

    @property
    def solved(self) -> bool:
        """True when the level has a verified solution of at least one push (a board solved
        from the start is no puzzle)."""
        return self.status == Status.SOLVED and self.pushes > 0


@dataclass(frozen=True)
class Scored:
    """A candidate's score: its ``key`` (:func:`~evosoko.levelgen.space.level_key`), its
    certificate, the objectives' ``values`` and the archive ``features`` (both None unless
    solved), the generation in which it was first certified and, when the start was
    developed, the ``board`` certified (a genome as hexadecimal text)."""

    key: str
    certificate: Certificate
    values: tuple[float, ...] | None = None
    features: tuple[float, ...] | None = None
    generation: int = 0
    board: str | None = None
    cell: int | None = field(default=None, compare=False)

    @property
    def feasible(self) -> bool:
        """True when the level is certified solvable (it may enter the population)."""
        return self.certificate.solved and self.values is not None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (:meth:`from_dict` reads it back)."""
        return {
            "key": self.key,
            "certificate": asdict(self.certificate),
            "values": None if self.values is None else list(self.values),
            "features": None if self.features is None else list(self.features),
            "generation": self.generation,
            "board": self.board,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scored:
        """The score of :meth:`to_dict`'s data."""
        values, features = data.get("values"), data.get("features")
        return cls(
            key=str(data["key"]),
            certificate=Certificate(**data["certificate"]),
            values=None if values is None else tuple(float(v) for v in values),
            features=None if features is None else tuple(float(v) for v in features),
            generation=int(data.get("generation", 0)),
            board=data.get("board"),
        )


def certify_level(level: Level, certifier: Certifier) -> Certificate:
    """Certify ``level`` (see the module docstring). A box on a dead square needs no search:
    ``unsolvable`` with nothing expanded. Raises :class:`SolutionError` when the search returns a
    solution that does not replay (a bug in the search, never a property of the level)."""
    started = time.process_time()
    if level.dead_squares[list(level.start.boxes)].any():
        return Certificate(Status.UNSOLVABLE, cpu_seconds=time.process_time() - started)
    found = solve(
        level,
        certifier.algorithm,
        node_limit=certifier.nodes,
        time_limit=certifier.seconds,
        clock="cpu",
    )
    expanded = int(found.expanded)
    if found.status != Status.SOLVED:
        return Certificate(
            found.status,
            found.exhausted,
            expanded=expanded,
            cpu_seconds=time.process_time() - started,
        )
    if found.solution is None:
        raise SolutionError(f"{certifier.algorithm} reported a solution it did not return")
    check = verify_solution(level, found.solution)
    if not (check.valid and check.solved):
        reason = check.error or "the boxes are not all on goals at the end"
        raise SolutionError(
            f"{certifier.algorithm} returned a solution that does not replay: {reason}"
        )
    return Certificate(
        Status.SOLVED,
        solution=check.lurd,
        pushes=check.pushes,
        moves=check.moves,
        box_changes=box_changes(level, check.lurd),
        expanded=expanded,
        cpu_seconds=time.process_time() - started,
    )


def box_changes(level: Level, lurd: str) -> int:
    """How often a push moves another box than the push before it did (0 for one box pushed
    all the way): a measure of how much a solution interleaves its boxes."""
    deltas = level.deltas
    player = level.start.player
    pushed_last: int | None = None
    changes = 0
    for direction, letter in zip(lurd_directions(lurd), lurd, strict=True):
        target = player + deltas[direction]
        if letter.isupper():
            if pushed_last is not None and pushed_last != target:
                changes += 1
            pushed_last = target + deltas[direction]
        player = target
    return changes


@dataclass(frozen=True)
class ScoreJob:
    """One candidate for a worker: its board (a repaired genome of a ``width`` x ``height``
    space), where its boxes start, and what to measure on it (the parts travel as
    :class:`~evosoko.evolve.registry.Operator` objects, which pickle by reference)."""

    genes: tuple[int, ...]
    width: int
    height: int
    certifier: Certifier
    objectives: tuple[tuple[Operator, dict[str, Any]], ...]
    features: tuple[tuple[Operator, dict[str, Any]], ...] = ()
    start: str = "genome"
    pull_limit: int = 200_000


def score_job(job: ScoreJob) -> dict[str, Any]:
    """The job function: develop the start (``deepest``), certify the board, then measure the
    objectives and features of a solved one. Returns ``{"certificate": {...}, "values": [...]
    | None, "features": ..., "board": hex genes | None}``."""
    genes, board, depth = list(job.genes), None, None
    started = time.process_time()
    if job.start == "deepest":
        developed = deepest_start(genes, job.width, job.height, job.pull_limit)
        if developed is None:  # no box leaves its goal: a board solved from the start
            spent = time.process_time() - started
            certificate = Certificate(Status.SOLVED, solution="", cpu_seconds=spent)
            return {"certificate": asdict(certificate), "values": None, "features": None}
        genes, depth = developed
        board = "".join(f"{code:x}" for code in genes)
    developing = time.process_time() - started
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every box on a goal: solved in 0 pushes, infeasible
        level = board_level(genes, job.width, job.height)
    certificate = certify_level(level, job.certifier)
    certificate = replace(certificate, cpu_seconds=certificate.cpu_seconds + developing)
    optimal = certificate.solved and job.certifier.optimal
    if depth is not None and optimal and certificate.pushes != depth:
        raise SolutionError(
            f"{job.certifier.algorithm} solved in {certificate.pushes} pushes a start the "
            f"reverse search reached at depth {depth}"
        )
    values = features = None
    if certificate.solved:
        values = measure(level, certificate, job.objectives)
        features = measure(level, certificate, job.features)
    return {
        "certificate": asdict(certificate),
        "values": values,
        "features": features,
        "board": board,
    }


def board_level(genes: Sequence[int], width: int, height: int) -> Level:
    """The level of a repaired genome."""
    from evosoko.levelgen.space import board_sketch

    return board_sketch(genes, width, height).to_level()


def deepest_start(
    genes: Sequence[int], width: int, height: int, pull_limit: int
) -> tuple[list[int], int] | None:
    """The board with its boxes and player moved to the deepest state of a reverse search from
    its goals, and that depth (None when no box can leave the goals). Ties go to the state
    whose boxes stand farthest from the goals, then to the first found."""
    from evosoko.generate.pulls import pull_search
    from evosoko.generate.reverse import box_displacement
    from evosoko.levelgen.space import BOX, GOAL, PLAYER, WALL
    from evosoko.sokoban.level import neighbour_table

    codes = np.asarray(genes, dtype=np.int64)
    floor = (codes & WALL) == 0
    goals = tuple(np.flatnonzero(codes & GOAL).tolist())
    tree = pull_search(floor, neighbour_table(width, height), goals, pull_limit, random.Random(0))
    deepest = int(tree.depths.max())
    if deepest < 1:
        return None
    candidates = np.flatnonzero(tree.depths == deepest)
    displacement = box_displacement(tree.boxes[candidates], goals, width)
    chosen = int(candidates[int(np.argmax(displacement))])
    developed = [int(code) & ~(BOX | PLAYER) for code in genes]
    for box in tree.boxes[chosen].tolist():
        developed[box] |= BOX
    developed[int(tree.players[chosen])] |= PLAYER
    return developed, deepest


def measure(
    level: Level, certificate: Certificate, parts: Sequence[tuple[Operator, dict[str, Any]]]
) -> list[float]:
    """The value of each (objective, parameters) on a certified level."""
    return [float(part.bind(params, {})(level, certificate)) for part, params in parts]


def warm_up(job: ScoreJob) -> None:
    """Compile (or load from numba's cache) every kernel ``job`` uses, by scoring a small
    board of its size once: before a run's clock starts, and in each worker process."""
    from evosoko.levelgen.space import BOX, GOAL, PLAYER, WALL, level_key

    genes = [WALL] * (job.width * job.height)
    first = job.width + 1  # row 1, column 1: a corridor of three cells along the top
    genes[first : first + 3] = [PLAYER, BOX, GOAL]
    score_job(replace(job, genes=tuple(genes)))
    level_key(board_level(genes, job.width, job.height))  # the parent's duplicate check
