"""Small hostile inputs of issue 17: ``--fps nan`` was a traceback and out-of-range values were
clamped silently; a configuration with a UTF-8 byte-order mark was refused (level files with
one were read); file-level errors carried no line where one exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.config import load_config
from evosoko.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "levels" / "seeds.xsb"


@pytest.mark.parametrize("fps", ["nan", "inf", "0", "0.5", "51", "-3"])
def test_gif_frame_rates_out_of_range_are_refused(tmp_path, fps):
    result = CliRunner().invoke(
        app,
        ["show", str(SEEDS), "-l", "1", "--solution", "LdrdL", "--gif", str(tmp_path / "a.gif"),
         "--fps", fps],
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "--fps must be between 1 and 50" in result.stderr
    assert not (tmp_path / "a.gif").exists()


def test_a_configuration_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (REPO / "configs" / "default.toml").read_bytes())
    with_mark, without = load_config(path), load_config(REPO / "configs" / "default.toml")
    assert with_mark.ga == without.ga and with_mark.run.name == without.run.name


def test_a_configuration_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes(b'[run]\nname = "ok"\nseed = 1\ntitle = "caf\xe9"\n')
    with pytest.raises(ConfigError, match="byte 0xe9") as caught:
        load_config(path)
    assert caught.value.line == 4


def test_a_configuration_that_is_a_folder_is_one_error(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
