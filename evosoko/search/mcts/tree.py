"""The tree of Monte Carlo tree search in flat arrays, and its counters and parameters.

Nodes are positions (sorted box cells and the normalized player), each stored once: a hash
table of Zobrist keys (:mod:`evosoko.sokoban.zobrist`, checked against the boxes and the player
on every hit) finds a position reached again by another order of pushes (a *transposition*),
so the tree is a graph whose statistics every path into a position shares. Each node that has
been expanded owns a run of edges, one per candidate push of its position, in the rules'
canonical order; an edge's child is made the first time the edge is followed.

A node is a row of ``nodes`` (the integer fields ``N_*``) with its key, boxes and summed reward;
it keeps the parent and push by which it was first reached, so every node has a path from the
root. An edge is a row of ``edges`` (``E_*``: the child, -1 until followed; the push, ``box * 4
+ direction``; visits) and the rollout policy's prior. The arrays grow by doubling
(:func:`grown`); the kernel (:mod:`evosoko.search.mcts.kernel`) rebuilds the hash table after.
A handful of arrays, not one per field: every compiled function that takes them pays a reference
count per array per call and some compile time per array.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ---- node fields (columns of MctsTree.nodes) ----------------------------------------------------
(
    N_PLAYER,  # normalized player cell
    N_VISITS,  # iterations that passed through the node
    N_DISTANCE,  # the objective of the position
    N_STATUS,  # LEAF, EXPANDED, LOST or SOLVED
    N_FIRST_EDGE,  # its edges are rows N_FIRST_EDGE .. + N_EDGE_COUNT - 1 of ``edges``
    N_EDGE_COUNT,
    N_PARENT,  # the node it was first reached from (-1: the root)
    N_VIA,  # by which push (box * 4 + direction)
    N_ON_PATH,  # the STAMP of the last iteration whose path held it
    NODE_FIELDS,
) = range(10)

# ---- edge fields (columns of MctsTree.edges) ----------------------------------------------------
E_CHILD, E_PUSH, E_VISITS, EDGE_FIELDS = range(4)

# ---- node status --------------------------------------------------------------------------------
LEAF, EXPANDED, LOST, SOLVED = 0, 1, 2, 3
"""A leaf has no edges yet; a lost node is proven lost (no candidate push, boxes that cannot be
matched to goals, or every push leads to a lost node); a solved node has every box on a goal."""

# ---- counters (int64 array, kept between kernel calls) ------------------------------------------
(
    NODES,  # nodes stored
    EDGES,  # edges stored
    ITERATIONS,  # iterations run (selection, expansion, rollout, backup)
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

# ---- integer parameters (int64 array) -----------------------------------------------------------
(
    ITERATION_CHUNK,  # iterations per kernel call at most
    WORK_LIMIT,  # work units per kernel call (a rollout is cut and continued on the next call)
    MEASURE,  # the objective's code (evosoko.sokoban.matching)
    CORRALS,  # restrict candidates to a PI-corral's barrier
    ROLLOUT_PUSHES,  # pushes a rollout makes at most
    PARAM_COUNT,
) = range(6)

# ---- real parameters (float64 array) ------------------------------------------------------------
EXPLORATION, TEMPERATURE, LOST_FACTOR, PRIOR_UNIFORM, REAL_COUNT = range(5)

# ---- rows of MctsTree.path and MctsTree.pushes --------------------------------------------------
PATH_NODE, PATH_EDGE = 0, 1
PUSHES_NOW, PUSHES_BEST = 0, 1
"""``pushes[PUSHES_NOW]``: the pushes of the current path and rollout (the solution, once found);
``pushes[PUSHES_BEST]``: the pushes to the best position reached."""


class KernelParameters(NamedTuple):
    """The kernel's parameters: the integer ones and the real ones."""

    params: np.ndarray  # int64[PARAM_COUNT]: ITERATION_CHUNK, WORK_LIMIT, ...
    real: np.ndarray  # float64[REAL_COUNT]: EXPLORATION, TEMPERATURE, ...


class Start(NamedTuple):
    """The start position every iteration begins from."""

    boxes: np.ndarray  # int64[B]: the box cells (sorted; given holes: by box number)
    player: int  # the player's cell


class NodeRow(NamedTuple):
    """A new node's fields besides its key and boxes (the ``N_*`` columns they fill)."""

    player: int  # N_PLAYER
    distance: int  # N_DISTANCE
    status: int  # N_STATUS
    parent: int  # N_PARENT
    via: int  # N_VIA


class RolloutState(NamedTuple):
    """Where a rollout stands (kept in the counters between calls: ``PLAYER`` .. ``MATCHED``)."""

    player: int  # the player's cell
    frozen_count: int  # boxes frozen on goals (-1: a box frozen off a goal)
    on_goals: int  # boxes on goals
    distance: int  # the objective
    matched: bool  # the scratch's assignment is an optimal matching


class BoxPush(NamedTuple):
    """A push a rollout made: the pushed box's goal row (its number, on given holes) and the
    cells it went from and to."""

    goal: int
    box: int
    target: int


class MctsTree(NamedTuple):
    """The tree's arrays (``C`` nodes, ``E`` edges, ``T`` hash slots, ``B`` boxes, ``R`` pushes
    a rollout makes at most)."""

    nodes: np.ndarray  # int64[C, NODE_FIELDS]
    key: np.ndarray  # uint64[C]: Zobrist hash (boxes and normalized player)
    boxes: np.ndarray  # int32[C, B]: sorted box cells
    value: np.ndarray  # float64[C]: summed reward
    edges: np.ndarray  # int64[E, EDGE_FIELDS]
    prior: np.ndarray  # float64[E]: the rollout policy's probability of the push
    slots: np.ndarray  # int64[T]: hash table of node ids (-1: empty), T = 2 * C
    path: np.ndarray  # int64[2, C + 1]: the current iteration's nodes and edges
    pushes: np.ndarray  # int64[2, C + R + 1]: see PUSHES_NOW, PUSHES_BEST

    @property
    def capacity(self) -> int:
        """Nodes the arrays hold."""
        return len(self.key)

    @property
    def edge_capacity(self) -> int:
        """Edges the arrays hold."""
        return len(self.prior)


def new_tree(capacity: int, edge_capacity: int, box_count: int, rollout_pushes: int) -> MctsTree:
    """An empty tree for ``capacity`` nodes (a power of two) and ``edge_capacity`` edges."""
    return MctsTree(
        nodes=np.zeros((capacity, NODE_FIELDS), dtype=np.int64),
        key=np.zeros(capacity, dtype=np.uint64),
        boxes=np.zeros((capacity, box_count), dtype=np.int32),
        value=np.zeros(capacity, dtype=np.float64),
        edges=np.zeros((edge_capacity, EDGE_FIELDS), dtype=np.int64),
        prior=np.zeros(edge_capacity, dtype=np.float64),
        slots=np.full(2 * capacity, -1, dtype=np.int64),
        path=np.zeros((2, capacity + 1), dtype=np.int64),
        pushes=np.zeros((2, capacity + rollout_pushes + 1), dtype=np.int64),
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
    for name in ("nodes", "key", "boxes", "value"):
        getattr(bigger, name)[:nodes] = getattr(tree, name)[:nodes]
    for name in ("edges", "prior"):
        getattr(bigger, name)[:edges] = getattr(tree, name)[:edges]
    bigger.path[:, : tree.path.shape[1]] = tree.path
    bigger.pushes[:, : tree.pushes.shape[1]] = tree.pushes
    counters[REHASH] = 1
    return bigger


def tree_bytes(tree: MctsTree) -> int:
    """Memory the tree's arrays take."""
    return sum(array.nbytes for array in tree)
