"""The run plots of a multi-level run: per level, never pooled across levels of different
scales, and no value carried on after a level's run ended (issue 52: the median mean distance
of Microban 1, 2, 3, 93 and 144 was flat at level 3's last value for 367 generations)."""

from __future__ import annotations

import numpy as np
import pytest

from evosoko.experiment.plots.runs import draw_runs, level_bands


def _rows(level_index: int, title: str, means: list[float], solved_at: int | None):
    rows = []
    for generation, mean in enumerate(means):
        best = 0 if solved_at is not None and generation >= solved_at else mean / 2
        rows.append(
            {
                "level_index": str(level_index),
                "level": title,
                "generation": str(generation),
                "evaluations": str(100 * (generation + 1)),
                "best": str(best),
                "mean": str(mean),
                "diversity": str(1 / (generation + 1)),
            }
        )
    return rows


EASY = _rows(3, "easy", [7.0, 6.0, 5.0, 5.0], solved_at=3)  # solved at generation 3
HARD = _rows(93, "hard", [40.0 - g / 10 for g in range(370)], solved_at=None)


def test_each_level_has_its_own_band_and_a_solved_levels_mean_ends_with_its_run():
    bands = level_bands([EASY + HARD], "generation", "mean")
    assert list(bands) == ["easy", "hard"]
    assert bands["easy"].x.tolist() == [0, 1, 2, 3]  # not carried on to generation 369
    hard = bands["hard"]  # its own values, not pooled with the easy level's
    assert hard.median.tolist() == pytest.approx((40.0 - np.floor(hard.x) / 10).tolist())
    best = level_bands([EASY + HARD], "generation", "best")
    assert best["easy"].median[-1] == 0 and best["easy"].x[-1] == 3  # its run ends solved
    diversity = level_bands([EASY + HARD], "generation", "diversity")
    assert diversity["easy"].x.tolist() == [0, 1, 2, 3]


def test_runs_of_one_level_band_together_by_title():
    other_seed = _rows(1, "easy", [9.0, 8.0, 4.0], solved_at=None)  # index differs: a subset
    bands = level_bands([EASY, other_seed], "generation", "mean")
    assert list(bands) == ["easy"] and bands["easy"].curves == 2
    assert bands["easy"].median.tolist() == pytest.approx([8.0, 7.0, 4.5, 5.0])
    longer = _rows(1, "easy", [9.0, 8.0, 4.0, 4.0, 4.0, 2.0], solved_at=None)
    best = level_bands([EASY, longer], "generation", "best")["easy"]
    assert best.x.tolist() == [0, 1, 2, 3, 4, 5]
    assert best.median.tolist() == pytest.approx([4.0, 3.5, 2.25, 1.0, 1.0, 0.5])


def test_the_plots_name_each_level(tmp_path):
    paths = draw_runs([], tmp_path, "svg", metrics=[EASY + HARD])
    svg = paths[0].read_text()
    assert "easy" in svg and "hard" in svg and "(2 curves)" in svg
