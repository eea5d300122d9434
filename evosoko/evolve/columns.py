"""The evaluation columns of a batch: what a replay's results become, whatever the rules.

:class:`evosoko.evolve.fitness.FitnessFunction` makes them for standard levels and
:mod:`evosoko.evolve.given_holes` for given-holes levels; the workers send them back as a few
arrays, from which :func:`evosoko.evolve.fitness.evaluations_from_columns` makes the tuples.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BASE_COLUMNS", "evaluation_columns", "push_columns", "with_cells"]

BASE_COLUMNS = 7
"""Columns of every batch: solved, distance, length, keep, state_hash, gap, cell (the fitness
terms' matrix follows when there are terms)."""


def evaluation_columns(
    solved, solved_at, solved_hash, at, distance, state_hash, gap
) -> tuple[np.ndarray, ...]:
    """The :data:`BASE_COLUMNS` :class:`Evaluation` columns: a solved genome counts to its
    solution (distance 0, gap 0, ``solved_hash``); the others to their scored point ``at``; the
    cell is -1 (none; :func:`with_cells` sets it)."""
    length = np.where(solved, solved_at, at).astype(np.int64)
    return (
        np.asarray(solved, dtype=np.bool_),
        np.where(solved, 0, distance).astype(np.int64),
        length,
        length,
        np.where(solved, solved_hash, state_hash).astype(np.uint64),
        np.where(solved, 0, gap).astype(np.int64),
        np.full(len(length), -1, dtype=np.int64),
    )


def push_columns(result, lengths: np.ndarray, trim_to_best: bool) -> tuple[np.ndarray, ...]:
    """The columns of a push replay's ``result`` (push genomes, on standard or given-holes
    levels): scored at the best point (``trim_to_best``) or where replay stopped; no gap."""
    if trim_to_best:
        at, distance, state_hash = result.best_prefix, result.best_distance, result.best_hash
    else:
        at = np.where(result.deadlocked, result.steps, lengths)
        distance, state_hash = result.final_distance, result.final_hash
    zero_gap = np.zeros(len(lengths), dtype=np.int64)
    return evaluation_columns(
        result.solved, result.solved_at, result.best_hash, at, distance, state_hash, zero_gap
    )


def with_cells(columns: tuple[np.ndarray, ...], cells: np.ndarray) -> tuple[np.ndarray, ...]:
    """``columns`` with ``cells`` as the cell column (behaviour descriptors)."""
    return (
        *columns[: BASE_COLUMNS - 1],
        np.asarray(cells, dtype=np.int64),
        *columns[BASE_COLUMNS:],
    )
