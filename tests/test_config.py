"""Tests of the run configuration: defaults, typos, overrides, round trips, line numbers."""

from __future__ import annotations

import pytest

from evosoko.config import (
    OVERRIDE_SOURCE,
    Config,
    dump_config,
    load_config,
    locate_key,
    parse_override,
)
from evosoko.errors import ConfigError

EXAMPLE = """\
# an example run
[run]
name = "example"
seed = 7
select = ["seed000-case3", 2]

[run.budget]
generations = 50

[ga]
encoding = "moves"
population = 40

[ga.mutation]
replace_rate = 0.05

[parallel]
backend = "processes"
workers = 2
"""


def write(tmp_path, text: str, name: str = "run.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_default_is_valid_and_loads_from_no_file():
    config = load_config(None)
    assert config == Config()
    assert config.ga.encoding in ("moves", "pushes")
    assert config.run.budget.seconds is not None


def test_example_file_is_read(tmp_path):
    config = load_config(write(tmp_path, EXAMPLE))
    assert config.run.name == "example"
    assert config.run.select == ["seed000-case3", 2]
    assert config.run.budget.generations == 50
    assert config.ga.encoding == "moves"
    assert config.ga.mutation.replace_rate == 0.05
    assert config.ga.mutation.insert_rate == Config().ga.mutation.insert_rate
    assert config.parallel.backend == "processes"


def test_typo_is_rejected_with_suggestion_and_line(tmp_path):
    path = write(tmp_path, EXAMPLE.replace("population = 40", "populaton = 40"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    assert "populaton" in error.message
    assert "did you mean 'ga.population'" in error.message
    assert error.path == str(path)
    assert error.line == 12


def test_typo_in_nested_table_points_at_its_line(tmp_path):
    path = write(tmp_path, EXAMPLE.replace("replace_rate", "replace_rat"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "ga.mutation.replace_rate" in caught.value.message
    assert caught.value.line == 15


def test_key_in_the_wrong_table_suggests_where_it_belongs(tmp_path):
    path = write(tmp_path, "[ga]\nworkers = 3\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "parallel.workers" in caught.value.message
    assert caught.value.line == 2


def test_type_error_names_key_expected_type_and_line(tmp_path):
    path = write(tmp_path, EXAMPLE.replace("seed = 7", 'seed = "seven"'))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = caught.value.message
    assert "run.seed" in message and "integer" in message and "'seven'" in message
    assert caught.value.line == 4


def test_bad_choice_lists_the_valid_ones(tmp_path):
    path = write(tmp_path, EXAMPLE.replace('"moves"', '"jumps"'))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "'moves'" in caught.value.message and "'pushes'" in caught.value.message
    assert caught.value.line == 11


def test_toml_syntax_error_has_line(tmp_path):
    path = write(tmp_path, '[run]\nname = "a"\nseed = = 3\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.line == 3
    assert "TOML" in caught.value.message


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "absent.toml")
    assert caught.value.path.endswith("absent.toml")


def test_cross_field_rules():
    with pytest.raises(ConfigError, match="min_length"):
        load_config(None, ["ga.min_length=50", "ga.max_length=10"])
    with pytest.raises(ConfigError, match="at least one"):
        load_config(None, ["run.budget.seconds=none"])
    with pytest.raises(ConfigError, match="1-based"):
        load_config(None, ["run.select=[0]"])
    with pytest.raises(ConfigError, match="backend"):
        load_config(None, ["parallel.backend=dask"])


@pytest.mark.parametrize(
    ("text", "keys", "value"),
    [
        ("ga.encoding=pushes", ("ga", "encoding"), "pushes"),
        ("parallel.workers=2", ("parallel", "workers"), 2),
        ("ga.mutation.replace_rate=0.25", ("ga", "mutation", "replace_rate"), 0.25),
        ("output.plots=false", ("output", "plots"), False),
        ('run.select=["seed000-case3", 4]', ("run", "select"), ["seed000-case3", 4]),
        ('run.name="two words"', ("run", "name"), "two words"),
        ("run.name = spaced ", ("run", "name"), "spaced"),
        ("run.levels=../levels/a.xsb", ("run", "levels"), "../levels/a.xsb"),
    ],
)
def test_parse_override(text, keys, value):
    assert parse_override(text) == (keys, value)


@pytest.mark.parametrize("text", ["novalue", "=3", "a..b=1", "a b=1"])
def test_malformed_override(text):
    with pytest.raises(ConfigError) as caught:
        parse_override(text)
    assert caught.value.path == OVERRIDE_SOURCE


def test_overrides_apply_on_top_of_the_file(tmp_path):
    config = load_config(
        write(tmp_path, EXAMPLE),
        [
            "ga.encoding=pushes",
            "parallel.workers=1",
            "run.budget.seconds=none",
            "ga.crossover.kind=block",
            'run.select=["x"]',
        ],
    )
    assert config.ga.encoding == "pushes"
    assert config.ga.population == 40
    assert config.parallel.workers == 1
    assert config.run.budget.seconds is None
    assert config.run.budget.generations == 50
    assert config.ga.crossover.kind == "block"
    assert config.run.select == ["x"]


def test_override_errors_name_the_override(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_config(None, ["ga.encodng=moves"])
    assert caught.value.path == OVERRIDE_SOURCE
    assert "did you mean 'ga.encoding'" in caught.value.message
    with pytest.raises(ConfigError, match="not a table"):
        load_config(write(tmp_path, EXAMPLE), ["ga.population.size=3"])
    with pytest.raises(ConfigError, match="integer"):
        load_config(None, ["ga.population=many"])


def test_dump_then_load_round_trips(tmp_path):
    original = load_config(
        write(tmp_path, EXAMPLE),
        ["run.budget.seconds=none", "hybrid.enabled=true", "hybrid.memetic_every=5"],
    )
    text = dump_config(original)
    again = load_config(write(tmp_path, text, "resolved.toml"))
    assert again == original
    assert dump_config(again) == text


def test_default_dump_round_trips(tmp_path):
    assert load_config(write(tmp_path, dump_config(Config()))) == Config()


def test_levels_resolved_against_the_config_directory(tmp_path, monkeypatch):
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "mine.xsb").write_text("#####\n#@$.#\n#####\n")
    monkeypatch.chdir(tmp_path)
    config = load_config(write(folder, '[run]\nlevels = "mine.xsb"\n'))
    assert config.run.levels == str((folder / "mine.xsb").resolve())
    missing = load_config(write(folder, '[run]\nlevels = "nowhere.xsb"\n', "b.toml"))
    assert missing.run.levels == "nowhere.xsb"


def test_locate_key_handles_dotted_keys_and_tables():
    text = '[run]\nbudget.seconds = 3\n\n[ga.mutation]\n  replace_rate = 0.1\n"quoted" = 1\n'
    assert locate_key(text, ("run", "budget", "seconds")) == 2
    assert locate_key(text, ("ga", "mutation", "replace_rate")) == 5
    assert locate_key(text, ("ga", "mutation", "quoted")) == 6
    assert locate_key(text, ("ga", "mutation", "absent")) == 4
    assert locate_key(text, ("output", "dir")) is None


def test_every_field_is_documented():
    def walk(model):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            annotation = field.annotation
            if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
                walk(annotation)

    walk(Config)
