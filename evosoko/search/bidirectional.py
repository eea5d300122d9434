"""``push-fess-bi``: push-fess forwards and a pull search backwards, until they meet.

On the large levels the hard part is often the end, packing boxes into a goal room in an
order that does not wall off the goals behind. Backwards from the solved position that part is
easy: the boxes are pulled out of the room one by one. The pull search
(:mod:`evosoko.search.pull_kernel`) runs beside push-fess, twice: a weighted A* backwards at
the search's weight and a greedier one (``PULL_WEIGHTS``). So does a breadth-first push search
from the start (the *ball*, at most ``BALL_NODES`` expansions): it holds every state within a
few pushes of the start, where push-fess's cells leave gaps and where the pull search ends up.
They take turns within ``BACKWARD_SHARE`` of the time. A third search from the start is
*plain* push-fess, as it runs alone, without cluster deadlock tests, once for each room-link
cap of ``PLAIN_ROOM_CAPS`` (at most ``PLAIN_NODES`` expansions each, within ``PLAIN_SHARE`` of
the time): the tests and the cap steer push-fess-bi's own search, and some screens fall at once
to a search without the tests. push-fess has the rest of the time.
After every call of any of them, the states it has just stored are looked up in the other
side's stores. The first state both sides hold ends the search: the forward path to it, then
the pulls from it back to the solved position played as pushes (or a forward search's own
solution).

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
    WEIGHT_SCALE,
    WORK,
    WORK_LIMIT,
    Store,
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.rules import walk_path
from evosoko.sokoban.solutions import replay_states
from evosoko.sokoban.symbols import DIRECTIONS

BACKWARD_SHARE = 0.4
"""Share of the search's time the pull search and the ball take (the ball's time is also the
pull search's, until the ball stops); push-fess has the rest. With cluster deadlock tests, at
60 CPU-seconds on the 90 XSokoban screens, 0.4 solved the same 43 as 0.3 in 15% less time and
0.5 lost screen 65 (docs/xsokoban.md, round 10). Since the cluster tests got cheaper
(``fess.CLUSTER_WIDTH``), 0.5 solved 42 against 41 with 0.4 (round 13). Since the pull search
matches only new states, incrementally (2-3x the pulls a second), 0.4 solves the same 44 as 0.5
in 10-16% less CPU time (15, 59, 63 and 64 a third faster, 42 a quarter slower; round 15);
0.3 brings 42 to 55 s."""

PULL_WEIGHTS: tuple[float | None, ...] = (None, 10.0)
"""One pull search for each of these weights of ``h`` in its key ``g + weight * h`` (None: the
search's own, ``--weight``, 3 by default); they take turns and share the pull search's time and
memory. The weight moves screens more than any other setting of the pull search: alone at 5
instead of 3 it solves XSokoban 42 in 10.6 CPU-seconds instead of 38 and loses 14, 31 and 45.
With a second pull search of weight 10 beside the first, push-fess-bi solves screen 13, which
no search of the project had solved, in 15.6 s, and keeps the other 44 (45 of 90 at 60
CPU-seconds); with 5 it solves the same 44 as one pull search; with 5 and 10 it loses 31
(docs/xsokoban.md, round 16)."""

BALL_NODES = 300_000
"""Expansions of the ball (0: no ball); it stops there, and its states stay in the meeting."""

PLAIN_NODES = 110_000
"""Expansions of each plain push-fess beside push-fess-bi's own (0: none): push-fess as it runs
alone, without cluster deadlock tests. The tests steer the search: XSokoban screen 65 falls to
plain push-fess in 87,201 expansions (3.1 CPU-seconds) and to push-fess-bi without the tests in
6.9 s, while push-fess with them and push-fess-bi need more than 60 (docs/xsokoban.md, round
14). 110,000 instead of 150,000 leaves more time to push-fess-bi's own search on the screens it
solves near the limit: 44 of 90 at 60 CPU-seconds against 43 (43 in a repeat, screen 42 1%
short)."""

PLAIN_ROOM_CAPS = (1, 2)
"""One plain push-fess for each of these room-link caps (``fess.ROOM_LINKS``): screen 62 falls
to plain push-fess with cap 2 in 101,351 expansions, 65 to cap 1 in 87,201; neither falls to the
other cap within 20 CPU-seconds. With both, push-fess-bi solves 44 of 90 at 60 CPU-seconds
(round 13's 42, 62 and 65, none lost); with cap 1 alone 43 (round 14). Caps 0 and 3 solve none
of the 46 screens left within 110,000 expansions."""

PLAIN_SHARE = 0.25
"""Share of the time the plain push-fess searches take, in turns, until each stops at
``PLAIN_NODES``."""

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
        self.checked: dict[SearchRun, list[int]] = {}
        """For each search from the start: how many of its stored states have been looked up
        in this store, and how many of this store's in its store."""
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
            self.finished = not store.can_grow(self.max_nodes) or not _grown(store, self.max_nodes)

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


class SideSearch:
    """A search from the start that runs beside push-fess-bi's own, a chunk at a time, up to
    ``max_expansions``; its states stay in the meeting after it stops."""

    def __init__(self, run: SearchRun, max_expansions: int) -> None:
        self.run = run
        self.max_expansions = max_expansions
        self.seconds = 0.0
        self.finished = run._prepare() is not None
        self._chunk = 1
        if not self.finished:
            run._add_root()

    @property
    def store(self) -> Store:
        return self.run.store

    def step(self) -> None:
        """One call of its kernel (about ``_CHUNK_SECONDS``)."""
        if self.finished:
            return
        run, counters = self.run, self.run.store.counters
        run.params[CHUNK] = min(self._chunk, max(self.max_expansions - int(counters[EXPANDED]), 1))
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
            or counters[EXPANDED] >= self.max_expansions
            or code == NEED_SPACE
            and not run.make_room()
        ):
            self.finished = True

    @property
    def solution(self) -> int:
        """The solved state it reached itself (-1: none)."""
        return int(self.run.store.counters[SOLUTION])


def _side_search(
    owner: SearchRun, run_class: type[SearchRun], algorithm: str, max_nodes: int, **keywords
) -> SideSearch:
    """A side search of ``algorithm`` from ``owner``'s start, with ``owner``'s settings, an
    eighth of its memory and at most ``max_nodes`` expansions."""
    run = run_class(
        owner.level,
        ALGORITHMS[algorithm],
        owner.heuristic,
        None,
        max_nodes,
        owner.weight,
        owner.pruning,
        owner.seed,
        owner.memory_limit // 8,
        owner.store_cells,
        **keywords,
    )
    return SideSearch(run, max_nodes)


def ball_search(owner: SearchRun) -> SideSearch:
    """The states within a few pushes of the start: a breadth-first push search
    (``push-bfs``) of at most ``BALL_NODES`` expansions."""
    return _side_search(owner, SearchRun, "push-bfs", BALL_NODES)


class PlainFessRun(FeatureSpaceRun):
    """push-fess as it runs alone (no cluster deadlock tests), with a room-link cap of its
    own (``fess.ROOM_LINKS``)."""

    def __init__(self, level, *arguments, room_cap: int, **keywords):
        self._room_cap = room_cap
        super().__init__(level, *arguments, **keywords)

    @property
    def cluster_deadlocks(self) -> int:
        return 0

    @property
    def room_cap(self) -> int:
        return self._room_cap


def plain_fess_search(owner: SearchRun, room_cap: int) -> SideSearch:
    """Plain push-fess with room-link cap ``room_cap``, of at most ``PLAIN_NODES``
    expansions."""
    return _side_search(owner, PlainFessRun, "push-fess", PLAIN_NODES, room_cap=room_cap)


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
        self.pulls: tuple[PullSearch, ...] = ()
        self.pull_counts = (0, 0)
        self.ball: SideSearch | None = None
        self.plains: tuple[SideSearch, ...] = ()
        self.meeting: tuple[SearchRun, int, int, PullSearch | None] | None = None
        """The forward search that met (push-fess, the ball or plain push-fess), its state, the
        pulled state equal to it (-1: that search solved the level itself) and the pull
        search."""
        self.forward_seconds = 0.0
        if PLAIN_NODES > 0:
            for _ in PLAIN_ROOM_CAPS:
                self.max_nodes -= self.max_nodes // 8  # an eighth for each plain push-fess
            self.plains = tuple(plain_fess_search(self, cap) for cap in PLAIN_ROOM_CAPS)
        if BACKWARD_SHARE > 0 and PULL_WEIGHTS:
            if BALL_NODES > 0:
                self.max_nodes -= self.max_nodes // 8  # an eighth for the ball
            self.max_nodes //= 2  # half of the rest for the pull searches
            each = self.max_nodes // len(PULL_WEIGHTS)
            self.pulls = tuple(
                PullSearch(self.level, self.tab, self.store_cells, self._scaled(weight), each)
                for weight in PULL_WEIGHTS
            )
            if BALL_NODES > 0:
                self.ball = ball_search(self)
        return None

    def _scaled(self, weight: float | None) -> int:
        """A pull search's weight of ``h`` as the kernels take it (None: the search's own)."""
        return int(self.params[H_WEIGHT]) if weight is None else round(weight * WEIGHT_SCALE)

    def _add_root(self) -> int:
        for pull in self.pulls:
            pull.checked.pop(self, None)  # a restart cleared the forward store
        return super()._add_root()

    def _call_kernel(self) -> int:
        started = time.perf_counter()
        code = super()._call_kernel()
        self.forward_seconds += time.perf_counter() - started
        if code == EXHAUSTED or self.store.counters[SOLUTION] >= 0:
            return code
        pulls, ball = self.pulls, self.ball
        if any(self._meet(self, pull) for pull in pulls):
            return code
        ball_seconds = 0.0 if ball is None else ball.seconds
        plain_seconds = sum(plain.seconds for plain in self.plains)
        pull_seconds = sum(pull.seconds for pull in pulls)
        total = self.forward_seconds + ball_seconds + plain_seconds + pull_seconds
        waiting = [plain for plain in self.plains if not plain.finished]
        if waiting and plain_seconds <= PLAIN_SHARE * total:
            plain = min(waiting, key=lambda side: side.seconds)  # they take turns
            plain.step()
            if self._meet_side(plain):
                return code
        if not pulls or pull_seconds + ball_seconds > BACKWARD_SHARE * total:
            return code
        least = min(pull.seconds for pull in pulls)
        running = [pull for pull in pulls if not pull.finished]
        if ball is not None and not ball.finished and ball.seconds <= least:
            ball.step()
            self._meet_side(ball)
        elif running:
            pull = min(running, key=lambda search: search.seconds)  # they take turns
            pull.step()
            if not self._meet(self, pull):
                self._meet_sides(pull)
        return code

    def make_room(self) -> bool:
        """Grow the forward store; when its part of the memory is full, the pull searches are
        dropped and their part goes to push-fess."""
        if super().make_room():
            return True
        if not self.pulls:
            return False
        self.max_nodes += sum(pull.max_nodes for pull in self.pulls)
        self.pull_counts = self._pull_counts()
        self.pulls = ()
        return super().make_room()

    def _meet(self, run: SearchRun, pull: PullSearch) -> bool:
        """Look up ``run``'s states stored since the last look in ``pull``'s store, then
        ``pull``'s in ``run``'s; on a meeting, end the search."""
        forward, backward = run.store, pull.store
        checked = pull.checked.setdefault(run, [0, 0])
        met_forward, met_backward = first_meeting(
            forward.nodes, checked[0], forward.size, backward.nodes, backward.table
        )
        checked[0] = forward.size
        if met_forward < 0:
            met_backward, met_forward = first_meeting(
                backward.nodes, checked[1], backward.size, forward.nodes, forward.table
            )
            checked[1] = backward.size
        if met_forward < 0:
            return False
        return self._met(run, int(met_forward), int(met_backward), pull)

    @property
    def sides(self) -> tuple[SideSearch, ...]:
        """The searches from the start beside push-fess: the ball and plain push-fess."""
        return self.plains if self.ball is None else (self.ball, *self.plains)

    def _meet_sides(self, pull: PullSearch) -> bool:
        """:meth:`_meet` between every side search and ``pull``."""
        return any(self._meet(side.run, pull) for side in self.sides)

    def _meet_side(self, side: SideSearch) -> bool:
        """:meth:`_meet` between a side search and every pull search; a side search that
        solved the level ends the search too."""
        if side.solution >= 0:
            return self._met(side.run, side.solution, -1, None)
        return any(self._meet(side.run, pull) for pull in self.pulls)

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
        for side in self.sides:
            expanded += int(side.store.counters[EXPANDED])
            generated += int(side.store.counters[GENERATED])
        return replace(
            outcome, expanded=outcome.expanded + expanded, generated=outcome.generated + generated
        )

    def _pull_counts(self) -> tuple[int, int]:
        """States the pull searches have expanded and generated so far."""
        if not self.pulls:
            return self.pull_counts
        expanded = sum(int(pull.store.counters[EXPANDED]) for pull in self.pulls)
        generated = sum(int(pull.store.counters[GENERATED]) for pull in self.pulls)
        return expanded, generated


def _grown(store: Store, max_nodes: int) -> bool:
    """Grow ``store``; False when the memory cannot be had (the pull search then ends)."""
    try:
        store.grow(max_nodes)
    except MemoryError:
        return False
    return True
