"""Shared fixtures of the evolve tests: Microban when it is present."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_LEVELS = Path(__file__).resolve().parents[2] / ".." / "shared" / "levels"


@pytest.fixture(scope="session")
def microban():
    """The Microban levels from ../shared/levels (skipped when absent)."""
    path = SHARED_LEVELS / "microban.txt"
    if not path.exists():
        pytest.skip("../shared/levels/microban.txt is not available")
    from evosoko.sokoban.formats import read_levels

    return read_levels(path)
