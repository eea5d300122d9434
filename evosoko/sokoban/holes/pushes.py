"""The push rules of the given-holes variant (:mod:`evosoko.sokoban.holes.board`), compiled.

The counterpart of :mod:`evosoko.sokoban.pushes` for levels whose boxes vanish in their own
holes: the tables a push under these rules reads (:class:`HolesTables`, built once per level
and objective), whether a push loses the level (:func:`loses`) and the
candidate pushes of a position (:func:`holes_candidates`). The GA's given-holes replay
(:mod:`evosoko.evolve.given_holes`) and Monte Carlo tree search (:mod:`evosoko.search.mcts.holes`)
both play by them.

A push loses the level when the box lands (not in its own hole) on a cell from which it can no
longer reach its hole, or is frozen there: a frozen box never reaches its hole, on a hole or
not (the freeze test of :mod:`evosoko.sokoban.freeze`, called with no goals). Frozen goals,
the matching and PI-corrals do not hold once boxes vanish.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.sokoban.freeze import freeze_deadlock
from evosoko.sokoban.holes.board import VANISHED, given_pairing
from evosoko.sokoban.level import UNREACHABLE, Level
from evosoko.sokoban.rules import delta_array
from evosoko.sokoban.zobrist import ZOBRIST_SEED


class HolesRule(NamedTuple):
    """The arrays the push tests read (:func:`loses`, :func:`holes_candidates`); small, since
    those helpers take it at every push."""

    floor: np.ndarray  # bool[cells]
    dead: np.ndarray  # bool[cells]: dead for every hole (the freeze test's dead squares)
    no_goals: np.ndarray  # bool[cells], all False: the freeze test excuses no box
    deltas: np.ndarray  # int64[4]
    lost: np.ndarray  # bool[boxes, cells]: cells from which a box can never reach its hole
    holes: np.ndarray  # int64[boxes]


class HolesTables(NamedTuple):
    """What a push under the given-holes rules reads, built once per level and objective."""

    rule: HolesRule
    distance: np.ndarray  # int64[boxes, cells]: each box's distance to its own hole
    start_player: int
    start_boxes: np.ndarray  # int64[boxes], by box number
    box_keys: np.ndarray  # uint64[boxes, cells]
    player_keys: np.ndarray  # uint64[cells]


def holes_tables(level: Level, objective: str = "matching") -> HolesTables:
    """The tables of a given-holes ``level`` for ``objective`` (``manhattan``: each box's
    Manhattan distance to its hole; any other: its lone-box push distance)."""
    pairing = given_pairing(level)
    push = np.array([level.push_distance[row] for row in pairing.goal_rows], dtype=np.int64)
    lost = push >= UNREACHABLE
    if objective == "manhattan":
        rows, columns = np.divmod(np.arange(level.cells), level.width)
        distance = np.array(
            [
                np.abs(rows - level.position(hole)[0]) + np.abs(columns - level.position(hole)[1])
                for hole in pairing.holes
            ],
            dtype=np.int64,
        )
    else:
        distance = push
    keys = np.random.default_rng(ZOBRIST_SEED + 1).integers(
        0, 2**64, size=(len(pairing.holes) + 1, level.cells), dtype=np.uint64, endpoint=False
    )
    rule = HolesRule(
        floor=np.ascontiguousarray(level.floor, dtype=np.bool_),
        dead=np.ascontiguousarray(level.dead_squares, dtype=np.bool_),
        no_goals=np.zeros(level.cells, dtype=np.bool_),
        deltas=np.array(delta_array(level.width)),
        lost=np.ascontiguousarray(lost),
        holes=np.array(pairing.holes, dtype=np.int64),
    )
    return HolesTables(
        rule=rule,
        distance=np.ascontiguousarray(distance),
        start_player=int(level.start.player),
        start_boxes=np.array(level.start.boxes, dtype=np.int64),
        box_keys=np.ascontiguousarray(keys[:-1]),
        player_keys=np.ascontiguousarray(keys[-1]),
    )


@numba.njit(cache=True, inline="always")
def loses(rule, occupied, box, target, scratch):  # pragma: no cover - compiled
    """Whether pushing box number ``box`` onto ``target`` (not its hole) loses the level:
    ``target`` is lost for that box, or the box is frozen there (``occupied`` already shows the
    box on ``target``)."""
    if rule.lost[box, target]:
        return True
    return freeze_deadlock(
        rule.floor, rule.dead, rule.no_goals, occupied, rule.deltas, target, scratch
    )


@numba.njit(cache=True)
def holes_candidates(
    rule, where, occupied, mark, stamp, scratch, out_box, out_direction
):  # pragma: no cover - compiled
    """The candidate pushes of a position into ``out_box`` (the box's cell) and
    ``out_direction``, in order of box number then direction ``u d l r``; returns their count.

    ``where``: each box's cell (``VANISHED`` once in its hole); ``mark == stamp`` marks the
    player's area. A candidate is legal and does not lose the level (:func:`loses`): the box
    vanishes in its own hole, or lands on a cell from which it can still reach it and is not
    frozen there. ``occupied`` is as it was on return."""
    floor, dead, no_goals, deltas, lost, holes = rule
    count = 0
    for b in range(where.shape[0]):
        cell = where[b]
        if cell == VANISHED:
            continue
        for k in range(4):
            target = cell + deltas[k]
            if mark[cell - deltas[k]] != stamp or not floor[target] or occupied[target]:
                continue
            if target != holes[b]:
                if lost[b, target]:
                    continue
                occupied[cell] = False
                occupied[target] = True
                frozen = freeze_deadlock(floor, dead, no_goals, occupied, deltas, target, scratch)
                occupied[target] = False
                occupied[cell] = True
                if frozen:
                    continue
            out_box[count] = cell
            out_direction[count] = k
            count += 1
    return count
