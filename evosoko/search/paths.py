"""From stored nodes back to LURD strings, each one replay-verified by ``sokoban/``."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from evosoko.search.move_kernel import PUSHED
from evosoko.search.store import Store
from evosoko.sokoban.level import DIRECTIONS, Level, State
from evosoko.sokoban.rules import walk_path
from evosoko.sokoban.solutions import Verification, verify_solution


class SearchBug(AssertionError):
    """A path built by a search failed replay verification: a bug in the search, never bad input."""


def chain(store: Store, node: int) -> list[int]:
    """Node ids from the root to ``node``."""
    parents = store.field("parent")
    nodes = []
    while node >= 0:
        nodes.append(node)
        node = int(parents[node])
    return nodes[::-1]


def move_path(store: Store, node: int) -> str:
    """LURD of a move-level node: one letter per stored step, pushes in upper case."""
    steps = store.field("step")
    letters = []
    for current in chain(store, node)[1:]:
        code = int(steps[current])
        letter = DIRECTIONS[code % PUSHED]
        letters.append(letter.upper() if code >= PUSHED else letter)
    return "".join(letters)


def push_path(level: Level, store: Store, node: int) -> str:
    """LURD of a push-level node: shortest walks (``rules.walk_path``) between the pushes."""
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
        direction, extra = divmod(int(steps[current]), 4)[::-1]
        pushes = extra + 1
        start = int(actual[current]) - (pushes - 1) * deltas[direction]  # the box's first cell
        walk = walk_path(level, occupied, player, start - deltas[direction])
        if walk is None:
            raise SearchBug(f"{level.name}: no walk to push the box at cell {start}")
        parts.append(walk + DIRECTIONS[direction].upper() * pushes)
        player = int(actual[current])
    return "".join(parts)


def node_state(store: Store, node: int, player: int) -> State:
    """The state of a stored node with the player on ``player``."""
    return State.of(player, store.field("boxes")[node].tolist())


def verified(level: Level, lurd: str, *, must_solve: bool) -> Verification:
    """Replay ``lurd``; raise :class:`SearchBug` when it is illegal (or does not solve)."""
    verification = verify_solution(level, lurd)
    if not verification.valid or (must_solve and not verification.solved):
        problem = verification.error or "it does not solve the level"
        raise SearchBug(f"{level.name}: search produced an invalid path ({problem}): {lurd}")
    return verification
