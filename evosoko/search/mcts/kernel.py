"""The compiled loop of Monte Carlo tree search: selection, expansion, rollout, backup.

One iteration, from the root (the start position):

1. **Selection** follows edges by PUCT, ``Q(child) + c * P(edge) * sqrt(N(node) + 1) /
   (1 + N(edge))``: ``Q`` the child's mean reward (shared by every path into the position), ``P``
   the edge's prior, an edge never followed valued at the node's own mean. Lost children and
   nodes already on the path (a push sequence that comes back to a position) are not chosen.
   Following an edge for the first time looks its position up in the hash table: a known
   position is linked (a transposition), a new one stored, and selection stops there.
2. **Expansion** of the leaf selection ends on: its candidate pushes become its edges, their
   priors the policy's softmax mixed with a uniform share. A leaf with no candidate is lost.
3. **Rollout** from the leaf: up to ``ROLLOUT_PUSHES`` candidate pushes, each drawn with
   probability proportional to ``exp(gain / TEMPERATURE)`` (``gain``: how much the push brings
   the objective down, :func:`evosoko.search.mcts.rules.push_gains`), ending early in a lost
   position (no candidate, boxes that no longer match goals) or a solved one. The reward is
   ``1 - d / d0`` (``d`` the lowest objective along the rollout, ``d0`` the start's; at least 0),
   times ``LOST_FACTOR`` when the rollout ended lost; a solved position ends the search.
   When every edge of a node comes back to the path, the rollout starts from that node.
4. **Backup** adds the reward and a visit to every node and edge of the path. A node whose
   edges have all been followed to lost nodes is lost too (and so on up the path); when the root
   is lost, or every position reachable by candidate pushes is in the tree and expanded, the
   level is proven unsolvable (the candidate pushes lose no solution).

The rules (positions, candidate pushes, the objective, the policy's gains) come from
:mod:`evosoko.search.mcts.rules` alone, or on a given-holes level from
:mod:`evosoko.search.mcts.holes` (:mod:`evosoko.search.mcts.variants` picks one by the type of
the arrays; the kernel compiles once per variant). Calls are sliced: a call runs at most
``ITERATION_CHUNK`` iterations and stops after ``WORK_LIMIT`` work units (cells walked, boxes
examined, matching steps) at the next push of a rollout, keeping the rollout's state in the
counters and the scratch, so the next call goes on where this one stopped: the search is the
same, step for step, however it is sliced. Randomness comes from a splitmix64 generator whose
state is an argument: a seed gives one search.

Only the entry point and the two phases it inlines take the named tuples; the helpers take
the arrays they read (each compiled function that takes a tuple of arrays costs compile time,
and each inlined call site more).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from evosoko.search.mcts.tree import (
    BEST_DISTANCE,
    BEST_LENGTH,
    CORRALS,
    DISTANCE,
    E_CHILD,
    E_PUSH,
    E_VISITS,
    EDGES,
    EXPANDED,
    EXPLORATION,
    FROZEN,
    ITERATION_CHUNK,
    ITERATIONS,
    LEAF,
    LEAVES,
    LOST,
    LOST_FACTOR,
    MATCHED,
    MEASURE,
    N_DISTANCE,
    N_EDGE_COUNT,
    N_FIRST_EDGE,
    N_ON_PATH,
    N_PARENT,
    N_PLAYER,
    N_STATUS,
    N_VIA,
    N_VISITS,
    NODES,
    ON_GOALS,
    PATH_EDGE,
    PATH_EDGES,
    PATH_LENGTH,
    PATH_NODE,
    PHASE,
    PLAYER,
    PRIOR_UNIFORM,
    PUSHES_BEST,
    PUSHES_NOW,
    REHASH,
    ROLLING_OUT,
    ROLLOUT_BEST,
    ROLLOUT_BEST_STEP,
    ROLLOUT_PUSHES,
    ROLLOUT_STEP,
    SELECTING,
    SOLUTION_LENGTH,
    SOLVED,
    STAMP,
    TEMPERATURE,
    TRANSPOSITIONS,
    UNTRIED,
    WORK,
    WORK_LIMIT,
    BoxPush,
    NodeRow,
    RolloutState,
)
from evosoko.search.mcts.variants import (
    assigned_goal,
    candidate_gains,
    candidates,
    is_matched,
    normalized_player,
    objective,
    objective_after_push,
    play_push,
    start_position,
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.zobrist import boxes_hash

# ---- kernel return codes ------------------------------------------------------------------------
CONTINUE, FOUND, EXHAUSTED, NEED_SPACE = 0, 1, 2, 3
"""CONTINUE: the call's budget ran out; FOUND: the solution is in ``pushes[PUSHES_NOW]``;
EXHAUSTED: the level is proven unsolvable; NEED_SPACE: the arrays must grow first."""

_ROLLOUT, _BACKUP = 4, 5  # what selection hands on to (or FOUND)
_PAUSED, _DONE = 6, 7  # how a rollout call ends (or FOUND)
NO_NODE = np.int64(-1)  # typed: a literal would compile specializations of its own
_GAIN_CAP = 4.0  # policy gains are clipped to +-4 (a push into a far region is just "bad")


# ---- random numbers -----------------------------------------------------------------------------
@numba.njit(cache=True)
def random_unit(rng):  # pragma: no cover - compiled
    """A float in [0, 1) from the splitmix64 generator whose state is ``rng[0]`` (uint64)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True)
def _softmax(weights, count, temperature):  # pragma: no cover - compiled
    """Turn the gains in ``weights[:count]`` into unnormalized softmax weights; returns their
    sum."""
    top = -np.inf
    for c in range(count):
        weights[c] = min(max(weights[c], -_GAIN_CAP), _GAIN_CAP) / temperature
        top = max(top, weights[c])
    total = 0.0
    for c in range(count):
        weights[c] = math.exp(weights[c] - top)
        total += weights[c]
    return total


@numba.njit(cache=True)
def _draw(weights, count, total, rng):  # pragma: no cover - compiled
    """A candidate drawn with probability ``weights[c] / total``."""
    threshold = random_unit(rng) * total
    for c in range(count):
        threshold -= weights[c]
        if threshold < 0.0:
            return c
    return count - 1


@numba.njit(cache=True)
def _table_work(cells, box_count, frozen_count, before):  # pragma: no cover - compiled
    """Work units of a push or a start (``before`` -1) that found ``frozen_count`` boxes frozen
    on goals: a new frozen box rebuilds the push distances to the goals left, a start clears
    the board's marks."""
    work = box_count + (cells if before < 0 else 0)
    if frozen_count > before and frozen_count > 0:
        work += (box_count - frozen_count + 1) * cells
    return work


# ---- the tree -----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _find(slots, key_of, nodes, boxes_of, key, player, boxes):  # pragma: no cover - compiled
    """(slot, node) of the position (node -1 and its free slot when it is not stored)."""
    mask = slots.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        node = slots[slot]
        if node < 0:
            return slot, np.int64(-1)
        if key_of[node] == key and nodes[node, N_PLAYER] == player:
            same = True
            for k in range(boxes.shape[0]):
                if boxes_of[node, k] != boxes[k]:
                    same = False
                    break
            if same:
                return slot, node
        slot = (slot + 1) & mask


@numba.njit(cache=True)
def _rehash(slots, key_of, count):  # pragma: no cover - compiled
    """Put nodes ``0 .. count-1`` into the empty table ``slots`` (their positions are distinct)."""
    mask = slots.shape[0] - 1
    for node in range(count):
        slot = np.int64(key_of[node] & np.uint64(mask))
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = node


@numba.njit(cache=True, inline="always")
def _store(tree, counters, slot, key, boxes, row):  # pragma: no cover - compiled
    """Store a new node (its key, ``boxes`` and the fields of ``row``, a :class:`NodeRow`) in
    ``slot`` of the tree's table; returns its id. Inlined: it takes the tree."""
    nodes = tree.nodes
    node = counters[NODES]
    counters[NODES] += 1
    tree.slots[slot] = node
    tree.key[node] = key
    for k in range(boxes.shape[0]):
        tree.boxes[node, k] = boxes[k]
    tree.value[node] = 0.0
    nodes[node, N_PLAYER] = row.player
    nodes[node, N_VISITS] = 0
    nodes[node, N_DISTANCE] = row.distance
    nodes[node, N_STATUS] = row.status
    nodes[node, N_FIRST_EDGE] = 0
    nodes[node, N_EDGE_COUNT] = 0
    nodes[node, N_PARENT] = row.parent
    nodes[node, N_VIA] = row.via
    nodes[node, N_ON_PATH] = 0
    if row.status == LEAF:
        counters[LEAVES] += 1
    return node


@numba.njit(cache=True)
def _choose(nodes, value, edges, prior, node, stamp, exploration):  # pragma: no cover
    """The edge PUCT picks at ``node`` (-1: none can be followed); and whether every edge leads
    to a lost node."""
    first = nodes[node, N_FIRST_EDGE]
    visits = nodes[node, N_VISITS]
    mean = value[node] / visits if visits > 0 else 0.0
    scale = exploration * math.sqrt(visits + 1.0)
    best = np.int64(-1)
    best_score = -np.inf
    all_lost = True
    for edge in range(first, first + nodes[node, N_EDGE_COUNT]):
        child = edges[edge, E_CHILD]
        q = mean
        if child >= 0:
            if nodes[child, N_STATUS] == LOST:
                continue
            all_lost = False
            if nodes[child, N_ON_PATH] == stamp:
                continue
            if nodes[child, N_VISITS] > 0:
                q = value[child] / nodes[child, N_VISITS]
        else:
            all_lost = False
        score = q + scale * prior[edge] / (1.0 + edges[edge, E_VISITS])
        if score > best_score:
            best_score = score
            best = edge
    return best, all_lost


@numba.njit(cache=True)
def _propagate_lost(nodes, edges, path, counters):  # pragma: no cover - compiled
    """Mark lost the nodes of the path, from its end up, whose edges all lead to lost nodes."""
    for i in range(counters[PATH_LENGTH] - 1, -1, -1):
        node = path[PATH_NODE, i]
        if nodes[node, N_STATUS] == LOST:
            continue
        if nodes[node, N_STATUS] != EXPANDED:
            return
        first = nodes[node, N_FIRST_EDGE]
        for edge in range(first, first + nodes[node, N_EDGE_COUNT]):
            child = edges[edge, E_CHILD]
            if child < 0 or nodes[child, N_STATUS] != LOST:
                return
        nodes[node, N_STATUS] = LOST


@numba.njit(cache=True)
def _backup(nodes, value, edges, path, counters, reward):  # pragma: no cover - compiled
    for i in range(counters[PATH_LENGTH]):
        node = path[PATH_NODE, i]
        nodes[node, N_VISITS] += 1
        value[node] += reward
    for i in range(counters[PATH_EDGES]):
        edges[path[PATH_EDGE, i], E_VISITS] += 1


@numba.njit(cache=True)
def _write_path_pushes(edges, path, pushes, counters):  # pragma: no cover - compiled
    """Write the pushes of the path's edges to ``pushes[PUSHES_NOW]``; returns how many."""
    length = counters[PATH_EDGES]
    for i in range(length):
        pushes[PUSHES_NOW, i] = edges[path[PATH_EDGE, i], E_PUSH]
    return length


@numba.njit(cache=True)
def _keep_best(pushes, counters, distance, length):  # pragma: no cover - compiled
    """Remember ``pushes[PUSHES_NOW, :length]`` as the way to the best position when
    ``distance`` beats the best so far."""
    if distance < counters[BEST_DISTANCE]:
        counters[BEST_DISTANCE] = distance
        counters[BEST_LENGTH] = length
        for i in range(length):
            pushes[PUSHES_BEST, i] = pushes[PUSHES_NOW, i]


@numba.njit(cache=True)
def _begin_rollout(edges, path, pushes, counters, state):  # pragma: no cover - compiled
    """Set up a rollout from ``state`` (a :class:`RolloutState`) after the path's pushes."""
    _write_path_pushes(edges, path, pushes, counters)
    counters[PHASE] = ROLLING_OUT
    counters[PLAYER] = state.player
    counters[FROZEN] = state.frozen_count
    counters[ON_GOALS] = state.on_goals
    counters[DISTANCE] = state.distance
    counters[MATCHED] = 1 if state.matched else 0
    counters[ROLLOUT_STEP] = 0
    counters[ROLLOUT_BEST] = state.distance
    counters[ROLLOUT_BEST_STEP] = 0


# ---- the two phases (inlined into the entry point: they take the tuples) ------------------------
@numba.njit(cache=True, inline="always")
def _select(arrays, scratch, tree, parameters, counters, start, weights):
    # pragma: no cover - compiled
    """Selection and expansion (the first call stores the root); returns _ROLLOUT (the
    rollout is set up), _BACKUP (reward 0: the path ended in a lost node), FOUND or EXHAUSTED
    (the start is lost)."""
    nodes, edges, path, pushes = tree.nodes, tree.edges, tree.path, tree.pushes
    params, real = parameters.params, parameters.real
    start_boxes, start_player = start.boxes, start.player
    measure = params[MEASURE]
    box_count = start_boxes.shape[0]
    deltas = arrays.deltas
    counters[STAMP] += 1
    stamp = counters[STAMP]
    counters[PATH_LENGTH] = 0
    counters[PATH_EDGES] = 0
    frozen_count, on_goals = start_position(arrays, scratch, start_boxes)
    counters[WORK] += _table_work(arrays.floor.shape[0], box_count, frozen_count, NO_NODE)
    box_hash = boxes_hash(arrays.zobrist_box, start_boxes)
    player = start_player
    node = NO_NODE  # the last node of the path
    edge = NO_NODE  # the edge that led to the scratch's position (none at the start)
    code = np.int64(0)
    child = np.int64(0) if counters[NODES] > 0 else NO_NODE  # the root is node 0
    fresh = False  # the scratch's assignment is the matching of the position
    while True:
        # the scratch holds the position of ``child`` (-1: not linked yet), reached by ``edge``
        if child < 0:
            smallest = normalized_player(arrays, scratch, player)
            counters[WORK] += arrays.floor_cells
            key = box_hash ^ arrays.zobrist_player[smallest]
            slot, child = _find(
                tree.slots, tree.key, nodes, tree.boxes, key, smallest, scratch.boxes
            )
            if edge >= 0:
                counters[UNTRIED] -= 1
            if child >= 0:
                counters[TRANSPOSITIONS] += 1
            else:
                distance = UNREACHABLE
                if frozen_count >= 0:
                    distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
                    counters[WORK] += box_count * box_count * box_count
                    fresh = True
                status = LEAF
                if on_goals == box_count:
                    status = SOLVED
                elif frozen_count < 0 or distance >= UNREACHABLE:
                    status = LOST
                row = NodeRow(smallest, distance, status, node, code)
                child = _store(tree, counters, slot, key, scratch.boxes, row)
                length = _write_path_pushes(edges, path, pushes, counters)
                if status == SOLVED:
                    counters[SOLUTION_LENGTH] = length
                    return FOUND
                _keep_best(pushes, counters, distance, length)
            if edge >= 0:
                edges[edge, E_CHILD] = child
        if nodes[child, N_STATUS] == LOST:
            if node < 0:
                return EXHAUSTED
            _propagate_lost(nodes, edges, path, counters)
            return _BACKUP
        if nodes[child, N_ON_PATH] == stamp:
            break  # a new link back to the path: roll out from here
        node = child
        path[PATH_NODE, counters[PATH_LENGTH]] = node
        counters[PATH_LENGTH] += 1
        nodes[node, N_ON_PATH] = stamp
        if nodes[node, N_STATUS] == LEAF:
            break
        edge, all_lost = _choose(
            nodes, tree.value, edges, tree.prior, node, stamp, real[EXPLORATION]
        )
        if edge < 0:
            if not all_lost:
                break  # every way on comes back to the path: roll out from here
            nodes[node, N_STATUS] = LOST
            _propagate_lost(nodes, edges, path, counters)
            return _BACKUP
        code = edges[edge, E_PUSH]
        box, direction = code >> 2, code & 3
        target = box + deltas[direction]
        before = frozen_count
        frozen_count, gained = play_push(arrays, scratch, box, direction, frozen_count)
        counters[WORK] += _table_work(arrays.floor.shape[0], box_count, frozen_count, before)
        on_goals += gained
        player = box
        box_hash ^= arrays.zobrist_box[box] ^ arrays.zobrist_box[target]
        path[PATH_EDGE, counters[PATH_EDGES]] = edge
        counters[PATH_EDGES] += 1
        child = edges[edge, E_CHILD]
        fresh = False
    # roll out from the scratch's position: a leaf (expanded first) or a node whose ways on
    # all come back to the path
    if fresh:  # the leaf was just stored: its matching is in the scratch
        distance = nodes[node, N_DISTANCE]
    else:
        distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
        counters[WORK] += box_count * box_count * box_count
    matched = is_matched(arrays, measure, frozen_count)
    if nodes[node, N_STATUS] == LEAF:
        count, _ = candidates(arrays, params[CORRALS] != 0, scratch, player, frozen_count)
        counters[WORK] += arrays.floor_cells + 4 * box_count
        counters[LEAVES] -= 1
        if count == 0:
            nodes[node, N_STATUS] = LOST
            if node == 0:
                return EXHAUSTED
            _propagate_lost(nodes, edges, path, counters)
            return _BACKUP
        candidate_gains(arrays, measure, scratch, frozen_count, matched, count, weights)
        total = _softmax(weights, count, real[TEMPERATURE])
        first = counters[EDGES]
        uniform = real[PRIOR_UNIFORM]
        for c in range(count):
            edge = first + c
            edges[edge, E_CHILD] = NO_NODE
            edges[edge, E_PUSH] = scratch.out_box[c] * 4 + scratch.out_direction[c]
            edges[edge, E_VISITS] = 0
            tree.prior[edge] = (1.0 - uniform) * weights[c] / total + uniform / count
        counters[EDGES] += count
        counters[UNTRIED] += count
        nodes[node, N_FIRST_EDGE] = first
        nodes[node, N_EDGE_COUNT] = count
        nodes[node, N_STATUS] = EXPANDED
    state = RolloutState(player, frozen_count, on_goals, distance, matched)
    _begin_rollout(edges, path, pushes, counters, state)
    return _ROLLOUT


@numba.njit(cache=True, inline="always")
def _rollout(arrays, scratch, tree, parameters, counters, rng, weights, work_limit):
    # pragma: no cover - compiled
    """Play the rollout on from its saved state; returns (_PAUSED, 0) when the work limit cut
    it, (FOUND, 1) when it solved the level, else (_DONE, its reward)."""
    pushes = tree.pushes
    params, real = parameters.params, parameters.real
    measure = params[MEASURE]
    corrals = params[CORRALS] != 0
    deltas = arrays.deltas
    box_count = scratch.boxes.shape[0]
    temperature = real[TEMPERATURE]
    limit = params[ROLLOUT_PUSHES]
    offset = counters[PATH_EDGES]
    player = counters[PLAYER]
    frozen_count = counters[FROZEN]
    on_goals = counters[ON_GOALS]
    distance = counters[DISTANCE]
    matched = counters[MATCHED] == 1
    step = counters[ROLLOUT_STEP]
    best = counters[ROLLOUT_BEST]
    best_step = counters[ROLLOUT_BEST_STEP]
    lost = False
    solved = False
    while step < limit:
        if counters[WORK] >= work_limit:
            counters[PLAYER] = player
            counters[FROZEN] = frozen_count
            counters[ON_GOALS] = on_goals
            counters[DISTANCE] = distance
            counters[MATCHED] = 1 if matched else 0
            counters[ROLLOUT_STEP] = step
            counters[ROLLOUT_BEST] = best
            counters[ROLLOUT_BEST_STEP] = best_step
            return _PAUSED, 0.0
        count, _ = candidates(arrays, corrals, scratch, player, frozen_count)
        counters[WORK] += arrays.floor_cells + 4 * box_count
        if count == 0:
            lost = True
            break
        candidate_gains(arrays, measure, scratch, frozen_count, matched, count, weights)
        choice = _draw(weights, count, _softmax(weights, count, temperature), rng)
        box = scratch.out_box[choice]
        direction = scratch.out_direction[choice]
        target = box + deltas[direction]
        goal = assigned_goal(scratch, box) if matched else np.int64(-1)
        frozen_before = frozen_count
        frozen_count, gained = play_push(arrays, scratch, box, direction, frozen_count)
        counters[WORK] += _table_work(arrays.floor.shape[0], box_count, frozen_count, frozen_before)
        on_goals += gained
        player = box
        pushes[PUSHES_NOW, offset + step] = box * 4 + direction
        step += 1
        if on_goals == box_count:
            solved = True
            break
        if frozen_count < 0:
            lost = True
            break
        before = matched
        distance, matched = objective_after_push(
            arrays, measure, scratch, frozen_count, distance, matched, BoxPush(goal, box, target)
        )
        if not before or not matched or frozen_count > 0:
            counters[WORK] += box_count * box_count * box_count
        if distance >= UNREACHABLE:
            lost = True
            break
        if distance < best:
            best = distance
            best_step = step
    counters[PHASE] = SELECTING
    if solved:
        counters[SOLUTION_LENGTH] = offset + step
        return FOUND, 1.0
    _keep_best(pushes, counters, best, offset + best_step)
    reward = max(0.0, 1.0 - best / max(tree.nodes[0, N_DISTANCE], 1))
    if lost:
        reward *= real[LOST_FACTOR]
    return _DONE, reward


# ---- the entry point ----------------------------------------------------------------------------
@numba.njit(cache=True)
def mcts_search(
    arrays, scratch, tree, start, parameters, counters, rng, weights
):  # pragma: no cover - compiled
    """Run iterations from ``start`` (a :class:`~evosoko.search.mcts.tree.Start`) until a limit
    of the call, a solution or a proof; returns CONTINUE, FOUND, EXHAUSTED or NEED_SPACE (the
    tree must grow before the next iteration). ``parameters``: the
    :class:`~evosoko.search.mcts.tree.KernelParameters`.

    ``weights`` is float64 scratch with a slot per candidate push (``4 * boxes``)."""
    if counters[REHASH] != 0:
        _rehash(tree.slots, tree.key, counters[NODES])
        counters[REHASH] = 0
    params = parameters.params
    box_count = start.boxes.shape[0]
    work_limit = counters[WORK] + params[WORK_LIMIT]
    done = 0
    while True:
        reward = 0.0
        if counters[PHASE] == SELECTING:
            if done >= params[ITERATION_CHUNK] or counters[WORK] >= work_limit:
                return CONTINUE
            if (
                counters[NODES] + 1 > tree.key.shape[0]
                or counters[EDGES] + 4 * box_count > tree.prior.shape[0]
            ):
                return NEED_SPACE
            outcome = _select(arrays, scratch, tree, parameters, counters, start, weights)
            if outcome == FOUND:
                counters[ITERATIONS] += 1  # the iteration that found it counts
                return FOUND
            if outcome == EXHAUSTED:
                return EXHAUSTED
        if counters[PHASE] == ROLLING_OUT:
            ending, reward = _rollout(
                arrays, scratch, tree, parameters, counters, rng, weights, work_limit
            )
            if ending == _PAUSED:
                return CONTINUE
            if ending == FOUND:
                counters[ITERATIONS] += 1
                return FOUND
        _backup(tree.nodes, tree.value, tree.edges, tree.path, counters, reward)
        counters[ITERATIONS] += 1
        done += 1
        if tree.nodes[0, N_STATUS] == LOST or (counters[LEAVES] == 0 and counters[UNTRIED] == 0):
            return EXHAUSTED
