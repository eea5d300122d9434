"""Tests of the fitness plot: a PNG for a few levels (panels) and for many (one panel)."""

from __future__ import annotations

import pytest

from evosoko.experiment.plots.fitness import SMALL_MULTIPLES, _series_by_level, plot_fitness
from evosoko.fitness_chart import chart_curves


def rows(levels: int, generations: int) -> list[dict[str, str]]:
    return [
        {
            "level_index": str(level),
            "level": f"L{level}",
            "generation": str(generation),
            "best": str(max(0, 10 - generation)),
            "mean": str(1_000_000 if generation % 2 else 12),
        }
        for level in range(1, levels + 1)
        for generation in range(generations)
    ]


@pytest.mark.parametrize("levels", [0, 1, 3, SMALL_MULTIPLES + 1])
def test_plot_is_a_png(tmp_path, levels):
    target = tmp_path / "fitness.png"
    plot_fitness(rows(levels, 5), target)
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_series_keep_run_order_and_values():
    series = _series_by_level(rows(2, 3))
    assert list(series) == ["level 1 L1", "level 2 L2"]
    assert series["level 1 L1"]["generation"] == [0.0, 1.0, 2.0]
    assert series["level 2 L2"]["best"] == [10.0, 9.0, 8.0]


def test_an_untitled_level_is_labelled_once_and_best_so_far_never_rises():
    data = [
        {"level_index": "93", "level": "93", "generation": str(g), "best": str(b), "mean": "20"}
        for g, b in enumerate([7, 5, 6, 4, 9, 3])
    ]
    series = _series_by_level(data)
    assert list(series) == ["level 93"]
    assert series["level 93"]["best"] == [7.0, 5.0, 6.0, 4.0, 9.0, 3.0]
    assert chart_curves(series)["level 93"]["best_so_far"] == [7.0, 5.0, 5.0, 4.0, 4.0, 3.0]


def test_a_level_solved_in_its_first_generation_gets_one_tick_and_visible_points():
    from matplotlib.figure import Figure

    from evosoko.fitness_chart import _small_multiples

    curves = chart_curves(_series_by_level(rows(1, 1) + rows(2, 6)[6:]))
    panels = _small_multiples(Figure, curves).axes
    first, second = panels[0], panels[1]
    assert list(first.get_xticks()) == [0.0]
    assert first.get_xlim() == (-0.5, 0.5)
    assert all(line.get_marker() == "o" for line in first.get_lines())
    assert all(float(tick).is_integer() for tick in second.get_xticks())
