"""Fitness of genomes: solved first, then the distance objective, then the length.

:class:`FitnessFunction` scores batches of plain gene tuples for one level and encoding; it is
what every evaluation backend runs (in this process or in a worker). Each genome gets an
:class:`Evaluation`, a plain named tuple that crosses process boundaries unchanged:

- ``solved``; ``distance``: the objective at the genome's best point (with ``trim_to_best``) or
  at its end, 0 when solved; ``length``: genes to the solution, or to the scored point (moves
  for move genomes, pushes for push genomes);
- ``keep``: the genes that matter (up to the solution or the scored point; the engine trims
  the genome to them when ``trim_to_best`` is on); ``state_hash``: the Zobrist hash of the
  position scored, for duplicate elimination;
- ``gap`` (move genomes; 0 for push genomes): the player's walking distance to the nearest box
  off its goal at the scored point, the tie-breaker between equal distances that rewards walking
  towards the next push (:mod:`evosoko.evolve.move_replay`);
- ``terms``: the values of the configuration's own fitness terms (``[[fitness.terms]]``), in
  their order, computed in Python at the scored position (:mod:`evosoko.evolve.term_values`);
- ``cell`` (push genomes with ``fitness.fess_cells``, which ``ga.selection = "map_elites"``
  turns on; -1 otherwise): the FESS feature cell of the scored position, the behaviour
  descriptor of the archive (:mod:`evosoko.evolve.descriptors`).

The fitness compares named values built from these (:mod:`evosoko.evolve.objectives`): solved,
distance, gap, length, lexicographically, with the terms among them.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from evosoko.config import FitnessConfig
from evosoko.evolve.columns import BASE_COLUMNS, evaluation_columns, push_columns, with_cells
from evosoko.evolve.move_replay import BEST, FINAL, move_tables, replay_move_packed
from evosoko.evolve.push_replay import push_tables, replay_push_packed
from evosoko.evolve.term_values import term_matrix
from evosoko.parallel.packing import pack_genomes
from evosoko.sokoban.level import Level
from evosoko.sokoban.variants import level_rules


class Evaluation(NamedTuple):
    """The outcome of scoring one genome (see the module docstring)."""

    solved: bool
    distance: int
    length: int
    keep: int
    state_hash: int
    gap: int = 0
    terms: tuple[float, ...] = ()
    cell: int = -1


class FitnessFunction:
    """Scores batches of genomes of one level and encoding; deterministic."""

    def __init__(self, level: Level, encoding: str, config: FitnessConfig) -> None:
        if encoding not in ("moves", "pushes"):
            raise ValueError(f"unknown encoding {encoding!r}")
        self.level = level
        self.encoding = encoding
        self.config = config
        self.rules = level_rules(level)
        self._holes_tables = None
        if self.rules.boxes_vanish:  # given holes: evosoko.evolve.given_holes replays them
            from evosoko.sokoban.holes.pushes import holes_tables

            self._holes_tables = holes_tables(level, config.objective)
        elif encoding == "moves":
            self._move_tables = move_tables(level)
        else:
            self._push_tables = push_tables(
                level, corrals=config.pi_corrals, plan_weight=config.plan_weight
            )
        self._cells = None
        if config.fess_cells and encoding == "pushes" and not self.rules.boxes_vanish:
            from evosoko.evolve.descriptors import FessCells

            self._cells = FessCells(level, self._push_tables)
        self._learned_term = None
        # imported only when on: workers stay lean without it; the network knows standard
        # rules only, so a given-holes level is scored without it
        if config.learned_lost != "off" and not self.rules.boxes_vanish:
            from evosoko.learn.fitness_term import LearnedLostTerm

            self._learned_term = LearnedLostTerm(level, encoding, config)

    def __call__(self, genomes: Sequence[Sequence[int]]) -> list[Evaluation]:
        """The :class:`Evaluation` of each genome, in order."""
        if not genomes:
            return []
        return self.evaluate_packed(*pack_genomes(genomes))

    def evaluate_packed(self, genes: np.ndarray, lengths: np.ndarray) -> list[Evaluation]:
        """The :class:`Evaluation` of each genome of a batch packed by :func:`pack_genomes`."""
        return evaluations_from_columns(self.evaluate_columns(genes, lengths))

    def evaluate_columns(self, genes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        """The evaluations of a packed batch as arrays, one per :class:`Evaluation` field but
        ``terms``, then (with fitness terms) one matrix of term values (cheap to send between
        processes; :func:`evaluations_from_columns` makes the tuples)."""
        if not len(lengths):
            columns = tuple(np.zeros(0, dtype=np.int64) for _ in range(BASE_COLUMNS))
        elif self._holes_tables is not None:
            from evosoko.evolve.given_holes import holes_columns

            columns = holes_columns(self._holes_tables, self.encoding, self.config, genes, lengths)
        elif self.encoding == "moves":
            columns = self._moves(genes, lengths)
        else:
            columns = self._pushes(genes, lengths)
        if self._learned_term is not None and len(lengths):
            columns = self._learned_term.adjust(columns, genes, lengths)
        if self.config.terms:
            evaluations = evaluations_from_columns(columns)
            columns = (
                *columns,
                term_matrix(self.level, self.encoding, self.config, genes, lengths, evaluations),
            )
        return columns

    def _moves(self, genes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        config = self.config
        result = replay_move_packed(
            self._move_tables,
            genes,
            lengths,
            config.objective,
            config.stop_on_deadlock,
            BEST if config.trim_to_best else FINAL,
        )
        if config.trim_to_best:  # a solved genome's best point is its end
            at, distance = result.best_prefix, result.best_distance
            state_hash, gap = result.best_hash, result.best_gap
        else:
            at = np.where(result.deadlocked, result.steps, lengths)
            distance, state_hash, gap = result.final_distance, result.final_hash, result.final_gap
        return evaluation_columns(
            result.solved, result.solved_at, state_hash, at, distance, state_hash, gap
        )

    def _pushes(self, genes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        config = self.config
        record = None
        if self._cells is not None:  # the pushes made, to rebuild each scored position
            record = np.zeros((max(1, len(genes)), 2), dtype=np.int64)
        result = replay_push_packed(
            self._push_tables, genes, lengths, config.objective, config.stop_on_deadlock, record
        )
        columns = push_columns(result, lengths, config.trim_to_best)
        if self._cells is not None and record is not None:  # the cell where it was scored
            columns = with_cells(columns, self._cells.of_batch(record, lengths, columns[2]))
        return columns


def evaluations_from_columns(columns: tuple[np.ndarray, ...]) -> list[Evaluation]:
    """The :class:`Evaluation` tuples of columns made by
    :meth:`FitnessFunction.evaluate_columns`."""
    fields = [column.tolist() for column in columns[:BASE_COLUMNS]]
    if len(columns) == len(fields):
        terms: Iterable[tuple[float, ...]] = itertools.repeat(())
    else:
        terms = map(tuple, columns[-1].tolist())
    return list(map(Evaluation._make, zip(*fields[:-1], terms, fields[-1])))


class FitnessCache:
    """A bounded least-recently-used map from gene tuples to their :class:`Evaluation`."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[int, ...], Evaluation] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, genes: tuple[int, ...]) -> Evaluation | None:
        """The cached evaluation of ``genes``, or None."""
        found = self._entries.get(genes)
        if found is None:
            self.misses += 1
            return None
        self._entries.move_to_end(genes)
        self.hits += 1
        return found

    def put(self, genes: tuple[int, ...], evaluation: Evaluation) -> None:
        """Remember ``evaluation`` for ``genes`` (forgetting the oldest entry when full)."""
        if self.size <= 0:
            return
        self._entries[genes] = evaluation
        self._entries.move_to_end(genes)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
