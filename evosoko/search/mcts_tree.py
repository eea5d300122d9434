"""The tree of Monte Carlo tree search in flat arrays, and its counters and parameters.

Nodes are positions (sorted box cells and the normalized player), each stored once: a hash
table of Zobrist keys (:mod:`evosoko.sokoban.zobrist`, checked against the boxes and the player
on every hit) finds a position reached again by another order of pushes (a *transposition*),
so the tree is a graph whose statistics every path into a position shares. Each node that has
been expanded owns a run of edges, one per candidate push of its position, in the rules'
canonical order; an edge's child is made the first time the edge is followed.

Per node: its key, player, boxes, visits, summed reward, objective, status (leaf, expanded,
lost, solved), its edges, and the parent and push by which it was first reached (so every node
has a path from the root). Per edge: the push (``box * 4 + direction``), the child (-1 until
followed), visits and the rollout policy's prior. The arrays grow by doubling (:func:`grown`);
the kernel (:mod:`evosoko.search.mcts_kernel`) rebuilds the hash table after a growth.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ---- node status ---------------------------------------------------------------------------------
LEAF, EXPANDED, LOST, SOLVED = 0, 1, 2, 3
"""A leaf has no edges yet; a lost node is proven lost (no candidate push, boxes that cannot be
matched to goals, or every push leads to a lost node); a solved node has every box on a goal."""

# ---- counters (int64 array, kept between kernel calls) -------------------------------------------
(
    NODES,  # nodes stored
    EDGES,  # edges stored
    ITERATIONS,  # iterations finished (selection, expansion, rollout, backup)
    TRANSPOSITIONS,  # edges that led to a position already in the tree
    LEAVES,  # nodes not yet expanded (nor proven lost or solved)
    UNTRIED,  # edges never followed
    WORK,  # work units done (cells walked, boxes examined, matching steps)
    REHASH,  # 1: the arrays grew, rebuild the hash table first
    STAMP,  # the current iteration's mark of the nodes on its path
    PHASE,  # SELECTING (between iterations) or ROLLING_OUT (a rollout cut by the work limit)
    PATH_LENGTH,  # nodes on the current path (root first)
    PATH_EDGES,  # edges on the current path
    PLAYER,  # the rollout's position: player cell,
    FROZEN,  # boxes frozen on goals (-1: frozen off a goal),
    ON_GOALS,  # boxes on goals,
    DISTANCE,  # objective,
    MATCHED,  # 1 when the scratch's assignment is an optimal matching,
    ROLLOUT_STEP,  # pushes made in the rollout,
    ROLLOUT_BEST,  # lowest objective in the rollout so far,
    ROLLOUT_BEST_STEP,  # and after how many of its pushes
    SOLUTION_LENGTH,  # pushes of the solution (-1: none yet)
    BEST_DISTANCE,  # lowest objective reached (tree or rollout)
    BEST_LENGTH,  # pushes from the start to that position
    COUNTER_COUNT,
) = range(24)

SELECTING, ROLLING_OUT = 0, 1

# ---- integer parameters (int64 array) -------------------------------------------------------------
(
    ITERATION_CHUNK,  # iterations per kernel call at most
    WORK_LIMIT,  # work units per kernel call (a rollout is cut and continued on the next call)
    MEASURE,  # the objective's code (evosoko.sokoban.matching)
    CORRALS,  # restrict candidates to a PI-corral's barrier
    ROLLOUT_PUSHES,  # pushes a rollout makes at most
    ROOT_DISTANCE,  # the start's objective: rewards are measured against it
    PARAM_COUNT,
) = range(7)

# ---- real parameters (float64 array) -------------------------------------------------------------
EXPLORATION, TEMPERATURE, LOST_FACTOR, PRIOR_UNIFORM, REAL_COUNT = range(5)


class MctsTree(NamedTuple):
    """The tree's arrays (``C`` nodes, ``E`` edges, ``T`` hash slots, ``B`` boxes)."""

    key: np.ndarray  # uint64[C]: Zobrist hash (boxes and normalized player)
    player: np.ndarray  # int64[C]: normalized player cell
    boxes: np.ndarray  # int32[C, B]: sorted box cells
    visits: np.ndarray  # int64[C]: iterations that passed through the node
    value: np.ndarray  # float64[C]: their summed reward
    distance: np.ndarray  # int64[C]: the objective of the position
    status: np.ndarray  # int8[C]: LEAF, EXPANDED, LOST or SOLVED
    first_edge: np.ndarray  # int64[C]: the node's edges are first_edge .. + edge_count - 1
    edge_count: np.ndarray  # int64[C]
    parent: np.ndarray  # int64[C]: the node it was first reached from (-1: the root)
    via: np.ndarray  # int64[C]: by which push (box * 4 + direction)
    on_path: np.ndarray  # int64[C]: STAMP of the last iteration whose path held the node
    path_nodes: np.ndarray  # int64[C + 1]: the current iteration's path
    path_edges: np.ndarray  # int64[C + 1]: and the edges between them
    pushes: np.ndarray  # int64[C + R]: scratch for the pushes of a path and its rollout
    best: np.ndarray  # int64[C + R]: the pushes to the best position reached
    slots: np.ndarray  # int64[T]: hash table of node ids (-1: empty)
    edge_child: np.ndarray  # int64[E]: -1 until followed
    edge_push: np.ndarray  # int64[E]: box * 4 + direction
    edge_visits: np.ndarray  # int64[E]
    edge_prior: np.ndarray  # float64[E]: the rollout policy's probability of the push

    @property
    def capacity(self) -> int:
        """Nodes the arrays hold."""
        return len(self.key)

    @property
    def edge_capacity(self) -> int:
        """Edges the arrays hold."""
        return len(self.edge_child)


_EDGE_FIELDS = ("edge_child", "edge_push", "edge_visits", "edge_prior")
_BUFFER_FIELDS = ("pushes", "best", "path_nodes", "path_edges")


def new_tree(capacity: int, edge_capacity: int, box_count: int, rollout_pushes: int) -> MctsTree:
    """An empty tree for ``capacity`` nodes and ``edge_capacity`` edges."""
    return MctsTree(
        key=np.zeros(capacity, dtype=np.uint64),
        player=np.zeros(capacity, dtype=np.int64),
        boxes=np.zeros((capacity, box_count), dtype=np.int32),
        visits=np.zeros(capacity, dtype=np.int64),
        value=np.zeros(capacity, dtype=np.float64),
        distance=np.zeros(capacity, dtype=np.int64),
        status=np.zeros(capacity, dtype=np.int8),
        first_edge=np.zeros(capacity, dtype=np.int64),
        edge_count=np.zeros(capacity, dtype=np.int64),
        parent=np.full(capacity, -1, dtype=np.int64),
        via=np.zeros(capacity, dtype=np.int64),
        on_path=np.zeros(capacity, dtype=np.int64),
        path_nodes=np.zeros(capacity + 1, dtype=np.int64),
        path_edges=np.zeros(capacity + 1, dtype=np.int64),
        pushes=np.zeros(capacity + rollout_pushes + 1, dtype=np.int64),
        best=np.zeros(capacity + rollout_pushes + 1, dtype=np.int64),
        slots=np.full(2 * capacity, -1, dtype=np.int64),
        edge_child=np.full(edge_capacity, -1, dtype=np.int64),
        edge_push=np.zeros(edge_capacity, dtype=np.int64),
        edge_visits=np.zeros(edge_capacity, dtype=np.int64),
        edge_prior=np.zeros(edge_capacity, dtype=np.float64),
    )


def grown(tree: MctsTree, counters: np.ndarray, rollout_pushes: int) -> MctsTree:
    """A tree with room for one more expansion (one node and ``4 * B`` edges), doubling what
    is short, holding ``tree``'s nodes and edges; sets ``counters[REHASH]`` (the kernel then
    rebuilds the hash table)."""
    nodes, edges = int(counters[NODES]), int(counters[EDGES])
    box_count = tree.boxes.shape[1]
    capacity, edge_capacity = tree.capacity, tree.edge_capacity
    if nodes + 1 > capacity:
        capacity *= 2
    while edges + 4 * box_count > edge_capacity:
        edge_capacity *= 2
    bigger = new_tree(capacity, edge_capacity, box_count, rollout_pushes)
    for name in MctsTree._fields:
        old, new = getattr(tree, name), getattr(bigger, name)
        if name == "slots":
            continue
        if name in _EDGE_FIELDS:
            new[:edges] = old[:edges]
        elif name in _BUFFER_FIELDS:
            new[: len(old)] = old
        else:
            new[:nodes] = old[:nodes]
    counters[REHASH] = 1
    return bigger
