"""Microban levels from ../shared/levels by title, for tests that skip when they are absent."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.level import Level

MICROBAN = Path(__file__).resolve().parents[3] / "shared" / "levels" / "microban.txt"


@lru_cache(maxsize=1)
def _by_title() -> dict[str, Level]:
    return {level.title: level for level in read_levels(MICROBAN)}


def microban(title: str) -> Level:
    """A Microban level by title; skips the test when the shared level folder is absent."""
    if not MICROBAN.is_file():
        pytest.skip(f"no shared levels at {MICROBAN.parent}")
    return _by_title()[title]
