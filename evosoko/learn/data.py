"""Labelled positions for the deadlock network: sampled by random pushes, labelled by search.

For each level, random push sequences from the start (no push onto a dead square, which any
detector sees) give positions; each distinct position is labelled *dead* or *alive* by the
exact push solver (:func:`evosoko.search.solve`, complete pruning only) within a node budget:
``solved`` is alive, ``unsolvable`` (the space is exhausted) is dead, and a position the budget
does not decide is dropped and counted. Each position also records whether the exact local
detectors (:func:`evosoko.sokoban.deadlocks.is_deadlocked`: dead squares, freeze, bipartite
with frozen goals) already call it dead, so evaluation can compare the network with them.

Levels are split by level, never by position: levels of the training files go to ``train`` or
``valid`` (a seeded fraction), levels of the test files to ``test``. Each split is balanced
(the larger class sampled down to the smaller) and stored as ``SPLIT.npz`` (compressed numpy
arrays) beside ``manifest.json`` (levels, counts, seeds, settings).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from evosoko.errors import ConfigError
from evosoko.learn.features import WALL_BIT, encode_states
from evosoko.sokoban.level import Level, State

SPLITS = ("train", "valid", "test")
ALIVE, DEAD = 0, 1
DATA_FORMAT = "evosoko-deadlock-data/1"
LABEL_ALGORITHM = "push-greedy"
"""Labels come from greedy push search with complete pruning only: it reaches a solution of an
alive position fastest, and exhausts the space of a dead one like any other order."""


@dataclass(frozen=True)
class DataSettings:
    """How positions are sampled and labelled."""

    positions_per_level: int = 60
    max_pushes: int = 40
    node_budget: int = 20_000
    seed: int = 0
    validation: float = 0.1

    def check(self) -> None:
        """Raise :class:`ConfigError` for settings that make no sense."""
        if self.positions_per_level < 1:
            raise ConfigError("--positions must be at least 1")
        if self.max_pushes < 1:
            raise ConfigError("--max-pushes must be at least 1")
        if self.node_budget < 1:
            raise ConfigError("--node-budget must be at least 1")
        if not 0 <= self.validation < 1:
            raise ConfigError("--validation must be a fraction in [0, 1)")


@dataclass
class LevelSource:
    """A level and where it came from (file and 1-based index)."""

    level: Level
    file: str
    index: int
    split: str = "train"


@dataclass
class LevelPositions:
    """The labelled positions of one level."""

    codes: np.ndarray  # uint8[n, height, width]
    labels: np.ndarray  # uint8[n]: 1 dead, 0 alive
    detected: np.ndarray  # uint8[n]: 1 when the exact local detectors call it dead
    pushes: np.ndarray  # int16[n]: random pushes that led there
    sampled: int = 0
    undecided: int = 0
    seconds: float = 0.0


@dataclass
class Dataset:
    """One split: positions of several levels, padded to one board size."""

    codes: np.ndarray  # uint8[n, height, width], padded with walls
    shapes: np.ndarray  # int16[n, 2]: the real height and width of each board
    labels: np.ndarray  # uint8[n]
    detected: np.ndarray  # uint8[n]
    pushes: np.ndarray  # int16[n]
    level: np.ndarray  # int32[n]: index into the manifest's level list
    counts: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)

    def board(self, row: int) -> np.ndarray:
        """The codes of one position cropped to its board."""
        height, width = self.shapes[row]
        return self.codes[row, :height, :width]

    def by_shape(self) -> dict[tuple[int, int], np.ndarray]:
        """Row indices grouped by board shape (the network runs one shape at a time)."""
        groups: dict[tuple[int, int], list[int]] = {}
        for row, (height, width) in enumerate(self.shapes.tolist()):
            groups.setdefault((height, width), []).append(row)
        return {shape: np.array(rows, dtype=np.int64) for shape, rows in groups.items()}


# ---- sampling and labelling -----------------------------------------------------------------
def with_start(level: Level, state: State) -> Level:
    """``level`` starting from ``state``, sharing its derived tables (same walls and goals)."""
    moved = dataclasses.replace(level, start=state)
    for name in ("push_distance", "nearest_goal_distance", "dead_squares", "goal_cells"):
        if name in level.__dict__:
            moved.__dict__[name] = level.__dict__[name]
    return moved


def random_positions(
    level: Level, rng: random.Random, count: int, max_pushes: int, attempts: int = 4
) -> tuple[list[State], list[int]]:
    """Up to ``count`` distinct unsolved positions reached by random push sequences.

    Each sequence has a length drawn from ``1..max_pushes`` and stops early where no push is
    left. Pushes onto dead squares are never made; half the sequences (*careful* ones) also
    never make a push that freezes a box off its goal, as search and the GA's push genomes
    never do, so that the positions they meet are well represented. Positions equal up to a
    walk count once.
    """
    from evosoko.sokoban.freeze import freeze_deadlock, make_freeze_scratch
    from evosoko.sokoban.rules import Board, delta_array

    dead = level.dead_squares
    blocked = ~level.floor
    deltas = delta_array(level.width)
    scratch = make_freeze_scratch(level.cells)

    def freezes(board: Board, box: int, target: int) -> bool:
        occupied = board.occupied
        occupied[box], occupied[target] = False, True
        frozen = freeze_deadlock(blocked, dead, level.goals, occupied, deltas, target, scratch)
        occupied[box], occupied[target] = True, False
        return bool(frozen)

    states: list[State] = []
    depths: list[int] = []
    seen: set[tuple] = set()
    for _ in range(count * attempts):
        if len(states) >= count:
            break
        board = Board(level)
        length = rng.randint(1, max_pushes)
        careful = rng.random() < 0.5
        made = 0
        for _ in range(length):
            pushes = []
            for box, direction in board.legal_pushes():
                target = box + level.deltas[direction]
                if dead[target] or (careful and freezes(board, box, target)):
                    continue
                pushes.append((box, direction))
            if not pushes:
                break
            board.push(*rng.choice(pushes))
            made += 1
        if made == 0 or board.is_solved():
            continue
        key = board.key()
        if key in seen:
            continue
        seen.add(key)
        states.append(board.state())
        depths.append(made)
    return states, depths


def label_position(level: Level, state: State, node_budget: int) -> int | None:
    """:data:`DEAD` or :data:`ALIVE` by exact search within ``node_budget`` expansions; None
    when the budget does not decide."""
    from evosoko.search import PushSettings, solve

    result = solve(
        with_start(level, state),
        LABEL_ALGORITHM,
        node_limit=node_budget,
        settings=PushSettings(goal_rooms=False),
    )
    if result.status == "solved":
        return ALIVE
    if result.status == "unsolvable":
        return DEAD
    return None


def level_positions(level: Level, settings: DataSettings, seed: int) -> LevelPositions:
    """Sample, label and encode the positions of one level (deterministic for ``seed``)."""
    from evosoko.sokoban.deadlocks import is_deadlocked

    started = time.perf_counter()
    states, depths = random_positions(
        level, random.Random(seed), settings.positions_per_level, settings.max_pushes
    )
    kept: list[State] = []
    labels, detected, pushes = [], [], []
    undecided = 0
    for state, depth in zip(states, depths):
        label = label_position(level, state, settings.node_budget)
        if label is None:
            undecided += 1
            continue
        kept.append(state)
        labels.append(label)
        detected.append(int(is_deadlocked(level, state)))
        pushes.append(depth)
    codes = (
        encode_states(level, kept)
        if kept
        else np.zeros((0, level.height, level.width), dtype=np.uint8)
    )
    return LevelPositions(
        codes=codes,
        labels=np.array(labels, dtype=np.uint8),
        detected=np.array(detected, dtype=np.uint8),
        pushes=np.array(pushes, dtype=np.int16),
        sampled=len(states),
        undecided=undecided,
        seconds=time.perf_counter() - started,
    )


def _level_task(arguments: tuple) -> LevelPositions:
    rows, title, settings, seed = arguments
    from evosoko.sokoban.build import level_from_rows

    return level_positions(level_from_rows(rows, title=title), settings, seed)


def level_seed(seed: int, position: int) -> int:
    """The sampling seed of the ``position``-th level of a data set."""
    return random.Random(f"{seed}:{position}").getrandbits(63)


# ---- building a data set ----------------------------------------------------------------------
def assign_splits(
    train: Sequence[LevelSource], test: Sequence[LevelSource], settings: DataSettings
) -> list[LevelSource]:
    """Every source with its split: a seeded ``validation`` fraction of the training levels
    (at least one when there are two or more) goes to ``valid``, test levels to ``test``."""
    order = list(range(len(train)))
    random.Random(settings.seed).shuffle(order)
    valid_count = round(len(train) * settings.validation)
    if settings.validation > 0 and len(train) >= 2:
        valid_count = max(1, valid_count)
    valid = set(order[:valid_count])
    sources = [
        dataclasses.replace(source, split="valid" if k in valid else "train")
        for k, source in enumerate(train)
    ]
    return sources + [dataclasses.replace(source, split="test") for source in test]


def build_dataset(
    out: str | os.PathLike,
    train: Sequence[LevelSource],
    test: Sequence[LevelSource],
    settings: DataSettings = DataSettings(),
    workers: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Sample, label, balance and store positions of every level; returns the manifest.

    Writes ``OUT/{train,valid,test}.npz`` and ``OUT/manifest.json``. ``workers`` processes
    label levels in parallel; the result does not depend on their number.
    """
    settings.check()
    if not train and not test:
        raise ConfigError("no levels to sample positions from")
    sources = assign_splits(train, test, settings)
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create the folder: {error.strerror}", str(folder)) from None
    started = time.perf_counter()
    tasks = [
        (source.level.rows(), source.level.title, settings, level_seed(settings.seed, k))
        for k, source in enumerate(sources)
    ]
    results = _run_tasks(tasks, workers, on_progress)
    manifest: dict[str, Any] = {
        "format": DATA_FORMAT,
        "settings": {**dataclasses.asdict(settings), "label_algorithm": LABEL_ALGORITHM},
        "channels": list(_channels()),
        "levels": [
            {
                "split": source.split,
                "file": source.file,
                "index": source.index,
                "title": source.level.title,
            }
            for source in sources
        ],
        "splits": {},
    }
    for split in SPLITS:
        rows = [k for k, source in enumerate(sources) if source.split == split]
        if not rows:
            continue
        dataset = _balanced(
            [results[k] for k in rows], rows, random.Random(f"{settings.seed}:{split}")
        )
        save_dataset(folder / f"{split}.npz", dataset)
        manifest["splits"][split] = {"levels": len(rows), **dataset.counts}
    manifest["seconds"] = round(time.perf_counter() - started, 1)
    from evosoko.atomic import write_json_atomic

    write_json_atomic(folder / "manifest.json", manifest)
    return manifest


def _channels() -> tuple[str, ...]:
    from evosoko.learn.features import CHANNELS

    return CHANNELS


def _run_tasks(
    tasks: list[tuple], workers: int, on_progress: Callable[[int, int], None] | None
) -> list[LevelPositions]:
    results: list[LevelPositions] = []
    if workers <= 1:
        for task in tasks:
            results.append(_level_task(task))
            if on_progress:
                on_progress(len(results), len(tasks))
        return results
    from evosoko.parallel.pool import PoolTaskQueue, ProcessPool

    pool = ProcessPool(workers, start_method="spawn")  # no threads of torch inherited
    by_position: dict[Hashable, LevelPositions] = {}
    try:
        queue = PoolTaskQueue(pool, _level_task)
        for position, task in enumerate(tasks):
            queue.submit(position, task)
        while (finished := queue.next_result()) is not None:
            by_position[finished[0]] = cast(LevelPositions, finished[1])
            if on_progress:
                on_progress(len(by_position), len(tasks))
    finally:
        pool.close()
    return [by_position[position] for position in range(len(tasks))]


def _balanced(results: list[LevelPositions], level_ids: list[int], rng: random.Random) -> Dataset:
    """Join the levels' positions and sample the larger class down to the smaller one."""
    labels = np.concatenate([r.labels for r in results]) if results else np.zeros(0, np.uint8)
    dead_rows = np.flatnonzero(labels == DEAD).tolist()
    alive_rows = np.flatnonzero(labels == ALIVE).tolist()
    keep = min(len(dead_rows), len(alive_rows))
    chosen = sorted(rng.sample(dead_rows, keep) + rng.sample(alive_rows, keep))
    height = max((r.codes.shape[1] for r in results), default=1)
    width = max((r.codes.shape[2] for r in results), default=1)
    codes, shapes, level = [], [], []
    for result, level_id in zip(results, level_ids):
        count, h, w = result.codes.shape
        padded = np.full((count, height, width), WALL_BIT, dtype=np.uint8)
        padded[:, :h, :w] = result.codes
        codes.append(padded)
        shapes.append(np.tile(np.array([h, w], dtype=np.int16), (count, 1)))
        level.append(np.full(count, level_id, dtype=np.int32))
    every = Dataset(
        codes=np.concatenate(codes),
        shapes=np.concatenate(shapes),
        labels=labels,
        detected=np.concatenate([r.detected for r in results]),
        pushes=np.concatenate([r.pushes for r in results]),
        level=np.concatenate(level),
    )
    index = np.array(chosen, dtype=np.int64)
    return Dataset(
        codes=every.codes[index],
        shapes=every.shapes[index],
        labels=every.labels[index],
        detected=every.detected[index],
        pushes=every.pushes[index],
        level=every.level[index],
        counts={
            "sampled": sum(r.sampled for r in results),
            "undecided": sum(r.undecided for r in results),
            "dead": len(dead_rows),
            "alive": len(alive_rows),
            "kept": len(index),
            "labelling_seconds": round(sum(r.seconds for r in results), 1),
        },
    )


# ---- files ------------------------------------------------------------------------------------
_FIELDS = ("codes", "shapes", "labels", "detected", "pushes", "level")


def save_dataset(path: str | os.PathLike, dataset: Dataset) -> None:
    """Write one split as a compressed ``.npz`` file (atomically)."""
    from evosoko.atomic import atomic_path

    with atomic_path(path) as temporary, open(temporary, "wb") as handle:
        np.savez_compressed(
            handle,
            counts=np.array(json.dumps(dataset.counts)),
            **{name: getattr(dataset, name) for name in _FIELDS},
        )


def load_dataset(path: str | os.PathLike) -> Dataset:
    """One split written by :func:`save_dataset`; :class:`ConfigError` naming a bad file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError("no such data file (make one with `evosoko learn data`)", str(path))
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in _FIELDS}
            counts = json.loads(str(stored["counts"]))
    except (OSError, ValueError, KeyError, EOFError, json.JSONDecodeError) as error:
        raise ConfigError(f"not a deadlock data file: {error}", str(path)) from None
    return Dataset(**arrays, counts=counts)


def load_split(folder: str | os.PathLike, split: str) -> Dataset:
    """The split ``split`` of a data folder made by :func:`build_dataset`."""
    return load_dataset(Path(folder) / f"{split}.npz")


def read_manifest(folder: str | os.PathLike) -> dict:
    """The manifest of a data folder."""
    path = Path(folder) / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            "no manifest.json here (make a data folder with `evosoko learn data`)", str(path)
        ) from None
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"unreadable manifest: {error}", str(path)) from None


GENERATOR_SPECS = (
    ("reverse", 8, 8, 2),
    ("reverse", 8, 8, 3),
    ("markov", 10, 10, 4),
    ("reverse", 12, 10, 5),
    ("reverse", 14, 10, 6),
)
"""Room kinds that ``--generate`` cycles through: sizes and box counts that the Boxoban files
lack (Microban ranges from 1 to 16 boxes in rooms up to 30 cells wide)."""


def generated_sources(count: int, seed: int) -> list[LevelSource]:
    """``count`` generated levels, spread over :data:`GENERATOR_SPECS` (deterministic)."""
    from evosoko.generate import generate_levels

    sources: list[LevelSource] = []
    for k, (method, width, height, boxes) in enumerate(GENERATOR_SPECS):
        share = count // len(GENERATOR_SPECS) + (k < count % len(GENERATOR_SPECS))
        if share == 0:
            continue
        label = f"generated:{method}-{width}x{height}-{boxes}"
        levels = generate_levels(method, width, height, boxes, share, seed=seed + k)
        sources += [LevelSource(level, label, n) for n, level in enumerate(levels, start=1)]
    return sources
