"""FESS's *out-of-plan* feature as the paper defines it: boxes in areas about to be sealed.

As the packing plan (:mod:`evosoko.search.packing_order`) proceeds, each filled goal becomes a
wall, and some areas of free floor end up closed off from every goal still to be filled. A box
still standing in such an area when its exits are filled can never reach a goal (unless a
packed box is taken out again), so it must leave before: it is *out of plan*.

Precomputed once per level (:func:`sealed_steps`): for every floor cell, the first packing
step (the layer whose filling completes it) after which the cell lies in a region of floor,
walled in by the goals of that layer and the layers before, that holds no goal of a later
layer. The last step seals every cell and is left out (the boxes that fill it come from
outside its goals). Per state (:func:`sealed_count`): the boxes on cells sealed by the step
in progress (the first layer with an empty goal) or an earlier one. ``push-fess`` counts them
in the out-of-plan coordinate of its cells with ``out_of_plan = "sealed"`` or ``"both"``
(:func:`evosoko.search.fess.space.plan_feature`).
"""

from __future__ import annotations

import numba
import numpy as np

from evosoko.reference_counts import uncounted
from evosoko.sokoban.reach import explore


def sealed_steps(floor: np.ndarray, deltas, layer: np.ndarray, layers: int) -> np.ndarray:
    """int64[cells]: the packing step that seals each cell of a closed level's ``floor`` (flat,
    ``deltas`` ``u d l r``) under the packing ``layer`` of each goal (-1 off goals) in
    ``layers`` layers; ``layers`` for cells no step but the last seals (every goal, every
    wall). See the module docstring."""
    sealed = np.full(floor.shape[0], layers, dtype=np.int64)
    _fill_sealed_steps(
        np.asarray(floor, dtype=np.bool_),
        np.asarray(deltas, dtype=np.int64),
        np.asarray(layer, dtype=np.int64),
        layers,
        sealed,
    )
    return sealed


@numba.njit(cache=True)
def _fill_sealed_steps(floor, deltas, layer, layers, sealed):  # pragma: no cover - compiled
    """Fill ``sealed`` (all ``layers`` on entry): one walk over the regions of floor left free
    by the goals of layers 0..k, for each step k but the last."""
    cells = floor.shape[0]
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(cells, dtype=np.int64)
    walled = np.zeros(cells, dtype=np.bool_)
    stamp = 0
    for step in range(layers - 1):
        for cell in range(cells):
            walled[cell] = layer[cell] >= 0 and layer[cell] <= step
        base = stamp  # the regions of this step are marked above it
        for cell in range(cells):
            if not floor[cell] or walled[cell] or mark[cell] > base:
                continue
            stamp += 1
            count, _ = explore(floor, walled, deltas, cell, mark, stamp, queue, queue[:0])
            live = False
            for k in range(count):
                if layer[queue[k]] > step:
                    live = True
                    break
            if not live:
                for k in range(count):
                    sealed[queue[k]] = min(sealed[queue[k]], step)
    return sealed


@uncounted
def sealed_count(sealed, open_layer, boxes):  # pragma: no cover - compiled
    """The boxes of ``boxes`` on cells that ``sealed`` (see :func:`sealed_steps`; no entries:
    none) seals at step ``open_layer`` (the first layer with an empty goal, below the layer
    count) or before."""
    if sealed.shape[0] == 0:
        return 0
    count = 0
    for b in boxes:
        if sealed[b] <= open_layer:
            count += 1
    return count
