"""``push-fess``: the push-level search run over the cells of a feature space.

The state store, successors, budgets and paths are those of every push search
(:mod:`evosoko.search.solver`); what differs is the order of expansion, kept by
:mod:`evosoko.search.fess_kernel`: the cells of (packing, connectivity) take turns.
"""

from __future__ import annotations

from evosoko.search import fess_kernel
from evosoko.search.packing_order import packing_order
from evosoko.search.solver import _Run
from evosoko.search.store import G_WEIGHT, H_WEIGHT

ALTERNATE = 2
"""Every second expansion takes the best state of the whole frontier (weighted A*'s choice),
the others cycle through the cells."""


class FeatureSpaceRun(_Run):
    """A :class:`evosoko.search.solver._Run` whose frontier is the feature space."""

    def __init__(self, level, *arguments):
        super().__init__(level, *arguments)
        self.order = packing_order(level)
        self.features = fess_kernel.make_features(self.order, level.cells)
        self.space = None

    def _add_root(self) -> int:
        h = super()._add_root()
        self.space = fess_kernel.make_feature_space(
            self.store.capacity, self.level.box_count, self.order.layers, ALTERNATE
        )
        floor, deltas = self.tab[0], self.tab[4]
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

    def _grow(self) -> None:
        self.store.grow()
        if len(self.space[0]) < self.store.capacity:
            self.space = fess_kernel.grown_feature_space(self.space, self.store.capacity)
