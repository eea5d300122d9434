"""Tests of the fitness plot: a PNG for a few levels (panels) and for many (one panel)."""

from __future__ import annotations

import pytest

from evosoko.experiment.plots.fitness import SMALL_MULTIPLES, _series_by_level, plot_fitness
from evosoko.experiment.plots.style import new_figure, save_figure
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


def test_a_long_title_is_never_cut(tmp_path):
    """A sweep's heat map of a few cells is a small figure: its title was cut at both sides."""
    figure, (axes,) = new_figure(width=1.6, height=1.6)
    axes.set_title("Solve rate (median evaluations)\noutlined: 3 trials tie for best (no test)")
    save_figure(figure, tmp_path / "small")
    box = axes.title.get_window_extent(figure.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width


def test_the_sweep_history_ticks_trials_at_whole_numbers(tmp_path, monkeypatch):
    from evosoko.experiment.plots import sweep as sweep_plots
    from evosoko.experiment.sweep.config import SweepConfig
    from evosoko.experiment.sweep.trials import Trial

    config = SweepConfig.model_validate(
        {"sweep": {"levels": "x.xsb", "budget": {"evaluations": 100}},
         "parameters": {"ga.population": [10, 20]}}
    )  # fmt: skip
    trials = [
        Trial(n, {"ga.population": 10 * (n + 1)}, status="complete", runs=2, solved=n,
              median_evaluations=50.0)
        for n in range(2)
    ]  # fmt: skip
    drawn = []
    monkeypatch.setattr(sweep_plots, "save_figure", lambda f, p, fmt: drawn.append(f) or p)
    sweep_plots._history(config, trials, {1}, tmp_path, "png")
    (axes,) = drawn[0].axes
    drawn[0].canvas.draw()
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
