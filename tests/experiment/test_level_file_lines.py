"""A level file that cannot be read is reported at the line of the configuration that names it
(issue 55, item 8): a missing ``run.levels`` said only ``error: nowhere.xsb: no such file``."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_folders import COMPARE, SEEDS, SWEEP

from evosoko.config import load_config
from evosoko.errors import ConfigError, LevelFormatError
from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.jobs import comparison_levels
from evosoko.experiment.run.runner import load_run_levels
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.trials import sweep_levels

REPO = Path(__file__).resolve().parents[2]


def _line_of(path: Path, start: str) -> int:
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(start))


def test_a_missing_run_level_file_names_the_configuration_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[run]\nname = "x"\nseed = 1\nlevels = "nowhere.xsb"\n')
    with pytest.raises(ConfigError) as caught:
        load_run_levels(load_config(path), str(path))
    assert (caught.value.path, caught.value.line) == (str(path), 4)
    assert caught.value.message == "run.levels: no such file (in nowhere.xsb)"


def test_a_level_file_given_by_set_names_set(tmp_path):
    config = load_config(REPO / "configs" / "default.toml", ['run.levels="nope.xsb"'])
    with pytest.raises(ConfigError) as caught:
        load_run_levels(config, str(REPO / "configs" / "default.toml"))
    assert str(caught.value) == "--set: run.levels: no such file (in nope.xsb)"


def test_a_level_file_that_is_a_folder_names_the_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(f'[run]\nname = "x"\nlevels = "{tmp_path}"\n')
    with pytest.raises(ConfigError, match="run.levels: is a directory") as caught:
        load_run_levels(load_config(path), str(path))
    assert caught.value.line == 3


def test_a_broken_level_keeps_its_own_file_and_line(tmp_path):
    levels = tmp_path / "bad.xsb"
    levels.write_text("#####\n#@$.#\n#####\n\n#####\n#@@$.#\n#####\n")
    path = tmp_path / "run.toml"
    path.write_text(f'[run]\nname = "x"\nlevels = "{levels}"\n')
    with pytest.raises(LevelFormatError) as caught:
        load_run_levels(load_config(path), str(path), strict=True)
    assert caught.value.path == str(levels)


def test_a_missing_compare_level_file_names_the_line(tmp_path):
    path = tmp_path / "compare.toml"
    path.write_text(COMPARE.replace(str(SEEDS), "nowhere.xsb"))
    config = load_compare_config(path)
    with pytest.raises(ConfigError) as caught:
        comparison_levels(config.compare, config._source)
    assert (caught.value.path, caught.value.line) == (str(path), _line_of(path, "levels ="))
    assert caught.value.message == "compare.levels: no such file (in nowhere.xsb)"


def test_a_missing_sweep_level_file_names_the_line(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP.replace(str(SEEDS), "nowhere.xsb"))
    with pytest.raises(ConfigError) as caught:
        sweep_levels(load_sweep_config(path))
    assert (caught.value.path, caught.value.line) == (str(path), _line_of(path, "levels ="))
    assert caught.value.message == "sweep.levels: no such file (in nowhere.xsb)"
