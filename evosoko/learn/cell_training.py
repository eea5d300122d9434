"""Training the screenshot reader's cell classifier (scikit-learn, the ``learn`` extra).

Boards of generated levels, in random positions (boxes and the player anywhere on the floor,
so that every kind of cell is common), are drawn in every tile set of
:mod:`evosoko.learn.tilesets` at random cell sizes, with margins, crops of a few pixels and
noise; their cells are cut on the true grid moved by up to 12 % of a cell (as a found grid may
be) and labelled by what the board holds there, except that a player on a goal is labelled a
player where evosoko's renderer draws the player over the goal (the picture cannot tell them
apart; the reader puts the hidden goal back when the boxes outnumber the goals). A neural network
with one hidden layer learns the standardised cells (a linear model, as in the source document,
cannot tell one tile set's floor from another's walls); the cells of a share of the pictures
are held out to measure it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from evosoko.errors import ConfigError
from evosoko.learn.screenshots import CellClassifier, Grid, cell_features
from evosoko.learn.tilesets import (
    CHARACTERS,
    CLASSES,
    PALETTES,
    TILE_SETS,
    background,
    cell_classes,
    draw_board,
    picture,
)
from evosoko.sokoban.level import Level, State

PLAYER, PLAYER_ON_GOAL = CLASSES.index("player"), CLASSES.index("player_on_goal")
BLANK = np.array([CHARACTERS[k] == " " for k in range(len(CLASSES))])
"""Classes that read as a blank in XSB (outside and floor: telling them apart does not matter)."""

SKLEARN_HINT = (
    "this needs scikit-learn, part of the `learn` extra: pip install torch==2.13.0 (the CPU "
    "build), then pip install -e '.[learn]'"
)


def require_sklearn():
    """The ``sklearn.neural_network`` module, or :class:`ConfigError` saying how to install it."""
    try:
        from sklearn import neural_network
    except ImportError:
        raise ConfigError(SKLEARN_HINT) from None
    return neural_network


def training_levels(seed: int) -> list[Level]:
    """A few generated levels of several sizes: the boards the classifier learns from."""
    from evosoko.generate import generate_levels

    levels = []
    for k, (width, height, boxes) in enumerate(((7, 7, 2), (9, 8, 3), (11, 9, 4), (13, 11, 5))):
        levels += generate_levels("reverse", width, height, boxes, 3, seed=seed + k)
    return levels


def random_state(level: Level, rng: np.random.Generator) -> State:
    """Boxes and the player on random floor cells (a picture, not necessarily a legal game)."""
    floor = np.flatnonzero(level.floor)
    cells = rng.choice(floor, size=level.box_count + 1, replace=False)
    return State.of(int(cells[0]), cells[1:].tolist())


def sample_picture(level: Level, tile_set: str, rng: np.random.Generator, cell: int | None = None):
    """A random picture of ``level`` in ``tile_set``: ``(image, classes, true grid)``."""
    state = random_state(level, rng)
    cell = int(rng.integers(14, 69)) if cell is None else cell
    board = draw_board(level, state, cell, tile_set)
    margin = int(rng.integers(0, cell)) if rng.random() < 0.5 else 0
    top, bottom, left, right = (int(v) for v in rng.integers(0, 5, size=4))
    crop = (top, bottom, left, right)
    noise = float(rng.choice([0.0, 0.0, 3.0, 8.0]))
    image = picture(board, rng, margin, background(tile_set), crop, noise)
    grid = Grid(cell, margin - crop[2], margin - crop[0], level.width, level.height)
    return image, cell_classes(level, state), grid


def training_cells(
    levels: list[Level],
    pictures_per_set: int,
    rng: np.random.Generator,
    jitter: float = 0.12,
    tile_sets: tuple[str, ...] = TILE_SETS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, class labels and picture numbers of cells cut from random pictures in every
    tile set."""
    features: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    pictures: list[np.ndarray] = []
    for tile_set in tile_sets:
        for _ in range(pictures_per_set):
            level = levels[int(rng.integers(len(levels)))]
            image, classes, grid = sample_picture(level, tile_set, rng)
            shift = rng.uniform(-jitter, jitter, size=2) * grid.cell
            moved = Grid(
                grid.cell * rng.uniform(0.98, 1.02),
                grid.left + shift[0],
                grid.top + shift[1],
                grid.columns,
                grid.rows,
            )
            features.append(cell_features(image, moved))
            classes = classes.ravel()
            if tile_set in PALETTES:  # the renderer hides the goal under the player
                classes = np.where(classes == PLAYER_ON_GOAL, PLAYER, classes)
            labels.append(classes)
            pictures.append(np.full(len(classes), len(pictures)))
    return np.concatenate(features), np.concatenate(labels), np.concatenate(pictures)


def train_cell_classifier(
    out: str | os.PathLike,
    pictures_per_set: int = 100,
    hidden: int = 192,
    seed: int = 0,
    on_stage: Callable[[str], None] | None = None,
) -> dict:
    """Fit the cell classifier, save it to ``out`` and return its accuracy on the cells of
    held-out pictures (``held_out_read_right`` takes outside and floor for one, as XSB does)."""
    neural_network = require_sklearn()
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    if on_stage:
        on_stage("generating levels")
    levels = training_levels(seed)
    if on_stage:
        on_stage("drawing pictures")
    features, labels, pictures = training_cells(levels, pictures_per_set, rng)
    held_out = np.isin(pictures, rng.permutation(pictures.max() + 1)[: (pictures.max() + 1) // 7])
    mean = features[~held_out].mean(axis=0)
    scale = features[~held_out].std(axis=0) + 1e-3
    if on_stage:
        on_stage(f"fitting on {int((~held_out).sum())} cells")
    model = neural_network.MLPClassifier(
        (hidden,), max_iter=300, early_stopping=True, random_state=seed
    )
    model.fit((features[~held_out] - mean) / scale, labels[~held_out])
    if len(model.classes_) != len(CLASSES):
        raise ConfigError("the pictures did not show every kind of cell; draw more of them")
    classifier = CellClassifier(
        mean.astype(np.float32),
        scale.astype(np.float32),
        tuple(w.astype(np.float32) for w in model.coefs_),
        tuple(b.astype(np.float32) for b in model.intercepts_),
    )
    predicted = classifier.probabilities(features[held_out]).argmax(axis=1)
    truth = labels[held_out]
    accuracy = float(np.mean(predicted == truth))
    as_read = float(np.mean((predicted == truth) | (BLANK[predicted] & BLANK[truth])))
    classifier.save(out)
    return {
        "cells": len(labels),
        "held_out": int(held_out.sum()),
        "held_out_pictures": len(np.unique(pictures[held_out])),
        "held_out_accuracy": accuracy,
        "held_out_read_right": as_read,
        "seconds": round(time.perf_counter() - started, 1),
    }
