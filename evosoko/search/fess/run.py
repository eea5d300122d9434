"""``push-fess``: the push-level search run over the cells of a feature space.

The state store, successors, budgets and paths are those of every push search
(:mod:`evosoko.search.solver`); what differs is the order of expansion, kept by
:mod:`evosoko.search.fess.kernel`: the cells of (packing, out-of-plan, hotspots when set, room
connectivity, connectivity) take turns, and within a cell the advisors' moves come first when
set (:mod:`evosoko.search.fess.advisors`). Its knobs are
:class:`~evosoko.search.settings.FessSettings`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evosoko.search.box_paths import box_path_pushes
from evosoko.search.clocks import no_tick
from evosoko.search.drop import drop_states
from evosoko.search.fess import kernel as fess_kernel
from evosoko.search.fess import space as fess_space
from evosoko.search.fess.macros import PACK_MACRO_STEP
from evosoko.search.fess.sealed import sealed_steps
from evosoko.search.packing_order import PackingOrder, by_goal_area, packing_order
from evosoko.search.paths import SearchBug, push_path
from evosoko.search.result import TIMEOUT, UNSOLVABLE
from evosoko.search.search_run import DROP_SHARE, SearchRun
from evosoko.search.settings import FessSettings
from evosoko.search.store import G_WEIGHT, GOAL_MACRO_STEP, GOAL_MACROS, H_WEIGHT
from evosoko.sokoban.arrays import arrays_bytes
from evosoko.sokoban.lone_box import lone_box_tables
from evosoko.sokoban.rooms import room_links

SPACE_BYTES_PER_NODE = 36
"""Memory the feature space takes per stored state: its per-node arrays (24 bytes:
:func:`~evosoko.search.fess.space.make_feature_space`), and half again while they grow (the
old and the grown arrays are both held then)."""
ADVICE_BYTES_PER_NODE = 6
"""What the advisors add per stored state: a count of 4 bytes, and half again while it grows."""


def level_features(
    level,
    settings: FessSettings,
    corral_deadlocks: int | None = None,
    tick: Callable[[], None] = no_tick,
) -> tuple[PackingOrder, fess_kernel.Features]:
    """(packing order, features) of ``level`` as ``settings`` make them
    (:func:`evosoko.search.fess.kernel.make_features`): the cells of push-fess, and of the GA's
    MAP-Elites (:mod:`evosoko.evolve.descriptors`, which tests no corral deadlocks:
    ``corral_deadlocks`` 0; None: the settings'). ``tick``: called once per step of the
    packing order's searches (a search's :meth:`~evosoko.search.clocks.TimeLimit.tick`)."""
    order = packing_order(level, tick, to_start=settings.pull_off_to == "start")
    if settings.goal_areas:
        order = by_goal_area(order, level)
    cap = settings.room_links
    _, link, ends = room_links(level.floor, level.deltas) if cap > 0 else (0, None, None)
    cuts = ends if settings.room_cuts else None
    hotspots = None
    opener = settings.advice_weight > 0 and "opener" in settings.advisors
    if settings.hotspots > 0 or opener:  # the opener reads the table too
        hotspots = fess_space.hotspot_table(level.floor, level.deltas, level.goal_cells)
    sealed = None
    if settings.out_of_plan != "layers":
        sealed = sealed_steps(level.floor, level.deltas, order.layer, order.layers)
    corral_limit = settings.corral_deadlocks if corral_deadlocks is None else corral_deadlocks
    features = fess_kernel.make_features(
        order,
        level.cells,
        level.goal_cells,
        corral_limit,
        link,
        cuts,
        settings.cluster_deadlocks,
        settings.cluster_limit,
        settings.cluster_width,
        hotspots,
        settings.deadlock_patterns if corral_limit > 0 else 0,
        sealed,
        lone_box_tables(level.floor, level.deltas, level.goal_cells)
        if settings.lone_box_matching and corral_limit > 0
        else None,
        level.floor,
    )
    return order, features


class FeatureSpaceRun(SearchRun):
    """A :class:`evosoko.search.search_run.SearchRun` whose frontier is the feature space."""

    settings: FessSettings

    def __init__(self, level, *arguments, **keywords):
        super().__init__(level, *arguments, **keywords)
        self.space = None
        self.corridor_macros = self.settings.corridor_macros

    def _prepare(self) -> str | None:
        """The search's set-up, then the feature space's (its packing order reads the clock)."""
        refused = super()._prepare()
        if refused is None:
            self.order, self.features = level_features(
                self.level, self.settings, tick=self.limit.tick
            )
            corral = self.features.corral
            kept = arrays_bytes(corral.patterns) + arrays_bytes(corral.lone_box)
            self.max_nodes -= kept // self.bytes_per_node()  # the tables share the memory
            if self.out_of_time():
                return TIMEOUT
        return refused

    def _scratch_patterns(self) -> int:
        """None: its deadlock patterns are kept by the corral tests of its features."""
        return 0

    def bytes_per_node(self) -> int:
        """The store's bytes per state and the feature space's (``SPACE_BYTES_PER_NODE``, and
        ``ADVICE_BYTES_PER_NODE`` with the advisors on)."""
        advice = ADVICE_BYTES_PER_NODE if self.settings.advice_weight > 0 else 0
        return super().bytes_per_node() + SPACE_BYTES_PER_NODE + advice

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
            self.settings,
            self.corridor_macros,
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
        return fess_kernel.fess_search(
            self.tab,
            self.room_tab,
            self.features,
            self.params,
            self.store.arrays,
            self.space,
            self.scratch,
            self.work,
        )

    def _path(self, node: int) -> str:
        return push_path(self.level, self.store, node, self.goal_room, self._macro_pushes)

    def _macro_pushes(self, parent_boxes, child_boxes, player, code):
        """The pushes of a packing macro step (None for the steps push_path knows)."""
        if not PACK_MACRO_STEP <= code < GOAL_MACRO_STEP:
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
            code - PACK_MACRO_STEP,
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
        roots = self.space.root
        roots = roots[roots >= 0]
        roots = roots[self.store.field("closed")[roots] == 0]  # a root expanded out of turn
        chosen = by_h[:1] + [node for node in self._lowest_h(roots).tolist() if node != by_h[0]]
        if len(chosen) < count:
            taken = set(chosen)
            chosen += [node for node in by_h if node not in taken][: count - len(chosen)]
        return chosen[:count]

    def _drop_states(self) -> np.ndarray | None:
        """:func:`~evosoko.search.drop.drop_states` by the cells: each keeps its best."""
        return drop_states(self.store, DROP_SHARE, space=self.space, weights=self._weights())

    def _clear(self) -> None:
        """Forget every stored state and the cells (the next root makes new ones, after the old
        are freed)."""
        self.space = None
        super()._clear()

    def _grow(self) -> None:
        self.store.grow(self.max_nodes)
        if len(self.space.key) < self.store.capacity:
            self.space = fess_space.grown_feature_space(self.space, self.store.capacity)
