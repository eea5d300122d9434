"""Levels for the learn tests: the bundled seeds and, when present, the shared Microban."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from evosoko.errors import EvosokoWarning
from evosoko.learn.training import TORCH_HINT
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.level import Level

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_LEVELS = REPO_ROOT.parent / "shared" / "levels"


def needs_torch():
    """The ``torch`` module; skips the test, saying how to install it, when it is absent."""
    return pytest.importorskip("torch", reason=f"PyTorch is not installed: {TORCH_HINT}")


def seed_level(title: str) -> Level:
    """A level of the bundled seed collection."""
    return select_levels(read_levels(REPO_ROOT / "levels" / "seeds.xsb"), [title])[0]


def starter_levels() -> list[Level]:
    """The bundled starter levels."""
    return read_levels(REPO_ROOT / "levels" / "starter.xsb")


def microban(*titles: str) -> list[Level]:
    """Microban levels by title; skips the test when the shared folder is absent."""
    path = SHARED_LEVELS / "microban.txt"
    if not path.is_file():
        pytest.skip("no shared level folder")
    return select_levels(read_levels(path), list(titles))


def quiet_level(rows: list[str]) -> Level:
    """A level from rows, without the already-solved warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return level_from_rows(rows, title="test")
