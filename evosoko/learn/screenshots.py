"""Levels read from pictures of boards: find the grid, name each cell, check the level.

As in the source document, each cell is cut out, shrunk (to 10x10 pixels) and named by a
classifier (:class:`CellClassifier`), here a small neural network rather than the source's
logistic regression: across tile sets the floor of one is the colour of another's walls, which
no linear model of the pixels separates (it named 76 % of held-out cells right, the network
over 99 %). Trained with scikit-learn (:mod:`evosoko.learn.cell_training`), it is evaluated
with numpy, so reading needs no extra. Cells that look alike in one picture are the same tile,
so they are grouped (by distance), and the groups take the classes their cells' summed
log-probabilities favour most among those that make a level (one player, as many goals as
boxes: :func:`consistent_labels`); a player standing on a goal may hide it (evosoko's renderer
draws it over the goal), so when the boxes outnumber the goals by one, the player is read as
standing on a goal. The grid comes from the picture alone (:func:`find_grid`): the cell size
and the edges' offsets that cut it into the fewest distinct tiles; with ``size`` (columns x
rows, as the source document required) the cell size is bounded by it. Cells cut off at the
picture's edge are read when at least half of them shows (their missing part is filled with
their edge pixels), and rows and columns of nothing but background around the board are
dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numba
import numpy as np

from evosoko.errors import ConfigError, LevelFormatError, OutOfMemory
from evosoko.learn.tilesets import CHARACTERS, CLASSES

FEATURE_SIDE = 10
"""Cells are resized to this many pixels a side before they are classified."""
SAME_TILE = 0.05
"""Cells of one picture whose features differ by less than this (root mean square, colours in
0..1) are taken for the same tile."""
CELLS_WEIGHT = 2.0
"""How many distinct tiles a grid may show more than another for each doubling of the cells
it shows, and still fit better (see :func:`find_grid`)."""
MOST_TILES = 48
"""A grid whose cells show more distinct tiles than this is no board's (see _group_tiles)."""
SMALLEST_CELL = 8
"""No grid of smaller cells is considered (pixels)."""
MAX_PICTURE_PIXELS = 64_000_000
"""The largest picture read: the largest board the level parser accepts (1,000 x 1,000 cells)
at the smallest cell (8 pixels). Reading one takes about 20 bytes a pixel; a larger one is
refused before it is decoded (a 20000x20000 PNG of a few hundred kilobytes would need 8 GB)."""
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

        # savez's keyword arrays: Any, as its own allow_pickle keyword shares the namespace
        layers: dict[str, Any] = {f"weight{k}": w for k, w in enumerate(self.weights)}
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
    """``float32[rows * columns, 3 * FEATURE_SIDE ** 2]``: every cell of ``grid`` shrunk to
    ``FEATURE_SIDE`` pixels a side (each the mean of its patch of the picture), row by row.

    Cells reaching past the picture read its edge pixels there."""
    cutter = CellCutter(image, int(np.ceil(grid.cell)) + 2)
    return cutter.cells(grid, np.arange(grid.rows), np.arange(grid.columns))


class CellCutter:
    """Shrinks cells of one picture: the mean of any patch from a summed-area table made once
    (the picture extended by ``pad`` edge pixels on every side)."""

    def __init__(self, image: np.ndarray, pad: int) -> None:
        self.pad = pad
        padded = np.pad(image, ((pad, pad), (pad, pad), (0, 0)), mode="edge").astype(np.int64)
        self.limits = padded.shape[:2]
        self.table = np.zeros((padded.shape[0] + 1, padded.shape[1] + 1, 3), dtype=np.int64)
        self.table[1:, 1:] = padded.cumsum(axis=0).cumsum(axis=1)

    def cells(self, grid: Grid, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``float32[len(rows) * len(columns), 3 * FEATURE_SIDE ** 2]``: the cells at ``rows``
        x ``columns`` of ``grid`` shrunk, row by row."""
        y0, y1 = self._bounds(grid.top, grid.cell, rows, self.limits[0])
        x0, x1 = self._bounds(grid.left, grid.cell, columns, self.limits[1])
        out = np.empty((len(rows) * len(columns), 3 * FEATURE_SIDE**2), np.float32)
        _patch_means(self.table, y0, y1, x0, x1, out)
        return out

    def _bounds(self, start: float, cell: float, index: np.ndarray, limit: int):
        """Pixel bounds ``[low, high)`` of the ``FEATURE_SIDE`` strips of each cell along an
        axis (every strip at least one pixel wide)."""
        steps = np.arange(FEATURE_SIDE + 1) / FEATURE_SIDE
        edges = np.round(start + self.pad + (index[:, None] + steps[None, :]) * cell)
        edges = np.clip(edges, 0, limit - 1).astype(np.int64)
        low, high = edges[:, :-1], np.maximum(edges[:, 1:], edges[:, :-1] + 1)
        return low, high


@numba.njit(cache=True)
def _patch_means(table, y0, y1, x0, x1, out):  # pragma: no cover - compiled
    """``out[cell]``: the mean colour (0..1) of each patch ``[y0, y1) x [x0, x1)`` of every
    cell (rows of ``y0``, columns of ``x0``), from the summed-area ``table``."""
    side = y0.shape[1]
    for r in range(y0.shape[0]):
        for c in range(x0.shape[0]):
            row = out[r * x0.shape[0] + c]
            k = 0
            for i in range(side):
                top, bottom = y0[r, i], y1[r, i]
                for j in range(side):
                    left, right = x0[c, j], x1[c, j]
                    area = (bottom - top) * (right - left) * 255.0
                    for channel in range(3):
                        total = (
                            table[bottom, right, channel]
                            - table[top, right, channel]
                            - table[bottom, left, channel]
                            + table[top, left, channel]
                        )
                        row[k] = total / area
                        k += 1


# ---- finding the grid ---------------------------------------------------------------------------
def _profiles(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colour change across each vertical and each horizontal pixel edge, summed."""
    pixels = image.astype(np.float32)
    across_x = np.abs(np.diff(pixels, axis=1)).sum(axis=(0, 2))  # [i]: edge at x = i + 1
    across_y = np.abs(np.diff(pixels, axis=0)).sum(axis=(1, 2))
    return across_x, across_y


def _fold_values(profile: np.ndarray, period: float) -> tuple[np.ndarray, np.ndarray]:
    """For each phase (edge coordinate in ``[0, period)``, in steps of half a pixel for small
    periods), the mean change the comb of teeth ``period`` apart collects there (-1 where the
    comb has fewer than two teeth)."""
    step = 0.5 if period < 24 else 1.0
    phases = np.arange(0.0, period, step)
    teeth = np.round(phases[:, None] + period * np.arange(len(profile) // period + 2)[None, :])
    teeth = teeth.astype(np.int64)
    inside = (teeth >= 1) & (teeth <= len(profile))
    collected = np.where(inside, profile[np.clip(teeth, 1, len(profile)) - 1], 0.0)
    counts = inside.sum(axis=1)
    values = np.where(counts >= 2, collected.sum(axis=1) / np.maximum(counts, 1), -1.0)
    return phases, values


def _fold(profile: np.ndarray, period: float) -> tuple[float, float]:
    """The phase where the comb of teeth ``period`` apart collects the most change per tooth,
    and that mean."""
    phases, values = _fold_values(profile, period)
    best = int(np.argmax(values))
    return float(phases[best]), float(values[best])


def _phase_candidates(profile: np.ndarray, period: float, count: int) -> list[float]:
    """The ``count`` phases whose combs collect the most change, at least a sixth of a cell
    apart (a tile's own lines, such as a brick wall's joints, can outdo the cell edges)."""
    phases, values = _fold_values(profile, period)
    chosen: list[float] = []
    for k in np.argsort(-values, kind="stable"):
        phase = float(phases[k])
        gap = [abs((phase - other + period / 2) % period - period / 2) for other in chosen]
        if all(g >= period / 6 for g in gap):
            chosen.append(phase)
        if len(chosen) == count:
            break
    return chosen


def _period_scores(
    across_x: np.ndarray, across_y: np.ndarray, low: int, high: int
) -> list[tuple[float, int]]:
    """``(score, period)`` of every whole period in ``low..high``: folding each profile at the
    period, how much more change the comb collects at its best phase than at its median phase,
    relative to the mean change, averaged over both axes (-1 where a profile is shorter than
    two periods). A fraction of the cell size collects a fraction of the cell edges; a
    multiple collects the same edges (so that the multiples of the cell size score about as
    high as the cell size, and :func:`find_grid` tries fractions of the best periods too)."""
    scores = []
    for period in range(low, high + 1):
        total = 0.0
        for profile in (across_x, across_y):
            if len(profile) < 2 * period:
                total = -2.0
                break
            values = _fold_values(profile, float(period))[1]
            values = values[values >= 0]
            total += float((values.max() - np.median(values)) / (profile.mean() + 1e-9))
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


def _grid_for(image: np.ndarray, period: float, phase_x: float, phase_y: float) -> Grid:
    """The cells of ``period`` pixels, edges at ``phase`` (modulo the period), that show at
    least half of themselves."""
    height, width, _ = image.shape
    left, columns = _cells_along(width, period, phase_x)
    top, rows = _cells_along(height, period, phase_y)
    return Grid(period, left, top, columns, rows)


def _cells_along(length: int, period: float, phase: float) -> tuple[float, int]:
    """Start and number of the cells along one axis that show at least half of themselves."""
    start = phase - period * np.ceil(phase / period)  # first cell starts at or before 0
    starts = np.arange(start, length, period)
    visible = np.clip(np.minimum(starts + period, length) - np.maximum(starts, 0), 0, None) / period
    shown = np.flatnonzero(visible >= 0.5)
    if len(shown) == 0:
        return float(start), 0
    return float(starts[shown[0]]), int(shown[-1] - shown[0] + 1)


@dataclass(frozen=True)
class _Fit:
    """How well a grid cuts a picture into tiles: the number of distinct tiles among its
    cells, and how far the cells lie from their tile (:func:`tile_count`)."""

    distinct: int
    cells: int
    spread: float
    grid: Grid

    def key(self) -> tuple[float, float]:
        """Smaller is better: the distinct tiles less twice the number of halvings of the
        cells shown, then the spread."""
        return (self.distinct - CELLS_WEIGHT * np.log2(self.cells), self.spread)


def find_grid(
    image: np.ndarray,
    size: tuple[int, int] | None = None,
    periods: int = 6,
    phases: int = 4,
) -> Grid:
    """The grid of cells of a picture of a board (``uint8[height, width, 3]``).

    Cut on the true grid, a picture is a few tiles repeated; cut off it, its cells show parts
    of tiles in ever new combinations. Candidate cell sizes are those whose combs fit the
    picture's edges best (``periods`` of them), with their halves, thirds, doubles and triples
    (a tile's own lines, such as a brick wall's joints, repeat at fractions of a cell; a grid
    of twice the cell size repeats too), each as a whole number of pixels and refined to a
    tenth; each is tried with the ``phases`` best placements of the cell edges along each axis.
    The grid wins whose cells show the fewest distinct tiles (:func:`tile_count`) less
    :data:`CELLS_WEIGHT` per doubling of its cells: a grid at a multiple of the cell size has
    few cells, nearly all distinct; a grid at a half or a third of it has four or nine times
    the cells, but every goal, box and player cut in pieces that all differ (measured over five
    seeds of ``bench_import.py``, the weight that separates both lies between 1 and 4). The
    winner's edges are then moved by up to three pixels where its cells fit their tiles better
    (a tile's line along the cell edge may hide the edge). ``size`` (columns, rows), when
    known, bounds the cell size: the board fits in the picture and spans at least two fifths
    of it."""
    height, width, _ = image.shape
    across_x, across_y = _profiles(image)
    # At least three cells along each axis (or the board's size), the outer ones maybe cropped;
    # a board of known size spans at least two fifths of the picture along one axis.
    columns, rows = size if size is not None else (3, 3)
    high = max(SMALLEST_CELL, int(min((width + 8) / columns, (height + 8) / rows)))
    low = SMALLEST_CELL if size is None else max(SMALLEST_CELL, int(0.4 * high))
    scores = _period_scores(across_x, across_y, low, high)
    best = max(scores)[0] if scores else -1.0
    if best <= 0:
        raise LevelFormatError("found no repeating grid of cells in the picture")
    tried: list[float] = []
    for _, period in sorted(scores, key=lambda item: (-item[0], item[1]))[:periods]:
        for factor in (1, 1 / 2, 1 / 3, 2, 3):
            candidate = period * factor
            if low - 1 <= candidate <= high + 1 and all(abs(candidate - t) > 1 for t in tried):
                tried.append(candidate)
    cutter = CellCutter(image, int(np.ceil(high * 1.1)) + 3)
    fits = []
    for size_tried in tried:
        refined = _refine(across_x, across_y, round(size_tried))
        for cell in sorted({float(size_tried), refined}):
            fit = _best_fit(
                cutter, image, _candidate_grids(image, across_x, across_y, cell, phases)
            )
            if fit is not None:
                fits.append(fit)
    if not fits:
        raise LevelFormatError("found no grid of at least 3 x 3 cells in the picture")
    return _polish(cutter, image, min(fits, key=_Fit.key))


def _candidate_grids(image, across_x, across_y, cell: float, phases: int) -> list[Grid]:
    """Grids of ``cell`` pixels at the ``phases`` best phases along each axis."""
    return [
        _grid_for(image, cell, phase_x, phase_y)
        for phase_x in _phase_candidates(across_x, cell, phases)
        for phase_y in _phase_candidates(across_y, cell, phases)
    ]


def _best_fit(cutter: CellCutter, image: np.ndarray, grids: list[Grid]) -> _Fit | None:
    """The best fitting of ``grids`` (of at least 3 x 3 cells), if any."""
    height, width, _ = image.shape
    best = None
    for grid in grids:
        if grid.columns < 3 or grid.rows < 3:
            continue
        fit = _Fit(*tile_count(cutter, grid, width, height), grid)
        if best is None or fit.key() < best.key():
            best = fit
    return best


def _polish(cutter: CellCutter, image: np.ndarray, fit: _Fit, reach: float = 3.0) -> Grid:
    """The grid of ``fit`` with its edges moved by up to ``reach`` pixels (across, then down)
    where its cells are best described by few tiles: each distinct tile costs
    :data:`SAME_TILE`, each cell its distance to its tile (a cell joins a tile when that is
    cheaper than a tile of its own). The cells compared are the same for every move: those
    that stay wholly in the picture however they move."""
    height, width, _ = image.shape
    grid = fit.grid

    def inside(start: float, count: int, length: int) -> np.ndarray:
        starts = start + grid.cell * np.arange(count)
        kept = np.flatnonzero((starts - reach >= 0) & (starts + grid.cell + reach <= length))
        return kept if len(kept) >= 2 else np.arange(count)

    rows = inside(grid.top, grid.rows, height)
    columns = inside(grid.left, grid.columns, width)
    steps = np.arange(-reach, reach + 0.01, 0.5)
    for axis in (0, 1):
        scored = []
        for step in steps:
            left, top = (grid.left + step, grid.top) if axis == 0 else (grid.left, grid.top + step)
            moved = Grid(grid.cell, left, top, grid.columns, grid.rows)
            groups, total = _group_tiles(cutter.cells(moved, rows, columns), SAME_TILE)
            scored.append((SAME_TILE * groups + total, abs(step), moved))
        grid = min(scored, key=lambda item: item[:2])[2]
    return _grid_for(image, grid.cell, grid.left, grid.top)


def tile_count(cutter: CellCutter, grid: Grid, width: int, height: int) -> tuple[int, int, float]:
    """``(distinct tiles, cells, spread)`` of ``grid``: its cells are grouped in order, each
    joining the first group whose first cell it differs from by less than :data:`SAME_TILE`
    (root mean square of the shrunk pixels); spread is the mean distance to that first cell.
    Only cells wholly in the picture are grouped (those showing three quarters of themselves
    or more, if fewer than nine are whole): a cell partly outside is padded with edge pixels,
    and would differ from its like. ``cells`` counts every cell of the grid."""

    def shown(start: float, count: int, length: int, share: float) -> np.ndarray:
        starts = start + grid.cell * np.arange(count)
        visible = np.minimum(starts + grid.cell, length) - np.maximum(starts, 0)
        return np.flatnonzero(visible >= share * grid.cell - 1e-6)

    for share in (1.0, 0.75, 0.0):
        rows = shown(grid.top, grid.rows, height, share)
        columns = shown(grid.left, grid.columns, width, share)
        if len(rows) * len(columns) >= 9:
            break
    cells = cutter.cells(grid, rows, columns)
    groups, total = _group_tiles(cells, SAME_TILE)
    return int(groups), grid.rows * grid.columns, float(total) / max(len(cells), 1)


@numba.njit(cache=True)
def _group_tiles(cells, same, most=MOST_TILES):  # pragma: no cover - compiled
    """Leader grouping of cell features (``float32[n, features]``): each cell joins the group
    whose first cell it differs from least, if by less than ``same`` (root mean square), else
    starts one. Returns the number of groups and the summed distance of the cells to the first
    cell of their group; past ``most`` groups it stops and counts every cell a group (no grid
    of a board shows that many kinds of tile)."""
    count, size = cells.shape
    leaders = np.empty(count, dtype=np.int64)
    groups = 0
    total = 0.0
    limit = same * same * size
    for index in range(count):
        best, best_value = -1, limit
        for k in range(groups):
            leader = leaders[k]
            value = 0.0
            for j in range(size):
                d = cells[index, j] - cells[leader, j]
                value += d * d
                if value >= best_value:
                    break
            if value < best_value:
                best, best_value = k, value
        if best < 0:
            if groups == most:
                return count, 0.0
            leaders[groups] = index
            groups += 1
        else:
            total += np.sqrt(best_value / size)
    return groups, total


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
    grid = find_grid(image, size)
    features = cell_features(image, grid)
    probabilities = classifier.probabilities(features)
    classes = vote_by_tile(features, probabilities)
    classes = player_on_hidden_goal(classes)
    confidence = probabilities[np.arange(len(classes)), classes]
    shape = (grid.rows, grid.columns)
    return Reading(
        grid,
        board_rows(classes.reshape(shape)),
        classes.reshape(shape),
        confidence.reshape(shape),
    )


def vote_by_tile(features: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The class of each cell: cells that look alike (the same tile of the picture) form a
    group, and the groups take the classes that their cells' summed log-probabilities favour
    most among the labellings that make a level (:func:`consistent_labels`)."""
    groups = _tile_groups(features)
    count = int(groups.max()) + 1
    log_probabilities = np.log(np.clip(probabilities, 1e-9, 1.0))
    scores = np.zeros((count, probabilities.shape[1]))
    np.add.at(scores, groups, log_probabilities)
    sizes = np.bincount(groups, minlength=count)
    return consistent_labels(scores, sizes)[groups]


def _tile_groups(features: np.ndarray) -> np.ndarray:
    """``int[cells]``: the group of each cell, cells in order joining the nearest group whose
    first cell they differ from by less than :data:`SAME_TILE` (root mean square)."""
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
    return groups


_PLAYER = np.isin(np.array(CLASSES), ("player", "player_on_goal"))
_BOX = np.isin(np.array(CLASSES), ("box", "box_on_goal"))
_GOAL = np.isin(np.array(CLASSES), ("goal", "box_on_goal", "player_on_goal"))
_BARE_PLAYER = CLASSES.index("player")


def makes_a_level(labels: np.ndarray, sizes: np.ndarray) -> bool:
    """Whether groups of ``sizes`` cells labelled ``labels`` hold one player, at least one box
    and as many goals as boxes (or one goal fewer, with the player on the hidden goal)."""
    players = int(sizes[_PLAYER[labels]].sum())
    boxes = int(sizes[_BOX[labels]].sum())
    goals = int(sizes[_GOAL[labels]].sum())
    bare_player = bool((labels == _BARE_PLAYER).any())
    return players == 1 and boxes >= 1 and (boxes == goals or (boxes == goals + 1 and bare_player))


def consistent_labels(scores: np.ndarray, sizes: np.ndarray, changes: int = 2) -> np.ndarray:
    """``int[groups]``: a class per group of cells (``scores``: summed log-probabilities,
    ``float[groups, classes]``; ``sizes``: cells per group). The most likely labelling if it
    makes a level (:func:`makes_a_level`), else the most likely one that does among those
    that relabel at most ``changes`` groups, else the most likely one (the level's check then
    says what is wrong)."""
    best = scores.argmax(axis=1)
    if makes_a_level(best, sizes):
        return best
    groups, classes = scores.shape
    loss = scores[np.arange(groups), best][:, None] - scores  # what each relabelling costs
    options = [(float(loss[g, c]), g, c) for g in range(groups) for c in range(classes)]
    options = sorted(option for option in options if option[2] != best[option[1]])
    found, found_loss = best, np.inf
    for first, (cost, g, c) in enumerate(options):
        if cost >= found_loss:
            break
        labels = best.copy()
        labels[g] = c
        if makes_a_level(labels, sizes):
            found, found_loss = labels, cost
            continue
        if changes < 2:
            continue
        for cost2, g2, c2 in options[first + 1 :]:
            if cost + cost2 >= found_loss:
                break
            if g2 == g:
                continue
            pair = labels.copy()
            pair[g2] = c2
            if makes_a_level(pair, sizes):
                found, found_loss = pair, cost + cost2
                break
    return found


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


def board_rows(classes: np.ndarray) -> list[str]:
    """XSB rows of a grid of cell classes; rows and columns around the board that hold only
    blanks (outside or floor, which no closed level has on its edge) are dropped, and
    trailing blanks are cut."""
    characters = np.array(CHARACTERS)[classes]
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
            width, height = picture.size  # from the header: nothing is decoded yet
            if width * height > MAX_PICTURE_PIXELS:
                raise LevelFormatError(
                    f"the picture is too large: {width}x{height} pixels, more than the "
                    f"{MAX_PICTURE_PIXELS:,} evosoko reads (the largest board at 8 pixels a "
                    "cell); scale it down",
                    str(path),
                )
            rgba = picture.convert("RGBA")
        pixels = np.asarray(rgba, dtype=np.float32)
        alpha = pixels[:, :, 3:] / 255.0  # transparent parts read as white, as viewers show them
        return np.round(pixels[:, :, :3] * alpha + 255.0 * (1 - alpha)).astype(np.uint8)
    except FileNotFoundError:
        raise LevelFormatError("no such file", str(path)) from None
    except Image.DecompressionBombError as error:  # raised by open, before the size check
        raise LevelFormatError(f"the picture is too large to read: {error}", str(path)) from None
    except (UnidentifiedImageError, OSError) as error:
        raise LevelFormatError(f"not a picture that can be read: {error}", str(path)) from None
    except MemoryError:
        raise OutOfMemory("not enough memory to read this picture", str(path)) from None


def import_picture(
    path: str | os.PathLike,
    size: tuple[int, int] | None = None,
    title: str | None = None,
    classifier: CellClassifier | None = None,
):
    """The level a picture shows, validated; :class:`LevelFormatError` naming the file and
    what was recognised when the cells do not make a valid level."""
    from evosoko.sokoban.build import MAX_BOARD_CELLS, level_from_rows

    if size is not None and (min(size) < 3 or size[0] * size[1] > MAX_BOARD_CELLS):
        raise ConfigError(
            f"a board of {size[0]}x{size[1]} cells cannot be read: a level has at least 3 "
            f"cells along each side (its floor and a wall around it) and at most "
            f"{MAX_BOARD_CELLS:,} cells"
        )
    reading = read_board(read_image_file(path), size, classifier)
    shown = "|".join(reading.rows)
    if size is not None:
        read_size = (max(map(len, reading.rows), default=0), len(reading.rows))
        if read_size != tuple(size):
            raise LevelFormatError(
                f"the picture shows a board of {read_size[0]}x{read_size[1]} cells, not the "
                f"{size[0]}x{size[1]} given; recognised cells of {reading.grid.cell:.1f} px: "
                + shown,
                str(path),
            )
    try:
        level = level_from_rows(reading.rows, title=title)
    except LevelFormatError as error:
        raise LevelFormatError(
            f"the picture does not show a valid level ({error.message}); recognised "
            f"{reading.grid.columns}x{reading.grid.rows} cells of {reading.grid.cell:.1f} px: "
            + shown,
            str(path),
        ) from None
    return level, reading
