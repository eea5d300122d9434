"""The level-evolution configuration: defaults, checks with file lines, dump and load."""

from __future__ import annotations

from pathlib import Path

import pytest

from evosoko.errors import ConfigError
from evosoko.levelgen.config import LevelsConfig, dump_levels_config, load_levels_config


def write(tmp_path, text: str):
    path = tmp_path / "levels.toml"
    path.write_text(text)
    return path


def test_the_defaults_evolve_pushes_on_8x8_boards():
    settings = LevelsConfig().levels
    assert (settings.size, settings.boxes, settings.selection) == ("8x8", 4, "mu_plus_lambda")
    assert [table.label for table in settings.objective] == ["pushes"]
    assert settings.objective[0].maximizes and settings.certificate.algorithm == "push-astar"


def test_a_typo_names_the_key_its_line_and_the_closest_key(tmp_path):
    path = write(tmp_path, '[levels]\nsize = "7x7"\npopulaton = 8\n')
    with pytest.raises(ConfigError) as raised:
        load_levels_config(path)
    assert raised.value.line == 3 and "did you mean 'levels.population'?" in str(raised.value)


def test_a_part_parameter_is_checked_like_any_key(tmp_path):
    path = write(tmp_path, '[levels.mutation]\nkind = "flip_cells"\nrates = 0.1\n')
    with pytest.raises(ConfigError, match="did you mean 'levels.mutation.rate'"):
        load_levels_config(path)
    config = load_levels_config(
        write(tmp_path, '[levels.mutation]\nkind = "flip_cells"\nrate = 0.2\n')
    )
    assert config.levels.mutation.params == {"rate": 0.2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[levels]\nsize = "3x9"\n', "width must be 5 to 64"),
        ('[levels]\nsize = "7x7"\nboxes = 30\n', "need 31 cells"),
        ('[levels]\nselection = "nsga2"\n', "nsga2 needs two or more objectives"),
        ('[levels]\ninit = "file"\n', "needs init_levels"),
        ('[levels.certificate]\nnodes = "none"\n', "give nodes or seconds"),
        ('[levels.certificate]\nalgorithm = "mcts"\n', "does not depend on a seed"),
        ('[[levels.objective]]\nkind = "pushes"\n[[levels.objective]]\nkind = "pushes"\n', "twice"),
        ('[levels.archive]\nfeatures = ["boxes", "height"]\n', "unknown level objective"),
        ("[levels.archive]\nbins = [1000000, 2]\n", "bins must be 1 to 100"),
        ("[levels]\npopulation = 1000000000\n", "less than or equal to 10000"),
        ("[levels]\npull_limit = 1000000000\n", "less than or equal to 5000000"),
    ],
)
def test_settings_that_cannot_run_are_refused(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load_levels_config(write(tmp_path, text))


def test_a_configuration_dumps_and_loads_back_equal(tmp_path):
    config = LevelsConfig().set(
        {
            "levels.selection": "map_elites",
            "levels.max_boxes": 6,
            "levels.mutation.steps": 3,
            "levels.objective": [{"kind": "pushes"}, {"kind": "floor", "maximize": True}],
        }
    )
    again = load_levels_config(write(tmp_path, dump_levels_config(config)))
    assert again == config and again.levels.objective[1].maximizes


def test_set_reads_values_as_toml():
    assert LevelsConfig().set("levels.seed=7").levels.seed == 7
    with pytest.raises(ConfigError, match="--set"):
        LevelsConfig().set("levels.seed", "seven")


PRESETS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("levels-*.toml"))


def test_the_level_presets_are_the_three_kinds_of_run_and_the_hunt_for_the_hardest():
    loaded = {path.stem: load_levels_config(path).levels for path in PRESETS}
    assert set(loaded) == {
        "levels-sokevo",
        "levels-nsga2",
        "levels-map-elites",
        "levels-hardest-8x8",
    }
    hardest = loaded["levels-hardest-8x8"]
    assert (hardest.boxes, hardest.max_boxes, hardest.init) == (9, 11, "file")
    assert hardest.init_levels == str(PRESETS[0].parents[1] / "levels" / "evolved-sokevo.xsb")
    assert loaded["levels-sokevo"].selection == "mu_plus_lambda"
    assert [t.label for t in loaded["levels-nsga2"].objective] == ["pushes", "floor"]
    assert loaded["levels-map-elites"].archive_run
    for settings in loaded.values():  # templates: the reverse search places boxes and player
        assert settings.start == "deepest" and settings.certificate.nodes is not None
        weights = settings.mutation.params["weights"]
        assert "move_box" not in weights and "move_player" not in weights
