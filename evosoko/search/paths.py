"""From stored nodes back to LURD strings, each one replay-verified by ``sokoban/``."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import numba
import numpy as np

from evosoko.search.goalroom import GoalRoom
from evosoko.search.move_kernel import PUSHED
from evosoko.search.result import PartialPath, SearchResult, search_stop
from evosoko.search.store import GOAL_MACRO_STEP, Store
from evosoko.sokoban.holes.board import HolesState
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import walk_path
from evosoko.sokoban.solutions import Verification, verify_solution


class SearchBug(AssertionError):
    """A path built by a search failed replay verification: a bug in the search, never bad input."""


def chain(store: Store, node: int) -> list[int]:
    """Node ids from the root to ``node``."""
    return _chain(store.field("parent"), node).tolist()


def move_path(store: Store, node: int) -> str:
    """LURD of a move-level node: one letter per stored step, pushes in upper case (a path of
    333,329 steps in milliseconds: it is built inside the search's time limit)."""
    codes = store.field("step")[_chain(store.field("parent"), node)[1:]]
    letters = _MOVE_LETTERS[codes % PUSHED] - np.where(codes >= PUSHED, _CASE_BIT, 0)
    return letters.astype(np.uint8).tobytes().decode("ascii")


_MOVE_LETTERS = np.frombuffer("".join(DIRECTIONS).encode("ascii"), dtype=np.uint8).astype(np.int64)
_CASE_BIT = 0x20
"""The ASCII bit that makes a letter lower case."""


@numba.njit(cache=True)
def _chain(parents, node):  # pragma: no cover - compiled
    """Node ids from the root to ``node`` along ``parents`` (-1 at the root)."""
    length = 0
    current = node
    while current >= 0:
        length += 1
        current = parents[current]
    nodes = np.empty(length, dtype=np.int64)
    current = node
    for k in range(length - 1, -1, -1):
        nodes[k] = current
        current = parents[current]
    return nodes


def push_path(
    level: Level,
    store: Store,
    node: int,
    goal_room: GoalRoom | None = None,
    macro_pushes: Callable[[np.ndarray, np.ndarray, int, int], list] | None = None,
) -> str:
    """LURD of a push-level node: shortest walks (``rules.walk_path``) between the pushes.

    ``macro_pushes(parent boxes, child boxes, player, step code)`` gives the pushes of a step
    code this function does not know (a search's own macros), or None for the known ones.
    """
    boxes = store.field("boxes")
    actual = store.field("actual")
    steps = store.field("step")
    deltas = level.deltas
    nodes = chain(store, node)
    occupied = np.zeros(level.cells, dtype=bool)
    player = level.start.player
    parts = []
    for previous, current in pairwise(nodes):
        occupied[:] = False
        occupied[boxes[previous]] = True
        code = int(steps[current])
        custom = (
            macro_pushes(boxes[previous], boxes[current], player, code) if macro_pushes else None
        )
        if custom is not None:
            pushes = custom
        elif code >= GOAL_MACRO_STEP:
            pushes = _goal_macro_pushes(level, goal_room, code - GOAL_MACRO_STEP)
        else:
            direction, count = code % 4, code // 4 + 1
            first = int(actual[current]) - (count - 1) * deltas[direction]  # the box's first cell
            pushes = [(first + k * deltas[direction], direction) for k in range(count)]
        for box, direction in pushes:
            walk = walk_path(level, occupied, player, box - deltas[direction])
            if walk is None:
                raise SearchBug(f"{level.name}: no walk to push the box at cell {box}")
            parts.append(walk + DIRECTIONS[direction].upper())
            occupied[box] = False
            occupied[box + deltas[direction]] = True
            player = box
        if player != int(actual[current]):
            raise SearchBug(f"{level.name}: a macro did not end where its node says")
    return "".join(parts)


def _goal_macro_pushes(level: Level, goal_room: GoalRoom | None, index: int):
    """The pushes of goal macro ``index``: onto the entrance from outside, then into the room."""
    if goal_room is None:
        raise SearchBug(f"{level.name}: a goal macro step without a goal room")
    inward = goal_room.inward
    outside = goal_room.entrance - level.deltas[inward]
    return [(outside, inward), *goal_room.pushes[index]]


def verified(
    level: Level, lurd: str, *, must_solve: bool, start: State | HolesState | None = None
) -> Verification:
    """Replay ``lurd`` from the level's start (or ``start``); raise :class:`SearchBug` when it
    is illegal (or does not solve)."""
    verification = verify_solution(level, lurd, start=start)
    if not verification.valid or (must_solve and not verification.solved):
        problem = verification.error or "it does not solve the level"
        raise SearchBug(f"{level.name}: search produced an invalid path ({problem}): {lurd}")
    return verification


def partial_path(
    level: Level, lurd: str, h: int, start: State | HolesState | None = None
) -> PartialPath:
    """The :class:`PartialPath` of a frontier state reached by ``lurd`` from the level's start
    (or ``start``), replay-verified; ``h`` is the search's estimate there."""
    verification = verified(level, lurd, must_solve=False, start=start)
    return PartialPath(
        lurd=verification.lurd,
        moves=verification.moves,
        pushes=verification.pushes,
        h=h,
        state=verification.final,
    )


def search_result(
    level: Level,
    *,
    status: str,
    algorithm: str,
    heuristic: str,
    solution: str | None,
    counts: tuple[int, int, int],
    seconds: float,
    partial: tuple[PartialPath, ...] = (),
    start: State | HolesState | None = None,
    progress: tuple[tuple[int, float, int], ...] = (),
    drop_counts: tuple[int, int, int] = (0, 0, 0),
) -> SearchResult:
    """A search's :class:`SearchResult`; ``solution`` (the found LURD, or None) is replayed
    first, from the level's start or ``start``, and raises :class:`SearchBug` unless it solves
    the level. ``counts`` are the expanded, generated and duplicate counters in the search's
    own units, ``drop_counts`` its drops, dropped states and restarts (``on_full = "drop"``);
    ``status`` is the search loop's outcome, a ``timeout`` or ``node-limit`` becoming a
    ``budget`` stop (:func:`~evosoko.search.result.search_stop`)."""
    moves = pushes = 0
    if solution is not None:
        verification = verified(level, solution, must_solve=True, start=start)
        solution, moves, pushes = verification.lurd, verification.moves, verification.pushes
    expanded, generated, duplicates = counts
    drops, dropped, restarts = drop_counts
    from evosoko.search.algorithms import ALGORITHMS

    known = ALGORITHMS.get(algorithm)
    stop = search_stop(status, known.unit if known is not None else "nodes")
    return SearchResult(
        status=stop.status,
        exhausted=stop.exhausted,
        algorithm=algorithm,
        heuristic=heuristic,
        solution=solution,
        moves=moves,
        pushes=pushes,
        expanded=expanded,
        generated=generated,
        duplicates=duplicates,
        seconds=seconds,
        partial=partial,
        progress=progress,
        drops=drops,
        dropped=dropped,
        restarts=restarts,
    )
