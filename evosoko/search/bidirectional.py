"""``push-fess-bi``: push-fess forwards and a pull search backwards, until they meet.

On the large levels the hard part is often the end, packing boxes into a goal room in an
order that does not wall off the goals behind. Backwards from the solved position that part is
easy: the boxes are pulled out of the room one by one. The pull search
(:mod:`evosoko.search.pull_kernel`) runs beside push-fess. So does a breadth-first push search
from the start (the *ball*, at most ``BALL_NODES`` expansions): it holds every state within a
few pushes of the start, where push-fess's cells leave gaps and where the pull search ends up.
The two take turns within ``BACKWARD_SHARE`` of the time, and push-fess has the rest. After every call of any of
them, the states it has just stored are looked up in the other side's stores. The first state
both sides hold ends the search: the forward path to it, then the pulls from it back to the
solved position played as pushes.

Every side finds only real states (the pulls are reversed pushes), so the solution is legal
(it is replayed like every search's); it is not push-optimal.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from evosoko.search.algorithms import ALGORITHMS
from evosoko.search.fess import FeatureSpaceRun
from evosoko.search.pull_kernel import (
    first_meeting,
    make_scratch,
    pull_roots,
    pull_search,
    start_distances,
)
from evosoko.search.search_run import SearchRun, _next_chunk, _next_work_limit
from evosoko.search.store import (
    CHUNK,
    EXHAUSTED,
    EXPANDED,
    GENERATED,
    H_WEIGHT,
    NEED_SPACE,
    SOLUTION,
    WORK,
    WORK_LIMIT,
    Store,
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import walk_path
from evosoko.sokoban.solutions import replay_states
from evosoko.sokoban.symbols import DIRECTIONS

BACKWARD_SHARE = 0.5
"""Share of the search's time the pull search and the ball take (the ball's time is also the
pull search's, until the ball stops); push-fess has the rest. With cluster deadlock tests, at
60 CPU-seconds on the 90 XSokoban screens, 0.4 solved the same 43 as 0.3 in 15% less time and
0.5 lost screen 65 (docs/xsokoban.md, round 10). Since the cluster tests got cheaper
(``fess.CLUSTER_WIDTH``), 0.5 solves 42 against 41 with 0.4 (gains 42, loses none, the same CPU
time on the 41; round 13)."""

BALL_NODES = 300_000
"""Expansions of the ball (0: no ball); it stops there, and its states stay in the meeting."""

CLUSTER_DEADLOCKS = 1 << 18
"""Slots of the cache of push-fess-bi's cluster deadlock tests (0: none; see
``fess.CLUSTER_DEADLOCKS``, off for push-fess alone). At 60 CPU-seconds on the 90 XSokoban
screens push-fess-bi solves 43 with them against 41 without (gains 4 and 42, loses none;
docs/xsokoban.md, round 10), 44 with tests of 3,000 positions; 262,144 slots (24 MB) instead of
16,384 take 11% less time there (round 11). With ``fess.CLUSTER_WIDTH`` and tests of 6,000
positions, 41 on the slower machine of round 13 (42 with ``BACKWARD_SHARE`` 0.5), where width
800 with 3,000 positions (the search path of round 11's settings) solves 39."""


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
        self._chunk = _next_chunk(self._chunk, elapsed)
        if code == EXHAUSTED:
            self.finished = True
        elif code == NEED_SPACE:
            if store.can_grow(self.max_nodes):
                store.grow(self.max_nodes)
            else:
                self.finished = True

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


class BallSearch:
    """The states within a few pushes of the start: a breadth-first push search
    (``push-bfs``), run a chunk at a time up to ``BALL_NODES`` expansions."""

    def __init__(self, owner: SearchRun) -> None:
        self.run = SearchRun(
            owner.level,
            ALGORITHMS["push-bfs"],
            owner.heuristic,
            None,
            BALL_NODES,
            owner.weight,
            owner.pruning,
            owner.seed,
            owner.memory_limit // 8,
            owner.store_cells,
        )
        self.seconds = 0.0
        self.finished = self.run._prepare() is not None
        self.checked = 0
        """Stored states already looked up in the pull search's store."""
        self._chunk = 1
        if not self.finished:
            self.run._add_root()

    @property
    def store(self) -> Store:
        return self.run.store

    def step(self) -> None:
        """One call of the push kernel (about ``_CHUNK_SECONDS``)."""
        if self.finished:
            return
        run, counters = self.run, self.run.store.counters
        run.params[CHUNK] = min(self._chunk, max(BALL_NODES - int(counters[EXPANDED]), 1))
        work_before = int(counters[WORK])
        started = time.perf_counter()
        code = run._call_kernel()
        elapsed = max(time.perf_counter() - started, 1e-6)
        self.seconds += elapsed
        self._chunk = _next_chunk(self._chunk, elapsed)
        run.params[WORK_LIMIT] = _next_work_limit(
            int(run.params[WORK_LIMIT]), int(counters[WORK]) - work_before, elapsed
        )
        if (
            code == EXHAUSTED
            or counters[EXPANDED] >= BALL_NODES
            or code == NEED_SPACE
            and not run.make_room()
        ):
            self.finished = True

    @property
    def solution(self) -> int:
        """The solved state it reached itself (-1: none)."""
        return int(self.run.store.counters[SOLUTION])


class BidirectionalRun(FeatureSpaceRun):
    """push-fess with a pull search and a ball around the start beside it (see the module
    docstring)."""

    @property
    def cluster_deadlocks(self) -> int:
        return CLUSTER_DEADLOCKS

    def _prepare(self) -> str | None:
        refused = super()._prepare()
        if refused is not None:
            return refused
        self.pull: PullSearch | None = None
        self.pull_counts = (0, 0)
        self.ball: BallSearch | None = None
        self.meeting: tuple[SearchRun, int, int, PullSearch | None] | None = None
        """The forward search that met (push-fess or the ball), its state, the pulled state
        equal to it (-1: the ball solved the level itself) and the pull search."""
        self.forward_seconds = 0.0
        self.forward_checked = 0
        if BACKWARD_SHARE > 0:
            if BALL_NODES > 0:
                self.max_nodes -= self.max_nodes // 8  # an eighth for the ball
            self.max_nodes //= 2  # half of the rest for the pull search
            self.pull = PullSearch(
                self.level, self.tab, self.store_cells, int(self.params[H_WEIGHT]), self.max_nodes
            )
            if BALL_NODES > 0:
                self.ball = BallSearch(self)
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
        if self._meet_push_fess(pull):
            return code
        ball = self.ball
        ball_seconds = 0.0 if ball is None else ball.seconds
        if pull.seconds + ball_seconds > BACKWARD_SHARE * (
            self.forward_seconds + ball_seconds + pull.seconds
        ):
            return code
        if ball is not None and not ball.finished and ball.seconds <= pull.seconds:
            ball.step()
            self._meet_ball(pull)
        elif not pull.finished:
            pull.step()
            if not self._meet_push_fess(pull):
                self._meet_ball(pull)
        return code

    def make_room(self) -> bool:
        """Grow the forward store; when its part of the memory is full, the pull search is
        dropped and its part goes to push-fess."""
        if super().make_room():
            return True
        if self.pull is None:
            return False
        self.max_nodes += self.pull.max_nodes
        self.pull_counts = self._pull_counts()
        self.pull = None
        return super().make_room()

    def _meet_push_fess(self, pull: PullSearch) -> bool:
        """Look up push-fess's states stored since the last look in the pull search's store,
        and the pull search's in push-fess's; on a meeting, end the search."""
        forward, backward = self.store, pull.store
        met_forward, met_backward = first_meeting(
            forward.nodes, self.forward_checked, forward.size, backward.nodes, backward.table
        )
        self.forward_checked = forward.size
        if met_forward < 0:
            met_backward, met_forward = first_meeting(
                backward.nodes, pull.checked, backward.size, forward.nodes, forward.table
            )
        if met_forward < 0:
            return False
        return self._met(self, int(met_forward), int(met_backward), pull)

    def _meet_ball(self, pull: PullSearch) -> bool:
        """The same between the ball and the pull search (the pull search's states are looked
        up in both forward stores before they count as looked up)."""
        ball, backward = self.ball, pull.store
        if ball is None:
            pull.checked = backward.size
            return False
        if ball.solution >= 0:
            return self._met(ball.run, ball.solution, -1, None)
        met_backward, met_forward = first_meeting(
            backward.nodes, pull.checked, backward.size, ball.store.nodes, ball.store.table
        )
        pull.checked = backward.size
        if met_forward < 0:
            met_forward, met_backward = first_meeting(
                ball.store.nodes, ball.checked, ball.store.size, backward.nodes, backward.table
            )
        ball.checked = ball.store.size
        if met_forward < 0:
            return False
        return self._met(ball.run, int(met_forward), int(met_backward), pull)

    def _met(self, run: SearchRun, forward: int, backward: int, pull: PullSearch | None) -> bool:
        self.meeting = (run, forward, backward, pull)
        self.store.counters[SOLUTION] = 0  # ends the search; the path comes from the meeting
        return True

    def _path(self, node: int) -> str:
        if self.meeting is None:
            return super()._path(node)
        run, forward, backward, pull = self.meeting
        lurd = super()._path(forward) if run is self else run._path(forward)
        if pull is None:
            return lurd
        player = replay_states(self.level, lurd)[-1].player
        return lurd + pull.pushes_back(backward, player)

    def result(self, status: str, partial: int):
        outcome = super().result(status, partial)
        expanded, generated = self._pull_counts()
        if self.ball is not None:
            counters = self.ball.store.counters
            expanded += int(counters[EXPANDED])
            generated += int(counters[GENERATED])
        return replace(
            outcome, expanded=outcome.expanded + expanded, generated=outcome.generated + generated
        )

    def _pull_counts(self) -> tuple[int, int]:
        """States the pull search has expanded and generated so far."""
        if self.pull is None:
            return self.pull_counts
        counters = self.pull.store.counters
        return int(counters[EXPANDED]), int(counters[GENERATED])
