"""The learn commands and import through the command line: results, bad input, no extra."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from learn_levels import REPO_ROOT, needs_torch, seed_level
from PIL import Image
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.learn.cell_training import SKLEARN_HINT
from evosoko.learn.data import load_split, read_manifest
from evosoko.learn.screenshots import load_cell_classifier
from evosoko.learn.tilesets import draw_board
from evosoko.sokoban.formats import read_levels

STARTER = REPO_ROOT / "levels" / "starter.xsb"
SEEDS = REPO_ROOT / "levels" / "seeds.xsb"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def error_line(result, *needles: str) -> str:
    """The single ``error:`` line of a failed command (exit 2, no traceback)."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def small_data(tmp_path_factory) -> Path:
    """A tiny data folder: two starter levels for training, one seed level for testing."""
    out = tmp_path_factory.mktemp("data") / "data"
    result = invoke(
        "learn", "data", out, "--train", STARTER, "--first", "3", "--test", SEEDS,
        "--positions", "12", "--max-pushes", "10", "--node-budget", "3000",
        "--validation", "0.34",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_learn_data_writes_splits_and_a_manifest(small_data):
    manifest = read_manifest(small_data)
    assert set(manifest["splits"]) == {"train", "valid", "test"}
    test = load_split(small_data, "test")
    assert len(test) == manifest["splits"]["test"]["kept"] > 0
    assert {entry["file"] for entry in manifest["levels"] if entry["split"] == "test"} == {
        str(SEEDS)
    }


def test_learn_eval_scores_the_shipped_model_as_json(small_data):
    result = invoke("learn", "eval", small_data, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    n = report["all"]["positions"]
    assert n == len(load_split(small_data, "test"))
    dead = report["all"]["network"]["dead"]
    assert 0 <= dead["precision"] <= 1 and 0 <= dead["recall"] <= 1
    assert 0 <= report["all"]["detectors"]["dead_recall"] <= 1


def test_learn_eval_prints_a_table_per_level_file(small_data):
    result = invoke("learn", "eval", small_data, "--split", "test")
    assert result.exit_code == 0, result.output
    assert "seeds.xsb" in result.stdout and "exact R" in result.stdout


def test_learn_train_fits_a_model_that_eval_reads(small_data, tmp_path):
    needs_torch()
    out = tmp_path / "model"
    result = invoke(
        "learn", "train", small_data, "--out", out, "--epochs", "1", "--channels", "4",
        "--threads", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert len(metrics["history"]) == 1 and metrics["best_epoch"] == 1
    assert metrics["settings"]["architecture"]["floor_only"] is True
    scored = invoke("learn", "eval", small_data, "--model", out / "model.npz", "--json")
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["model"] == str(out / "model.npz")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("learn", "data", "{tmp}/d"), ("--train",)),
        (("learn", "data", "{tmp}/d", "--train", "{tmp}/missing.xsb"), ("missing.xsb",)),
        (("learn", "data", "{tmp}/d", "--train", STARTER, "--positions", "0"), ("--positions",)),
        (("learn", "data", "{tmp}/d", "--train", STARTER, "--workers", "0"), ("--workers",)),
        (("learn", "eval", "{tmp}/nothing"), ("nothing",)),
        (("learn", "eval", "{data}", "--split", "everything"), ("--split",)),
        (("learn", "eval", "{data}", "--threshold", "1.5"), ("--threshold",)),
        (("learn", "eval", "{data}", "--model", "{tmp}/bad.npz"), ("bad.npz",)),
        (("import", "{tmp}/bad.npz", "--out", "{tmp}/x.xsb"), ("bad.npz",)),
        (("import", "{tmp}/board.png", "--out", "{tmp}/x.xsb", "--size", "ten"), ("ten",)),
        (("import", "{tmp}/board.png", "--out", "{tmp}/x.xsb", "--cells", "{tmp}/bad.npz"),
         ("bad.npz",)),
        (("solve", SEEDS, "-l", "seed000-case3", "--algo", "push-learned", "--model",
          "{tmp}/bad.npz"), ("bad.npz", "not an .npz")),
        (("solve", SEEDS, "-l", "seed000-case3", "--algo", "push-astar", "--model",
          "{tmp}/bad.npz"), ("--model", "push-astar")),
    ],
)  # fmt: skip
def test_bad_input_is_one_error_line(small_data, tmp_path, args, needles):
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    Image.fromarray(draw_board(seed_level("seed000-case3"), None, 24, "evosoko")).save(
        tmp_path / "board.png"
    )
    filled = [str(a).format(tmp=tmp_path, data=small_data) for a in args]
    error_line(invoke(*filled), *needles)
    assert not (tmp_path / "x.xsb").exists() and not (tmp_path / "d").exists()


def test_solve_orders_by_the_model_given(tmp_path):
    shipped = REPO_ROOT / "evosoko" / "learn" / "models" / "deadlock.npz"
    args = ("solve", SEEDS, "-l", "seed000-case3", "--algo", "push-learned", "--json")
    default = invoke(*args)
    given = invoke(*args, "--model", shipped)
    assert default.exit_code == given.exit_code == 0, given.output
    assert json.loads(default.stdout)["solution"] == json.loads(given.stdout)["solution"]


def test_learn_train_on_a_missing_folder_is_an_error(tmp_path):
    needs_torch()
    error_line(invoke("learn", "train", tmp_path / "none", "--out", tmp_path / "m"), "none")


def test_without_torch_learn_train_says_how_to_install_it(small_data, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails
    line = error_line(invoke("learn", "train", small_data, "--out", tmp_path / "m"))
    assert "pip install torch==2.13.0" in line and ".[learn]" in line
    assert not (tmp_path / "m").exists()


def test_without_scikit_learn_learn_cells_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    line = error_line(invoke("learn", "cells", "--out", tmp_path / "c.npz"))
    assert "pip install" in line and ".[learn]" in line


def test_learn_cells_trains_a_classifier_that_import_reads(tmp_path):
    pytest.importorskip("sklearn", reason=f"scikit-learn is not installed: {SKLEARN_HINT}")
    out = tmp_path / "cells.npz"
    result = invoke("learn", "cells", "--out", out, "--pictures", "2", "--seed", "0")
    assert result.exit_code == 0, result.output
    accuracy = float(result.stdout.split(": ", 1)[1].split()[0])
    assert accuracy > 0.8, result.stdout  # far above chance even from two pictures per set
    load_cell_classifier(out)
    picture = tmp_path / "board.png"
    Image.fromarray(draw_board(seed_level("seed000-case3"), None, 24, "evosoko")).save(picture)
    read = invoke("import", picture, "--out", tmp_path / "x.xsb", "--cells", out)
    if read.exit_code != 0:  # two pictures per set may misread a cell: then one error line
        error_line(read, "board.png")


def test_import_writes_the_level_a_picture_shows(tmp_path):
    level = seed_level("seed000-case3")
    picture = tmp_path / "board.png"
    Image.fromarray(draw_board(level, None, 28, "blocks")).save(picture)
    out = tmp_path / "read.xsb"
    result = invoke("import", picture, "--out", out, "--title", "mine")
    assert result.exit_code == 0, result.output
    (read,) = read_levels(out)
    assert read.rows() == level.rows() and read.title == "mine"
    sized = invoke("import", picture, "--out", tmp_path / "sized.xsb", "--size", "8x7")
    assert sized.exit_code == 0, sized.output
    assert read_levels(tmp_path / "sized.xsb")[0].rows() == level.rows()


def test_import_with_the_wrong_size_is_an_error_showing_what_was_read(tmp_path):
    level = seed_level("seed000-case3")
    picture = tmp_path / "board.png"
    Image.fromarray(draw_board(level, None, 28, "evosoko")).save(picture)
    error_line(
        invoke("import", picture, "--out", tmp_path / "x.xsb", "--size", "5x7"),
        "board.png",
        "8x7",
    )
    assert not (tmp_path / "x.xsb").exists()


def test_import_of_a_picture_that_makes_no_level_is_an_error(tmp_path):
    level = seed_level("seed000-case3")
    image = draw_board(level, None, 30, "evosoko")
    picture = tmp_path / "half.png"
    Image.fromarray(np.ascontiguousarray(image[:, : image.shape[1] // 2])).save(picture)
    error_line(invoke("import", picture, "--out", tmp_path / "x.xsb"), "half.png", "recognised")
