"""The compiled loop of Monte Carlo tree search: selection, expansion, rollout, backup.

One iteration, from the root (the start position):

1. **Selection** follows edges by PUCT, ``Q(child) + c * P(edge) * sqrt(N(node) + 1) /
   (1 + N(edge))``: ``Q`` the child's mean reward (shared by every path into the position), ``P``
   the rollout policy's probability of the push, an edge never followed valued at the node's
   own mean. Lost children and nodes already on the path (a push sequence that comes back to a
   position) are not chosen. Following an edge for the first time looks its position up in the
   hash table: a known position is linked (a transposition), a new one stored, and selection
   stops there.
2. **Expansion** of the leaf selection ends on: its candidate pushes become its edges, their
   priors the policy's softmax. A leaf with no candidate is lost.
3. **Rollout** from the leaf: up to ``ROLLOUT_PUSHES`` candidate pushes, each drawn with
   probability proportional to ``exp(gain / TEMPERATURE)`` (``gain``: how much the push brings
   the objective down, :func:`evosoko.search.mcts_rules.push_gain`), ending early in a lost
   position (no candidate, boxes that no longer match goals) or a solved one. The reward is
   ``1 - d / d0`` (``d`` the lowest objective along the rollout, ``d0`` the start's; at least 0),
   times ``LOST_FACTOR`` when the rollout ended lost; a solved position ends the search.
4. **Backup** adds the reward and a visit to every node and edge of the path. A node whose
   edges have all been followed to lost nodes is lost too (and so on up the path); when the root
   is lost, or every position reachable by candidate pushes is in the tree and expanded, the
   level is proven unsolvable (the candidate pushes lose no solution).

Calls are sliced: a call runs at most ``ITERATION_CHUNK`` iterations and stops after
``WORK_LIMIT`` work units (cells walked, boxes examined, matching steps) at the next push of a
rollout, keeping the rollout's state in the counters and the scratch, so the next call goes on
where this one stopped: the search is the same, step for step, however it is sliced. Randomness
comes from a splitmix64 generator whose state is an argument: a seed gives one search.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from evosoko.search.mcts_rules import (
    assigned_goal,
    candidates,
    is_matched,
    normalized_player,
    objective,
    objective_after_push,
    play_push,
    push_gain,
    start_position,
)
from evosoko.search.mcts_tree import (
    BEST_DISTANCE,
    BEST_LENGTH,
    CORRALS,
    DISTANCE,
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
    NODES,
    ON_GOALS,
    PATH_EDGES,
    PATH_LENGTH,
    PHASE,
    PLAYER,
    PRIOR_UNIFORM,
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
)
from evosoko.sokoban.level import UNREACHABLE
from evosoko.sokoban.zobrist import boxes_hash

# ---- kernel return codes -------------------------------------------------------------------------
CONTINUE, FOUND, EXHAUSTED, NEED_SPACE = 0, 1, 2, 3
"""CONTINUE: the call's budget ran out; FOUND: a solution is in ``tree.pushes``; EXHAUSTED: the
level is proven unsolvable; NEED_SPACE: the arrays must grow before the next iteration."""

_ROLLOUT, _BACKUP = 4, 5  # what selection hands on to (or FOUND)
_PAUSED, _DONE = 6, 7  # how a rollout call ends (or FOUND)
_GAIN_CAP = 4  # policy gains are clipped to +-4 (a push into a far region is just "bad")


# ---- random numbers --------------------------------------------------------------------------------
@numba.njit(cache=True)
def random_unit(rng):  # pragma: no cover - compiled
    """A float in [0, 1) from the splitmix64 generator whose state is ``rng[0]`` (uint64)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# ---- the hash table --------------------------------------------------------------------------------
@numba.njit(cache=True)
def _find(slots, node_key, node_player, node_boxes, key, player, boxes):  # pragma: no cover
    """(slot, node) of the position (node -1 and its free slot when it is not stored)."""
    mask = slots.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        node = slots[slot]
        if node < 0:
            return slot, np.int64(-1)
        if node_key[node] == key and node_player[node] == player:
            same = True
            for k in range(boxes.shape[0]):
                if node_boxes[node, k] != boxes[k]:
                    same = False
                    break
            if same:
                return slot, node
        slot = (slot + 1) & mask


@numba.njit(cache=True)
def _rehash(slots, node_key, nodes):  # pragma: no cover - compiled
    """Put nodes ``0 .. nodes-1`` into the empty table ``slots`` (their positions are distinct)."""
    mask = slots.shape[0] - 1
    for node in range(nodes):
        slot = np.int64(node_key[node] & np.uint64(mask))
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = node


@numba.njit(cache=True, inline="always")
def _store(tree, counters, slot, key, player, boxes, distance, status, parent, via):
    # pragma: no cover - compiled
    """Store a new node in ``slot`` of the table; returns its id."""
    node = counters[NODES]
    counters[NODES] += 1
    tree.slots[slot] = node
    tree.key[node] = key
    tree.player[node] = player
    for k in range(boxes.shape[0]):
        tree.boxes[node, k] = boxes[k]
    tree.visits[node] = 0
    tree.value[node] = 0.0
    tree.distance[node] = distance
    tree.status[node] = status
    tree.first_edge[node] = 0
    tree.edge_count[node] = 0
    tree.parent[node] = parent
    tree.via[node] = via
    tree.on_path[node] = 0
    if status == LEAF:
        counters[LEAVES] += 1
    return node


# ---- the policy --------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _policy_weights(arrays, measure, scratch, frozen_count, matched, count, temperature, weights):
    # pragma: no cover - compiled
    """``weights[c]``: the unnormalized softmax weight of candidate ``c``; returns their sum."""
    top = -np.inf
    for c in range(count):
        gain = push_gain(
            arrays,
            measure,
            scratch,
            frozen_count,
            matched,
            scratch.out_box[c],
            scratch.out_direction[c],
        )
        gain = min(max(gain, -_GAIN_CAP), _GAIN_CAP)
        weights[c] = gain / temperature
        top = max(top, weights[c])
    total = 0.0
    for c in range(count):
        weights[c] = math.exp(weights[c] - top)
        total += weights[c]
    return total


# ---- one iteration's parts ---------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _root(arrays, scratch, tree, params, counters, start_boxes, start_player):
    # pragma: no cover - compiled
    """Store the start as node 0; returns CONTINUE, FOUND (solved) or EXHAUSTED (lost)."""
    frozen_count, on_goals = start_position(arrays, scratch, start_boxes)
    smallest = normalized_player(arrays, scratch, start_player)
    key = boxes_hash(arrays.zobrist_box, start_boxes) ^ arrays.zobrist_player[smallest]
    distance = UNREACHABLE
    if frozen_count >= 0:
        distance = min(objective(arrays, params[MEASURE], scratch, frozen_count), UNREACHABLE)
    status = LEAF
    if on_goals == start_boxes.shape[0]:
        status = SOLVED
    elif frozen_count < 0 or distance >= UNREACHABLE:
        status = LOST
    slot, _ = _find(
        tree.slots, tree.key, tree.player, tree.boxes, key, smallest, scratch.boxes
    )
    _store(tree, counters, slot, key, smallest, scratch.boxes, distance, status, -1, 0)
    counters[BEST_DISTANCE] = distance
    counters[BEST_LENGTH] = 0
    if status == SOLVED:
        counters[SOLUTION_LENGTH] = 0
        return FOUND
    if status == LOST:
        return EXHAUSTED
    return CONTINUE


@numba.njit(cache=True, inline="always")
def _choose(tree, node, stamp, exploration):  # pragma: no cover - compiled
    """The edge PUCT picks at ``node`` (-1: none can be followed); and whether every edge leads
    to a lost node."""
    first = tree.first_edge[node]
    visits = tree.visits[node]
    mean = tree.value[node] / visits if visits > 0 else 0.0
    scale = exploration * math.sqrt(visits + 1.0)
    best = np.int64(-1)
    best_score = -np.inf
    all_lost = True
    for edge in range(first, first + tree.edge_count[node]):
        child = tree.edge_child[edge]
        q = mean
        if child >= 0:
            if tree.status[child] == LOST:
                continue
            all_lost = False
            if tree.on_path[child] == stamp:
                continue
            if tree.visits[child] > 0:
                q = tree.value[child] / tree.visits[child]
        else:
            all_lost = False
        score = q + scale * tree.edge_prior[edge] / (1.0 + tree.edge_visits[edge])
        if score > best_score:
            best_score = score
            best = edge
    return best, all_lost


@numba.njit(cache=True, inline="always")
def _all_children_lost(tree, node):  # pragma: no cover - compiled
    first = tree.first_edge[node]
    for edge in range(first, first + tree.edge_count[node]):
        child = tree.edge_child[edge]
        if child < 0 or tree.status[child] != LOST:
            return False
    return True


@numba.njit(cache=True, inline="always")
def _propagate_lost(tree, counters):  # pragma: no cover - compiled
    """Mark lost the nodes of the path, from its end up, whose edges all lead to lost nodes."""
    for i in range(counters[PATH_LENGTH] - 1, -1, -1):
        node = tree.path_nodes[i]
        if tree.status[node] == LOST:
            continue
        if tree.status[node] != EXPANDED or not _all_children_lost(tree, node):
            return
        tree.status[node] = LOST


@numba.njit(cache=True, inline="always")
def _expand(arrays, scratch, tree, params, real, counters, node, player, frozen_count, weights):
    # pragma: no cover - compiled
    """Give ``node`` (the scratch's position) its edges; returns the number of edges (0: lost)
    and leaves the full objective (and its assignment) in the scratch."""
    measure = params[MEASURE]
    box_count = scratch.boxes.shape[0]
    objective(arrays, measure, scratch, frozen_count)
    counters[WORK] += box_count * box_count * box_count
    matched = is_matched(measure, frozen_count)
    count, _ = candidates(arrays, params[CORRALS], scratch, player, frozen_count)
    counters[WORK] += arrays.floor_cells + 4 * box_count
    counters[LEAVES] -= 1
    if count == 0:
        tree.status[node] = LOST
        return 0
    total = _policy_weights(
        arrays, measure, scratch, frozen_count, matched, count, real[TEMPERATURE], weights
    )
    first = counters[EDGES]
    uniform = real[PRIOR_UNIFORM]
    for c in range(count):
        edge = first + c
        tree.edge_child[edge] = -1
        tree.edge_push[edge] = scratch.out_box[c] * 4 + scratch.out_direction[c]
        tree.edge_visits[edge] = 0
        tree.edge_prior[edge] = (1.0 - uniform) * weights[c] / total + uniform / count
    counters[EDGES] += count
    counters[UNTRIED] += count
    tree.first_edge[node] = first
    tree.edge_count[node] = count
    tree.status[node] = EXPANDED
    return count


@numba.njit(cache=True, inline="always")
def _path_pushes(tree, counters):  # pragma: no cover - compiled
    """Write the pushes of the path's edges to ``tree.pushes``; returns how many."""
    length = counters[PATH_EDGES]
    for i in range(length):
        tree.pushes[i] = tree.edge_push[tree.path_edges[i]]
    return length


@numba.njit(cache=True, inline="always")
def _begin_rollout(tree, counters, player, frozen_count, on_goals, distance, matched):
    # pragma: no cover - compiled
    _path_pushes(tree, counters)
    counters[PHASE] = ROLLING_OUT
    counters[PLAYER] = player
    counters[FROZEN] = frozen_count
    counters[ON_GOALS] = on_goals
    counters[DISTANCE] = distance
    counters[MATCHED] = 1 if matched else 0
    counters[ROLLOUT_STEP] = 0
    counters[ROLLOUT_BEST] = distance
    counters[ROLLOUT_BEST_STEP] = 0


@numba.njit(cache=True, inline="always")
def _select(arrays, scratch, tree, params, real, counters, start_boxes, start_player, weights):
    # pragma: no cover - compiled
    """Selection and expansion; returns _ROLLOUT (a rollout is set up), _BACKUP (reward 0: the
    path ended in a lost node), FOUND or EXHAUSTED."""
    measure = params[MEASURE]
    box_count = start_boxes.shape[0]
    deltas = arrays.deltas
    counters[STAMP] += 1
    stamp = counters[STAMP]
    frozen_count, on_goals = start_position(arrays, scratch, start_boxes)
    box_hash = boxes_hash(arrays.zobrist_box, start_boxes)
    player = start_player
    node = np.int64(0)
    tree.path_nodes[0] = node
    tree.on_path[node] = stamp
    counters[PATH_LENGTH] = 1
    counters[PATH_EDGES] = 0
    while True:
        if tree.status[node] == LEAF:
            if _expand(
                arrays, scratch, tree, params, real, counters, node, player, frozen_count, weights
            ) == 0:
                _propagate_lost(tree, counters)
                return _BACKUP
            distance = tree.distance[node]
            _begin_rollout(
                tree, counters, player, frozen_count, on_goals, distance,
                is_matched(measure, frozen_count),
            )  # fmt: skip
            return _ROLLOUT
        edge, all_lost = _choose(tree, node, stamp, real[EXPLORATION])
        if edge < 0:
            if all_lost:
                tree.status[node] = LOST
                _propagate_lost(tree, counters)
                return _BACKUP
            # every way on comes back to the path: roll out from here
            distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
            counters[WORK] += box_count * box_count * box_count
            _begin_rollout(
                tree, counters, player, frozen_count, on_goals, distance,
                is_matched(measure, frozen_count),
            )  # fmt: skip
            return _ROLLOUT
        code = tree.edge_push[edge]
        box, direction = code >> 2, code & 3
        target = box + deltas[direction]
        frozen_count, gained = play_push(arrays, scratch, box, direction, frozen_count)
        on_goals += gained
        player = box
        box_hash ^= arrays.zobrist_box[box] ^ arrays.zobrist_box[target]
        tree.path_edges[counters[PATH_EDGES]] = edge
        counters[PATH_EDGES] += 1
        child = tree.edge_child[edge]
        if child < 0:
            smallest = normalized_player(arrays, scratch, player)
            counters[WORK] += arrays.floor_cells
            key = box_hash ^ arrays.zobrist_player[smallest]
            slot, child = _find(
                tree.slots, tree.key, tree.player, tree.boxes, key, smallest, scratch.boxes
            )
            counters[UNTRIED] -= 1
            if child >= 0:
                counters[TRANSPOSITIONS] += 1
            else:
                distance = UNREACHABLE
                if frozen_count >= 0:
                    distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
                    counters[WORK] += box_count * box_count * box_count
                status = LEAF
                if on_goals == box_count:
                    status = SOLVED
                elif frozen_count < 0 or distance >= UNREACHABLE:
                    status = LOST
                child = _store(
                    tree, counters, slot, key, smallest, scratch.boxes, distance, status,
                    node, code,
                )  # fmt: skip
                if status == SOLVED:
                    counters[SOLUTION_LENGTH] = _path_pushes(tree, counters)
                    return FOUND
                if distance < counters[BEST_DISTANCE]:
                    counters[BEST_DISTANCE] = distance
                    counters[BEST_LENGTH] = _path_pushes(tree, counters)
                    for i in range(counters[BEST_LENGTH]):
                        tree.best[i] = tree.pushes[i]
            tree.edge_child[edge] = child
        if tree.status[child] == LOST:
            _propagate_lost(tree, counters)
            return _BACKUP
        if tree.on_path[child] == stamp:  # a new link back to the path: roll out from here
            distance = min(objective(arrays, measure, scratch, frozen_count), UNREACHABLE)
            counters[WORK] += box_count * box_count * box_count
            _begin_rollout(
                tree, counters, player, frozen_count, on_goals, distance,
                is_matched(measure, frozen_count),
            )  # fmt: skip
            return _ROLLOUT
        node = child  # a new leaf is expanded at the top of the loop
        tree.path_nodes[counters[PATH_LENGTH]] = node
        counters[PATH_LENGTH] += 1
        tree.on_path[node] = stamp


@numba.njit(cache=True, inline="always")
def _rollout(arrays, scratch, tree, params, real, counters, rng, weights, work_limit):
    # pragma: no cover - compiled
    """Play the rollout on from its saved state; returns (_PAUSED, 0) when the work limit cut
    it, (FOUND, 1) when it solved the level, else (_DONE, its reward)."""
    measure = params[MEASURE]
    corrals = params[CORRALS]
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
        total = _policy_weights(
            arrays, measure, scratch, frozen_count, matched, count, temperature, weights
        )
        threshold = random_unit(rng) * total
        choice = count - 1
        for c in range(count):
            threshold -= weights[c]
            if threshold < 0.0:
                choice = c
                break
        box = scratch.out_box[choice]
        direction = scratch.out_direction[choice]
        target = box + deltas[direction]
        goal = assigned_goal(scratch, box) if matched else np.int64(-1)
        frozen_count, gained = play_push(arrays, scratch, box, direction, frozen_count)
        on_goals += gained
        player = box
        tree.pushes[offset + step] = box * 4 + direction
        step += 1
        if on_goals == box_count:
            solved = True
            break
        if frozen_count < 0:
            lost = True
            break
        before = matched
        distance, matched = objective_after_push(
            arrays, measure, scratch, frozen_count, distance, matched, goal, box, target
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
    if best < counters[BEST_DISTANCE]:
        counters[BEST_DISTANCE] = best
        counters[BEST_LENGTH] = offset + best_step
        for i in range(offset + best_step):
            tree.best[i] = tree.pushes[i]
    reward = max(0.0, 1.0 - best / max(tree.distance[0], 1))
    if lost:
        reward *= real[LOST_FACTOR]
    return _DONE, reward


@numba.njit(cache=True, inline="always")
def _backup(tree, counters, reward):  # pragma: no cover - compiled
    for i in range(counters[PATH_LENGTH]):
        node = tree.path_nodes[i]
        tree.visits[node] += 1
        tree.value[node] += reward
    for i in range(counters[PATH_EDGES]):
        tree.edge_visits[tree.path_edges[i]] += 1


# ---- the entry point -------------------------------------------------------------------------------
@numba.njit(cache=True)
def mcts_search(
    arrays, scratch, tree, start_boxes, start_player, params, real, counters, rng, weights
):  # pragma: no cover - compiled
    """Run iterations until a limit of the call, a solution or a proof; returns CONTINUE,
    FOUND, EXHAUSTED or NEED_SPACE (the tree must grow before the next iteration).

    ``weights`` is float64 scratch with a slot per candidate push (``4 * boxes``)."""
    if counters[REHASH] != 0:
        _rehash(tree.slots, tree.key, counters[NODES])
        counters[REHASH] = 0
    if counters[NODES] == 0:
        code = _root(arrays, scratch, tree, params, counters, start_boxes, start_player)
        if code != CONTINUE:
            return code
    box_count = start_boxes.shape[0]
    work_limit = counters[WORK] + params[WORK_LIMIT]
    done = 0
    while True:
        reward = 0.0
        if counters[PHASE] == SELECTING:
            if done >= params[ITERATION_CHUNK] or counters[WORK] >= work_limit:
                return CONTINUE
            if (
                counters[NODES] + 1 > tree.key.shape[0]
                or counters[EDGES] + 4 * box_count > tree.edge_child.shape[0]
            ):
                return NEED_SPACE
            outcome = _select(
                arrays, scratch, tree, params, real, counters, start_boxes, start_player, weights
            )
            if outcome == FOUND:
                counters[ITERATIONS] += 1  # the iteration that found it counts
                return FOUND
        if counters[PHASE] == ROLLING_OUT:
            ending, reward = _rollout(
                arrays, scratch, tree, params, real, counters, rng, weights, work_limit
            )
            if ending == _PAUSED:
                return CONTINUE
            if ending == FOUND:
                counters[ITERATIONS] += 1
                return FOUND
        _backup(tree, counters, reward)
        counters[ITERATIONS] += 1
        done += 1
        if tree.status[0] == LOST or (counters[LEAVES] == 0 and counters[UNTRIED] == 0):
            return EXHAUSTED
