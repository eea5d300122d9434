"""Scoring a deadlock network on held-out positions, beside the exact detectors.

Per class (dead, alive): precision, recall and F1 at a probability threshold. Beside them, the
exact local detectors (dead squares, freeze, bipartite with frozen goals) on the same
positions: their recall on the dead class (they never call an alive position dead), how often
the network agrees with them where they fire, and the network's recall on the dead positions
they miss, which is what a learned detector adds. Scores are given over the whole split and
per level file (from the data folder's manifest).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evosoko.learn.data import DEAD, Dataset, load_dataset, read_manifest
from evosoko.learn.network import DeadlockNet

BATCH = 512


def predict(network: DeadlockNet, dataset: Dataset) -> np.ndarray:
    """``float32[n]``: the network's probability of dead for every position of ``dataset``."""
    out = np.zeros(len(dataset), dtype=np.float32)
    for (height, width), rows in dataset.by_shape().items():
        for start in range(0, len(rows), BATCH):
            chosen = rows[start : start + BATCH]
            out[chosen] = network.probabilities(dataset.codes[chosen, :height, :width])
    return out


def class_scores(labels: np.ndarray, predicted: np.ndarray) -> dict[str, dict[str, float]]:
    """Precision, recall, F1 and support of each class, from 0/1 labels and predictions."""
    scores = {}
    for name, value in (("dead", 1), ("alive", 0)):
        true_positive = int(np.sum((predicted == value) & (labels == value)))
        called = int(np.sum(predicted == value))
        actual = int(np.sum(labels == value))
        precision = true_positive / called if called else float("nan")
        recall = true_positive / actual if actual else float("nan")
        f1 = (
            2 * precision * recall / (precision + recall)
            if called and actual and precision + recall > 0
            else float("nan")
        )
        scores[name] = {"precision": precision, "recall": recall, "f1": f1, "support": actual}
    return scores


def score(
    labels: np.ndarray, detected: np.ndarray, probability: np.ndarray, threshold: float = 0.5
) -> dict:
    """Every figure of :func:`evaluate` for one group of positions."""
    labels = labels.astype(np.int64)
    detected = detected.astype(bool)
    predicted = (probability >= threshold).astype(np.int64)
    dead = labels == DEAD
    missed = dead & ~detected
    return {
        "positions": len(labels),
        "accuracy": float(np.mean(predicted == labels)) if len(labels) else float("nan"),
        "network": class_scores(labels, predicted),
        "detectors": {
            "dead_recall": float(np.mean(detected[dead])) if dead.any() else float("nan"),
            "false_dead": int(np.sum(detected & ~dead)),
            "network_agrees": float(np.mean(predicted[detected] == DEAD))
            if detected.any()
            else float("nan"),
            "network_recall_beyond": float(np.mean(predicted[missed] == DEAD))
            if missed.any()
            else float("nan"),
            "dead_missed": int(missed.sum()),
            "combined_dead_recall": float(np.mean(((predicted == DEAD) | detected)[dead]))
            if dead.any()
            else float("nan"),
        },
    }


def evaluate(
    network: DeadlockNet,
    data: str | os.PathLike,
    split: str = "test",
    threshold: float = 0.5,
) -> dict:
    """Score ``network`` on one split of a data folder (or on one ``.npz`` file): overall and
    per level file."""
    path = Path(data)
    folder = path.parent if path.suffix == ".npz" else path
    file = path if path.suffix == ".npz" else path / f"{split}.npz"
    dataset = load_dataset(file)
    probability = predict(network, dataset)
    report: dict[str, Any] = {
        "model": network.source,
        "data": str(file),
        "threshold": threshold,
        "all": score(dataset.labels, dataset.detected, probability, threshold),
        "by_file": {},
    }
    levels = _manifest_levels(folder)
    if levels:
        files = np.array([levels[k]["file"] if k < len(levels) else "?" for k in dataset.level])
        for name in sorted(set(files.tolist())):
            rows = files == name
            report["by_file"][name] = score(
                dataset.labels[rows], dataset.detected[rows], probability[rows], threshold
            )
    return report


def _manifest_levels(folder: Path) -> Sequence[dict]:
    if not (folder / "manifest.json").is_file():
        return []  # a bare .npz without its manifest is scored as one group
    return read_manifest(folder).get("levels", [])
