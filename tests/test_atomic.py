"""Atomic writes name their target when it cannot be written (issue 55, item 6): a target
inside a regular file (``show --png FILE/x.png``) raised NotADirectoryError from the cleanup
of the temporary file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.atomic import WriteFailed, write_bytes_atomic, write_text_atomic
from evosoko.cli import app

SEEDS = Path(__file__).resolve().parents[1] / "levels" / "seeds.xsb"


@pytest.mark.parametrize("write", [write_bytes_atomic, write_text_atomic])
def test_a_target_inside_a_regular_file_is_one_error(tmp_path, write):
    (tmp_path / "file").write_text("x")
    target = tmp_path / "file" / "x.png"
    with pytest.raises(WriteFailed, match="cannot write this file: Not a directory") as caught:
        write(target, b"data" if write is write_bytes_atomic else "data")
    assert caught.value.path == str(target)


def test_show_png_inside_a_regular_file_is_one_error_line(tmp_path):
    (tmp_path / "file").write_text("x")
    target = tmp_path / "file" / "x.png"
    result = CliRunner().invoke(app, ["show", str(SEEDS), "-l", "1", "--png", str(target)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == f"error: {target}: cannot write this file: Not a directory\n"
