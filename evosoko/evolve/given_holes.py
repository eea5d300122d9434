"""Genome replay and fitness under the given-holes rules (:mod:`evosoko.sokoban.holes.board`).

Replay plays the variant's compiled push rules (:mod:`evosoko.sokoban.holes.pushes`).

Both encodings, compiled, with the pairing-aware objective: the distance of a position is the
sum over the boxes still on the board of each box's distance to *its own* hole (lone-box push
distance; Manhattan distance with ``objective = "manhattan"``; ``matching`` and
``nearest_goal`` both mean the paired push distance, since the assignment is given). A vanished
box adds nothing, so the distance is 0 exactly when the level is solved.

- ``moves``: gene ``0..3`` = ``u d l r``; a step into a wall or a blocked box is skipped; a box
  pushed into its own hole vanishes; replay stops when solved. With ``stop_on_deadlock`` it
  stops before the first push that loses the level (the box on a cell from which it can no
  longer reach its hole, or frozen: a frozen box never reaches its hole, on a hole or not).
- ``pushes``: at each step the candidate pushes are the legal pushes the player can reach
  that do not lose the level in that way, in order of box number then direction ``u d l r``;
  gene ``g`` chooses candidate ``g % count``; replay stops when solved or when no candidate is
  left (flagged deadlocked).

Each genome gets the same fields as the standard replay (solved and when, the best point and
its distance, the end, hashes of positions with the player normalized for push genomes), so
:class:`evosoko.evolve.fitness.FitnessFunction` builds the same :class:`Evaluation` columns.
The ``gap`` tie-breaker of standard move genomes is 0 here.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from evosoko.evolve.columns import push_columns
from evosoko.evolve.push_replay import PUSH_GENE_RANGE
from evosoko.sokoban.freeze import make_freeze_scratch
from evosoko.sokoban.holes.board import VANISHED, HolesBoard, HolesState
from evosoko.sokoban.holes.pushes import HolesTables, holes_candidates, holes_tables, loses
from evosoko.sokoban.level import Level
from evosoko.sokoban.reach import explore
from evosoko.sokoban.rules import played_moves

__all__ = ["PUSH_GENE_RANGE", "decode_holes", "replay_holes"]

MOVES, PUSHES = 0, 1


class HolesReplay(NamedTuple):
    """Per-genome replay results, one array each (the fields of the standard replay's result
    that :func:`holes_columns` reads)."""

    solved: np.ndarray
    solved_at: np.ndarray
    best_prefix: np.ndarray
    best_distance: np.ndarray
    best_hash: np.ndarray
    final_distance: np.ndarray
    final_hash: np.ndarray
    steps: np.ndarray
    deadlocked: np.ndarray


def replay_holes(
    tables: HolesTables,
    encoding: str,
    genes: np.ndarray,
    lengths: np.ndarray,
    stop_on_deadlock: bool = True,
) -> HolesReplay:
    """Replay a packed batch (:func:`evosoko.parallel.packing.pack_genomes`)."""
    return _replay(tables, encoding, genes, lengths, stop_on_deadlock, np.zeros(0, dtype=np.int64))


def decode_holes(
    level: Level, encoding: str, genome, stop_on_deadlock: bool = True
) -> tuple[str, HolesBoard]:
    """Play ``genome`` on a given-holes level; returns (LURD, the board after it)."""
    board = HolesBoard(level)
    if encoding == "moves":
        return "".join(played_moves(board, genome)), board
    letters: list[str] = []
    genes = np.array(list(genome), dtype=np.int64)
    record = np.full(2 * len(genes) + 2, -1, dtype=np.int64)  # (cell, direction) per push
    lengths = np.array([len(genes)], dtype=np.int64)
    _replay(holes_tables(level), encoding, genes, lengths, stop_on_deadlock, record)
    for k in range(len(genes)):
        cell, direction = int(record[2 * k]), int(record[2 * k + 1])
        if cell < 0:
            break
        letters.append(board.push(cell, direction))
    return "".join(letters), board


def holes_genes_for_pushes(level: Level, pushes, start: HolesState | None = None) -> list[int]:
    """Push genes that make the given ``(box cell, direction)`` pushes from ``start`` (default:
    the level's start): each gene is the push's index among the candidates of the position
    where it is made (:func:`holes_candidates`). Stops before the first push that is not a
    candidate; the genes so far replay exactly the pushes before it."""
    rule = holes_tables(level).rule
    board = HolesBoard(level, start)
    mark = np.zeros(level.cells, dtype=np.int64)
    queue = np.zeros(level.cells, dtype=np.int64)
    scratch = make_freeze_scratch(level.cells)
    out_box = np.zeros(4 * len(rule.holes), dtype=np.int64)
    out_direction = np.zeros_like(out_box)
    genes: list[int] = []
    for stamp, (box, direction) in enumerate(pushes, start=1):
        explore(rule.floor, board.occupied, rule.deltas, board.player, mark, stamp, queue,
                queue[:0])  # fmt: skip
        count = holes_candidates(
            rule, np.array(board.by_box, dtype=np.int64), board.occupied, mark, np.int64(stamp),
            scratch, out_box, out_direction,
        )  # fmt: skip
        chosen = [k for k in range(count) if (out_box[k], out_direction[k]) == (box, direction)]
        if not chosen:
            break
        genes.append(chosen[0])
        board.push(int(box), int(direction))
    return genes


def _replay(tables, encoding, genes, lengths, stop_on_deadlock, record) -> HolesReplay:
    count = len(lengths)
    result = HolesReplay(
        solved=np.zeros(count, dtype=np.bool_),
        solved_at=np.zeros(count, dtype=np.int64),
        best_prefix=np.zeros(count, dtype=np.int64),
        best_distance=np.zeros(count, dtype=np.int64),
        best_hash=np.zeros(count, dtype=np.uint64),
        final_distance=np.zeros(count, dtype=np.int64),
        final_hash=np.zeros(count, dtype=np.uint64),
        steps=np.zeros(count, dtype=np.int64),
        deadlocked=np.zeros(count, dtype=np.bool_),
    )
    offsets = np.zeros(count + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths)
    _replay_batch(
        tables,
        make_freeze_scratch(len(tables.rule.floor)),
        np.ascontiguousarray(genes, dtype=np.int64),
        offsets,
        MOVES if encoding == "moves" else PUSHES,
        bool(stop_on_deadlock),
        record,
        result,
    )
    return result


# ---- kernels -------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _replay_batch(
    tables, scratch, genes, offsets, encoding, stop_on_deadlock, record, out
):  # pragma: no cover - compiled
    """Replay genomes ``genes[offsets[i] : offsets[i + 1]]`` into ``out`` (a
    :class:`HolesReplay`); ``scratch``: the freeze test's; with rows in ``record``, the pushes
    of the first genome go there as (cell, direction)."""
    rule, distance, box_keys, player_keys = (
        tables.rule, tables.distance, tables.box_keys, tables.player_keys
    )  # fmt: skip
    floor, deltas, holes = rule.floor, rule.deltas, rule.holes
    start_boxes = tables.start_boxes
    solved, solved_at, best_prefix, best_distance, best_hash = (
        out.solved, out.solved_at, out.best_prefix, out.best_distance, out.best_hash
    )  # fmt: skip
    final_distance, final_hash, steps, deadlocked = (
        out.final_distance, out.final_hash, out.steps, out.deadlocked
    )  # fmt: skip
    cells = floor.shape[0]
    boxes = start_boxes.shape[0]
    occupied = np.zeros(cells, dtype=np.bool_)
    owner = np.full(cells, -1, dtype=np.int64)
    where = np.empty(boxes, dtype=np.int64)
    mark = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(cells, dtype=np.int64)
    out_box = np.empty(4 * boxes, dtype=np.int64)
    out_direction = np.empty(4 * boxes, dtype=np.int64)
    stamp = np.int64(0)
    for genome in range(offsets.shape[0] - 1):
        first, last = offsets[genome], offsets[genome + 1]
        occupied[:] = False
        owner[:] = -1
        left = boxes
        total = np.int64(0)
        box_hash = np.uint64(0)
        for b in range(boxes):
            cell = start_boxes[b]
            where[b] = cell
            occupied[cell] = True
            owner[cell] = b
            total += distance[b, cell]
            box_hash ^= box_keys[b, cell]
        player = tables.start_player
        stamp += 1
        _, smallest = explore(floor, occupied, deltas, player, mark, stamp, queue, queue[:0])
        seen = smallest if encoding == PUSHES else player
        best_distance[genome] = total
        best_prefix[genome] = 0
        best_hash[genome] = box_hash ^ player_keys[seen]
        solved[genome] = False
        deadlocked[genome] = False
        used = np.int64(0)
        for index in range(first, last):
            gene = genes[index]
            if encoding == MOVES:
                direction = gene & 3
                target = player + deltas[direction]
                if not floor[target]:
                    used += 1
                    continue
                if occupied[target]:
                    beyond = target + deltas[direction]
                    if not floor[beyond] or occupied[beyond]:
                        used += 1
                        continue
                    b = owner[target]
                    occupied[target] = False
                    owner[target] = -1
                    if beyond != holes[b]:
                        occupied[beyond] = True
                        if stop_on_deadlock and loses(rule, occupied, b, beyond, scratch):
                            occupied[beyond] = False
                            occupied[target] = True
                            owner[target] = b
                            deadlocked[genome] = True
                            break
                    total += _moved(b, target, beyond, holes, occupied, owner, where, distance)
                    box_hash ^= box_keys[b, target]
                    if beyond != holes[b]:
                        box_hash ^= box_keys[b, beyond]
                    else:
                        left -= 1
                player = target
                seen = player
            else:
                stamp += 1
                explore(floor, occupied, deltas, player, mark, stamp, queue, queue[:0])
                count = holes_candidates(
                    rule, where, occupied, mark, stamp, scratch, out_box, out_direction
                )
                if count == 0:
                    deadlocked[genome] = True
                    break
                choice = gene % count
                cell = out_box[choice]
                k = out_direction[choice]
                b = owner[cell]
                beyond = cell + deltas[k]
                if record.shape[0] > 0:
                    record[2 * used] = cell
                    record[2 * used + 1] = k
                occupied[cell] = False
                owner[cell] = -1
                if beyond != holes[b]:
                    occupied[beyond] = True
                total += _moved(b, cell, beyond, holes, occupied, owner, where, distance)
                box_hash ^= box_keys[b, cell]
                if beyond != holes[b]:
                    box_hash ^= box_keys[b, beyond]
                else:
                    left -= 1
                player = cell
                stamp += 1
                _, seen = explore(floor, occupied, deltas, player, mark, stamp, queue, queue[:0])
            used += 1
            if total < best_distance[genome]:
                best_distance[genome] = total
                best_prefix[genome] = used
                best_hash[genome] = box_hash ^ player_keys[seen]
            if left == 0:
                solved[genome] = True
                solved_at[genome] = used
                break
        steps[genome] = used
        final_distance[genome] = total
        final_hash[genome] = box_hash ^ player_keys[seen]
        if solved[genome]:
            best_prefix[genome] = used
            best_distance[genome] = 0


@numba.njit(cache=True, inline="always")
def _moved(b, source, target, holes, occupied, owner, where, distance):  # pragma: no cover
    """Finish moving box ``b`` from ``source`` to ``target`` (``occupied`` already updated):
    it vanishes in its own hole. Returns the change of the distance."""
    change = -distance[b, source]
    if target == holes[b]:
        where[b] = VANISHED
    else:
        owner[target] = b
        where[b] = target
        change += distance[b, target]
    return change


def holes_columns(
    tables: HolesTables, encoding: str, config, genes: np.ndarray, lengths: np.ndarray
) -> tuple:
    """The :class:`~evosoko.evolve.fitness.Evaluation` columns of a packed batch, as
    :meth:`FitnessFunction.evaluate_columns` makes them for standard levels."""
    result = replay_holes(tables, encoding, genes, lengths, config.stop_on_deadlock)
    return push_columns(result, lengths, config.trim_to_best)


def given_holes_config(level: Level, config):
    """``config`` adapted to a given-holes level: the GA features that play standard Sokoban
    only are switched off with a logged warning (``fitness.lost_search_nodes``,
    ``ga.mutation.push_macro``, ``ga.mutation.box_macro``, ``output.optimize_seconds``:
    speed-ups and a post-processing step, so the GA stays the one asked for). Search
    seeding (``hybrid.enabled``) plays the variant through its own push searches
    (:mod:`evosoko.search.given_holes`); a ``hybrid.algorithm`` they do not have
    raises :class:`ConfigError`."""
    import logging

    from evosoko.errors import ConfigError
    from evosoko.search.given_holes import ALGORITHMS

    if config.hybrid.enabled and config.hybrid.algorithm not in ALGORITHMS:
        raise ConfigError(
            f"level {level.name} plays the given-holes rules, which hybrid.algorithm = "
            f"{config.hybrid.algorithm} does not play; use one of: {', '.join(ALGORITHMS)}"
        )
    off = []
    fitness, mutation, output = config.fitness, config.ga.mutation, config.output
    if fitness.lost_search_nodes > 0:
        fitness = fitness.model_copy(update={"lost_search_nodes": 0})
        off.append("fitness.lost_search_nodes")
    if mutation.push_macro > 0:
        mutation = mutation.model_copy(update={"push_macro": 0.0})
        off.append("ga.mutation.push_macro")
    if mutation.box_macro > 0:
        mutation = mutation.model_copy(update={"box_macro": 0.0})
        off.append("ga.mutation.box_macro")
    if output.optimize_seconds is not None:
        output = output.model_copy(update={"optimize_seconds": None})
        off.append("output.optimize_seconds")
    if not off:
        return config
    logging.getLogger(__name__).warning(
        "level %s plays the given-holes rules: %s switched off (standard Sokoban only)",
        level.name,
        ", ".join(off),
    )
    ga = config.ga.model_copy(update={"mutation": mutation})
    return config.model_copy(update={"fitness": fitness, "ga": ga, "output": output})
