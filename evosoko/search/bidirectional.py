"""``push-fess-bi``: push-fess forwards and a pull search backwards, until they meet.

On the large levels the hard part is often the end, packing boxes into a goal room in an
order that does not wall off the goals behind. Backwards from the solved position that part is
easy: the boxes are pulled out of the room one by one. The pull search
(:mod:`evosoko.search.pull_kernel`) runs beside push-fess, twice: a weighted A* backwards at
the search's weight and a greedier one (``pull_weights``). So does a breadth-first push search
from the start (the *ball*, at most ``ball_nodes`` expansions): it holds every state within a
few pushes of the start, where push-fess's cells leave gaps and where the pull search ends up.
They take turns within ``backward_share`` of the work; each pull search stops after
``pull_nodes`` expansions, and its states stay for the meeting. A third search from the start is
*plain* push-fess, as it runs alone, without cluster deadlock tests, once for each room-link
cap of ``plain_room_caps`` (at most ``plain_nodes`` expansions each), and once more for each
of ``plain_searches`` (each push-fess with settings and expansions of its own), all within
``plain_share`` of the work: the tests and the cap steer push-fess-bi's own search, and some
screens fall at once to a search without the tests or with other settings. push-fess has the
rest of the work. The knobs are :class:`~evosoko.search.settings.BidirectionalSettings`; their
figures on XSokoban are in ``docs/xsokoban.md``.

Every search runs in calls of at most :data:`CALL_EXPANSIONS` expansions and :data:`CALL_COST`
of work, and the turns follow the work each has done (its kernel's work units, weighted by
:data:`UNIT_COSTS`), never the clock: with a node limit the same level and settings give the
same search on any machine under any load. The clock only ends a search at its time limit,
which is checked after each round of calls.
After every call of any of them (the one that exhausts push-fess's store too), the states
stored since the last look are looked up in the other side's stores, so no state both sides
hold is missed. The search ends at the one whose joined solution has the fewest pushes (or at
a side search's own solution, when it has as few): the forward path to it, then the pulls from
it back to the solved position played as pushes.

Every side finds only real states (the pulls are reversed pushes), so the solution is legal
(it is replayed like every search's); it is not push-optimal.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import cast
from weakref import WeakKeyDictionary

import numpy as np

from evosoko.search.algorithms import ALGORITHMS
from evosoko.search.fess.run import FeatureSpaceRun
from evosoko.search.pull_kernel import (
    PullTables,
    best_meeting,
    make_scratch,
    pull_roots,
    pull_search,
    start_distances,
)
from evosoko.search.result import SearchPart
from evosoko.search.search_run import SearchRun
from evosoko.search.settings import (
    BidirectionalSettings,
    FessSettings,
    PlainSearchSettings,
    PushSettings,
)
from evosoko.search.store import (
    CHUNK,
    CONTINUE,
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

CALL_EXPANSIONS = 4096
"""Most expansions of one kernel call of any of push-fess-bi's searches."""
CALL_COST = 1 << 23
"""Most work of one kernel call of any of them, in the units of :data:`UNIT_COSTS`: about
10 ms of CPU on XSokoban, so that the time limit is read often enough."""
CATCH_UP_CALLS = 4
"""Most calls of the plain push-fess searches, and of the backward searches, after each call
of push-fess: enough to keep to their shares, few enough that the clock is read often."""
UNIT_COSTS = {"push-fess-bi": 54, "push-fess": 32, "push-bfs": 19, "pull": 1}
"""Cost of one work unit (``counters[WORK]``) of each kernel, in pull units: the median ratio
of the CPU time one takes, measured on XSokoban 11, 20, 30, 50 and 70 (push-fess counts no work
for its deadlock tests, the pull search ``n**3`` per expansion for matching its ``n`` boxes), so
that the shares of the work are about the shares of the time. The pull search matches each
state from the duals of the one expanded before it
(:func:`evosoko.sokoban.matching.matching_from_duals`) and still counts ``n**3``, the turns
having been measured so: on screen 48 (34 boxes) the two pull searches and the ball take 23 of
60 CPU-s (a backward share of 0.4 is 24)."""

Meeting = tuple[int, SearchRun, int, int, "PullSearch | None"]
"""A state both sides hold: (pushes of the joined solution, the search from the start that
holds it, its node there, the pulled node equal to it (-1: that search solved the level
itself), the pull search)."""


class PullSearch:
    """The backward half: a pull search from the solved position, run a chunk at a time."""

    def __init__(
        self, level, tab, store_cells: int, weight: int, max_nodes: int, max_expansions: int = 0
    ) -> None:
        self.level = level
        self.tab = tab
        self.weight = weight
        self.max_nodes = max_nodes
        self.max_expansions = max_expansions
        """Most expansions (0: until the store may not grow)."""
        self.distance = start_distances(np.asarray(tab.floor), tab.deltas, level.start.boxes)
        self.live = self.distance.min(axis=0) < UNREACHABLE
        """Cells some box can be pushed to from its start cell."""
        self.store = Store(level.box_count, cells=store_cells)
        self.scratch = make_scratch(level.cells, level.box_count)
        self.finished = False
        self.cpu_seconds = 0.0
        """CPU seconds of its calls."""
        self.checked: WeakKeyDictionary[SearchRun, list[int]] = WeakKeyDictionary()
        """For each search from the start: how many of its stored states have been looked up
        in this store, and how many of this store's in its store. Weak: push-fess-bi holds its
        pull searches, and a strong reference back would keep its stores alive after the
        search, until the garbage collector happened to run."""
        store = self.store
        goal_cells = np.array(sorted(int(c) for c in level.goal_cells), dtype=np.int64)
        self.pull_tab = PullTables(self.distance, self.live, goal_cells)
        pull_roots(tab, self.pull_tab, weight, store.arrays, self.scratch)

    @property
    def cost(self) -> int:
        """The work it has done, in :data:`UNIT_COSTS` units."""
        return int(self.store.counters[WORK]) * UNIT_COSTS["pull"]

    def step(self, expansions: int = CALL_EXPANSIONS) -> None:
        """One call of the pull kernel (at most ``expansions`` and :data:`CALL_COST`); grows
        the store when asked, and stops for good when the states run out, the store may not
        grow or ``max_expansions`` are done."""
        if self.finished:
            return
        store = self.store
        work_limit = CALL_COST // UNIT_COSTS["pull"]
        if self.max_expansions > 0:
            left = self.max_expansions - int(store.counters[EXPANDED])
            expansions = min(expansions, left)
        started = time.process_time()
        code = pull_search(
            self.tab, self.pull_tab, self.weight, expansions, work_limit, store.arrays, self.scratch
        )
        self.cpu_seconds += time.process_time() - started
        if code == EXHAUSTED or 0 < self.max_expansions <= store.counters[EXPANDED]:
            self.finished = True
        elif code == NEED_SPACE:
            self.finished = not store.can_grow(self.max_nodes) or not _grown(store, self.max_nodes)

    @property
    def name(self) -> str:
        """``"pull (weight 3)"``: how ``found_by`` and ``parts`` name it."""
        return f"pull (weight {self.weight / WEIGHT_SCALE:g})"

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
    ``max_expansions``; its states stay in the meeting after it stops. ``name`` says which it
    is in a result's ``found_by``."""

    def __init__(self, run: SearchRun, max_expansions: int, name: str) -> None:
        self.run = run
        self.name = name
        self.max_expansions = max_expansions
        self.unit_cost = UNIT_COSTS[run.algorithm.name]
        self.cost = 0
        """The work it has done, in :data:`UNIT_COSTS` units."""
        self.cpu_seconds = 0.0
        """CPU seconds of its calls."""
        self.finished = run._prepare() is not None
        if not self.finished:
            run.params[WORK_LIMIT] = CALL_COST // self.unit_cost
            run._add_root()

    @property
    def store(self) -> Store:
        return self.run.store

    def step(self) -> None:
        """One call of its kernel (at most :data:`CALL_EXPANSIONS` and :data:`CALL_COST`)."""
        if self.finished:
            return
        run, counters = self.run, self.run.store.counters
        left = max(self.max_expansions - int(counters[EXPANDED]), 1)
        run.params[CHUNK] = min(CALL_EXPANSIONS, left)
        work_before = int(counters[WORK])
        started = time.process_time()
        code = run._call_kernel()
        self.cpu_seconds += time.process_time() - started
        self.cost += (int(counters[WORK]) - work_before) * self.unit_cost
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


def _part_of(search: PullSearch | SideSearch) -> SearchPart:
    """A pull or side search's expanded and generated states and CPU seconds so far, under
    its name."""
    counters = search.store.counters
    return SearchPart(
        search.name, int(counters[EXPANDED]), int(counters[GENERATED]), search.cpu_seconds
    )


def _side_search(
    owner: SearchRun,
    run_class: type[SearchRun],
    algorithm: str,
    settings: PushSettings,
    max_nodes: int,
    name: str,
) -> SideSearch:
    """A side search ``name`` of ``algorithm`` with ``settings`` from ``owner``'s start, with an
    eighth of its memory (:func:`side_memory`) and at most ``max_nodes`` expansions."""
    run = run_class(
        owner.level,
        ALGORITHMS[algorithm],
        owner.heuristic,
        None,
        max_nodes,
        settings,
        owner.seed,
        side_memory(owner),
        owner.store_cells,
    )
    run.limit = owner.limit  # its set-up counts on the owner's clock (it has no limit of its own)
    return SideSearch(run, max_nodes, name)


def side_memory(owner: SearchRun) -> int:
    """Bytes each side search may take: an eighth of ``owner``'s memory limit, which
    push-fess-bi's own store leaves to it."""
    return owner.memory_limit // 8


def ball_search(owner: BidirectionalRun) -> SideSearch:
    """The states within a few pushes of the start: a breadth-first push search
    (``push-bfs``, with push-fess-bi's pruning but no deadlock patterns) of at most
    ``ball_nodes`` expansions."""
    settings = owner.settings
    pruning = PushSettings.model_validate(
        {
            **{name: getattr(settings, name) for name in PushSettings.model_fields},
            "deadlock_patterns": 0,
        }
    )
    return _side_search(owner, SearchRun, "push-bfs", pruning, settings.ball_nodes, "ball")


def plain_fess_search(owner: BidirectionalRun, room_links: int) -> SideSearch:
    """Plain push-fess (push-fess-bi's settings without cluster deadlock tests) with
    ``room_links`` of its own, of at most ``plain_nodes`` expansions; it keeps its deadlock
    patterns in push-fess-bi's store (``deadlock_patterns``), and matches theirs."""
    settings = owner.settings
    changes = {"cluster_deadlocks": 0, "room_links": room_links}
    name = f"plain push-fess (room_links {room_links})"
    return _plain_side(owner, settings, changes, settings.plain_nodes, name)


def plain_search(owner: BidirectionalRun, side: PlainSearchSettings, index: int) -> SideSearch:
    """The plain push-fess of ``plain_searches[index]``: push-fess with ``side``'s settings,
    of at most ``side.nodes`` expansions; it keeps its deadlock patterns in push-fess-bi's
    store, and matches theirs."""
    return _plain_side(owner, side, {}, side.nodes, f"plain_searches[{index}]")


def _plain_side(
    owner: BidirectionalRun,
    settings: FessSettings,
    changes: dict[str, int],
    max_nodes: int,
    name: str,
) -> SideSearch:
    """A push-fess side search with the push-fess knobs of ``settings`` and ``changes``, of at
    most ``max_nodes`` expansions, sharing ``owner``'s deadlock patterns."""
    plain = FessSettings.model_validate(
        {
            **{name: getattr(settings, name) for name in FessSettings.model_fields},
            **changes,
            "deadlock_patterns": 0,
            "on_full": "stop",  # a side search ends where its part of the memory does
        }
    )
    side = _side_search(owner, FeatureSpaceRun, "push-fess", plain, max_nodes, name)
    _share_patterns(owner, side)
    return side


def _share_patterns(owner: BidirectionalRun, side: SideSearch) -> None:
    """Let the plain push-fess ``side`` keep its deadlock patterns in ``owner``'s store, and
    match theirs (``deadlock_patterns``; a pattern holds for every search of the level)."""
    patterns = owner.features.corral.patterns
    if side.finished or patterns.sizes.shape[0] == 0:
        return
    run = cast(FeatureSpaceRun, side.run)
    run.features = run.features._replace(corral=run.features.corral._replace(patterns=patterns))


class BidirectionalRun(FeatureSpaceRun):
    """push-fess with a pull search and a ball around the start beside it (see the module
    docstring); its knobs are :class:`~evosoko.search.settings.BidirectionalSettings`."""

    settings: BidirectionalSettings

    def _prepare(self) -> str | None:
        self.pulls: tuple[PullSearch, ...] = ()
        self.pull_parts: tuple[SearchPart, ...] = ()
        """The pull searches' parts when they were dropped for the forward store's room."""
        self.ball: SideSearch | None = None
        self.plains: tuple[SideSearch, ...] = ()
        self.meeting: tuple[SearchRun | None, int, int, PullSearch | None] | None = None
        """The forward search that met (the ball or plain push-fess; None: its own push-fess,
        which it does not hold a reference to itself), its state, the pulled state equal to it
        (-1: that search solved the level itself) and the pull search."""
        self.forward_cost = 0
        """The work its own push-fess has done, in :data:`UNIT_COSTS` units."""
        self.forward_seconds = 0.0
        """CPU seconds of its own push-fess's calls."""
        refused = super()._prepare()
        if refused is not None:
            return refused
        self.params[WORK_LIMIT] = CALL_COST // UNIT_COSTS[self.algorithm.name]
        settings = self.settings
        side_nodes = side_memory(self) // self.bytes_per_node()  # a side search's part
        caps = settings.plain_room_caps if settings.plain_nodes > 0 else ()
        for _ in (*caps, *settings.plain_searches):
            self.max_nodes -= side_nodes  # an eighth of the memory for each plain push-fess
        self.plains = tuple(plain_fess_search(self, cap) for cap in caps) + tuple(
            plain_search(self, side, index) for index, side in enumerate(settings.plain_searches)
        )
        if settings.backward_share > 0 and settings.pull_weights:
            if settings.ball_nodes > 0:
                self.max_nodes -= side_nodes  # an eighth for the ball
            self.max_nodes //= 2  # half of the rest for the pull searches
            each = self.max_nodes // len(settings.pull_weights)
            self.pulls = tuple(
                PullSearch(
                    self.level,
                    self.tab,
                    self.store_cells,
                    self._scaled(weight),
                    each,
                    settings.pull_nodes,
                )
                for weight in settings.pull_weights
            )
            if settings.ball_nodes > 0:
                self.ball = ball_search(self)
        return None

    def compile_rest(self) -> None:
        """One call of each pull search and of the ball: a short search (the warm-up's) ends
        before their turn, and the first level that reached it would compile their kernels
        inside its time limit (the pull kernel 3.3 CPU-s of XSokoban 4's, the ball's push-bfs
        about 20 CPU-s of XSokoban 21's)."""
        for pull in getattr(self, "pulls", ()):  # none before the search is prepared
            pull.step()
        ball = getattr(self, "ball", None)
        if ball is not None:
            ball.step()

    def _scaled(self, weight: float | str) -> int:
        """A pull search's weight of ``h`` as the kernels take it ("own": the search's)."""
        if isinstance(weight, str):  # "own"
            return int(self.params[H_WEIGHT])
        return round(weight * WEIGHT_SCALE)

    def _add_root(self) -> int:
        for pull in self.pulls:
            pull.checked.pop(self, None)  # a restart cleared the forward store
        return super()._add_root()

    def _next_call(self, chunk: int, seconds: float, work: int) -> int:
        """Every call the same size, whatever it took (``params[WORK_LIMIT]`` stays)."""
        return CALL_EXPANSIONS

    def _call_kernel(self) -> int:
        """One call of its own push-fess, then, by their shares of the work done so far, one
        of a plain push-fess and one of the ball or a pull search."""
        counters = self.store.counters
        work_before = int(counters[WORK])
        started = time.process_time()
        code = super()._call_kernel()
        self.forward_seconds += time.process_time() - started
        self.forward_cost += (int(counters[WORK]) - work_before) * UNIT_COSTS[self.algorithm.name]
        if self.store.counters[SOLUTION] >= 0:
            return code
        if self._meet_all():  # before an exhausted store is cleared for a restart, too
            return CONTINUE if code == EXHAUSTED else code
        if code == EXHAUSTED:
            return code
        for due in (self._plain_due, self._backward_due):
            for _ in range(CATCH_UP_CALLS):
                search = due()
                if search is None:
                    break
                search.step()
                if self._meet_all():
                    return code
        return code

    def _total_cost(self) -> int:
        """The work all its searches have done, in :data:`UNIT_COSTS` units."""
        pulls = sum(pull.cost for pull in self.pulls)
        return self.forward_cost + pulls + sum(side.cost for side in self.sides)

    def _plain_due(self) -> SideSearch | None:
        """The plain push-fess whose turn it is (the one that has done the least), while they
        are within ``plain_share`` of the work; None: not now."""
        waiting = [plain for plain in self.plains if not plain.finished]
        plain_cost = sum(plain.cost for plain in self.plains)
        if not waiting or plain_cost > self.settings.plain_share * self._total_cost():
            return None
        return min(waiting, key=lambda side: side.cost)

    def _backward_due(self) -> PullSearch | SideSearch | None:
        """The ball or the pull search whose turn it is (the one that has done the least; the
        ball on ties), while they are within ``backward_share`` of the work; None: not now."""
        pulls, ball = self.pulls, self.ball
        if not pulls:
            return None
        backward = sum(pull.cost for pull in pulls) + (0 if ball is None else ball.cost)
        if backward > self.settings.backward_share * self._total_cost():
            return None
        if ball is not None and not ball.finished and ball.cost <= min(p.cost for p in pulls):
            return ball
        running = [pull for pull in pulls if not pull.finished]
        return min(running, key=lambda search: search.cost) if running else None

    def make_room(self) -> bool:
        """Grow the forward store; when its part of the memory is full, the pull searches are
        dropped and their part goes to push-fess; when that is full too, push-fess drops states
        (``on_full``, :meth:`~evosoko.search.search_run.SearchRun.make_room`). No pull search
        is left then, so no meeting can be missed among the states held."""
        if self._grown_room():
            return True
        if not self.pulls:
            return self._dropped_room()
        self.max_nodes += sum(pull.max_nodes for pull in self.pulls)
        self.pull_parts = self._parts_of_pulls()
        self.pulls = ()
        return super().make_room()

    def _meetings(self, run: SearchRun, pull: PullSearch) -> list[Meeting]:
        """The best meeting of ``run``'s states stored since the last look with ``pull``'s
        store, and of ``pull``'s with ``run``'s (each when there is one): every state both
        stores hold now that was not there at the last look. A store with no new state is
        not looked through (most looks: the searches take turns)."""
        forward, backward = run.store, pull.store
        checked = pull.checked.setdefault(run, [0, 0])
        forward_size, backward_size = forward.size, backward.size
        found = []
        if checked[0] < forward_size:
            met_forward, met_backward, pushes = best_meeting(
                forward.nodes, checked[0], forward_size, backward.nodes, backward.table
            )
            found.append((int(pushes), run, int(met_forward), int(met_backward), pull))
        if checked[1] < backward_size:
            backward_new, forward_old, pushes_old = best_meeting(
                backward.nodes, checked[1], backward_size, forward.nodes, forward.table
            )
            found.append((int(pushes_old), run, int(forward_old), int(backward_new), pull))
        checked[0], checked[1] = forward_size, backward_size
        return [meeting for meeting in found if meeting[2] >= 0]

    @property
    def sides(self) -> tuple[SideSearch, ...]:
        """The searches from the start beside push-fess: the ball and plain push-fess."""
        return self.plains if self.ball is None else (self.ball, *self.plains)

    def _meet_side(self, side: SideSearch) -> bool:
        """:meth:`_meet_all` between one side search and every pull search."""
        found = [meeting for pull in self.pulls for meeting in self._meetings(side.run, pull)]
        return self._end_at_best(self._side_solutions((side,)) + found)

    def _meet_all(self) -> bool:
        """Bring every look-up between the searches from the start (push-fess and its side
        searches) and the pull searches up to date, and end the search at the meeting, or a
        side search's own solution, with the fewest pushes. Run after each step of any of
        them, it misses no state both sides hold."""
        runs = (self, *(side.run for side in self.sides))
        found = [
            meeting for run in runs for pull in self.pulls for meeting in self._meetings(run, pull)
        ]
        return self._end_at_best(self._side_solutions(self.sides) + found)

    @staticmethod
    def _side_solutions(sides: tuple[SideSearch, ...]) -> list[Meeting]:
        """The solutions side searches found themselves, as meetings without pulls."""
        return [
            (int(side.store.nodes.g[side.solution]), side.run, side.solution, -1, None)
            for side in sides
            if side.solution >= 0
        ]

    def _end_at_best(self, found: list[Meeting]) -> bool:
        """End the search at the meeting of ``found`` with the fewest pushes (the first on
        ties: a side search's own solution before a meeting); False when there is none."""
        if not found:
            return False
        _, run, forward, backward, pull = min(found, key=lambda meeting: meeting[0])
        return self._met(run, forward, backward, pull)

    def _met(self, run: SearchRun, forward: int, backward: int, pull: PullSearch | None) -> bool:
        self.meeting = (None if run is self else run, forward, backward, pull)
        self.store.counters[SOLUTION] = 0  # ends the search; the path comes from the meeting
        return True

    def _path(self, node: int) -> str:
        if self.meeting is None:
            return super()._path(node)
        run, forward, backward, pull = self.meeting
        lurd = super()._path(forward) if run is None else run._path(forward)
        if pull is None:
            return lurd
        player = replay_states(self.level, lurd)[-1].player
        return lurd + pull.pushes_back(backward, player)

    def result(self, status: str, partial: int):
        outcome = super().result(status, partial)
        own = SearchPart("push-fess", outcome.expanded, outcome.generated, self.forward_seconds)
        parts = (own, *self._parts_of_pulls(), *map(_part_of, self.sides))
        return replace(
            outcome,
            expanded=sum(part.expanded for part in parts),
            generated=sum(part.generated for part in parts),
            found_by=self.found_by() if outcome.solved else None,
            parts=parts,
        )

    def found_by(self) -> str:
        """Which of its searches found the solution (see
        :attr:`~evosoko.search.result.SearchResult.found_by`)."""
        if self.meeting is None:
            return "push-fess"
        run, _, _, pull = self.meeting
        found = "push-fess" if run is None else next(s.name for s in self.sides if s.run is run)
        if pull is None:
            return found
        return f"{found} + {pull.name}"

    def _parts_of_pulls(self) -> tuple[SearchPart, ...]:
        """The pull searches' parts so far."""
        if not self.pulls:
            return self.pull_parts
        return tuple(map(_part_of, self.pulls))


def _grown(store: Store, max_nodes: int) -> bool:
    """Grow ``store``; False when the memory cannot be had (the pull search then ends)."""
    try:
        store.grow(max_nodes)
    except MemoryError:
        return False
    return True
