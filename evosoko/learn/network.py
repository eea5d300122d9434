"""The deadlock network, run with numpy: what search and the GA call, with or without PyTorch.

The network is fully convolutional, so one set of weights takes boards of any size: 3x3
convolutions (zero padding, optional dilation, no spatial pooling) with ReLU, then the mean
and the maximum of the last feature maps over the floor cells, a hidden layer and one logit,
the log-odds that the position is dead (lost: no push sequence solves the level from it).

A *floor-only* network (``Architecture.floor_only``, the default) sets every feature map to
zero off the floor after each convolution: the first convolution still sees the walls around
each floor cell, later ones see walls as zeros. Its features then live on the floor cells
alone, so a search, whose positions all share one level's floor, computes them there only
(:meth:`DeadlockNet.for_level`: each convolution is a gather of the floor cells' neighbours
and one matrix product), which on Boxoban boards is about a third of the cells.

PyTorch trains it (:mod:`evosoko.learn.training`, the ``learn`` extra); the weights are saved
as a plain ``.npz`` file (no pickle: loading a model file runs no code) with the architecture
as JSON beside them, and this module evaluates them with numpy alone (the convolutions are one
matrix product each). So the shipped model serves ``solve --algo push-learned`` and the GA's
fitness term on a machine without PyTorch, and worker processes never import it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evosoko.errors import ConfigError
from evosoko.learn.features import CHANNELS, floor_mask, planes

MODEL_FORMAT = "evosoko-deadlock-net/1"
"""The ``format`` of a model file's architecture record."""

DEFAULT_MODEL = "deadlock.npz"
"""The model shipped with the package (in ``evosoko/learn/models/``)."""

PIECE_ROWS = 1 << 16
"""Rows (positions x floor cells) a level-bound network computes at once: a larger call, a
position of a big board, goes layer by layer in pieces of about this many rows, calling its
``between`` after each (a search's clock check), and its patches take at most about
``PIECE_ROWS`` x 9 x channels floats (57 MB at 24 channels). On the 3x333,333 corridor of
``benchmarks/bench_limits.py`` one position took 1.9 s in one piece; a piece takes about 0.1 s.
Calls of at most this many rows (every Microban or XSokoban batch of the searches) are one
piece, computed exactly as before."""


def _nothing() -> None:
    """The ``between`` of work that nothing interrupts."""


@dataclass(frozen=True)
class Architecture:
    """Layer sizes: ``(out_channels, dilation)`` per convolution, then the hidden width."""

    convolutions: tuple[tuple[int, int], ...] = ((24, 1), (24, 1), (24, 2), (24, 4), (24, 1))
    hidden: int = 32
    in_channels: int = len(CHANNELS)
    floor_only: bool = True

    def as_json(self) -> dict:
        """The record stored in a model file."""
        return {
            "format": MODEL_FORMAT,
            "channels": list(CHANNELS),
            "convolutions": [list(layer) for layer in self.convolutions],
            "hidden": self.hidden,
            "floor_only": self.floor_only,
        }

    @staticmethod
    def from_json(record: dict) -> Architecture:
        """The architecture of a model file's record; ``ValueError`` when it is not one."""
        if record.get("format") != MODEL_FORMAT:
            raise ValueError(f"not an evosoko deadlock model (format {record.get('format')!r})")
        if tuple(record.get("channels", ())) != CHANNELS:
            raise ValueError(f"the model expects channels {record.get('channels')}, not {CHANNELS}")
        convolutions = tuple((int(out), int(dilation)) for out, dilation in record["convolutions"])
        return Architecture(
            convolutions=convolutions,
            hidden=int(record["hidden"]),
            floor_only=bool(record.get("floor_only", False)),  # files before it: dense
        )

    def parameter_names(self) -> list[str]:
        """Names of the weight arrays, in order."""
        names = []
        for index in range(len(self.convolutions)):
            names += [f"conv{index}.weight", f"conv{index}.bias"]
        return names + ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]


class DeadlockNet:
    """A trained deadlock network evaluated with numpy."""

    def __init__(self, architecture: Architecture, weights: dict[str, np.ndarray], source: str):
        self.architecture = architecture
        self.source = source
        self._convolutions = []
        in_channels = architecture.in_channels
        for index, (out_channels, dilation) in enumerate(architecture.convolutions):
            weight = np.asarray(weights[f"conv{index}.weight"], dtype=np.float32)
            if weight.shape != (out_channels, in_channels, 3, 3):
                raise ValueError(f"conv{index}.weight has shape {weight.shape}")
            # (out, in, ky, kx) -> (ky, kx, in, out) -> (9 * in, out): matches the patch layout.
            matrix = np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(-1, out_channels))
            bias = np.asarray(weights[f"conv{index}.bias"], dtype=np.float32)
            self._convolutions.append((matrix, bias, dilation))
            in_channels = out_channels
        self._hidden = (
            np.asarray(weights["hidden.weight"], dtype=np.float32).T.copy(),
            np.asarray(weights["hidden.bias"], dtype=np.float32),
        )
        self._out = (
            np.asarray(weights["out.weight"], dtype=np.float32).T.copy(),
            np.asarray(weights["out.bias"], dtype=np.float32),
        )

    def logits(self, codes: np.ndarray) -> np.ndarray:
        """``float32[n]``: the log-odds of dead, for ``uint8[n, height, width]`` codes."""
        if len(codes) == 0:
            return np.zeros(0, dtype=np.float32)
        x = planes(codes).transpose(0, 2, 3, 1)  # channels last: (n, h, w, c)
        mask = floor_mask(codes)[..., None].astype(np.float32)
        for matrix, bias, dilation in self._convolutions:
            x = np.maximum(_convolve(x, matrix, dilation) + bias, 0.0)
            if self.architecture.floor_only:
                x *= mask
        cells = np.maximum(mask.sum(axis=(1, 2)), 1)
        mean = (x * mask).sum(axis=(1, 2)) / cells
        peak = (x * mask).max(axis=(1, 2))
        return self._head(mean, peak)

    def _head(self, mean: np.ndarray, peak: np.ndarray) -> np.ndarray:
        pooled = np.concatenate([mean, peak], axis=1)
        hidden = np.maximum(pooled @ self._hidden[0] + self._hidden[1], 0.0)
        return (hidden @ self._out[0] + self._out[1])[:, 0]

    def for_level(self, level, between: Callable[[], None] = _nothing) -> LevelNet:
        """This network for positions of one level: the fastest way to score many of them.
        ``between`` is called between pieces of its tables (see :data:`PIECE_ROWS`)."""
        return LevelNet(self, level, between)

    def probabilities(self, codes: np.ndarray) -> np.ndarray:
        """``float32[n]``: the predicted probability that each position is dead."""
        return _sigmoid(self.logits(codes))

    def single_threaded(self) -> AbstractContextManager:
        """A context in which numpy's BLAS runs on one thread.

        The matrices of a search's children are small: a multithreaded BLAS spends more time
        waking its threads than multiplying (a hundred times more on a busy machine), and in
        GA worker processes the threads would compete with the other workers. Enter it once
        around many calls: entering costs about as much as one call.
        """
        return _blas_controller().limit(limits=1, user_api="blas")

    def parameter_count(self) -> int:
        """Number of trained parameters."""
        total = sum(m.size + b.size for m, b, _ in self._convolutions)
        return total + sum(array.size for array in (*self._hidden, *self._out))


class LevelNet:
    """A :class:`DeadlockNet` bound to one level's board, with the same outputs.

    A floor-only network computes its feature maps on the level's floor cells alone: for each
    convolution the table of every floor cell's nine neighbours (another floor cell's row, or
    a row of zeros for walls, the outside and beyond the board) is made once, and a layer is
    one gather and one matrix product. Other networks are evaluated as by
    :meth:`DeadlockNet.logits`.
    """

    def __init__(self, network: DeadlockNet, level, between: Callable[[], None] = _nothing) -> None:
        self.network = network
        self.shape = (level.height, level.width)
        floor = np.asarray(level.floor, dtype=bool).reshape(self.shape)
        self.floor_cells = np.flatnonzero(floor.ravel())
        self._tables = []
        if network.architecture.floor_only:
            board_rows = np.arange(floor.size)  # the first layer reads every cell's input
            floor_rows = np.full(floor.size, len(self.floor_cells))  # later ones: floor only
            floor_rows[self.floor_cells] = np.arange(len(self.floor_cells))
            for index, (_, _, dilation) in enumerate(network._convolutions):
                rows, zero_row = (
                    (board_rows, floor.size) if index == 0 else (floor_rows, len(self.floor_cells))
                )
                self._tables.append(
                    _neighbour_table(floor, self.floor_cells, rows, zero_row, dilation, between)
                )

    def logits(self, codes: np.ndarray, between: Callable[[], None] = _nothing) -> np.ndarray:
        """``float32[n]`` log-odds of dead for ``uint8[n, height, width]`` codes of the level;
        ``between`` is called between pieces of a large call (see :data:`PIECE_ROWS`)."""
        if not self._tables or len(codes) == 0:
            return self.network.logits(codes)
        count = len(codes)
        cells = self.shape[0] * self.shape[1]
        x = planes(codes.reshape(count, 1, cells)).reshape(count, -1, cells).transpose(0, 2, 1)
        floor_cells = len(self.floor_cells)
        piece = max(1, PIECE_ROWS // count)
        for (matrix, bias, _), table in zip(self.network._convolutions, self._tables):
            padded = np.zeros((count, x.shape[1] + 1, x.shape[2]), dtype=np.float32)
            padded[:, :-1] = x
            if piece >= floor_cells:
                x = _layer(padded, table, matrix, bias)
                continue
            x = np.empty((count, floor_cells, matrix.shape[1]), dtype=np.float32)
            for start in range(0, floor_cells, piece):
                x[:, start : start + piece] = _layer(
                    padded, table[start : start + piece], matrix, bias
                )
                between()
        return self.network._head(x.mean(axis=1), x.max(axis=1))

    def probabilities(
        self, codes: np.ndarray, between: Callable[[], None] = _nothing
    ) -> np.ndarray:
        """``float32[n]``: the predicted probability that each position is dead (``between``:
        see :meth:`logits`)."""
        return _sigmoid(self.logits(codes, between))

    def single_threaded(self) -> AbstractContextManager:
        """See :meth:`DeadlockNet.single_threaded`."""
        return self.network.single_threaded()


def _layer(
    padded: np.ndarray, table: np.ndarray, matrix: np.ndarray, bias: np.ndarray
) -> np.ndarray:
    """One floor-only convolution with ReLU for the floor cells of ``table``'s rows:
    ``float32[n, rows, out channels]`` from the previous layer ``padded`` (a zero row last)."""
    count = len(padded)
    patches = padded[:, table]  # (n, rows, 9, channels)
    x = patches.reshape(count * len(table), -1) @ matrix
    return np.maximum(x + bias, 0.0).reshape(count, len(table), -1)


def _neighbour_table(
    floor: np.ndarray,
    floor_cells: np.ndarray,
    rows: np.ndarray,
    zero_row: int,
    dilation: int,
    between: Callable[[], None] = _nothing,
) -> np.ndarray:
    """``int64[floor cells, 9]``: for each floor cell and each tap of a 3x3 kernel of
    ``dilation``, the row of the previous layer it reads (``rows[cell]``), or ``zero_row`` (a
    row of zeros) beyond the board; made in pieces of :data:`PIECE_ROWS` floor cells, with a
    call of ``between`` after each."""
    height, width = floor.shape
    table = np.empty((len(floor_cells), 9), dtype=np.int64)
    for start in range(0, len(floor_cells), PIECE_ROWS):
        r, c = np.divmod(floor_cells[start : start + PIECE_ROWS], width)
        piece = table[start : start + PIECE_ROWS]
        for ky in range(3):
            for kx in range(3):
                rr, cc = r + (ky - 1) * dilation, c + (kx - 1) * dilation
                inside = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
                cell = np.where(inside, rr * width + cc, 0)
                piece[:, 3 * ky + kx] = np.where(inside, rows[cell], zero_row)
        between()
    return table


def _convolve(x: np.ndarray, matrix: np.ndarray, dilation: int) -> np.ndarray:
    """A 3x3 'same' convolution of channels-last ``x`` with zero padding: one matrix product."""
    count, height, width, channels = x.shape
    padded = np.zeros((count, height + 2 * dilation, width + 2 * dilation, channels), np.float32)
    padded[:, dilation : dilation + height, dilation : dilation + width] = x
    patches = np.empty((count, height, width, 9, channels), dtype=np.float32)
    for ky in range(3):
        for kx in range(3):
            top, left = ky * dilation, kx * dilation
            patches[:, :, :, 3 * ky + kx] = padded[:, top : top + height, left : left + width]
    return (patches.reshape(-1, 9 * channels) @ matrix).reshape(count, height, width, -1)


@lru_cache(maxsize=1)
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-np.clip(logits, -60, 60)))).astype(np.float32)


# ---- files ----------------------------------------------------------------------------------
def save_model(path: str | os.PathLike, architecture: Architecture, weights: dict) -> None:
    """Write ``weights`` (name -> array) and the architecture to an ``.npz`` model file."""
    from evosoko.atomic import atomic_path

    # savez's keyword arrays: Any, as its own allow_pickle keyword shares the namespace
    arrays: dict[str, Any] = {
        name: np.asarray(weights[name], dtype=np.float32) for name in architecture.parameter_names()
    }
    arrays["architecture"] = np.array(json.dumps(architecture.as_json()))
    with atomic_path(path) as temporary, open(temporary, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def load_model(path: str | os.PathLike | None = None) -> DeadlockNet:
    """The model in ``path`` (default: the one shipped with evosoko).

    Raises :class:`ConfigError` naming the file when it is missing or not a model file.
    """
    if path is None or str(path) == "default":
        resource = resources.files("evosoko.learn") / "models" / DEFAULT_MODEL
        with resources.as_file(resource) as located:
            return _read_model(Path(located), f"the shipped model {DEFAULT_MODEL}")
    return _read_model(Path(path), str(path))


def _read_model(path: Path, label: str) -> DeadlockNet:
    if not path.is_file():
        raise ConfigError(
            f"no model file {label} (train one with `evosoko learn train`)", str(path)
        )
    try:
        with path.open("rb") as head:
            if head.read(4) != b"PK\x03\x04":  # else numpy reads it as a pickle, and says so
                raise ValueError("not an .npz archive")
        with np.load(path, allow_pickle=False) as stored:
            architecture = Architecture.from_json(json.loads(str(stored["architecture"])))
            weights = {name: stored[name] for name in architecture.parameter_names()}
        return DeadlockNet(architecture, weights, str(path))
    except (OSError, ValueError, KeyError, EOFError, json.JSONDecodeError) as error:
        raise ConfigError(
            f"not a deadlock model file: {error or type(error).__name__}", str(path)
        ) from None
