"""Levels read from pictures of boards: find the grid, name each cell, check the level.

As in the source document, each cell is cut out, shrunk (to 10x10 pixels) and named by a
classifier (:class:`CellClassifier`), here a small neural network rather than the source's
logistic regression: across tile sets the floor of one is the colour of another's walls, which
no linear model of the pixels separates (it named 76 % of held-out cells right, the network
over 99 %). Trained with scikit-learn (:mod:`evosoko.learn.cell_training`), it is evaluated
with numpy, so reading needs no extra. Cells that look alike in one picture are the same tile,
so they are grouped (by distance) and each group takes the class its cells vote for together;
and a player standing on a goal may hide it (evosoko's renderer draws it over the goal), so
when the boxes outnumber the goals by one, the player is read as standing on a goal. The grid comes
from the picture: every tile of a tile set is drawn at the same place within its cell, so the
sum of colour changes along each column (and each row) of pixels repeats with the cell size. The
cell size that best explains that repetition on both axes, and the offset of the cell edges,
give the grid; with ``size`` (columns x rows, as the source document required) the search is
narrowed around ``picture width / columns``. A grid of twice the cell size repeats as well, so
the smallest period nearly as regular as the most regular one is taken. Cells cut off at the picture's edge are read when at least half
of them shows (their missing part is filled with their edge pixels), and rows and columns of
nothing but background around the board are dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from evosoko.errors import ConfigError, LevelFormatError
from evosoko.learn.tilesets import CHARACTERS, CLASSES

FEATURE_SIDE = 10
"""Cells are resized to this many pixels a side before they are classified."""
SAME_TILE = 0.06
"""Cells of one picture whose features differ by less than this (root mean square, colours in
0..1) are taken for the same tile."""
SMALLEST_CELL = 8
"""No grid of smaller cells is considered (pixels)."""
DEFAULT_CELLS = "cells.npz"


# ---- the cell classifier ------------------------------------------------------------------------
@dataclass(frozen=True)
class CellClassifier:
    """A small neural network on standardised cells (ReLU hidden layers, softmax), numpy only."""

    mean: np.ndarray  # float32[features]
    scale: np.ndarray  # float32[features]
    weights: tuple[np.ndarray, ...]  # float32[in, out] per layer
    biases: tuple[np.ndarray, ...]  # float32[out] per layer

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """``float[n, classes]`` for ``float[n, features]`` cell features."""
        x = (features - self.mean) / self.scale
        for k, (weight, bias) in enumerate(zip(self.weights, self.biases)):
            x = x @ weight + bias
            if k < len(self.weights) - 1:
                x = np.maximum(x, 0.0)
        x -= x.max(axis=1, keepdims=True)
        exp = np.exp(x)
        return exp / exp.sum(axis=1, keepdims=True)

    def save(self, path: str | os.PathLike) -> None:
        """Write the classifier to an ``.npz`` file (atomically)."""
        from evosoko.atomic import atomic_path

        layers = {f"weight{k}": w for k, w in enumerate(self.weights)}
        layers |= {f"bias{k}": b for k, b in enumerate(self.biases)}
        with atomic_path(path) as temporary, open(temporary, "wb") as handle:
            np.savez_compressed(
                handle, mean=self.mean, scale=self.scale, classes=np.array(CLASSES), **layers
            )


def load_cell_classifier(path: str | os.PathLike | None = None) -> CellClassifier:
    """The classifier in ``path`` (default: the one shipped with evosoko)."""
    if path is None:
        resource = resources.files("evosoko.learn") / "models" / DEFAULT_CELLS
        with resources.as_file(resource) as located:
            return _read_classifier(Path(located))
    return _read_classifier(Path(path))


def _read_classifier(path: Path) -> CellClassifier:
    try:
        with np.load(path, allow_pickle=False) as stored:
            if tuple(stored["classes"].tolist()) != CLASSES:
                raise ValueError("it names other cell classes")
            layers = sum(1 for name in stored.files if name.startswith("weight"))
            return CellClassifier(
                stored["mean"].astype(np.float32),
                stored["scale"].astype(np.float32),
                tuple(stored[f"weight{k}"].astype(np.float32) for k in range(layers)),
                tuple(stored[f"bias{k}"].astype(np.float32) for k in range(layers)),
            )
    except FileNotFoundError:
        raise ConfigError(
            "no cell classifier file (train one with `evosoko learn cells`)", str(path)
        ) from None
    except (OSError, ValueError, KeyError, EOFError) as error:
        raise ConfigError(f"not a cell classifier file: {error}", str(path)) from None


# ---- cutting cells ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    """Cells of ``cell`` pixels, the first one's top-left corner at (``left``, ``top``) (which
    may lie outside the picture), ``columns`` x ``rows`` of them."""

    cell: float
    left: float
    top: float
    columns: int
    rows: int


def cell_features(image: np.ndarray, grid: Grid) -> np.ndarray:
    """``float32[rows * columns, 3 * FEATURE_SIDE ** 2]``: every cell of ``grid`` shrunk, row by row."""
    from PIL import Image

    _height, _width, _ = image.shape
    pad = int(np.ceil(grid.cell)) + 2
    padded = np.pad(image, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    features = np.empty((grid.rows * grid.columns, 3 * FEATURE_SIDE**2), dtype=np.float32)
    for row in range(grid.rows):
        for column in range(grid.columns):
            x0 = grid.left + column * grid.cell + pad
            y0 = grid.top + row * grid.cell + pad
            box = (x0, y0, x0 + grid.cell, y0 + grid.cell)
            left, top = round(box[0]), round(box[1])
            right, bottom = max(left + 1, round(box[2])), max(top + 1, round(box[3]))
            patch = Image.fromarray(padded[top:bottom, left:right])
            small = patch.resize((FEATURE_SIDE, FEATURE_SIDE), Image.Resampling.BOX)
            features[row * grid.columns + column] = np.asarray(small, np.float32).ravel() / 255.0
    return features


# ---- finding the grid ---------------------------------------------------------------------------
def _profiles(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colour change across each vertical and each horizontal pixel edge, summed."""
    pixels = image.astype(np.float32)
    across_x = np.abs(np.diff(pixels, axis=1)).sum(axis=(0, 2))  # [i]: edge at x = i + 1
    across_y = np.abs(np.diff(pixels, axis=0)).sum(axis=(1, 2))
    return across_x, across_y


def _fold(profile: np.ndarray, period: float) -> tuple[float, float]:
    """The phase (edge coordinate in ``[0, period)``) where the comb of teeth ``period`` apart
    collects the most change per tooth, and that mean."""
    best_phase, best_value = 0.0, -1.0
    step = 0.5 if period < 24 else 1.0
    for phase in np.arange(0.0, period, step):
        teeth = np.round(np.arange(phase, len(profile) + 1, period)).astype(np.int64)
        teeth = teeth[(teeth >= 1) & (teeth <= len(profile))]
        if len(teeth) < 2:
            continue
        value = float(profile[teeth - 1].mean())
        if value > best_value:
            best_phase, best_value = float(phase), value
    return best_phase, best_value


def _period_scores(
    across_x: np.ndarray, across_y: np.ndarray, low: int, high: int
) -> list[tuple[float, int]]:
    """``(score, period)`` of every whole period in ``low..high``: folding each profile at the
    period, the share of the teeth at its strongest phase that are among the picture's strong
    edges (the top tenth), averaged over both axes. Unlike the mean change per tooth, this
    share does not grow with the period (fewer teeth) and stays high at the true period even
    where some cells meet their like (no edge there)."""
    scores = []
    for period in range(low, high + 1):
        total = 0.0
        for profile in (across_x, across_y):
            count = (len(profile) // period) * period
            if count < 2 * period:
                total = -2.0
                break
            teeth = profile[:count].reshape(-1, period)
            phase = int(np.argmax(teeth.mean(axis=0)))
            total += float(np.mean(teeth[:, phase] > np.percentile(profile, 90)))
        scores.append((total / 2, period))
    return scores


def _refine(across_x: np.ndarray, across_y: np.ndarray, period: int) -> float:
    """The fractional period near ``period`` whose combs collect the most change."""
    best, best_value = float(period), -1.0
    for candidate in np.arange(period - 0.9, period + 0.91, 0.1):
        value = _fold(across_x, candidate)[1] + _fold(across_y, candidate)[1]
        if value > best_value + 1e-6:
            best, best_value = float(candidate), value
    return best


def _grid_for(
    image: np.ndarray, across_x, across_y, period: float, size: tuple[int, int] | None
) -> Grid:
    height, width, _ = image.shape
    phase_x = _fold(across_x, period)[0]
    phase_y = _fold(across_y, period)[0]
    left, columns = _cells_along(width, period, phase_x, size[0] if size else None)
    top, rows = _cells_along(height, period, phase_y, size[1] if size else None)
    return Grid(period, left, top, columns, rows)


def _cells_along(length: int, period: float, phase: float, count: int | None) -> tuple[float, int]:
    """Start and number of the cells along one axis that show at least half of themselves
    (or the ``count`` consecutive cells that show the most)."""
    start = phase - period * np.ceil(phase / period)  # first cell starts at or before 0
    starts = np.arange(start, length, period)
    visible = np.clip(np.minimum(starts + period, length) - np.maximum(starts, 0), 0, None) / period
    if count is None:
        shown = np.flatnonzero(visible >= 0.5)
        if len(shown) == 0:
            return float(start), 0
        return float(starts[shown[0]]), int(shown[-1] - shown[0] + 1)
    if count > len(starts):
        extra = count - len(starts)
        starts = np.concatenate([starts, starts[-1] + period * np.arange(1, extra + 1)])
        visible = np.concatenate([visible, np.zeros(extra)])
    sums = np.convolve(visible, np.ones(count), mode="valid")
    first = int(np.argmax(sums))
    return float(starts[first]), count


def find_grid(
    image: np.ndarray,
    classifier: CellClassifier,
    size: tuple[int, int] | None = None,
    candidates: int = 4,
) -> Grid:
    """The grid of cells of a picture of a board (``uint8[height, width, 3]``)."""
    height, width, _ = image.shape
    across_x, across_y = _profiles(image)
    if size is not None:  # the cell size is known but for crops and margins
        guess_x, guess_y = width / size[0], height / size[1]
        low = max(SMALLEST_CELL, int(min(guess_x, guess_y) * 0.9))
        high = max(low, int(np.ceil(max(guess_x, guess_y) * 1.1)))
    else:
        low, high = SMALLEST_CELL, max(SMALLEST_CELL, min(width, height) // 3)
    scores = _period_scores(across_x, across_y, low, high)
    best = max(scores)[0] if scores else -1.0
    if best <= 0:
        raise LevelFormatError("found no repeating grid of cells in the picture")
    # Multiples of the cell size repeat too: take the smallest period nearly as good as the best.
    plausible = sorted(period for score, period in scores if score >= 0.8 * best)
    chosen: list[int] = []
    for period in plausible:
        if all(abs(period - other) > 1 for other in chosen):
            chosen.append(period)
        if len(chosen) == candidates:
            break
    for period in chosen:
        grid = _grid_for(image, across_x, across_y, _refine(across_x, across_y, period), size)
        if grid.columns >= 3 and grid.rows >= 3:
            return grid
    raise LevelFormatError("found no grid of at least 3 x 3 cells in the picture")


# ---- reading a board ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """What a picture was read as: the grid, the XSB rows and each cell's confidence."""

    grid: Grid
    rows: list[str]
    classes: np.ndarray  # int[rows, columns] of the grid (before trimming)
    confidence: np.ndarray  # float[rows, columns]


def read_board(
    image: np.ndarray,
    size: tuple[int, int] | None = None,
    classifier: CellClassifier | None = None,
) -> Reading:
    """Read a picture of a board (``uint8[height, width, 3]``) into XSB rows (not validated)."""
    classifier = classifier or load_cell_classifier()
    grid = find_grid(image, classifier, size)
    features = cell_features(image, grid)
    probabilities = classifier.probabilities(features)
    classes = vote_by_tile(features, probabilities)
    classes = player_on_hidden_goal(classes)
    confidence = probabilities[np.arange(len(classes)), classes]
    shape = (grid.rows, grid.columns)
    return Reading(
        grid,
        board_rows(classes.reshape(shape), keep_size=size is not None),
        classes.reshape(shape),
        confidence.reshape(shape),
    )


def vote_by_tile(features: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The class of each cell, where cells that look alike (the same tile) share the class
    their summed log-probabilities favour."""
    log_probabilities = np.log(np.clip(probabilities, 1e-9, 1.0))
    groups = np.full(len(features), -1, dtype=np.int64)
    leaders: list[int] = []
    for cell in range(len(features)):
        if leaders:
            distance = np.sqrt(((features[leaders] - features[cell]) ** 2).mean(axis=1))
            nearest = int(np.argmin(distance))
            if distance[nearest] < SAME_TILE:
                groups[cell] = nearest
                continue
        groups[cell] = len(leaders)
        leaders.append(cell)
    classes = np.empty(len(features), dtype=np.int64)
    for group in range(len(leaders)):
        members = groups == group
        classes[members] = int(log_probabilities[members].sum(axis=0).argmax())
    return classes


def player_on_hidden_goal(classes: np.ndarray) -> np.ndarray:
    """Read a lone player as standing on a goal when the boxes outnumber the goals by one."""
    count = np.bincount(classes, minlength=len(CLASSES))
    name = {kind: count[CLASSES.index(kind)] for kind in CLASSES}
    boxes = name["box"] + name["box_on_goal"]
    goals = name["goal"] + name["box_on_goal"] + name["player_on_goal"]
    if name["player"] == 1 and name["player_on_goal"] == 0 and boxes == goals + 1:
        classes = classes.copy()
        classes[classes == CLASSES.index("player")] = CLASSES.index("player_on_goal")
    return classes


def board_rows(classes: np.ndarray, keep_size: bool = False) -> list[str]:
    """XSB rows of a grid of cell classes; rows and columns around the board that hold only
    blanks (outside or floor, which no closed level has on its edge) are dropped (unless
    ``keep_size``), and trailing blanks are cut."""
    characters = np.array(CHARACTERS)[classes]
    if not keep_size:
        shown = characters != " "
        if shown.any():
            rows = np.flatnonzero(shown.any(axis=1))
            columns = np.flatnonzero(shown.any(axis=0))
            characters = characters[rows[0] : rows[-1] + 1, columns[0] : columns[-1] + 1]
    return ["".join(row).rstrip() for row in characters.tolist()]


def read_image_file(path: str | os.PathLike) -> np.ndarray:
    """``uint8[height, width, 3]`` RGB pixels of an image file; :class:`LevelFormatError`
    naming the file when it cannot be read as a picture."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as picture:
            rgba = picture.convert("RGBA")
    except FileNotFoundError:
        raise LevelFormatError("no such file", str(path)) from None
    except (UnidentifiedImageError, OSError) as error:
        raise LevelFormatError(f"not a picture that can be read: {error}", str(path)) from None
    pixels = np.asarray(rgba, dtype=np.float32)
    alpha = pixels[:, :, 3:] / 255.0  # transparent parts read as white, as viewers show them
    return np.round(pixels[:, :, :3] * alpha + 255.0 * (1 - alpha)).astype(np.uint8)


def import_picture(
    path: str | os.PathLike,
    size: tuple[int, int] | None = None,
    title: str | None = None,
    classifier: CellClassifier | None = None,
):
    """The level a picture shows, validated; :class:`LevelFormatError` naming the file and
    what was recognised when the cells do not make a valid level."""
    from evosoko.sokoban.build import level_from_rows

    reading = read_board(read_image_file(path), size, classifier)
    try:
        level = level_from_rows(reading.rows, title=title)
    except LevelFormatError as error:
        raise LevelFormatError(
            f"the picture does not show a valid level ({error.message}); recognised "
            f"{reading.grid.columns}x{reading.grid.rows} cells of {reading.grid.cell:.1f} px: "
            + "|".join(reading.rows),
            str(path),
        ) from None
    return level, reading
