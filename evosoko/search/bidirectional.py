"""``push-fess-bi``: push-fess forwards and a pull search backwards, until they meet.

On the large levels the hard part is often the end, packing boxes into a goal room in an
order that does not wall off the goals behind. Backwards from the solved position that part is
easy: the boxes are pulled out of the room one by one. The pull search
(:mod:`evosoko.search.pull_kernel`) runs beside push-fess and takes ``BACKWARD_SHARE`` of the
time; after every call of either search, the states it has just stored are looked up in the
other's store. The first state both hold ends the search: push-fess's path to it, then the
pulls from it back to the solved position played as pushes.

Both halves find only real states (the pulls are reversed pushes), so the solution is legal
(it is replayed like every search's); it is not push-optimal.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from evosoko.search.fess import FeatureSpaceRun
from evosoko.search.pull_kernel import (
    first_meeting,
    make_scratch,
    pull_roots,
    pull_search,
    start_distances,
)
from evosoko.search.store import (
    EXHAUSTED,
    EXPANDED,
    GENERATED,
    H_WEIGHT,
    NEED_SPACE,
    SOLUTION,
    Store,
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import walk_path
from evosoko.sokoban.solutions import replay_states
from evosoko.sokoban.symbols import DIRECTIONS

BACKWARD_SHARE = 0.3
"""Share of the search's time the pull search takes."""

_CHUNK_SECONDS = 0.01
"""Target time of one call of the pull kernel."""


class PullSearch:
    """The backward half: a pull search from the solved position, run a chunk at a time."""

    def __init__(self, level, tab, store_cells: int, weight: int, max_nodes: int) -> None:
        self.level = level
        self.tab = tab
        self.weight = weight
        self.max_nodes = max_nodes
        self.distance = start_distances(np.asarray(tab.floor), tab.deltas, level.start.boxes)
        self.live = self.distance.min(axis=0) < UNREACHABLE
        """Cells some box can be pushed to from its start cell."""
        self.store = Store(level.box_count, cells=store_cells)
        self.scratch = make_scratch(level.cells, level.box_count)
        self.seconds = 0.0
        self.finished = False
        self.checked = 0
        """Stored states already looked up in the forward store."""
        self._chunk = 1
        store = self.store
        goal_cells = np.array(sorted(int(c) for c in level.goal_cells), dtype=np.int64)
        pull_roots(
            tab.floor,
            tab.deltas,
            tab.zobrist_box,
            tab.zobrist_player,
            self.distance,
            goal_cells,
            weight,
            store.nodes,
            store.table,
            store.counters,
            store.frontier,
            self.scratch,
        )

    def step(self) -> None:
        """One call of the pull kernel (about ``_CHUNK_SECONDS``); grows the store when asked,
        and stops for good when the states run out or the store may not grow."""
        if self.finished:
            return
        store = self.store
        started = time.perf_counter()
        code = pull_search(
            self.tab.floor,
            self.tab.deltas,
            self.tab.zobrist_box,
            self.tab.zobrist_player,
            self.distance,
            self.live,
            self.weight,
            self._chunk,
            store.nodes,
            store.table,
            store.frontier,
            store.counters,
            self.scratch,
        )
        elapsed = max(time.perf_counter() - started, 1e-6)
        self.seconds += elapsed
        self._chunk = int(min(max(self._chunk * _CHUNK_SECONDS / elapsed, 1), 4 * self._chunk))
        if code == EXHAUSTED:
            self.finished = True
        elif code == NEED_SPACE:
            if store.capacity * 2 > self.max_nodes:
                self.finished = True
            else:
                store.grow()

    def pushes_back(self, node: int, player: int) -> str:
        """LURD from state ``node`` (player on ``player``) to the solved position: the pulls
        that reached ``node``, last first, each played as a push."""
        store, level = self.store, self.level
        boxes, actual = store.field("boxes"), store.field("actual")
        steps, parents = store.field("step"), store.field("parent")
        occupied = np.zeros(level.cells, dtype=bool)
        parts = []
        while parents[node] >= 0:
            occupied[:] = False
            occupied[boxes[node]] = True
            behind = int(actual[node])
            walk = walk_path(level, occupied, player, behind)
            if walk is None:
                raise ValueError(f"{level.name}: no walk to a reversed pull")
            direction = int(steps[node]) ^ 1  # the pull's opposite
            parts.append(walk + DIRECTIONS[direction].upper())
            player = behind + int(level.deltas[direction])
            node = int(parents[node])
        return "".join(parts)


class BidirectionalRun(FeatureSpaceRun):
    """push-fess with a pull search beside it (see the module docstring)."""

    def _prepare(self) -> str | None:
        refused = super()._prepare()
        if refused is not None:
            return refused
        self.pull: PullSearch | None = None
        self.pull_counts = (0, 0)
        self.meeting: tuple[int, int, PullSearch] | None = None
        """The forward state, the pulled state equal to it, and the pull search."""
        self.forward_seconds = 0.0
        self.forward_checked = 0
        if BACKWARD_SHARE > 0:
            self.max_nodes //= 2  # the other half for the pull search
            self.pull = PullSearch(
                self.level, self.tab, self.store_cells, int(self.params[H_WEIGHT]), self.max_nodes
            )
        return None

    def _add_root(self) -> int:
        self.forward_checked = 0  # a restart cleared the forward store
        return super()._add_root()

    def _call_kernel(self) -> int:
        started = time.perf_counter()
        code = super()._call_kernel()
        self.forward_seconds += time.perf_counter() - started
        pull = self.pull
        if pull is None or code == EXHAUSTED or self.store.counters[SOLUTION] >= 0:
            return code
        if self._meet(pull):
            return code
        total = self.forward_seconds + pull.seconds
        if not pull.finished and pull.seconds <= BACKWARD_SHARE * total:
            pull.step()
            self._meet(pull)
        return code

    def make_room(self) -> bool:
        """Grow the forward store; when its half of the memory is full, the pull search is
        dropped and its half goes to push-fess."""
        if super().make_room():
            return True
        if self.pull is None:
            return False
        self.max_nodes += self.pull.max_nodes
        self.pull_counts = self._pull_counts()
        self.pull = None
        return super().make_room()

    def _meet(self, pull: PullSearch) -> bool:
        """Look up the states stored since the last look in the other store; on a meeting,
        mark the forward state as the solution."""
        forward, backward = self.store, pull.store
        met_forward, met_backward = first_meeting(
            forward.nodes, self.forward_checked, forward.size, backward.nodes, backward.table
        )
        self.forward_checked = forward.size
        if met_forward < 0:
            met_backward, met_forward = first_meeting(
                backward.nodes, pull.checked, backward.size, forward.nodes, forward.table
            )
        pull.checked = backward.size
        if met_forward < 0:
            return False
        self.meeting = (int(met_forward), int(met_backward), pull)
        forward.counters[SOLUTION] = met_forward
        return True

    def _path(self, node: int) -> str:
        lurd = super()._path(node)
        if self.meeting is None or node != self.meeting[0]:
            return lurd
        _, backward_node, pull = self.meeting
        player = replay_states(self.level, lurd)[-1].player
        return lurd + pull.pushes_back(backward_node, player)

    def result(self, status: str, partial: int):
        outcome = super().result(status, partial)
        expanded, generated = self._pull_counts()
        return replace(
            outcome, expanded=outcome.expanded + expanded, generated=outcome.generated + generated
        )

    def _pull_counts(self) -> tuple[int, int]:
        """States the pull search has expanded and generated so far."""
        if self.pull is None:
            return self.pull_counts
        counters = self.pull.store.counters
        return int(counters[EXPANDED]), int(counters[GENERATED])
