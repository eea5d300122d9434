"""The packing-order penalty of push fitness: goals filled out of plan count against a genome.

The matching distance rewards every box pushed onto a goal, whichever goal it is. In a goal room
that draws a population into filling the doorway first, which walls off the goals behind it: on
XSokoban the GA's best positions were mostly proved lost so (docs/xsokoban.md, round 18). With
``fitness.plan_weight`` > 0 each box on a goal filled too early (FESS's *out-of-plan* feature:
a goal of a layer after the first layer of the packing order with an empty goal, see
:mod:`evosoko.search.packing_order`) adds that weight to the distance of push genomes. Levels
whose goals all share one layer (goals in open floor) are scored exactly as without it.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.search.fess.space import packing_walk
from evosoko.search.packing_order import packing_order
from evosoko.sokoban.level import UNREACHABLE, Level


class PlanPenalty(NamedTuple):
    """What the replay kernel reads: each cell's packing layer (-1 off goals), the goals per
    layer, the weight per out-of-plan box (0: off) and a per-layer count scratch."""

    layer: np.ndarray  # int64[cells]
    goals_per_layer: np.ndarray  # int64[layers]
    ends: np.ndarray  # int64[layers]: all the layer count (one goal area)
    weight: int
    counts: np.ndarray  # int64[layers] scratch


def plan_penalty(level: Level | None, weight: int) -> PlanPenalty:
    """The :class:`PlanPenalty` of ``level`` (an empty one, off, when ``weight`` is 0)."""
    if weight <= 0 or level is None:
        empty = np.zeros(1, dtype=np.int64)
        return PlanPenalty(np.full(1, -1, dtype=np.int64), empty, empty.copy(), 0, empty.copy())
    order = packing_order(level)
    return PlanPenalty(
        order.layer.astype(np.int64),
        order.goals_per_layer,
        order.ends,
        int(weight),
        np.zeros(order.layers, dtype=np.int64),
    )


NO_PLAN = plan_penalty(None, 0)
"""The penalty that is off (the default of push tables)."""


def with_scratch(plan: PlanPenalty) -> PlanPenalty:
    """``plan`` with a count scratch of its own (one per kernel call)."""
    return plan._replace(counts=np.zeros_like(plan.counts))


@numba.njit(cache=True)
def out_of_plan(plan, boxes):  # pragma: no cover - compiled
    """Boxes on goals of a layer after the first layer with an empty goal."""
    return packing_walk(plan.layer, plan.goals_per_layer, plan.ends, boxes, plan.counts)[2]


@numba.njit(cache=True)
def penalized(plan, boxes, distance):  # pragma: no cover - compiled
    """``distance`` plus the plan's weight per out-of-plan box, kept below ``UNREACHABLE`` (a
    lost position's distance is left as it is: the penalty never makes or hides a deadlock)."""
    if plan.weight == 0 or distance == 0 or distance >= UNREACHABLE:
        return distance
    return min(distance + plan.weight * out_of_plan(plan, boxes), UNREACHABLE - 1)
