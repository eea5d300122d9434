"""Training the deadlock network with PyTorch (the ``learn`` extra), on a data folder.

Batches hold boards of one size (the network is fully convolutional) and each batch is seen
in one of the eight symmetries of the square, drawn at random: a position and its rotations
and reflections are equally dead. AdamW minimises the binary cross-entropy; after each epoch the
validation split is scored, the best weights so far are kept, the step size is halved after
every two epochs in a row that did not improve the validation loss, and training stops when it
has not improved for ``patience`` epochs (or at ``epochs``, or ``minutes``).
The result is a numpy model file (:func:`evosoko.learn.network.save_model`) and a metrics file.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evosoko.errors import ConfigError
from evosoko.learn.data import Dataset, load_split
from evosoko.learn.features import floor_mask, planes
from evosoko.learn.network import Architecture, save_model

TORCH_HINT = (
    "this needs PyTorch, the `learn` extra: pip install torch==2.13.0 (the CPU build), "
    "then pip install -e '.[learn]'"
)


def require_torch():
    """The ``torch`` module, or :class:`ConfigError` saying how to install it."""
    try:
        import torch
    except ImportError:
        raise ConfigError(TORCH_HINT) from None
    return torch


@dataclass(frozen=True)
class TrainSettings:
    """Optimisation settings of :func:`train_model`."""

    epochs: int = 40
    patience: int = 5
    batch_size: int = 128
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    seed: int = 0
    minutes: float | None = None
    threads: int = 2
    architecture: Architecture = field(default_factory=Architecture)

    def check(self) -> None:
        """Raise :class:`ConfigError` for settings that make no sense."""
        if self.epochs < 1 or self.patience < 1 or self.batch_size < 1:
            raise ConfigError("--epochs, --patience and --batch-size must be at least 1")
        if not self.learning_rate > 0:
            raise ConfigError("--learning-rate must be positive")
        if self.minutes is not None and not self.minutes > 0:
            raise ConfigError("--minutes must be positive")
        if self.threads < 1:
            raise ConfigError("--threads must be at least 1")


@dataclass
class EpochRecord:
    """What one epoch did."""

    epoch: int
    train_loss: float
    valid_loss: float
    valid_accuracy: float
    seconds: float
    learning_rate: float = 0.0


def torch_network(architecture: Architecture):
    """A ``torch.nn.Module`` computing the same function as :class:`DeadlockNet`."""
    torch = require_torch()
    nn: Any = torch.nn  # torch is optional and typed as Any here

    class TorchDeadlockNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers = []
            channels = architecture.in_channels
            for out_channels, dilation in architecture.convolutions:
                layers.append(
                    nn.Conv2d(channels, out_channels, 3, padding=dilation, dilation=dilation)
                )
                channels = out_channels
            self.convs = nn.ModuleList(layers)
            self.hidden = nn.Linear(2 * channels, architecture.hidden)
            self.out = nn.Linear(architecture.hidden, 1)

        def forward(self, x, mask):
            for conv in self.convs:
                x = torch.relu(conv(x))
                if architecture.floor_only:
                    x = x * mask
            cells = mask.sum(dim=(2, 3)).clamp(min=1.0)
            masked = x * mask
            pooled = torch.cat([masked.sum(dim=(2, 3)) / cells, masked.amax(dim=(2, 3))], dim=1)
            return self.out(torch.relu(self.hidden(pooled)))[:, 0]

        def numpy_weights(self) -> dict[str, np.ndarray]:
            weights = {}
            for index, conv in enumerate(self.convs):
                weights[f"conv{index}.weight"] = conv.weight.detach().cpu().numpy()
                weights[f"conv{index}.bias"] = conv.bias.detach().cpu().numpy()
            for name in ("hidden", "out"):
                layer = getattr(self, name)
                weights[f"{name}.weight"] = layer.weight.detach().cpu().numpy()
                weights[f"{name}.bias"] = layer.bias.detach().cpu().numpy()
            return weights

    return TorchDeadlockNet()


def symmetry(codes: np.ndarray, which: int) -> np.ndarray:
    """One of the eight symmetries of the square applied to ``[n, height, width]`` boards."""
    if which & 4:
        codes = codes.transpose(0, 2, 1)
    if which & 1:
        codes = codes[:, ::-1, :]
    if which & 2:
        codes = codes[:, :, ::-1]
    return np.ascontiguousarray(codes)


def batches(dataset: Dataset, size: int, rng: np.random.Generator | None) -> list[np.ndarray]:
    """Row indices in batches of one board shape (shuffled when ``rng`` is given)."""
    out = []
    for _, rows in sorted(dataset.by_shape().items()):
        if rng is not None:
            rows = rng.permutation(rows)
        out += [rows[start : start + size] for start in range(0, len(rows), size)]
    if rng is not None:
        out = [out[k] for k in rng.permutation(len(out))]
    return out


def _tensors(torch, dataset: Dataset, rows: np.ndarray, which: int = 0):
    height, width = dataset.shapes[rows[0]]
    codes = symmetry(dataset.codes[rows, :height, :width], which)
    x = torch.from_numpy(planes(codes))
    mask = torch.from_numpy(floor_mask(codes)[:, None].astype(np.float32))
    y = torch.from_numpy(dataset.labels[rows].astype(np.float32))
    return x, mask, y


def train_model(
    data: str | os.PathLike,
    out: str | os.PathLike,
    settings: TrainSettings = TrainSettings(),
    on_epoch: Callable[[EpochRecord], None] | None = None,
    on_batch: Callable[[int, int], None] | None = None,
) -> dict:
    """Train on ``DATA/train.npz``, stop early on ``DATA/valid.npz``; write ``OUT/model.npz``
    and ``OUT/metrics.json``; return the metrics."""
    torch = require_torch()
    settings.check()
    train = load_split(data, "train")
    valid = load_split(data, "valid") if (Path(data) / "valid.npz").is_file() else None
    if len(train) == 0:
        raise ConfigError("the training split is empty", str(Path(data) / "train.npz"))
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create the folder: {error.strerror}", str(folder)) from None
    torch.manual_seed(settings.seed)
    torch.set_num_threads(settings.threads)
    rng = np.random.default_rng(settings.seed)
    network = torch_network(settings.architecture)
    optimizer = torch.optim.AdamW(
        network.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    loss_function = torch.nn.BCEWithLogitsLoss()
    started = time.perf_counter()
    history: list[EpochRecord] = []
    best_loss, best_epoch, best_weights = math.inf, 0, network.numpy_weights()
    stop_reason = "epochs"
    for epoch in range(1, settings.epochs + 1):
        network.train()
        epoch_started = time.perf_counter()
        total, seen = 0.0, 0
        plan = batches(train, settings.batch_size, rng)
        for number, rows in enumerate(plan, start=1):
            x, mask, y = _tensors(torch, train, rows, int(rng.integers(8)))
            optimizer.zero_grad()
            loss = loss_function(network(x, mask), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
            seen += len(rows)
            if on_batch:
                on_batch(number, len(plan))
        valid_loss, valid_accuracy = (
            _score(torch, network, valid, loss_function, settings.batch_size)
            if valid is not None and len(valid)
            else (total / seen, math.nan)
        )
        record = EpochRecord(
            epoch,
            total / seen,
            valid_loss,
            valid_accuracy,
            time.perf_counter() - epoch_started,
            optimizer.param_groups[0]["lr"],
        )
        history.append(record)
        if on_epoch:
            on_epoch(record)
        if valid_loss < best_loss:
            best_loss, best_epoch, best_weights = valid_loss, epoch, network.numpy_weights()
        elif epoch - best_epoch >= settings.patience:
            stop_reason = "early stop"
            break
        elif (epoch - best_epoch) % 2 == 0:  # two epochs in a row no better: smaller steps
            for group in optimizer.param_groups:
                group["lr"] *= 0.5
        if settings.minutes is not None and time.perf_counter() - started >= 60 * settings.minutes:
            stop_reason = "time"
            break
    save_model(folder / "model.npz", settings.architecture, best_weights)
    metrics = {
        "data": str(data),
        "settings": {**asdict(settings), "architecture": settings.architecture.as_json()},
        "positions": {"train": len(train), "valid": len(valid) if valid is not None else 0},
        "parameters": sum(p.numel() for p in network.parameters()),
        "best_epoch": best_epoch,
        "best_valid_loss": best_loss,
        "stop_reason": stop_reason,
        "seconds": round(time.perf_counter() - started, 1),
        "torch": torch.__version__,
        "history": [asdict(record) for record in history],
    }
    from evosoko.atomic import write_text_atomic

    write_text_atomic(folder / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    return metrics


def _score(torch, network, dataset: Dataset, loss_function, batch_size: int) -> tuple[float, float]:
    network.eval()
    total, correct = 0.0, 0
    with torch.no_grad():
        for rows in batches(dataset, 4 * batch_size, None):
            x, mask, y = _tensors(torch, dataset, rows)
            logits = network(x, mask)
            total += float(loss_function(logits, y)) * len(rows)
            correct += int(((logits > 0).float() == y).sum())
    return total / len(dataset), correct / len(dataset)
