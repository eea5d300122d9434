"""``push-fess``: the push-level search run over the cells of a feature space.

The state store, successors, budgets and paths are those of every push search
(:mod:`evosoko.search.solver`); what differs is the order of expansion, kept by
:mod:`evosoko.search.fess_kernel`: the cells of (packing, out-of-plan, room connectivity,
connectivity) take turns.
"""

from __future__ import annotations

import numpy as np

from evosoko.search import fess_kernel, fess_space
from evosoko.search.box_paths import box_path_pushes
from evosoko.search.packing_order import packing_order
from evosoko.search.paths import SearchBug, push_path
from evosoko.search.result import UNSOLVABLE
from evosoko.search.search_run import SearchRun
from evosoko.search.store import G_WEIGHT, GOAL_MACRO_STEP, GOAL_MACROS, H_WEIGHT
from evosoko.sokoban.rooms import room_links

ALTERNATE = 3
"""Every third expansion takes the best state of the whole frontier (weighted A*'s choice), the
others cycle through the cells. Measured on XSokoban 1-19 at 200,000 nodes: every second
expansion solved 7 (1 2 3 6 7 9 17), every third 8 (and 10), pure cycling was slower on 1-3,
greedy keys in the cells lost 9 (docs/xsokoban.md, round 1)."""


PACK_MACROS = 0
"""Packing macros per empty goal of the first unfinished layer: the nearest boxes tried (0:
off; measured on XSokoban 1-30 at 200,000 nodes, 2 solved the same 9 levels as 0, faster on 7
and slower per node elsewhere)."""


CELL_WEIGHTS = (-1, -1)
"""Weights of g and h in the key within a cell ((-1, -1): the search's own priority)."""


CORRIDOR_MACROS = False
"""Push a box through one-wide corridors in one step (see ``fess_kernel._through_corridor``).
Off: measured on XSokoban 1-30 at 200,000 nodes it solved 8 levels against 9 without (it lost
7, where a box has to wait in a corridor), though fewer nodes on 1, 2, 3, 6 and 9."""


ROOM_LINKS = 1
"""Room connectivity as a coordinate of the cells: the links between rooms that boxes block
(:mod:`evosoko.sokoban.rooms`), counts at or above ``ROOM_LINKS`` sharing one value (0: no
such coordinate)."""


ROOM_VIEWS: tuple[int, ...] | None = None
"""The room caps the cycle through the cells takes turns with, each below ``ROOM_LINKS + 1``
(see :func:`evosoko.search.fess_space.next_cell`); None: one, ``ROOM_LINKS``."""


ROOM_CUTS = True
"""Count only the blocked links whose two rooms the boxes cut apart (an end of the link holds a
box, or the player cannot walk from one end to the other some other way)."""


CORRAL_DEADLOCKS = 200
"""Positions a corral deadlock search may visit (0: no such test); see
:mod:`evosoko.sokoban.corral_deadlock`."""


CLUSTER_DEADLOCKS = 0
"""Slots of the cache of cluster deadlock tests (0: no such test): when push-fess expands a
state, the cluster of the box pushed last (the boxes touching it, one after another) and the
clusters it left behind are searched alone, up to ``CLUSTER_LIMIT`` positions each
(:func:`evosoko.sokoban.corral_deadlock.cluster_lost_after_push`); if one cannot reach goals,
the state is lost. Off for push-fess: with ``1 << 14`` the work spent below lost states on hard
screens falls from 25-75% to 0-14% (``benchmarks/bench_dead_states.py``), but at 60
CPU-seconds it solves the same 31 of 90 (it gains 4, loses 73; docs/xsokoban.md, round 6).
push-fess-bi has a setting of its own, on (``bidirectional.CLUSTER_DEADLOCKS``)."""


CLUSTER_LIMIT = 6000
"""Positions a cluster deadlock test may make (the corral tests keep ``CORRAL_DEADLOCKS``):
with 200, most lost clusters of the hard screens went unproven (docs/xsokoban.md, round 6).
Without ``CLUSTER_WIDTH`` each step up cost time, since the tests that run out of positions
take most of it (push-fess-bi on XSokoban at 60 CPU-seconds: 43 of 90 with 1,000 and with
6,000, 44 with 3,000; round 11). With the width those stop early whatever the bound, and 6,000
solves 41 on the slower machine of round 13 against 39 with 3,000 and width 800 (it gains 59
and 64, loses none); 12,000 loses 64 again on the screens tried (round 13)."""


CLUSTER_WIDTH = 400
"""A cluster deadlock test gives up (not proven) when more than this many positions wait to be
expanded (None: never): such a search is rarely exhausted within ``CLUSTER_LIMIT``. Measured on
XSokoban 5 and 10 with push-fess at 200,000 expansions: the tests that ran out of positions
(92-94% of those searched) had more than 400 waiting after about 180 expansions, and 13 of the
1,383 proofs of a lost cluster ever had more than 400 waiting at once (none more than 800).
800 keeps the same search path for 35-37% less CPU, 400 loses a few proofs for 49-53% less;
with 6,000 positions, 400 is the faster of the two and solves the same screens (docs/xsokoban.md,
round 13)."""


def level_features(
    level,
    corral_deadlocks: int | None = None,
    cluster_deadlocks: int | None = None,
    room_cap: int | None = None,
) -> tuple:
    """(packing order, features) of ``level`` as this module's settings make them
    (:func:`evosoko.search.fess_kernel.make_features`): the cells of push-fess, and of the GA's
    MAP-Elites (:mod:`evosoko.evolve.descriptors`, which tests no corral deadlocks).
    ``corral_deadlocks``: positions a corral test may visit (None: ``CORRAL_DEADLOCKS`` as it
    is when called); ``cluster_deadlocks``: slots of the cluster-test cache (None:
    ``CLUSTER_DEADLOCKS``);
    ``room_cap``: see ``ROOM_LINKS`` (None: ``ROOM_LINKS``)."""
    order = packing_order(level)
    cap = ROOM_LINKS if room_cap is None else room_cap
    _, link, ends = room_links(level.floor, level.deltas) if cap > 0 else (0, None, None)
    cuts = ends if ROOM_CUTS else None
    features = fess_kernel.make_features(
        order,
        level.cells,
        level.goal_cells,
        CORRAL_DEADLOCKS if corral_deadlocks is None else corral_deadlocks,
        link,
        cuts,
        CLUSTER_DEADLOCKS if cluster_deadlocks is None else cluster_deadlocks,
        CLUSTER_LIMIT,
        CLUSTER_WIDTH,
    )
    return order, features


class FeatureSpaceRun(SearchRun):
    """A :class:`evosoko.search.search_run.SearchRun` whose frontier is the feature space."""

    @property
    def cluster_deadlocks(self) -> int:
        """Slots of this search's cluster-test cache (0: no cluster deadlock tests)."""
        return CLUSTER_DEADLOCKS

    @property
    def room_cap(self) -> int:
        """This search's ``ROOM_LINKS``: room-link counts at or above it share one value."""
        return ROOM_LINKS

    @property
    def room_views(self) -> tuple[int, ...] | None:
        """The room caps this search's cycle takes turns with (None: :attr:`room_cap` alone)."""
        return ROOM_VIEWS

    @property
    def alternate(self) -> int:
        """Every how many expansions the best state of the whole frontier goes (``ALTERNATE``)."""
        return ALTERNATE

    @property
    def pack_macros(self) -> int:
        """Packing macros per empty goal of the first unfinished layer (``PACK_MACROS``)."""
        return PACK_MACROS

    @property
    def cell_weights(self) -> tuple[int, int]:
        """Weights of g and h in the key within a cell (``CELL_WEIGHTS``)."""
        return CELL_WEIGHTS

    @property
    def corral_deadlocks(self) -> int:
        """Positions a corral deadlock test may visit (``CORRAL_DEADLOCKS``)."""
        return CORRAL_DEADLOCKS

    @property
    def connectivity_limit(self) -> int:
        """Connectivity values of the cells (``fess_space.CONNECTIVITY_LIMIT``)."""
        return fess_space.CONNECTIVITY_LIMIT

    def __init__(self, level, *arguments, **keywords):
        super().__init__(level, *arguments, **keywords)
        self.order, self.features = level_features(
            level,
            corral_deadlocks=self.corral_deadlocks,
            cluster_deadlocks=self.cluster_deadlocks,
            room_cap=self.room_cap,
        )
        self.space = None
        self.corridor_macros = CORRIDOR_MACROS

    def search(self) -> str:
        outcome = super().search()
        if outcome == UNSOLVABLE and self.corridor_macros:
            self.corridor_macros = False  # a box may have had to wait inside a corridor
            self.params[GOAL_MACROS] = self.goal_room is not None
            self.store.clear()
            outcome = super().search()
        return outcome

    def _add_root(self) -> int:
        h = super()._add_root()
        self.space = fess_space.make_feature_space(
            self.store.capacity,
            self.level.box_count,
            self.order.layers,
            self.alternate,
            self.pack_macros,
            self.cell_weights,
            self.corridor_macros,
            self.room_cap + 1,
            self.room_views,
            self.connectivity_limit,
        )
        floor, deltas = self.tab.floor, self.tab.deltas
        fess_kernel.fess_root(
            self.features,
            self.space,
            floor,
            deltas,
            self.start_boxes,
            h,
            self.params[G_WEIGHT],
            self.params[H_WEIGHT],
        )
        return h

    def _call_kernel(self) -> int:
        store = self.store
        return fess_kernel.fess_search(
            self.tab,
            self.room_tab,
            self.features,
            self.params,
            store.nodes,
            store.table,
            self.space,
            store.frontier,
            store.counters,
            self.scratch,
            self.work,
        )

    def _path(self, node: int) -> str:
        return push_path(self.level, self.store, node, self.goal_room, self._macro_pushes)

    def _macro_pushes(self, parent_boxes, child_boxes, player, code):
        """The pushes of a packing macro step (None for the steps push_path knows)."""
        if not fess_kernel.PACK_MACRO_STEP <= code < GOAL_MACRO_STEP:
            return None
        source = int(np.setdiff1d(parent_boxes, child_boxes)[0])
        target = int(np.setdiff1d(child_boxes, parent_boxes)[0])
        occupied = np.zeros(self.level.cells, dtype=np.bool_)
        occupied[parent_boxes] = True
        floor, dead, deltas = self.tab.floor, self.tab.dead, self.tab.deltas
        pushes = box_path_pushes(
            floor,
            dead,
            occupied,
            deltas,
            source,
            player,
            target,
            code - fess_kernel.PACK_MACRO_STEP,
        )
        if pushes is None:
            raise SearchBug(f"{self.level.name}: a packing macro could not be rebuilt")
        return pushes

    def _partial_nodes(self, count: int) -> list[int]:
        """The frontier state of lowest ``h`` (the position closest to solved), then the best
        state of each other cell (the cells' own priority), lowest ``h`` first: partial plans of
        as many kinds as the cells hold; then the other lowest-``h`` frontier states up to
        ``count``."""
        if self.space is None:  # ended before its first state: no frontier
            return super()._partial_nodes(count)
        by_h = self._lowest_h(self._open_nodes()).tolist()
        roots = self.space[fess_space.CELL_ROOT]
        roots = roots[roots >= 0]
        roots = roots[self.store.field("closed")[roots] == 0]  # a root expanded out of turn
        chosen = by_h[:1] + [node for node in self._lowest_h(roots).tolist() if node != by_h[0]]
        if len(chosen) < count:
            taken = set(chosen)
            chosen += [node for node in by_h if node not in taken][: count - len(chosen)]
        return chosen[:count]

    def _grow(self) -> None:
        self.store.grow(self.max_nodes)
        if len(self.space[0]) < self.store.capacity:
            self.space = fess_space.grown_feature_space(self.space, self.store.capacity)
